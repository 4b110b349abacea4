/**
 * Usage meters: the catalog, the allowance rule, and the statements that admit a
 * request, settle it, charge a task and refund one. Every billing rule is SQL written
 * here, once: the allowance an account has on a meter (allowanceOf) and what a
 * block-mode meter can cover (covers).
 *
 * A meter row (usage_meters) is an account's meter in one period: `used` is what was
 * charged and always equals the sum of its ledger rows; `reserved` is what requests in
 * flight hold, the sum of its meter_reservations.
 */
import { billingColumns, type Account, type Plan } from './accounts.ts'
import type { Db } from './db.ts'
import type { Period, PeriodFields } from './periods.ts'
import { countHits, type Limit } from './rate-limits.ts'

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

export type MeterKey = { accountId: string; plan: Plan; meter: Meter; period: Period }

/** One usage_meters row: an account's meter in the period that starts at period.start. */
export type MeterRow = { accountId: string; meter: Meter; period: { start: Date } }

export type Charge = { requestId: string | null; endpoint: string | null }

type Fragment = ReturnType<Db>

/**
 * How long a reservation holds its units if its request never settles: a process
 * that died with requests in flight gives their units back this long after.
 */
export const RESERVATION_SECONDS = 600

/**
 * A CTE that lets the statement's transaction commit without waiting for its WAL to
 * reach the disk (synchronous_commit off, for this transaction only; the statement must
 * read it). Admission and settlement are two commits on every metered request, and a
 * flush costs several milliseconds on a plain disk. A crash of Postgres may lose the
 * last fraction of a second of them: whole statements, in order, so a lost settlement
 * takes its ledger row with it and the meter row still equals its ledger.
 */
const noFlush = (db: Db) => db`no_flush as (select set_config('synchronous_commit', 'off', true))`

/**
 * The allowance of account `a` (its id and plan) on meter `n.meter`, as `al`: a
 * lateral join for a statement that has both in scope. An account's negotiated
 * allowance wins over its plan's. Legacy accounts have neither and are uncapped; an
 * enterprise meter nobody negotiated is closed (0, block) until an admin sets it,
 * rather than open without limit.
 */
const allowanceOf = (db: Db) => db`
  cross join lateral (
    select
      case when a.plan = 'legacy' then null when aa.account_id is not null then aa.included when pm.plan_key is not null then pm.included else 0 end::float8 as included,
      case when a.plan = 'legacy' then null when aa.account_id is not null then aa.overage_mode when pm.plan_key is not null then pm.overage_mode else 'block' end as overage_mode,
      case when a.plan = 'legacy' then null when aa.account_id is not null then aa.overage_cents_per_unit when pm.plan_key is not null then pm.overage_cents_per_unit end::text as overage_cents_per_unit
    from (select) one
    left join account_allowances aa on aa.account_id = a.id and aa.meter = n.meter
    left join plan_meters pm on pm.plan_key = a.plan and pm.meter = n.meter
  ) al`

/**
 * The cap rule: `units` more fit on meter row `m` (its used and reserved) under
 * allowance `al`. Block mode takes nothing beyond the allowance, counting what
 * requests in flight hold; meter mode and legacy accounts take everything.
 */
const covers = (db: Db, units: number) => db`(al.overage_mode is distinct from 'block' or m.used + m.reserved + ${units} <= al.included)`

/**
 * The CTEs that lock a meter row (account, meter, period start; each a value or a SQL
 * expression) with SELECT … FOR UPDATE when `gate` holds: `meter` is the row as
 * locked, `lapsed` the reservations on it that lapsed, deleted now, and `m` the row
 * with their units given back, which is what the cap rule reads. SKIP LOCKED: a
 * reservation another statement is deleting (its settlement, or another admission's
 * sweep) is that statement's to give back, and waiting for it could deadlock.
 */
const lockedRow = (db: Db, account: string | Fragment, meter: string | null, start: Date, gate: Fragment) => db`
  meter as (
    select um.used, um.reserved from usage_meters um
    where um.account_id = ${account} and um.meter = ${meter} and um.period_start = ${start} and ${gate}
    for update
  ),
  lapsed as (
    delete from meter_reservations where id in (
      select id from meter_reservations
      where account_id = ${account} and meter = ${meter} and period_start = ${start} and expires_at <= now()
        and exists (select from meter)
      for update skip locked)
    returning units
  ),
  m as (select meter.used, meter.reserved - coalesce((select sum(units) from lapsed), 0) as reserved from meter)`

