/**
 * What requests cost, and the Platform-Usage-* headers. Usage headers go on successful
 * responses and on the quota 429, never for legacy accounts (which are counted but
 * have no allowance to report against).
 */
import type { Context, Next } from 'koa'
import type { Account } from '../../sql/accounts.ts'
import type { Db } from '../../sql/db.ts'
import { chargeUnits, findMeterState, meterNames, meters, type Meter, type MeterKey, type MeterState } from '../../sql/meters.ts'
import { currentPeriod, type Period } from '../../sql/periods.ts'
import { errors } from '../errors.ts'
import { USAGE, setHeaders } from '../headers.ts'
import type { MeterLeases, Reservation } from './meter-leases.ts'

/** What a request may cost (reserved before the handler) and what it did cost (from the response). */
export type Cost = {
  reserve: (ctx: Context) => number
  settle: (ctx: Context) => number
  perResult: boolean
}

export const fixedCost = (units: number): Cost => ({ reserve: () => units, settle: () => units, perResult: false })

/** The units a per-result request with this limit can cost at most: the limit, capped at the largest page. */
export function costOfLimit(limit: number, maxPage: number) {
  return Math.min(Math.max(0, Math.floor(limit)), maxPage)
}

/**
 * `limit` from the query string, or the endpoint's default. A value that is not a
 * positive integer reserves the default; the handler's validation then answers 422
 * and the reservation is released.
 */
export const limitFromQuery =
  (defaultLimit = 10) =>
  (ctx: Context) => {
    const n = Number(ctx.query.limit)
    return Number.isInteger(n) && n > 0 ? n : defaultLimit
  }

/** `limit` from a parsed JSON body (jsonBody() must run before keyed()). */
export const limitFromBody =
  (defaultLimit = 10) =>
  (ctx: Context) => {
    const n = Number((ctx.request as { body?: { limit?: unknown } }).body?.limit)
    return Number.isInteger(n) && n > 0 ? n : defaultLimit
  }

/** Counts the results of a response body: its jobs, companies or contacts array. */
export function countResults(body: unknown): number {
  const b = (body ?? {}) as Record<string, unknown>
  for (const field of ['jobs', 'companies', 'contacts']) if (Array.isArray(b[field])) return (b[field] as unknown[]).length
  return 0
}

/** 1 unit per result returned; reserves the requested limit, capped at the endpoint's largest page. */
export function perResult(limitFrom: (ctx: Context) => number, maxPage: number, count: (body: unknown) => number = countResults): Cost {
  return { reserve: (ctx) => costOfLimit(limitFrom(ctx), maxPage), settle: (ctx) => count(ctx.body), perResult: true }
}

/** The Platform-Usage-* headers for a meter as it stands; none for legacy accounts. */
export function usageHeaders(meter: Meter, s: MeterState, period: Period): Record<string, string> {
  const values = usageValues(meter, s, period)
  return Object.fromEntries(values?.map((v, i) => [USAGE[i], v]) ?? [])
}

/** The usage header values, as USAGE lists them (the period's only for a subscription or a trial); null for a legacy account. */
function usageValues(meter: Meter, s: MeterState, period: Period): string[] | null {
  if (s.included === null || s.overage_mode === null) return null
  const { feature, unit } = meters[meter]
  const values = [
    feature,
    meter,
    unit,
    String(s.included),
    String(Math.min(s.used, s.included)),
    // what can still be used now: other requests' reservations are spoken for
    String(Math.max(0, s.included - s.used - s.reserved)),
    String(Math.max(0, s.used - s.included)),
    s.overage_mode,
    String(s.used),
  ]
  if (period.kind !== 'calendar_month') values.push(...isoBounds(period))
  return values
}

/** A period's bounds as ISO strings, formatted once per period object (requests share it, see meterKeyOf). */
const isoBoundsOf = new WeakMap<Period, [string, string]>()
function isoBounds(period: Period) {
  let bounds = isoBoundsOf.get(period)
  if (!bounds) isoBoundsOf.set(period, (bounds = [period.start.toISOString(), period.end.toISOString()]))
  return bounds
}

/**
 * The meter key of an account's current period, one object per cached account and
 * meter until the period ends: requests share it rather than building their own.
 */
const meterKeys = Object.fromEntries(meterNames.map((m) => [m, new WeakMap<Account, MeterKey>()])) as Record<Meter, WeakMap<Account, MeterKey>>
function meterKeyOf(account: Account, meter: Meter, now: number): MeterKey {
  let key = meterKeys[meter].get(account)
  if (!key || now >= key.period.end.getTime() || now < key.period.start.getTime()) {
    meterKeys[meter].set(account, (key = { accountId: account.id, plan: account.plan, meter, period: currentPeriod(account, new Date(now)) }))
  }
  return key
}

