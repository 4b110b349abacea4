/**
 * Usage meters: the catalog of meters, what an account's plan allows on each, and the
 * statements behind the API's leases (api/middleware/meter-leases.ts) on the
 * usage_meters row of the current period. `used` on a row is flushed usage and always
 * equals the sum of its ledger rows; `reserved` is what live leases hold.
 */
import { randomUUID } from 'node:crypto'
import type { Plan } from './accounts.ts'
import { numberArray, textArray, TextElements } from './array-literals.ts'
import type { Db } from './db.ts'
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

/** One usage_meters row: an account's meter in the period that starts at period.start. */
export type MeterRow = { accountId: string; meter: Meter; period: { start: Date } }

type LockedRow = AllowanceColumns & { used: number; reserved: number }

/** Units that live leases hold on a meter row; needs the row's keys as `n.meter` and the account id. */
const leased = (db: Db, accountId: string, periodStart: Date) => db`
  coalesce((select sum(l.units) from meter_leases l
    where l.account_id = ${accountId} and l.meter = n.meter and l.period_start = ${periodStart} and l.expires_at > now()), 0)::int`

/** One meter row a holder leases units on, as meter_grant (migration 0002) takes it. */
export type GrantItem = {
  key: MeterKey
  /** free units the holder gives back before the grant (after an account change) */
  release: number
  /** block mode: grant nothing unless this many units are free */
  need: number
  /** as many as this when they are free (always, in meter mode) */
  want: number
}

export type Grant = Allowance & {
  granted: number
  /** the row's settled usage, and the units other live leases hold, as of the grant */
  used: number
  others: number
}

/**
 * Grants leases on a batch of distinct meter rows in one statement: each row is locked
 * with SELECT … FOR UPDATE (rows in one global order) and, in block mode, a lease is
 * only granted out of units that nobody has used or leased, so holders cannot
 * overshoot between them.
 */
export async function grantLeases(db: Db, holder: string, ttlSeconds: number, items: GrantItem[]): Promise<Grant[]> {
  const rows = await db<{ o_i: number; o_granted: string; o_used: string; o_others: string; o_included: string | null; o_mode: OverageMode | null; o_price: string | null }[]>`
    select * from meter_grant(${holder}, ${ttlSeconds},
      ${items.map((i) => i.key.accountId)}::uuid[], ${items.map((i) => i.key.meter)}::text[],
      ${items.map((i) => i.key.period.start.toISOString())}::timestamptz[], ${items.map((i) => i.key.period.end.toISOString())}::timestamptz[],
      ${items.map((i) => i.key.plan)}::text[], ${items.map((i) => i.release)}::bigint[],
      ${items.map((i) => i.need)}::bigint[], ${items.map((i) => i.want)}::bigint[])`
  const out: Grant[] = []
  for (const r of rows) {
    out[r.o_i - 1] = {
      granted: Number(r.o_granted),
      used: Number(r.o_used),
      others: Number(r.o_others),
      included: r.o_included === null ? null : Number(r.o_included),
      overage_mode: r.o_mode,
      overage_cents_per_unit: r.o_price,
    }
  }
  return out
}

export type Charge = { requestId: string | null; endpoint: string | null }

/** Charges on one meter row from one endpoint, in the order they were settled: a ledger row at the flush. */
export type LedgerEntry = { endpoint: string | null; units: number[]; at: number[]; requestIds: TextElements }

/** A holder's change to one meter row: units charged since the last flush (with their ledger entries), free units given back. */
export type FlushItem = { key: MeterKey; units: number; release: number; charges: LedgerEntry[] }

/**
 * Moves a holder's settled charges from its leases to `used`, gives back released
 * units, writes the ledger and renews all of the holder's leases, in one statement
 * (meter_flush). Returns each row's used, and what other holders lease on it, afterwards.
 */
export async function flushUsage(db: Db, holder: string, ttlSeconds: number, items: FlushItem[]) {
  const groups: { item: number; entry: LedgerEntry }[] = []
  items.forEach((item, i) => item.charges.forEach((entry) => groups.push({ item: i + 1, entry })))
  const charges = (column: (e: LedgerEntry) => string) => `{${groups.map((g) => column(g.entry)).join(',')}}`
  const rows = await db<{ o_i: number; o_used: string; o_others: string }[]>`
    select * from meter_flush(${holder}, ${ttlSeconds},
      ${items.map((i) => i.key.accountId)}::uuid[], ${items.map((i) => i.key.meter)}::text[],
      ${items.map((i) => i.key.period.start.toISOString())}::timestamptz[], ${items.map((i) => i.units)}::bigint[], ${items.map((i) => i.release)}::bigint[],
      ${numberArray(groups.map((g) => g.item))}::int[], ${textArray(groups.map((g) => g.entry.endpoint))}::text[],
      ${numberArray(groups.map((g) => g.entry.units.length))}::int[],
      ${charges((e) => e.units.join(','))}::bigint[], ${charges((e) => e.at.join(','))}::bigint[],
      ${charges((e) => e.requestIds.toString())}::text[])`
  const out: { used: number; others: number }[] = []
  for (const r of rows) out[r.o_i - 1] = { used: Number(r.o_used), others: Number(r.o_others) }
  return out
}

