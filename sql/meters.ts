/**
 * Usage meters: the catalog, the allowance rule, and the statements that admit a
 * request, settle it, charge a task and refund one. Every billing rule is SQL written
 * here, once: the allowance an account has on a meter (allowanceOf), what a block-mode
 * meter can cover (covers), what requests in flight hold on a row (held), and the one
 * guarded upsert that charges or reserves (take). The period comes from billing_period
 * (sql/periods.ts).
 *
 * A meter row (usage_meters) is an account's meter in one period: `used` is what was
 * charged and always equals the sum of its ledger rows; `reserved` is what requests in
 * flight hold on it, stamped with the slot they took it in (see held).
 */
import { BILLING_COLUMNS, type Account, type Plan } from './accounts.ts'
import type { Db } from './db.ts'
import { PERIOD_OF_A, type Period, type PeriodKind } from './periods.ts'
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
export type MeterRow = { accountId: string; meter: Meter; period: { start: Date; end?: Date } }

export type Charge = { requestId: string | null; endpoint: string | null }


/**
 * How long a reservation is sure to hold its units if its request never settles: a
 * process that died with requests in flight gives their units back between one and two
 * of these later (see held).
 */
export const RESERVATION_SECONDS = 600

/**
 * The statements below are SQL text fixed when this module loads, run as prepared
 * statements with values only (db.unsafe with prepare): a request's admission and
 * settlement are on every request's path, and composing them from tagged-template
 * fragments cost the API more CPU per request than running them cost Postgres. The
 * rules they share are the text helpers here, written once.
 */

/**
 * A CTE that lets the statement's transaction commit without waiting for its WAL to
 * reach the disk (synchronous_commit off, for this transaction only; the statement must
 * read it). Every metered request commits at least once, and a flush costs several
 * milliseconds on a plain disk. A crash of Postgres may lose the last fraction of a
 * second of them: whole statements, in order, so a lost charge takes its ledger row
 * with it and the meter row still equals its ledger.
 */
const NO_FLUSH = `no_flush as (select set_config('synchronous_commit', 'off', true))`

/** The reservation slot at time `at` (SQL): RESERVATION_SECONDS-long slots since the epoch. */
const slotAt = (at: string) => `floor(extract(epoch from ${at}) / ${RESERVATION_SECONDS})::bigint`

/**
 * What requests in flight hold on meter row `um` at slot `slot` (SQL). Units are counted
 * in `reserved`, stamped with the slot the row's newest reservation was taken in
 * (`reserved_slot`); `reserved_lapsing` is the part taken in the slot before that. When
 * a slot has passed, what was lapsing lapses and the rest starts to; after two, all of
 * it. So a reservation holds for at least one slot and at most two, with no row per
 * request, and the units of a process that died come back on their own.
 */
const held = (slot: string) => `(case um.reserved_slot - ${slot} when 0 then um.reserved when -1 then um.reserved - um.reserved_lapsing else 0 end)`

/** The part of held(um) taken before slot `slot`: it lapses when the next slot starts. */
const lapsing = (slot: string) => `(case um.reserved_slot - ${slot} when 0 then um.reserved_lapsing when -1 then um.reserved - um.reserved_lapsing else 0 end)`

/**
 * The allowance of account `a` (its id and plan) on meter `n.meter`, as `al`: a
 * lateral join for a statement that has both in scope. An account's negotiated
 * allowance wins over its plan's. Legacy accounts have neither and are uncapped; an
 * enterprise meter nobody negotiated is closed (0, block) until an admin sets it,
 * rather than open without limit.
 */
