/**
 * One declaration of what a data route needs, in the order it is checked:
 *
 *   router.get('/:job_id', keyed(db, { meter: 'm_jobs_api_calls', cost: 1 }), handler)
 *
 * 1. authentication (401; an anonymous request never reaches the rate limiter)
 * 2. the per-key rate limit, plus the per-second search limit with `search: true` (429 + Retry-After)
 * 3. the feature gate for add-ons (403 + X-Billing-Code: feature_missing)
 * 4. metering: reservation before the handler, settlement after (429 + X-Billing-Code: limit_exceeded)
 *
 * `cost` is a number of units per request, 0 for a route on a meter that costs nothing
 * (it still reports usage headers), or perResult(limitFrom, maxPage) for 1 unit per
 * result returned. Without `meter` the route is not metered (tasks, billing).
 */
import type { Context, Middleware, Next } from 'koa'
import type { Db } from '../../sql/db.ts'
import { planFeatures, type Feature, type Meter } from '../../sql/meters.ts'
import { errors } from '../errors.ts'
import { authenticate, type AuthOptions } from './auth.ts'
import { fixedCost, metered, type Cost } from './metering.ts'
import { keyRules, limiterFor } from './rate-limit.ts'

export type KeyedOptions = AuthOptions & {
  meter?: Meter
  cost?: number | Cost
  /** the route's feature; only add-ons (not on every plan) are checked */
  feature?: Feature
  /** the search endpoints' extra per-second limit */
  search?: boolean
}

export function keyed(db: Db, opts: KeyedOptions = {}): Middleware {
  const steps: Middleware[] = [
    async (ctx, next) => {
      ctx.state.account = await authenticate(ctx, db, opts)
      return next()
    },
    async (ctx, next) => {
      const limiter = limiterFor(ctx, db)
      await limiter.check(ctx, keyRules(limiter, ctx.state.account.key_id ?? `account:${ctx.state.account.id}`, opts.search ?? false))
      return next()
    },
  ]
  const feature = opts.feature
  if (feature && !(planFeatures as readonly string[]).includes(feature)) {
    steps.push(async (ctx, next) => {
      if (!ctx.state.account.features.includes(feature)) throw errors.featureMissing(feature)
      return next()
    })
  }
  if (opts.meter) {
    const cost = opts.cost ?? 1
    steps.push(metered(db, opts.meter, typeof cost === 'number' ? (cost === 0 ? 0 : fixedCost(cost)) : cost))
  }
  return chain(steps)
}

/** Runs middleware in order, the last one's next() being the route's. */
function chain(steps: Middleware[]): Middleware {
  return (ctx: Context, next: Next) => {
    const run = (i: number): Promise<unknown> => (i === steps.length ? next() : Promise.resolve(steps[i](ctx, () => run(i + 1))))
    return run(0)
  }
}
