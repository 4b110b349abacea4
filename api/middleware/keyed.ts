/**
 * One declaration of what a data route needs:
 *
 *   router.get('/:job_id', keyed({ meter: 'm_jobs_api_calls', cost: 1 }), handler)
 *
 * and the order the answers come in:
 *
 * 1. authentication (401; an anonymous request never reaches the rate limiter)
 * 2. the per-key rate limit, plus the per-second search limit with `search: true` (429 + Retry-After)
 * 3. the feature gate for add-ons (403 + X-Billing-Code: feature_missing)
 * 4. metering: the largest cost reserved before the handler, settled after it (429 + X-Billing-Code: limit_exceeded)
 *
 * One statement answers all four (admission.ts, sql/meters.ts admit): it charges a
 * fixed cost at once, or reserves a per-result one, which a second statement settles
 * after the handler (metering.ts), as it refunds a fixed cost whose request failed;
 * all of it, the handler included, in one of the app's database slots (queues.ts),
 * unless the route says its handler takes its own (`slot: 'admission'`).
 *
 * `cost` is a number of units per request, 0 for a route on a meter that costs nothing
 * (it still reports usage headers), or perResult(limitFrom, maxPage) for 1 unit per
 * result returned. Without `meter` the route is not metered (tasks, billing).
 */
import type { Context, Middleware, Next } from 'koa'
import { planFeatures, type Feature, type Meter } from '../../sql/meters.ts'
import { errors } from '../errors.ts'
import { admissionOf } from './admission.ts'
import { inSlot } from './queues.ts'
import { credentialOf, type AuthOptions } from './auth.ts'
import { chargeOf, fixedCost, meterAround, type Cost } from './metering.ts'
import { enforce } from './rate-limit.ts'

export type KeyedOptions = AuthOptions & {
  meter?: Meter
  cost?: number | Cost
  /** the route's feature; only add-ons (not on every plan) are checked */
  feature?: Feature
  /** the search endpoints' extra per-second limit */
  search?: boolean
  /**
   * What holds a database slot (queues.ts): `request` (the default), the admission, the
   * handler and the settlement in one, for a handler that is nothing but queries;
   * `admission`, only the admission and the settlement, for a handler that reads an
   * upload, works the CPU or calls out: it takes slots around its own queries (inSlot)
   * and runs its CPU steps on the CPU queue (onCpu).
   */
  slot?: 'request' | 'admission'
}

export function keyed(opts: KeyedOptions = {}): Middleware {
  const feature = opts.feature && !(planFeatures as readonly string[]).includes(opts.feature) ? opts.feature : null
  const meter = opts.meter ?? null
  const costOpt = opts.cost ?? 1
  const cost: Cost | 0 = typeof costOpt === 'number' ? (costOpt === 0 ? 0 : fixedCost(costOpt)) : costOpt

  const admitThenRun = async (ctx: Context, next: Next, inDb: InDb) => {
    const admission = admissionOf(ctx)
    const who = await credentialOf(ctx, opts)
    const limits = admission.limiter.windows(opts.search ?? false)
    const units = meter && cost !== 0 ? cost.reserve(ctx) : 0
    const perResult = cost !== 0 && cost.perResult
    const admitted = await inDb(() =>
      admission.admit(who, { limits, feature, charge: chargeOf(ctx), meter: meter && { meter, charge: perResult ? 0 : units, reserve: perResult ? units : 0 } }),
    )
    if (!admitted) throw 'keyHash' in who ? errors.invalidKey() : errors.invalidToken()
    ctx.state.account = admitted.account
    ctx.state.period = admitted.period
    enforce(ctx, limits.map((l, i) => ({ ...l, hits: admitted.hits[i], resetMs: admitted.resetMs[i] })))
    // every window had room: what stopped the request is the feature gate
    if (!admitted.passed) throw errors.featureMissing(feature!)
    if (!meter) return next()
    return meterAround(ctx, next, (settle) => inDb(() => settle(admission.db)), cost, meter, units, admitted)
  }
  return opts.slot === 'admission'
    ? (ctx, next) => admitThenRun(ctx, next, (work) => inSlot(ctx, work))
    : (ctx, next) => inSlot(ctx, () => admitThenRun(ctx, next, (work) => work()))
}

/** Runs queries: in a slot of their own, or in the one the request holds. */
type InDb = <T>(work: () => Promise<T>) => Promise<T>