const ALLOWANCE = `
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
 * The cap rule (SQL): `units` more fit on a row whose used and held are `used` and
 * `inFlight`, under the allowance of relation `al` (its overage_mode and included).
 * Block mode takes nothing beyond the allowance, counting what requests in flight
 * hold; meter mode and legacy accounts take everything.
 */
const covers = (used: string, inFlight: string, units: string, al = 'al') =>
  `(${al}.overage_mode is distinct from 'block' or ${used} + ${inFlight} + ${units} <= ${al}.included)`

/**
 * The conflict arm of the upserts that charge or reserve on a meter row `um` (take,
 * and the admission's): the row that exists gets the units of `excluded`, what requests
 * in flight hold carried into the current slot.
 */
const ADD_TO_ROW = `on conflict (account_id, meter, period_start) do update set
      used = um.used + excluded.used,
      reserved = ${held('excluded.reserved_slot')} + excluded.reserved,
      reserved_lapsing = ${lapsing('excluded.reserved_slot')},
      reserved_slot = excluded.reserved_slot,
      updated_at = now()`

/**
 * The guarded upsert that charges `charge` units on the meter row of the account in
 * relation `x` (its id), meter `n.meter` and period `p`, and reserves `reserve` more,
 * when the cap rule covers both (each a SQL expression): one statement, whose row lock
 * is held only until it commits. Where nothing can be refused (meter mode, legacy) a
 * reservation would guard nothing, so none is made. Returns the row as it left it
 * (used, reserved), or nothing when the cap refused or there was nothing to take.
 */
const take = (x: string, charge: string, reserve: string) => `
    insert into usage_meters as um (account_id, meter, period_start, period_end, used, reserved, reserved_slot)
    select x.id, n.meter, p.p_start, p.p_end, ${charge},
      case when al.overage_mode = 'block' then ${reserve} else 0 end, ${slotAt('now()')}
    from ${x} x, n, p, al
    where (${charge} > 0 or (${reserve} > 0 and al.overage_mode = 'block'))
      and ${covers('0', '0', `${charge} + ${reserve}`)}
    ${ADD_TO_ROW}
    where (select ${covers('um.used', held('excluded.reserved_slot'), `${charge} + ${reserve}`)} from al)
    returning um.used, um.reserved`

/**
 * The ledger row of one request's charge (`units` > 0) or refund (< 0), for account
 * `account`, meter `meter` and period start `start` (SQL expressions), from `src`'s rows.
 */
const ledgerRow = (account: string, meter: string, start: string, units: string, requestId: string, endpoint: string, src: string) => `
  insert into usage_ledger (account_id, meter, period_start, units, kind, endpoint, requests, request_ids, request_units, request_at_ms)
  select ${account}, ${meter}, ${start}, ${units}, case when ${units} > 0 then 'charge' else 'refund' end, ${endpoint}, 1,
    array[${requestId}], array[${units}], array[(extract(epoch from clock_timestamp()) * 1000)::bigint]
  from ${src} where ${units} <> 0`

/** The meter row of account `a`, meter `n` and period `p`, as found: used, and what requests in flight hold now. */
const FOUND_ROW = `
  select um.used, ${held(slotAt('now()'))} as reserved
  from usage_meters um, a, n, p
  where um.account_id = a.id and um.meter = n.meter and um.period_start = p.p_start`

export type AdmitRequest = {
  /** the key's SHA-256 (a request with an API key), or the account's id (a request with a JWT) */
  who: { keyHash: string } | { accountId: string }
  /** rate-limit windows; a window's bucket is its prefix and the key's id (`account:<id>` for a JWT) */
  limits: Limit[]
  /** an add-on the route needs */
  feature: string | null
  /**
   * The meter the route charges: `charge` units charged now (a fixed cost, refunded by
   * settle if the request fails), or `reserve` units held until settle (the most a
   * per-result request can cost).
   */
  meter: { meter: Meter; charge: number; reserve: number } | null
  /** the ledger's request id and endpoint for a charge made now */
  charge: Charge
}

export type Admitted = {
  account: Account
  /** the account's current period */
  period: Period
  /** each window's count, this request included, and the ms until it ends, in the order asked */
  hits: number[]
  resetMs: number[]
  /** every window had room and the account has the route's add-on */
  passed: boolean
  /** the cap refused the charge or the reservation: nothing was taken */
  refused: boolean
  /** the units this admission charged, and those it holds for settle with the slot it took them in */
  charged: number
  held: { units: number; slot: number } | null
  /** the meter row as this admission left it (as it found it when it took nothing) */
  state: MeterState | null
}

type AdmitRow = Account & {
  i: number
  p_start: Date
  p_end: Date
  p_kind: PeriodKind
  hits: number[]
  reset_ms: number[]
  passed: boolean
  took: boolean
  slot: string
  used: number
  reserved: number
  included: number | null
  overage_mode: OverageMode | null
  overage_cents_per_unit: string | null
}

/**
 * The admission statement, for requests 1..n, given as arrays with one element per
 * request: $1 the key's hash (null for a JWT), $2 the account's id (null for a key),
 * $3 the route's add-on, $4 its meter, $5 the units to charge now, $6 those to reserve,
 * $7 and $8 the ledger's request id and endpoint; and the rate-limit windows, one
 * element per window: $9 the request it belongs to, $10 its prefix, $11 its limit and
 * $12 its length in seconds.
 *
 * Requests on one meter row are taken in their order: each is admitted when the cap
 * covers it with those before it (upto), so in block mode the admitted ones are the
 * longest run that fits, under the row's lock (locked). Where the cap cannot refuse
 * (meter mode, legacy) nothing is locked before the upsert.
 */
const ADMIT = `
  with ${NO_FLUSH},
  req as (
    select * from unnest($1::text[], $2::uuid[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::text[], $8::text[])
      with ordinality as r(key_hash, account_id, feature, meter, charge, reserve, request_id, endpoint, i)
  ),
  found as (
    select r.i, acct.id as account_id, k.id::text as key_id
    from req r left join api_keys k on k.key_hash = r.key_hash and k.revoked_at is null
    join accounts acct on acct.id = coalesce(k.account_id, r.account_id)
  ),
  a as (
    select ${BILLING_COLUMNS}, p.* from accounts a ${PERIOD_OF_A}
    where a.id in (select account_id from found)
  ),
  rules as (
    select f.i, rule.n, rule.prefix || coalesce(f.key_id, 'account:' || f.account_id) as bucket, rule.lim, rule.w as window_seconds
    from found f
    join unnest($9::int[], $10::text[], $11::int[], $12::int[]) with ordinality as rule(i, prefix, lim, w, n) on rule.i = f.i
  ),
  counted as (${countHits('select bucket, min(window_seconds) as window_seconds, count(*)::int as n from rules group by bucket')}),
  windows as (
    select rules.i, rules.n, rules.lim, counted.reset_ms,
      counted.hits + 1 - count(*) over (partition by rules.bucket order by rules.i rows between current row and unbounded following) as hits
    from rules join counted using (bucket)
  ),
  passed as (
    select f.i from found f join a on a.id = f.account_id join req r on r.i = f.i
    where not exists (select from windows w where w.i = f.i and w.hits > w.lim)
      and (r.feature is null or r.feature = any (a.features))
  ),
  asked as (
    select r.i, a.id as account_id, r.meter, r.charge, a.p_start, a.p_end, r.request_id, r.endpoint,
      case when al.overage_mode = 'block' then r.reserve else 0 end as reserve,
      al.included, al.overage_mode, al.overage_cents_per_unit
    from passed join req r using (i) join found f using (i) join a on a.id = f.account_id
    cross join lateral (select r.meter) n
    ${ALLOWANCE}
    where r.meter is not null
  ),
  meter_rows as (select distinct account_id, meter, p_start, overage_mode from asked),
  locked as (
    select um.account_id, um.meter, um.used, ${held(slotAt('now()'))} as held
    from usage_meters um join meter_rows k on um.account_id = k.account_id and um.meter = k.meter and um.period_start = k.p_start
    where k.overage_mode = 'block'
    order by um.account_id, um.meter
    for update of um
  ),
  upto as (
    select q.*, sum(q.charge + q.reserve) over (partition by q.account_id, q.meter order by q.i) as upto
    from asked q
  ),
  taking as (
    select u.* from upto u left join locked l using (account_id, meter)
    where u.charge + u.reserve > 0
      and ${covers('coalesce(l.used, 0)', 'coalesce(l.held, 0)', 'u.upto', 'u')}
  ),
  totals as (
    select account_id, meter, p_start, p_end, included, overage_mode, sum(charge)::bigint as charge, sum(reserve)::bigint as reserve
    from taking group by account_id, meter, p_start, p_end, included, overage_mode
  ),
  taken as (
    insert into usage_meters as um (account_id, meter, period_start, period_end, used, reserved, reserved_slot)
    select t.account_id, t.meter, t.p_start, t.p_end, t.charge, t.reserve, ${slotAt('now()')}
    from totals t
    where ${covers('0', '0', 't.charge + t.reserve', 't')}
    order by t.account_id, t.meter
    ${ADD_TO_ROW}
    where (
      select ${covers('um.used', held('excluded.reserved_slot'), 'excluded.used + excluded.reserved', 't')}
      from totals t where t.account_id = um.account_id and t.meter = um.meter
    )
    returning um.account_id, um.meter, um.used, um.reserved
  ),
  charged as (select u.* from taking u join taken t using (account_id, meter)),
  ledger as (${ledgerRow('c.account_id', 'c.meter', 'c.p_start', 'c.charge', 'c.request_id', 'c.endpoint', 'charged c')}),
  seen as (
    select um.account_id, um.meter, um.used, ${held(slotAt('now()'))} as reserved
    from usage_meters um join meter_rows k on um.account_id = k.account_id and um.meter = k.meter and um.period_start = k.p_start
    where k.overage_mode is distinct from 'block'
  )
  select f.i::int, a.*, f.key_id,
    array(select w.hits from windows w where w.i = f.i order by w.n) as hits,
    array(select w.reset_ms from windows w where w.i = f.i order by w.n) as reset_ms,
    exists (select from passed p where p.i = f.i) as passed,
    exists (select from charged c where c.i = f.i) as took,
    ${slotAt('now()')}::text as slot,
    coalesce(t.used, l.used, s.used, 0)::float8 as used,
    coalesce(t.reserved, l.held, s.reserved, 0)::float8 as reserved,
    q.included, q.overage_mode, q.overage_cents_per_unit
  from found f join a on a.id = f.account_id cross join no_flush
  left join asked q on q.i = f.i
  left join taken t on t.account_id = q.account_id and t.meter = q.meter
  left join locked l on l.account_id = q.account_id and l.meter = q.meter
  left join seen s on s.account_id = q.account_id and s.meter = q.meter`

/**
 * Admits requests, in one statement however many they are (Admission gathers the
 * requests that arrive while its last statement runs):
 *
 * 1. finds each key by its hash: a revoked key, or one whose account is gone, finds nothing;
 * 2. computes each account's period (billing_period);
 * 3. counts each request against its rate-limit windows (countHits), in request order;
 * 4. for each request whose windows all had room and whose account has the route's
 *    add-on, charges or reserves on the meter row (one guarded upsert per row, one
 *    ledger row per request charged), if the cap rule lets its units in after those
 *    of the requests before it.
 *
 * Every admission takes its row locks in one order, rate limits (by bucket) then meter
 * rows (by account and meter), and holds them only until it commits. An element is
 * null when there is no such key or account.
 */
export async function admitAll(db: Db, rs: readonly AdmitRequest[]): Promise<(Admitted | null)[]> {
  const rules = rs.flatMap((r, i) => r.limits.map((l) => [i + 1, l] as const))
  const rows = await db.unsafe<AdmitRow[]>(
    ADMIT,
    [
      rs.map((r) => ('keyHash' in r.who ? r.who.keyHash : null)),
      rs.map((r) => ('accountId' in r.who ? r.who.accountId : null)),
      rs.map((r) => r.feature),
      rs.map((r) => r.meter?.meter ?? null),
      rs.map((r) => r.meter?.charge ?? 0),
      rs.map((r) => r.meter?.reserve ?? 0),
      rs.map((r) => r.charge.requestId),
      rs.map((r) => r.charge.endpoint),
      rules.map(([i]) => i), rules.map(([, l]) => l.prefix), rules.map(([, l]) => l.limit), rules.map(([, l]) => l.windowSeconds),
    ],
    { prepare: true },
  )
  const byRequest = new Map(rows.map((row) => [row.i, row]))
  return rs.map((r, i) => {
    const out = byRequest.get(i + 1)
    return out ? admitted(r, out) : null
  })
}

function admitted(r: AdmitRequest, out: AdmitRow): Admitted {
  const meter = r.meter?.meter ?? null
  const charge = r.meter ? r.meter.charge : 0
  const reserve = r.meter ? r.meter.reserve : 0
  const account: Account = {
    id: out.id, email: out.email, plan: out.plan, key_id: out.key_id, billing_source: out.billing_source,
    payments_customer_id: out.payments_customer_id, subscription_status: out.subscription_status,
    period_start: out.period_start, period_end: out.period_end, trial_start: out.trial_start, trial_end: out.trial_end, features: out.features,
  }
  const metered = meter !== null && charge + reserve > 0
  const holds = out.took && reserve > 0 && out.overage_mode === 'block'
  return {
    account,
    period: { start: out.p_start, end: out.p_end, kind: out.p_kind },
    hits: out.hits,
    resetMs: out.reset_ms,
    passed: out.passed,
    refused: out.passed && metered && !out.took && out.overage_mode === 'block',
    charged: out.took ? charge : 0,
    held: holds ? { units: reserve, slot: Number(out.slot) } : null,
    state: meter
      ? { included: out.included, overage_mode: out.overage_mode, overage_cents_per_unit: out.overage_cents_per_unit, used: out.used, reserved: out.reserved }
      : null,
  }
}

/**
 * The settlement statement: $1..$4 the meter row (account, meter, period start and end),
 * $5 the units charged (negative: refunded), $6 and $7 the units held and the slot they
 * were taken in (0 and null when none), $8 and $9 the ledger's request id and endpoint.
 * Where the reservation sits now: in the current part of held, in the lapsing part, or
 * lapsed (nothing to give back).
 */
const SETTLE = `
  with ${NO_FLUSH},
  um as (
    insert into usage_meters as um (account_id, meter, period_start, period_end, used, reserved_slot)
    values ($1::uuid, $2::text, $3::timestamptz, $4::timestamptz, greatest($5::bigint, 0), ${slotAt('now()')})
    on conflict (account_id, meter, period_start) do update set
      used = um.used + $5::bigint,
      reserved = greatest(0, ${held('excluded.reserved_slot')} - ${lapsing('excluded.reserved_slot')} - case $7::bigint - excluded.reserved_slot when 0 then $6::bigint else 0 end)
        + greatest(0, ${lapsing('excluded.reserved_slot')} - case $7::bigint - excluded.reserved_slot when -1 then $6::bigint else 0 end),
      reserved_lapsing = greatest(0, ${lapsing('excluded.reserved_slot')} - case $7::bigint - excluded.reserved_slot when -1 then $6::bigint else 0 end),
      reserved_slot = excluded.reserved_slot,
      updated_at = now()
    returning used, reserved
  ),
  ledger as (${ledgerRow('$1::uuid', '$2::text', '$3::timestamptz', '$5::bigint', '$8::text', '$9::text', '(select) one')})
  select used::float8, reserved::float8 from um, no_flush`

/**
 * Settles a request, in one statement: `units` more charged (negative: a charge made at
 * admission refunded, since the request failed), with a ledger row for them, and the
 * reservation it held (if any, and if it has not lapsed) given back. Returns the meter
 * row's used and reserved afterwards.
 */
export async function settle(db: Db, row: MeterRow & { period: Period }, hold: { units: number; slot: number } | null, units: number, c: Charge) {
  const [out] = await db.unsafe<{ used: number; reserved: number }[]>(
    SETTLE,
    [row.accountId, row.meter, row.period.start, row.period.end, units, hold?.units ?? 0, hold?.slot ?? null, c.requestId, c.endpoint],
    { prepare: true },
  )
  return out
}

/**
 * Charges units at once rather than around a request: what creating a task costs (an
 * export's units), known only once its handler has counted them. Run it inside the
 * transaction that creates the task: the charge and the task commit together or not
 * at all. The cap rule is the admission's (take). `ok: false` is a block-mode refusal
 * (nothing charged); `state` is the meter as it stands afterwards.
 */
export async function chargeUnits(db: Db, k: MeterRow & { period: Period }, units: number, c: Charge) {
  const [out] = await db.unsafe<(MeterState & { ok: boolean })[]>(
    `with a as (select id, plan from accounts where id = $1::uuid),
    n as (select $2::text as meter),
    p as (select $3::timestamptz as p_start, $4::timestamptz as p_end),
    al as (select al.* from a, n ${ALLOWANCE}),
    taken as (${take('a', '$5::bigint', '0::bigint')}),
    ledger as (${ledgerRow('$1::uuid', '$2::text', '$3::timestamptz', '$5::bigint', '$6::text', '$7::text', 'taken')}),
    found_row as (${FOUND_ROW})
    select exists (select from taken) as ok,
      coalesce((select used from taken), (select used from found_row), 0)::float8 as used,
      coalesce((select reserved from taken), (select reserved from found_row), 0)::float8 as reserved,
      al.included, al.overage_mode, al.overage_cents_per_unit
    from al`,
    [k.accountId, k.meter, k.period.start, k.period.end, units, c.requestId, c.endpoint],
    { prepare: true },
  )
  const state: MeterState = { included: out.included, overage_mode: out.overage_mode, overage_cents_per_unit: out.overage_cents_per_unit, used: out.used, reserved: out.reserved }
  if (!out.ok) return { ok: false as const, state, remaining: Math.max(0, (state.included ?? 0) - state.used - state.reserved) }
  return { ok: true as const, state }
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

/** Every meter of the account in its current period, alphabetically, as the summary lists them; none when there is no such account. */
export async function listMeterStates(db: Db, accountId: string) {
  const rows = await db<(MeterState & { meter: Meter; p_start: Date; p_end: Date; p_kind: PeriodKind })[]>`
    select n.meter, coalesce(um.used, 0)::float8 as used, coalesce(${db.unsafe(held(slotAt('now()')))}, 0)::float8 as reserved,
      al.included, al.overage_mode, al.overage_cents_per_unit, p.*
    from accounts a
    ${db.unsafe(PERIOD_OF_A)}
    cross join unnest(${meterNames}::text[]) as n(meter)
    ${db.unsafe(ALLOWANCE)}
    left join usage_meters um on um.account_id = a.id and um.meter = n.meter and um.period_start = p.p_start
    where a.id = ${accountId}
    order by n.meter`
  const period: Period | null = rows[0] ? { start: rows[0].p_start, end: rows[0].p_end, kind: rows[0].p_kind } : null
  return { period, states: rows.map(({ p_start, p_end, p_kind, ...s }) => s) }
}

/**
 * Gives back every reservation that lapsed by `now`, on every meter row (an admission
 * or a settlement does it for its own row on the way): the monthly job. Returns how
 * many rows gave units back.
 */
export async function releaseLapsed(db: Db, now = new Date()) {
  const slot = slotAt('$1::timestamptz')
  const released = await db.unsafe(
    `update usage_meters um
    set reserved = ${held(slot)}, reserved_lapsing = ${lapsing(slot)}, reserved_slot = ${slot}, updated_at = now()
    where um.reserved_slot < ${slot} and um.reserved > ${held(slot)}`,
    [now],
  )
  return released.count
}
