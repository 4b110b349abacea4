/**
 * Usage meters: the catalog of meters, what an account's plan allows on each, and the
 * reserve → settle (or release) cycle on the usage_meters row of the current period.
 * `used` on a row is settled usage and always equals the sum of its ledger rows;
 * `reserved` is what requests in flight hold.
 */
import type { Plan } from './accounts.ts'
import type { Db, Sql } from './db.ts'
import type { Period } from './periods.ts'

export const meters = {
  m_company_api_calls: { display_name: 'Company API calls', unit: 'companies', feature: 'company_api' },
  m_hiring_manager_contacts: { display_name: 'Hiring manager contacts', unit: 'contacts', feature: 'hiring_manager_contacts' },
  m_insights_calls: { display_name: 'Insights calls', unit: 'calls', feature: 'insights' },
  m_jobs_api_calls: { display_name: 'Jobs API calls', unit: 'jobs', feature: 'jobs_api' },
  m_salary_benchmarks: { display_name: 'Salary benchmarks', unit: 'requests', feature: 'salary_benchmark' },
} as const
export type Meter = keyof typeof meters
export const meterNames = Object.keys(meters).sort() as Meter[]

/** Every plan covers these; anything else is an add-on granted per account. */
export const planFeatures = ['jobs_api', 'company_api', 'vector_api', 'export', 'insights', 'salary_benchmark'] as const
export const addOnFeatures = ['hiring_manager_contacts'] as const
export type Feature = (typeof planFeatures)[number] | (typeof addOnFeatures)[number]

export type OverageMode = 'block' | 'meter'

/** null included/mode: a legacy account, metered for the record but never capped. */
export type Allowance = { included: number | null; overage_mode: OverageMode | null; overage_cents_per_unit: string | null }
export type MeterState = Allowance & { used: number; reserved: number }

type AllowanceColumns = {
  a_included: number | null
  a_mode: OverageMode | null
  a_price: string | null
  p_included: number | null
  p_mode: OverageMode | null
  p_price: string | null
}

/**
 * An account's negotiated allowance wins over its plan's. Legacy accounts have neither
 * and are uncapped; an enterprise meter nobody negotiated is closed (0, block) until
 * an admin sets it, rather than open without limit.
 */
export function resolveAllowance(plan: Plan, c: AllowanceColumns): Allowance {
  if (plan === 'legacy') return { included: null, overage_mode: null, overage_cents_per_unit: null }
  if (c.a_mode) return { included: Number(c.a_included), overage_mode: c.a_mode, overage_cents_per_unit: c.a_price }
  if (c.p_mode) return { included: Number(c.p_included), overage_mode: c.p_mode, overage_cents_per_unit: c.p_price }
  return { included: 0, overage_mode: 'block', overage_cents_per_unit: null }
}

/** The allowance columns for one meter; needs `aa` and `pm` joined as below. */
const allowanceColumns = (db: Db) => db`
  aa.included::int as a_included, aa.overage_mode as a_mode, aa.overage_cents_per_unit::text as a_price,
  pm.included::int as p_included, pm.overage_mode as p_mode, pm.overage_cents_per_unit::text as p_price`

export type MeterKey = { accountId: string; plan: Plan; meter: Meter; period: Period }

type LockedRow = AllowanceColumns & { used: number; reserved: number }

async function lockMeterRow(tx: Db, k: MeterKey) {
  const [row] = await tx<LockedRow[]>`
    select m.used::int, m.reserved::int, ${allowanceColumns(tx)}
    from usage_meters m
    left join account_allowances aa on aa.account_id = m.account_id and aa.meter = m.meter
    left join plan_meters pm on pm.plan_key = ${k.plan} and pm.meter = m.meter
    where m.account_id = ${k.accountId} and m.meter = ${k.meter} and m.period_start = ${k.period.start}
    for update of m`
  return row
}

export type Reservation = { ok: boolean; state: MeterState }

/**
 * Reserves `cost` units in one short transaction: lock the period's row (creating it on
 * the period's first request), check the cap, add to reserved. Block mode refuses when
 * settled plus in-flight usage plus this cost would pass the allowance; the row lock
 * makes parallel requests take turns, so they cannot overshoot.
 *
 * It needs the root connection: sql.begin is not available inside a transaction.
 */
export async function reserveUsage(db: Db, k: MeterKey, cost: number): Promise<Reservation> {
  if (!('begin' in db)) throw new Error('reserveUsage needs the root connection, not a transaction')
  return (db as Sql).begin(async (tx) => {
    let row = await lockMeterRow(tx, k)
    if (!row) {
      await tx`
        insert into usage_meters (account_id, meter, period_start, period_end)
        values (${k.accountId}, ${k.meter}, ${k.period.start}, ${k.period.end})
        on conflict do nothing`
      row = await lockMeterRow(tx, k)
    }
    const allowance = resolveAllowance(k.plan, row)
    const fits = allowance.overage_mode !== 'block' || row.used + row.reserved + cost <= allowance.included!
    if (!fits) return { ok: false, state: { ...allowance, used: row.used, reserved: row.reserved } }
    await tx`
      update usage_meters set reserved = reserved + ${cost}, updated_at = now()
      where account_id = ${k.accountId} and meter = ${k.meter} and period_start = ${k.period.start}`
    return { ok: true, state: { ...allowance, used: row.used, reserved: row.reserved + cost } }
  })
}

