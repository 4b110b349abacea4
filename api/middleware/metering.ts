/**
 * Metering around a handler: reserve the request's largest possible cost before it
 * runs, settle to what the response actually returned after, release everything if
 * it fails. A block-mode meter that cannot cover the reservation refuses with the
 * quota 429. Usage headers go on successful responses and on that 429, never for
 * legacy accounts (which are counted but have no allowance to report against).
 */
import type { Context, Next } from 'koa'
import type { Account } from '../../sql/accounts.ts'
import type { Db } from '../../sql/db.ts'
import { admitBatch, findMeterState, meters, settleBatch, type Admission, type AdmitItem, type Meter, type MeterKey, type MeterState, type SettleItem } from '../../sql/meters.ts'
import type { Period } from '../../sql/periods.ts'
import { errors } from '../errors.ts'

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
  const h: Record<string, string> = {
    'Platform-Usage-Feature': meters[meter].feature,
    'Platform-Usage-Meter': meter,
    'Platform-Usage-Unit': meters[meter].unit,
    'Platform-Usage-Included-Limit': String(s.included),
    'Platform-Usage-Included-Used': String(Math.min(s.used, s.included)),
    // what can still be used now: other requests' reservations are spoken for
    'Platform-Usage-Included-Remaining': String(Math.max(0, s.included - s.used - s.reserved)),
    'Platform-Usage-Overage-Used': String(Math.max(0, s.used - s.included)),
    'Platform-Usage-Overage-Mode': s.overage_mode,
    'Platform-Usage-Total-Used': String(s.used),
  }
  if (period.kind !== 'calendar_month') {
    h['Platform-Usage-Period-Start'] = period.start.toISOString()
    h['Platform-Usage-Period-End'] = period.end.toISOString()
  }
  return h
}

const isSuccess = (ctx: Context) => ctx.status >= 200 && ctx.status < 300

/**
 * Gathers calls that arrive while earlier ones are in the database into one call: at
 * most `maxInFlight` batches at a time, the next one taking whatever queued meanwhile.
 * A lone request goes at once (after the current I/O callbacks, so requests parsed in
 * the same turn share a batch). A failed batch fails each of its callers.
 */
export class Batcher<I, O> {
  private queue: { item: I; resolve: (o: O) => void; reject: (e: unknown) => void }[] = []
  private inFlight = 0
  private scheduled = false

  constructor(
    private run: (items: I[]) => Promise<O[]>,
    private maxInFlight = 2,
    private maxBatch = 256,
  ) {}

  push(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject })
      if (!this.scheduled && this.inFlight < this.maxInFlight) {
        this.scheduled = true
        setImmediate(() => {
          this.scheduled = false
          this.pump()
        })
      }
    })
  }

  private pump() {
    while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch)
      this.inFlight++
      this.run(batch.map((b) => b.item))
        .then(
          (out) => batch.forEach((b, i) => b.resolve(out[i])),
          (err) => batch.forEach((b) => b.reject(err)),
        )
        .finally(() => {
          this.inFlight--
          this.pump()
        })
    }
  }
}

const admitters = new WeakMap<object, Batcher<AdmitItem, Admission>>()
const settlers = new WeakMap<object, Batcher<SettleItem, { used: number; reserved: number }>>()

/** This process's admissions on `db`: key check, rate limits and reservation, batched (sql/meters.ts admitBatch). */
export function admit(db: Db, item: AdmitItem): Promise<Admission> {
  let b = admitters.get(db)
  if (!b) admitters.set(db, (b = new Batcher((items) => admitBatch(db, items))))
  return b.push(item)
}

/** Settles (or, with units 0, releases) a reservation, batched (sql/meters.ts settleBatch). */
export function settle(db: Db, item: SettleItem): Promise<{ used: number; reserved: number }> {
  let b = settlers.get(db)
  if (!b) settlers.set(db, (b = new Batcher((items) => settleBatch(db, items))))
  return b.push(item)
}

/**
 * Metering around the handler, once admission has run: `units` is what admission was
 * asked to reserve (0: nothing), `admission` its answer. A block-mode meter that could
 * not cover the reservation refuses with the quota 429; otherwise the handler runs and
 * the reservation is settled to what the response returned (released if it threw)
 * before the response goes out, so the usage headers count this request.
 */
export async function meterAround(ctx: Context, next: Next, db: Db, meter: Meter, cost: Cost | 0, units: number, period: Period, admission: Admission) {
  const account = ctx.state.account as Account
  const key: MeterKey = { accountId: account.id, plan: account.plan, meter, period }

  // zero cost (POST /v2/jobs/estimate, an empty page): nothing to reserve, works at the cap
  if (units === 0 || admission.kind === 'stale' || !admission.state) {
    await next()
    if (isSuccess(ctx)) ctx.set(usageHeaders(meter, await findMeterState(db, key), period))
    return
  }

  const reserved = admission.state
  if (admission.kind === 'refused') {
    throw errors.quotaExceeded(
      {
        meter,
        unit: meters[meter].unit,
        included: reserved.included!,
        remaining: Math.max(0, reserved.included! - reserved.used - reserved.reserved),
        cost: units,
        perResult: cost !== 0 && cost.perResult,
        periodEnd: period.end,
      },
      usageHeaders(meter, reserved, period),
    )
  }

  const charge = { requestId: ctx.state.requestId ?? null, endpoint: `${ctx.method} ${ctx._matchedRoute ?? ctx.path}` }
  try {
    await next()
  } catch (e) {
    await settle(db, { key, reserved: units, units: 0, charge }).catch((err) => ctx.app.emit('error', err, ctx))
    throw e
  }
  // never more than was reserved: the reservation is what the cap was checked against
  const charged = isSuccess(ctx) && cost !== 0 ? Math.min(units, Math.max(0, cost.settle(ctx))) : 0
  const after = await settle(db, { key, reserved: units, units: charged, charge })
  if (isSuccess(ctx)) ctx.set(usageHeaders(meter, { ...reserved, ...after }, period))
}
