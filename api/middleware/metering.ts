/**
 * What requests cost, their settlement, and the Platform-Usage-* headers. Usage headers
 * go on successful responses and on the quota 429, never for legacy accounts (which
 * are counted but have no allowance to report against).
 */
import type { Context, Next } from 'koa'
import type { Account } from '../../sql/accounts.ts'
import type { Db } from '../../sql/db.ts'
import { chargeUnits, meters, settle, type Admitted, type Meter, type MeterKey, type MeterState } from '../../sql/meters.ts'
import type { Period } from '../../sql/periods.ts'
import { errors } from '../errors.ts'
import { USAGE } from '../headers.ts'
import { clientGone } from './queues.ts'

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
  if (s.included === null || s.overage_mode === null) return {}
  const { feature, unit } = meters[meter]
  const values = [
    feature,
    meter,
    unit,
    String(s.included),
    String(Math.min(s.used, s.included)),
    // what can still be used now: requests in flight have reserved their share
    String(Math.max(0, s.included - s.used - s.reserved)),
    String(Math.max(0, s.used - s.included)),
    s.overage_mode,
    String(s.used),
  ]
  // the period's bounds only for a subscription or a trial
  if (period.kind !== 'calendar_month') values.push(period.start.toISOString(), period.end.toISOString())
  return Object.fromEntries(values.map((v, i) => [USAGE[i], v]))
}

/** The request's endpoint for the ledger: "GET /v2/jobs/:job_id", the route as @koa/router matched it. */
const endpointOf = (ctx: Context) => `${ctx.method} ${(ctx.routerPath as string | undefined) ?? ctx.path}`

/** What the ledger records of the request: the server's request id and its endpoint. */
export const chargeOf = (ctx: Context) => ({ requestId: (ctx.state.requestId as string | undefined) ?? null, endpoint: endpointOf(ctx) })

const isSuccess = (ctx: Context) => ctx.status >= 200 && ctx.status < 300

/**
 * The handler, metered. The admission charged a fixed cost already, or reserved the
 * largest a per-result request can cost (block mode), or refused it: then this answers
 * the quota 429. Afterwards what the response cost is settled (a failed request's
 * charge refunded, a reservation settled to the results returned) before the response
 * goes out, so the usage headers count this request. A lookup that succeeds needs no
 * second statement: its admission charged it.
 */
export async function meterAround(ctx: Context, next: Next, db: Db, cost: Cost | 0, meter: Meter, units: number, a: Admitted) {
  const { period, state, charged, held } = a
  if (!state) throw new Error('meterAround: an admission without a meter')
  if (a.refused) {
    throw errors.quotaExceeded(
      {
        meter, unit: meters[meter].unit, included: state.included ?? 0, remaining: Math.max(0, (state.included ?? 0) - state.used - state.reserved),
        cost: units, perResult: cost !== 0 && cost.perResult, periodEnd: period.end,
      },
      usageHeaders(meter, state, period),
    )
  }
  const row = { accountId: a.account.id, meter, period }
  try {
    await next()
  } catch (e) {
    if (charged > 0 || held) await settle(db, row, held, -charged, chargeOf(ctx)).catch((err) => ctx.app.emit('error', err, ctx))
    throw e
  }
  // an answer nobody will read is not charged
  const ok = isSuccess(ctx) && !clientGone(ctx)
  // never more than was admitted: that is what the cap was checked against
  const owed = ok && cost !== 0 ? Math.min(units, Math.max(0, cost.settle(ctx))) : 0
  const after = owed !== charged || held ? { ...state, ...(await settle(db, row, held, owed - charged, chargeOf(ctx))) } : state
  if (ok) ctx.set(usageHeaders(meter, after, period))
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
  const account = ctx.state.account as Account
  const key: MeterKey = { accountId: account.id, plan: account.plan, meter, period: ctx.state.period as Period }
  const charged = await chargeUnits(tx, key, units, chargeOf(ctx))
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
