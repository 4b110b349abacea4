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
 * One statement answers all four (admission.ts, sql/meters.ts admitAll), shared with
 * the requests admitted beside this one: it charges a fixed cost at once, or reserves a
 * per-result one, which a second statement settles after the handler (metering.ts), as
 * it refunds a fixed cost whose request failed. Both run on the admission's own
 * connections, so they take none of the app's database slots (queues.ts): the handler
 * does, for as long as it runs (`slot: 'handler'`, the default), or around each of its
 * own queries (`slot: 'queries'`). A request that finds the database queue full, or
 * whose client has gone, is refused before it is admitted: neither counted nor charged.
 * One that then waits past the queue's limit, or loses its client while it waits, is
 * refunded.
 *
 * `cost` is a number of units per request, 0 for a route on a meter that costs nothing
 * (it still reports usage headers), or perResult(limitFrom, maxPage) for 1 unit per
 * result returned. Without `meter` the route is not metered (tasks, billing).
 */
import type { Middleware } from 'koa'
import { planFeatures, type Feature, type Meter } from '../../sql/meters.ts'
import { errors } from '../errors.ts'
import { admissionOf } from './admission.ts'
import { ClientGone, clientGone, inSlot, refuseWhenFull } from './queues.ts'
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
   * What holds a database slot (queues.ts): `handler` (the default), the handler for as
   * long as it runs, for a handler that is nothing but queries; `queries`, nothing here,
   * for a handler that reads an upload, works the CPU or calls out: it takes slots
   * around its own queries (inSlot) and runs its CPU steps on the CPU queue (onCpu).
   */
  slot?: 'handler' | 'queries'
}

export function keyed(opts: KeyedOptions = {}): Middleware {
  const feature = opts.feature && !(planFeatures as readonly string[]).includes(opts.feature) ? opts.feature : null
  const meter = opts.meter ?? null
  const costOpt = opts.cost ?? 1
  const cost: Cost | 0 = typeof costOpt === 'number' ? (costOpt === 0 ? 0 : fixedCost(costOpt)) : costOpt
  const inSlots = opts.slot !== 'queries'

  return async (ctx, next) => {
    const admission = admissionOf(ctx)
    const who = await credentialOf(ctx, opts)
    if (clientGone(ctx)) throw new ClientGone()
    if (inSlots) refuseWhenFull(ctx)
    const limits = admission.limiter.windows(opts.search ?? false)
    const units = meter && cost !== 0 ? cost.reserve(ctx) : 0
    const perResult = cost !== 0 && cost.perResult
    const admitted = await admission.admit(who, {
      limits, feature, charge: chargeOf(ctx), meter: meter && { meter, charge: perResult ? 0 : units, reserve: perResult ? units : 0 },
    })
    if (!admitted) throw 'keyHash' in who ? errors.invalidKey() : errors.invalidToken()
    ctx.state.account = admitted.account
    ctx.state.period = admitted.period
    enforce(ctx, limits.map((l, i) => ({ ...l, hits: admitted.hits[i], resetMs: admitted.resetMs[i] })))
    // every window had room: what stopped the request is the feature gate
    if (!admitted.passed) throw errors.featureMissing(feature!)
    const handler = inSlots ? () => inSlot(ctx, next) : next
    if (!meter) return handler()
    return meterAround(ctx, handler, admission.db, cost, meter, units, admitted)
  }
}