/**
 * Charges units at once rather than through a process's lease: what creating a task
 * costs (an export's units). The units are granted to a one-off holder by meter_grant
 * and flushed by meter_flush, so a block-mode cap holds against every process's
 * leases and the ledger records the charge like any other. Run it inside the
 * transaction that creates the task: the charge and the task commit together or not
 * at all. `ok: false` is a block-mode refusal (nothing charged); `state` is the meter
 * as it stands afterwards.
 */
export async function chargeUnits(db: Db, k: MeterKey, units: number, c: Charge) {
  const holder = randomUUID()
  const [grant] = await grantLeases(db, holder, 60, [{ key: k, release: 0, need: units, want: units }])
  const state: MeterState = {
    included: grant.included,
    overage_mode: grant.overage_mode,
    overage_cents_per_unit: grant.overage_cents_per_unit,
    used: grant.used,
    reserved: grant.others,
  }
  if (grant.granted < units) {
    return { ok: false as const, state, remaining: Math.max(0, (grant.included ?? 0) - grant.used - grant.others) }
  }
  if (units > 0) {
    const requestIds = new TextElements()
    requestIds.push(c.requestId)
    await flushUsage(db, holder, 60, [{ key: k, units, release: 0, charges: [{ endpoint: c.endpoint, units: [units], at: [Date.now()], requestIds }] }])
  }
  return { ok: true as const, state: { ...state, used: grant.used + units } }
}

/** Where the billing_epoch sequence stands: it moves whenever a key, account or allowance changes. */
export async function billingEpoch(db: Db) {
  const [row] = await db<{ epoch: string }[]>`select (last_value * (is_called::int))::text as epoch from billing_epoch`
  return row.epoch
}

/**
 * Refunds units charged earlier in the period (a failed export gives back what its
 * creation charged), with a refund row in the ledger. Never below zero.
 */
export async function refundUsage(db: Db, k: MeterRow, units: number, c: Charge) {
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
      insert into usage_ledger (account_id, meter, period_start, units, kind, endpoint, requests, request_ids, request_units, request_at_ms)
      select ${k.accountId}, ${k.meter}, ${k.period.start}, -amount.units, 'refund', ${c.endpoint}, 1, array[${c.requestId}::text], array[-amount.units], array[(extract(epoch from now()) * 1000)::bigint]
      from amount where amount.units > 0
    )
    select coalesce((select units from amount), 0)::int as refunded`
  return row.refunded
}

/** The meter as it stands, without locking. */
export async function findMeterState(db: Db, k: MeterKey): Promise<MeterState> {
  const [row] = await db<LockedRow[]>`
    select coalesce(m.used, 0)::int as used, ${leased(db, k.accountId, k.period.start)} as reserved, ${allowanceColumns(db)}
    from (select ${k.meter}::text as meter) n
    left join usage_meters m on m.account_id = ${k.accountId} and m.meter = n.meter and m.period_start = ${k.period.start}
    left join account_allowances aa on aa.account_id = ${k.accountId} and aa.meter = n.meter
    left join plan_meters pm on pm.plan_key = ${k.plan} and pm.meter = n.meter`
  return { ...resolveAllowance(k.plan, row), used: row.used, reserved: row.reserved }
}

/** Every meter of the account for one period, alphabetically, as the summary lists them. */
export async function listMeterStates(db: Db, accountId: string, plan: Plan, period: Period) {
  const rows = await db<(LockedRow & { meter: Meter })[]>`
    select n.meter, coalesce(m.used, 0)::int as used, ${leased(db, accountId, period.start)} as reserved, ${allowanceColumns(db)}
    from unnest(${meterNames}::text[]) as n(meter)
    left join usage_meters m on m.account_id = ${accountId} and m.meter = n.meter and m.period_start = ${period.start}
    left join account_allowances aa on aa.account_id = ${accountId} and aa.meter = n.meter
    left join plan_meters pm on pm.plan_key = ${plan} and pm.meter = n.meter
    order by n.meter`
  return rows.map((r) => ({ meter: r.meter, ...resolveAllowance(plan, r), used: r.used, reserved: r.reserved }))
}

