/**
 * Usage meters: the catalog of meters, what an account's plan allows on each, and the
 * reserve → settle (or release) cycle on the usage_meters row of the current period.
 * `used` on a row is settled usage and always equals the sum of its ledger rows;
 * `reserved` is what requests in flight hold.
 */
import type { Plan } from './accounts.ts'
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

type LockedRow = AllowanceColumns & { used: number; reserved: number }

/**
 * One request's admission, as meter_admit (migration 0002) takes it: the cached key to
 * check, the rate-limit buckets to count, and what to reserve on which meter row.
 */
export type AdmitItem = {
  /** the API key's id and the account's billing_fingerprint when read; null for a JWT */
  keyId: string | null
  fingerprint: string | null
  buckets: { bucket: string; windowSeconds: number; limit: number }[]
  accountId: string
  plan: Plan
  /** null or cost 0: nothing to reserve */
  reserve: { meter: Meter; period: Period; cost: number } | null
}

export type Admission =
  /** the cached key was revoked or its account changed: authenticate again */
  | { kind: 'stale' }
  | {
      kind: 'admitted' | 'limited' | 'reserved' | 'refused'
      /** per bucket, in the item's order: its count in the window, this request included */
      hits: { hits: number; reset_ms: number }[]
      /** the meter row after this request's reservation (reserved), or as it stood (refused) */
      state: MeterState | null
    }

type AdmitRow = {
  o_i: number
  o_kind: 'stale' | 'rl' | 'admitted' | 'limited' | 'reserved' | 'refused'
  o_j: number | null
  o_hits: number | null
  o_reset_ms: number | null
  o_used: string | null
  o_reserved: string | null
  o_included: string | null
  o_mode: OverageMode | null
  o_price: string | null
}

/**
 * Admits a batch of requests in one statement: each key still valid, each request
 * counted against its rate limits, and each admitted request's largest cost reserved
 * with SELECT … FOR UPDATE on its meter row (in meter_admit, which takes locks in one
 * global order). Block mode refuses a request when settled plus in-flight usage plus
 * its cost would pass the allowance; the row lock makes parallel requests, from this
 * process or another, take turns, so they cannot overshoot.
 */
export async function admitBatch(db: Db, items: AdmitItem[]): Promise<Admission[]> {
  const json = items.map((it) => ({
    k: it.keyId,
    f: it.fingerprint,
    b: it.buckets.map((b) => b.bucket),
    w: it.buckets.map((b) => b.windowSeconds),
    l: it.buckets.map((b) => b.limit),
    a: it.accountId,
    p: it.plan,
    m: it.reserve && it.reserve.cost > 0 ? it.reserve.meter : null,
    s: it.reserve?.period.start.toISOString() ?? null,
    e: it.reserve?.period.end.toISOString() ?? null,
    c: it.reserve?.cost ?? 0,
  }))
  const rows = await db<AdmitRow[]>`select * from meter_admit(${db.json(json)}::jsonb)`
  const out: Admission[] = items.map(() => ({ kind: 'admitted', hits: [], state: null }))
  for (const r of rows) {
    const a = out[r.o_i - 1]
    if (r.o_kind === 'stale') out[r.o_i - 1] = { kind: 'stale' }
    else if (a.kind === 'stale') continue
    else if (r.o_kind === 'rl') a.hits[r.o_j! - 1] = { hits: r.o_hits!, reset_ms: r.o_reset_ms! }
    else {
      a.kind = r.o_kind
      if (r.o_kind === 'reserved' || r.o_kind === 'refused') {
        a.state = {
          included: r.o_included === null ? null : Number(r.o_included),
          overage_mode: r.o_mode,
          overage_cents_per_unit: r.o_price,
          used: Number(r.o_used),
          reserved: Number(r.o_reserved),
        }
      }
    }
  }
  return out
}

export type Charge = { requestId: string | null; endpoint: string | null }

export type SettleItem = { key: MeterKey; reserved: number; units: number; charge: Charge }

/**
 * Turns reservations into charges of `units` (at most what was reserved; 0 releases
 * the reservation) and writes each charge to the ledger, a batch in one statement
 * (meter_settle, same lock order as meter_admit). Returns each row's used and
 * reserved after the batch.
 */
export async function settleBatch(db: Db, items: SettleItem[]): Promise<{ used: number; reserved: number }[]> {
  const json = items.map((it) => ({
    a: it.key.accountId,
    m: it.key.meter,
    s: it.key.period.start.toISOString(),
    r: it.reserved,
    u: it.units,
    q: it.charge.requestId,
    ep: it.charge.endpoint,
  }))
  const rows = await db<{ o_i: number; o_used: string; o_reserved: string }[]>`select * from meter_settle(${db.json(json)}::jsonb)`
  const out: { used: number; reserved: number }[] = []
  for (const r of rows) out[r.o_i - 1] = { used: Number(r.o_used), reserved: Number(r.o_reserved) }
  return out
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