export type Charge = { requestId: string | null; endpoint: string | null }

/**
 * Turns a reservation into a charge of `units` (at most what was reserved) and releases
 * the rest, writing the charge to the ledger in the same statement. Returns the row's
 * used and reserved afterwards.
 */
export async function settleUsage(db: Db, k: MeterKey, reserved: number, units: number, c: Charge) {
  const [row] = await db<{ used: number; reserved: number }[]>`
    with m as (
      update usage_meters set used = used + ${units}, reserved = reserved - ${reserved}, updated_at = now()
      where account_id = ${k.accountId} and meter = ${k.meter} and period_start = ${k.period.start}
      returning used, reserved
    ), charged as (
      insert into usage_ledger (account_id, meter, period_start, units, kind, request_id, endpoint)
      select ${k.accountId}, ${k.meter}, ${k.period.start}, ${units}, 'charge', ${c.requestId}, ${c.endpoint}
      where ${units}::bigint > 0
    )
    select used::int, reserved::int from m`
  return row
}

/** Gives back a whole reservation: the request failed before it was worth anything. */
export async function releaseUsage(db: Db, k: MeterKey, reserved: number) {
  await db`
    update usage_meters set reserved = reserved - ${reserved}, updated_at = now()
    where account_id = ${k.accountId} and meter = ${k.meter} and period_start = ${k.period.start}`
}

/**
 * Refunds units charged earlier in the period (a failed export gives back what its
 * creation charged), with a refund row in the ledger. Never below zero.
 */
export async function refundUsage(db: Db, k: MeterKey, units: number, c: Charge) {
  const [row] = await db<{ refunded: number }[]>`
    with m as (
      select used from usage_meters
      where account_id = ${k.accountId} and meter = ${k.meter} and period_start = ${k.period.start}
      for update
    ), amount as (
      select least(used, ${units}::bigint) as units from m
    ), updated as (
      update usage_meters u set used = u.used - amount.units, updated_at = now() from amount
      where u.account_id = ${k.accountId} and u.meter = ${k.meter} and u.period_start = ${k.period.start}
    ), refunded as (
      insert into usage_ledger (account_id, meter, period_start, units, kind, request_id, endpoint)
      select ${k.accountId}, ${k.meter}, ${k.period.start}, -amount.units, 'refund', ${c.requestId}, ${c.endpoint}
      from amount where amount.units > 0
    )
    select coalesce((select units from amount), 0)::int as refunded`
  return row.refunded
}

/** The meter as it stands, without locking: for zero-cost routes' headers. */
export async function findMeterState(db: Db, k: MeterKey): Promise<MeterState> {
  const [row] = await db<LockedRow[]>`
    select coalesce(m.used, 0)::int as used, coalesce(m.reserved, 0)::int as reserved, ${allowanceColumns(db)}
    from (select ${k.meter}::text as meter) n
    left join usage_meters m on m.account_id = ${k.accountId} and m.meter = n.meter and m.period_start = ${k.period.start}
    left join account_allowances aa on aa.account_id = ${k.accountId} and aa.meter = n.meter
    left join plan_meters pm on pm.plan_key = ${k.plan} and pm.meter = n.meter`
  return { ...resolveAllowance(k.plan, row), used: row.used, reserved: row.reserved }
}

/** Every meter of the account for one period, alphabetically, as the summary lists them. */
export async function listMeterStates(db: Db, accountId: string, plan: Plan, period: Period) {
  const rows = await db<(LockedRow & { meter: Meter })[]>`
    select n.meter, coalesce(m.used, 0)::int as used, coalesce(m.reserved, 0)::int as reserved, ${allowanceColumns(db)}
    from unnest(${meterNames}::text[]) as n(meter)
    left join usage_meters m on m.account_id = ${accountId} and m.meter = n.meter and m.period_start = ${period.start}
    left join account_allowances aa on aa.account_id = ${accountId} and aa.meter = n.meter
    left join plan_meters pm on pm.plan_key = ${plan} and pm.meter = n.meter
    order by n.meter`
  return rows.map((r) => ({ meter: r.meter, ...resolveAllowance(plan, r), used: r.used, reserved: r.reserved }))
}

/** The ledger's total for one meter row: equals the row's used. */
export async function sumLedger(db: Db, k: Pick<MeterKey, 'accountId' | 'meter' | 'period'>) {
  const [row] = await db<{ units: number; charges: number; refunds: number }[]>`
    select coalesce(sum(units), 0)::int as units,
      count(*) filter (where kind = 'charge')::int as charges,
      count(*) filter (where kind = 'refund')::int as refunds
    from usage_ledger
    where account_id = ${k.accountId} and meter = ${k.meter} and period_start = ${k.period.start}`
  return row
}