export type AdmitRequest = {
  /** the key's SHA-256 (a request with an API key), or the account's id (a request with a JWT) */
  who: { keyHash: string } | { accountId: string }
  /** rate-limit windows; a window's bucket is its prefix and the key's id (`account:<id>` for a JWT) */
  limits: Limit[]
  /** an add-on the route needs */
  feature: string | null
  /**
   * The meter the route charges and the units to reserve on it, in `period`, which the
   * caller computed from `fields`: the period fields it believes the account has.
   */
  meter: { meter: Meter; units: number; period: Period; fields: PeriodFields } | null
}

export type Admitted = {
  account: Account
  /**
   * Nothing was counted or reserved: the account's period fields are not the ones the
   * period was computed from (`account` has them now), or the meter row had to be
   * created first. Admit again.
   */
  again: boolean
  /** each window's count, this request included, and the ms until it ends, in the order asked */
  hits: number[]
  resetMs: number[]
  /** every window had room and the account has the route's add-on */
  passed: boolean
  /** the reservation made, to settle; null when none was made or none was needed */
  reservation: string | null
  /** the meter before this request's reservation: as locked, when a reservation was tried */
  state: MeterState | null
}

type AdmitRow = Account & {
  again: boolean
  hits: number[]
  reset_ms: number[]
  passed: boolean
  reservation: string | null
  used: number
  reserved: number
  included: number | null
  overage_mode: OverageMode | null
  overage_cents_per_unit: string | null
}

const noFields: PeriodFields = { period_start: null, period_end: null, trial_start: null, trial_end: null }

/**
 * Admits a request in one statement:
 *
 * 1. finds the key by its hash: a revoked key, or one whose account is gone, finds nothing;
 * 2. counts the request against each rate-limit window (countHits);
 * 3. when every window has room and the account has the route's add-on, locks the
 *    meter row, and reserves the units on it if the cap rule lets them in.
 *
 * Steps 2 and 3 run only when the period the caller computed is the account's, and
 * the meter row exists (it is created on the way otherwise): `again` says to ask once
 * more. The meter row is locked only once the windows are counted (its gate reads
 * them), so every admission takes its row locks in one order: rate limits, then the
 * meter. Null when there is no such key or account.
 */