/** "GET /v2/jobs/:job_id", once per method and route. */
const endpoints = new Map<string, Map<string, string>>()
function endpointOf(ctx: Context) {
  const route = ctx._matchedRoute ?? ctx.path
  let byRoute = endpoints.get(ctx.method)
  if (!byRoute) endpoints.set(ctx.method, (byRoute = new Map()))
  let endpoint = byRoute.get(route)
  if (endpoint === undefined) {
    endpoint = `${ctx.method} ${route}`
    // unmatched paths are the client's to vary: only routes are kept
    if (ctx._matchedRoute) byRoute.set(route, endpoint)
  }
  return endpoint
}

const isSuccess = (ctx: Context) => ctx.status >= 200 && ctx.status < 300

/**
 * Metering around the handler: the request's largest possible cost is reserved from
 * this process's lease (meter-leases.ts) before it runs; a block-mode meter that
 * cannot cover it refuses with the quota 429. Afterwards the reservation is settled
 * to what the response returned (released if the handler threw), before the response
 * goes out, so the usage headers count this request.
 */
export function meterAround(ctx: Context, next: Next, db: Db, leases: MeterLeases, meter: Meter, cost: Cost | 0, now: number): Promise<void> {
  const key = meterKeyOf(ctx.state.account as Account, meter, now)
  const units = cost === 0 ? 0 : cost.reserve(ctx)

  // zero cost (POST /v2/jobs/estimate, an empty page): nothing to reserve, works at the cap
  if (cost === 0 || units === 0) {
    return next().then(async () => {
      if (isSuccess(ctx)) ctx.set(usageHeaders(meter, leases.known(key) ?? (await findMeterState(db, key)), key.period))
    })
  }

  // plain promise chains rather than an async function: this runs on every metered
  // request, and the lease usually answers synchronously
  const reserving = leases.reserve(key, units, now)
  if (reserving instanceof Promise) return reserving.then((reservation) => metered(ctx, next, leases, key, cost, units, reservation))
  return metered(ctx, next, leases, key, cost, units, reserving)
}

/** The handler under a reservation: refused when there is none, then settled to what the response returned. */
function metered(ctx: Context, next: Next, leases: MeterLeases, key: MeterKey, cost: Cost, units: number, reservation: Reservation): Promise<void> {
  const { meter, period } = key
  if (!reservation.ok) {
    const { state, remaining } = reservation
    throw errors.quotaExceeded(
      { meter, unit: meters[meter].unit, included: state.included!, remaining, cost: units, perResult: cost.perResult, periodEnd: period.end },
      usageHeaders(meter, state, period),
    )
  }
  const { row } = reservation
  const charge = { requestId: ctx.state.requestId ?? null, endpoint: endpointOf(ctx) }
  return next().then(
    () => {
      const ok = isSuccess(ctx)
      // never more than was reserved: the reservation is what the cap was checked against
      const charged = ok ? Math.min(units, Math.max(0, cost.settle(ctx))) : 0
      leases.settle(row, units, charged, charge)
      const values = ok ? usageValues(meter, leases.state(row), period) : null
      if (values) setHeaders((n, v) => ctx.set(n, v), USAGE, values)
    },
    (e) => {
      leases.settle(row, units, 0, charge)
      throw e
    },
  )
}

/**
 * Charges what a task costs from the handler that creates it, inside the transaction
 * that creates it (sql/meters.ts chargeUnits), rather than around the request: the
 * units are known only once the handler has counted the matches. A block-mode meter
 * that cannot cover them refuses with the quota 429, and the transaction, task
 * included, rolls back. Sets the usage headers; returns the meter row charged, which
 * the task keeps so that its failure refunds that row.
 */
export async function chargeWithin(ctx: Context, tx: Db, meter: Meter, units: number): Promise<MeterKey> {
  const key = meterKeyOf(ctx.state.account as Account, meter, Date.now())
  const charged = await chargeUnits(tx, key, units, { requestId: ctx.state.requestId ?? null, endpoint: endpointOf(ctx) })
  const headers = usageHeaders(meter, charged.state, key.period)
  if (!charged.ok) {
    const { included } = charged.state
    throw errors.quotaExceeded(
      { meter, unit: meters[meter].unit, included: included ?? 0, remaining: charged.remaining, cost: units, perResult: true, periodEnd: key.period.end },
      headers,
    )
  }
  ctx.set(headers)
  return key
}
