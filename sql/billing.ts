/**
 * The plan catalog and the account's billing fields, as the portal, the admin CLI and
 * the monthly roll-over job read and change them.
 */
import type { Plan } from './accounts.ts'
import type { Db } from './db.ts'
import { releaseLapsed, type Meter, type OverageMode } from './meters.ts'

export type PlanRow = { key: Plan; lookup_key: string; display_name: string; monthly_price_cents: number }
export type PlanMeterRow = { plan_key: Plan; meter: Meter; included: number; overage_mode: OverageMode; overage_cents_per_unit: string | null }

export async function listPlans(db: Db) {
  const [plans, allowances] = await Promise.all([
    db<PlanRow[]>`select key, lookup_key, display_name, monthly_price_cents from plans order by sort_order`,
    db<PlanMeterRow[]>`
      select plan_key, meter, included::int, overage_mode, overage_cents_per_unit::text
      from plan_meters order by plan_key, meter`,
  ])
  return plans.map((p) => ({ ...p, meters: allowances.filter((a) => a.plan_key === p.key) }))
}

export async function updatePlan(db: Db, accountId: string, plan: Plan) {
  const result = await db`update accounts set plan = ${plan}, updated_at = now() where id = ${accountId}`
  return result.count > 0
}

/** A subscription period (status e.g. active), or null bounds to go back to the calendar month. */
export async function updatePeriod(db: Db, accountId: string, p: { start: Date | null; end: Date | null; status: string | null }) {
  const result = await db`
    update accounts set period_start = ${p.start}, period_end = ${p.end}, subscription_status = ${p.status}, updated_at = now()
    where id = ${accountId}`
  return result.count > 0
}

export async function updateTrial(db: Db, accountId: string, t: { start: Date | null; end: Date | null }) {
  const result = await db`
    update accounts set trial_start = ${t.start}, trial_end = ${t.end},
      subscription_status = case when ${t.start}::timestamptz is null then subscription_status else 'trialing' end,
      updated_at = now()
    where id = ${accountId}`
  return result.count > 0
}

export async function grantFeature(db: Db, accountId: string, feature: string) {
  const result = await db`
    update accounts set features = array_append(array_remove(features, ${feature}), ${feature}), updated_at = now()
    where id = ${accountId}`
  return result.count > 0
}

export async function revokeFeature(db: Db, accountId: string, feature: string) {
  const result = await db`
    update accounts set features = array_remove(features, ${feature}), updated_at = now() where id = ${accountId}`
  return result.count > 0
}

/** A negotiated allowance (enterprise); it overrides the plan's for this meter. */
export async function upsertAllowance(
  db: Db,
  accountId: string,
  a: { meter: Meter; included: number; overage_mode: OverageMode; overage_cents_per_unit: string | null },
) {
  await db`
    insert into account_allowances (account_id, meter, included, overage_mode, overage_cents_per_unit)
    values (${accountId}, ${a.meter}, ${a.included}, ${a.overage_mode}, ${a.overage_cents_per_unit})
    on conflict (account_id, meter) do update set
      included = excluded.included, overage_mode = excluded.overage_mode, overage_cents_per_unit = excluded.overage_cents_per_unit`
}

/**
 * The monthly job: records each subscription's current period on the account once the
 * stored one has ended, drops rate-limit windows that ended long ago, and gives back
 * reservations that lapsed on meter rows no request has reserved on since. Requests
 * compute the period themselves (sql/periods.ts), so this only keeps the stored
 * fields tidy for readers such as the summary's period_start and the admin CLI.
 */
export async function rollPeriods(db: Db, now = new Date()) {
  // the subscription's period, the trial set aside
  const rolled = await db`
    update accounts a set period_start = next.period_start, period_end = next.period_end, updated_at = now()
    from accounts o
    cross join lateral billing_period(null::timestamptz, null::timestamptz, o.period_start, o.period_end, ${now}::timestamptz) next
    where o.id = a.id and o.period_end <= ${now}`
  const pruned = await db`delete from rate_limits where window_end < ${now}::timestamptz - interval '1 hour'`
  return { rolled: rolled.count, pruned_rate_limits: pruned.count, released_reservations: await releaseLapsed(db, now) }
}