export async function admit(db: Db, r: AdmitRequest): Promise<Admitted | null> {
  const byKey = 'keyHash' in r.who
  const found = byKey
    ? db`api_keys k join accounts a on a.id = k.account_id where k.key_hash = ${(r.who as { keyHash: string }).keyHash} and k.revoked_at is null`
    : db`accounts a where a.id = ${(r.who as { accountId: string }).accountId}`
  const meter = r.meter?.meter ?? null
  const units = r.meter?.units ?? 0
  const period = r.meter?.period ?? { start: new Date(0), end: new Date(0) }
  const f = r.meter?.fields ?? noFields
  const [out] = await db<AdmitRow[]>`
    with ${noFlush(db)},
    a as (
      select ${billingColumns(db)}, ${byKey ? db`k.id::text` : db`null::text`} as key_id,
        ${meter}::text is null
          -- to the millisecond, as the caller read them (JavaScript dates)
          or (date_trunc('milliseconds', a.period_start), date_trunc('milliseconds', a.period_end),
              date_trunc('milliseconds', a.trial_start), date_trunc('milliseconds', a.trial_end))
            is not distinct from (${f.period_start}::timestamptz, ${f.period_end}::timestamptz, ${f.trial_start}::timestamptz, ${f.trial_end}::timestamptz)
          as period_holds
      from ${found}
    ),
    n as (select ${meter}::text as meter),
    existing as (
      select um.used, um.reserved from usage_meters um, a, n
      where um.account_id = a.id and um.meter = n.meter and um.period_start = ${period.start}
    ),
    created as (
      insert into usage_meters (account_id, meter, period_start, period_end)
      select a.id, n.meter, ${period.start}, ${period.end} from a, n
      where n.meter is not null and ${units}::int > 0 and a.period_holds and not exists (select from existing)
      on conflict do nothing
    ),
    ready as (
      select a.id, coalesce(a.key_id, 'account:' || a.id) as key_id from a
      where a.period_holds and (${units}::int = 0 or exists (select from existing))
    ),
    rules as (
      select rule.i, rule.prefix || ready.key_id as bucket, rule.lim, rule.w as window_seconds
      from ready, unnest(${r.limits.map((l) => l.prefix)}::text[], ${r.limits.map((l) => l.limit)}::int[], ${r.limits.map((l) => l.windowSeconds)}::int[])
        with ordinality as rule(prefix, lim, w, i)
    ),
    counted as (${countHits(db, db`select bucket, window_seconds from rules`)}),
    windows as (select rules.i, rules.lim, counted.hits, counted.reset_ms from rules join counted using (bucket)),
    passed as (
      select a.id from a join ready using (id)
      where not exists (select from windows where hits > lim)
        and (${r.feature}::text is null or ${r.feature}::text = any (a.features))
    ),
    ${lockedRow(db, db`(select id from passed)`, meter, period.start, db`${units}::int > 0`)},
    al as (select al.* from a, n ${allowanceOf(db)} where n.meter is not null),
    took as (
      update usage_meters um
      set reserved = m.reserved + case when ${covers(db, units)} then ${units}::int else 0 end, updated_at = now()
      from m, al
      where um.account_id = (select id from passed) and um.meter = ${meter} and um.period_start = ${period.start}
        and (${covers(db, units)} or exists (select from lapsed))
    ),
    held as (
      insert into meter_reservations (account_id, meter, period_start, units, expires_at)
      select (select id from passed), ${meter}, ${period.start}, ${units}::int, now() + make_interval(secs => ${RESERVATION_SECONDS})
      from m, al where ${covers(db, units)}
      returning id::text
    )
    select a.*,
      not exists (select from ready) as again,
      array(select hits from windows order by i) as hits,
      array(select reset_ms from windows order by i) as reset_ms,
      exists (select from passed) as passed,
      (select id from held) as reservation,
      coalesce((select used from m), (select used from existing), 0)::float8 as used,
      coalesce((select reserved from m), (select reserved from existing), 0)::float8 as reserved,
      al.included, al.overage_mode, al.overage_cents_per_unit
    from a cross join no_flush left join al on true`
  if (!out) return null
  const account: Account = {
    id: out.id, email: out.email, plan: out.plan, key_id: out.key_id, billing_source: out.billing_source,
    payments_customer_id: out.payments_customer_id, subscription_status: out.subscription_status,
    period_start: out.period_start, period_end: out.period_end, trial_start: out.trial_start, trial_end: out.trial_end, features: out.features,
  }
  return {
    account,
    again: out.again,
    hits: out.hits,
    resetMs: out.reset_ms,
    passed: out.passed,
    reservation: out.reservation,
    state: meter
      ? { included: out.included, overage_mode: out.overage_mode, overage_cents_per_unit: out.overage_cents_per_unit, used: out.used, reserved: out.reserved }
      : null,
  }
}

/**
 * Settles a request, in one statement: its reservation (if it still holds one) goes
 * back, the units it cost are charged, and the ledger gets a row for them. A failed
 * request costs 0. Returns the meter row's used and reserved afterwards.
 */
export async function settle(db: Db, row: MeterRow, reservation: string | null, units: number, c: Charge) {
  const [out] = await db<{ used: number; reserved: number }[]>`
    with ${noFlush(db)},
    released as (
      delete from meter_reservations where id = ${reservation}::bigint returning units
    ),
    um as (
      update usage_meters
      set used = used + ${units}::int, reserved = reserved - coalesce((select units from released), 0), updated_at = now()
      where account_id = ${row.accountId} and meter = ${row.meter} and period_start = ${row.period.start}
      returning used, reserved
    ),
    ledger as (
      insert into usage_ledger (account_id, meter, period_start, units, kind, endpoint, requests, request_ids, request_units, request_at_ms)
      select ${row.accountId}, ${row.meter}, ${row.period.start}, ${units}::int, 'charge', ${c.endpoint}, 1,
        array[${c.requestId}::text], array[${units}::bigint], array[(extract(epoch from clock_timestamp()) * 1000)::bigint]
      where ${units}::int > 0
    )
    select used::float8, reserved::float8 from um, no_flush`
  return out ?? { used: 0, reserved: 0 }
}

/**
 * Charges units at once rather than around a request: what creating a task costs (an
 * export's units), known only once its handler has counted them. Run it inside the
 * transaction that creates the task: the charge and the task commit together or not
 * at all. The cap rule is the admission's. `ok: false` is a block-mode refusal
 * (nothing charged); `state` is the meter as it stands afterwards.
 */
export async function chargeUnits(db: Db, k: MeterKey, units: number, c: Charge) {
  await db`
    insert into usage_meters (account_id, meter, period_start, period_end)
    values (${k.accountId}, ${k.meter}, ${k.period.start}, ${k.period.end})
    on conflict do nothing`
  const [out] = await db<(MeterState & { ok: boolean })[]>`
    with a as (select id, plan from accounts where id = ${k.accountId}),
    n as (select ${k.meter}::text as meter),
    ${lockedRow(db, k.accountId, k.meter, k.period.start, db`true`)},
    al as (select al.* from a, n ${allowanceOf(db)}),
    took as (
      update usage_meters um
      set used = m.used + case when ${covers(db, units)} then ${units}::int else 0 end, reserved = m.reserved, updated_at = now()
      from m, al
      where um.account_id = ${k.accountId} and um.meter = ${k.meter} and um.period_start = ${k.period.start}
    ),
    ledger as (
      insert into usage_ledger (account_id, meter, period_start, units, kind, endpoint, requests, request_ids, request_units, request_at_ms)
      select ${k.accountId}, ${k.meter}, ${k.period.start}, ${units}::int, 'charge', ${c.endpoint}, 1,
        array[${c.requestId}::text], array[${units}::bigint], array[(extract(epoch from clock_timestamp()) * 1000)::bigint]
      from m, al where ${units}::int > 0 and ${covers(db, units)}
    )
    select ${covers(db, units)} as ok, m.used::float8, m.reserved::float8, al.included, al.overage_mode, al.overage_cents_per_unit from m, al`
  const state: MeterState = { included: out.included, overage_mode: out.overage_mode, overage_cents_per_unit: out.overage_cents_per_unit, used: out.used, reserved: out.reserved }
  if (!out.ok) return { ok: false as const, state, remaining: Math.max(0, (state.included ?? 0) - state.used - state.reserved) }
  return { ok: true as const, state: { ...state, used: state.used + units } }
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

/** Every meter of the account for one period, alphabetically, as the summary lists them. */
export async function listMeterStates(db: Db, accountId: string, period: Period) {
  return db<(MeterState & { meter: Meter })[]>`
    select n.meter, coalesce(um.used, 0)::float8 as used, coalesce(um.reserved, 0)::float8 as reserved,
      al.included, al.overage_mode, al.overage_cents_per_unit
    from accounts a
    cross join unnest(${meterNames}::text[]) as n(meter)
    ${allowanceOf(db)}
    left join usage_meters um on um.account_id = a.id and um.meter = n.meter and um.period_start = ${period.start}
    where a.id = ${accountId}
    order by n.meter`
}

/**
 * Gives back every reservation that lapsed by `now`, on every meter row: an admission
 * gives back those of its own row, this the rest (the monthly job). Returns how many.
 */
export async function releaseLapsed(db: Db, now = new Date()) {
  const [row] = await db<{ released: number }[]>`
    with lapsed as (
      delete from meter_reservations where id in (
        select id from meter_reservations where expires_at <= ${now} for update skip locked)
      returning account_id, meter, period_start, units
    ), given as (
      update usage_meters um set reserved = um.reserved - l.units, updated_at = now()
      from (select account_id, meter, period_start, sum(units) as units from lapsed group by 1, 2, 3) l
      where um.account_id = l.account_id and um.meter = l.meter and um.period_start = l.period_start
    )
    select count(*)::int as released from lapsed`
  return row.released
}
