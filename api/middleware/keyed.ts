/**
 * One declaration of what a data route needs, in the order it is checked:
 *
 *   router.get('/:job_id', keyed({ meter: 'm_jobs_api_calls', cost: 1 }), handler)
 *
 * 1. authentication (401; an anonymous request never reaches the rate limiter)
 * 2. the per-key rate limit, plus the per-second search limit with `search: true` (429 + Retry-After)
 * 3. the feature gate for add-ons (403 + X-Billing-Code: feature_missing)
 * 4. metering: reservation before the handler, settlement after (429 + X-Billing-Code: limit_exceeded)
 *
 * All four answer from this process's memory (admission.ts): the key's account is
 * cached, and rate-limit hits and meter units are claimed from the database in
 * blocks, so a request usually costs no database statement of its own.
 *
 * `cost` is a number of units per request, 0 for a route on a meter that costs nothing
 * (it still reports usage headers), or perResult(limitFrom, maxPage) for 1 unit per
 * result returned. Without `meter` the route is not metered (tasks, billing).
 */
import type { Context, Middleware, Next } from 'koa'
import type { Account } from '../../sql/accounts.ts'
import { planFeatures, type Feature, type Meter } from '../../sql/meters.ts'
import { errors } from '../errors.ts'
import { admissionOf, type Admission } from './admission.ts'
import type { AuthOptions } from './auth.ts'
import { fixedCost, meterAround, type Cost } from './metering.ts'

export type KeyedOptions = AuthOptions & {
  meter?: Meter
  cost?: number | Cost
  /** the route's feature; only add-ons (not on every plan) are checked */
  feature?: Feature
  /** the search endpoints' extra per-second limit */
  search?: boolean
}

export function keyed(opts: KeyedOptions = {}): Middleware {
  const feature = opts.feature && !(planFeatures as readonly string[]).includes(opts.feature) ? opts.feature : null
  const meter = opts.meter ?? null
  const costOpt = opts.cost ?? 1
  const cost: Cost | 0 = typeof costOpt === 'number' ? (costOpt === 0 ? 0 : fixedCost(costOpt)) : costOpt

  // each step answers synchronously when memory has what it needs, and the middleware
  // chains on a promise only where a step returned one, so a request served from memory
  // costs no promise or microtask turn of its own; the clock is read once for all steps
  const admitted = (ctx: Context, next: Next, admission: Admission, account: Account, now: number): Promise<void> => {
    ctx.state.account = account
    const limited = admission.limiter.check(ctx, admission.limiter.rulesFor(account, opts.search ?? false), now)
    if (limited) return limited.then(() => gated(ctx, next, admission, account, Date.now()))
    return gated(ctx, next, admission, account, now)
  }
  const gated = (ctx: Context, next: Next, admission: Admission, account: Account, now: number): Promise<void> => {
    if (feature && !account.features.includes(feature)) throw errors.featureMissing(feature)
    if (!meter) return next()
    return meterAround(ctx, next, admission.db, admission.meters, meter, cost, now)
  }
  return (ctx, next) => {
    const now = Date.now()
    const admission = admissionOf(ctx)
    const authenticated = admission.keys.authenticate(ctx, opts, now)
    if (authenticated instanceof Promise) return authenticated.then((account) => admitted(ctx, next, admission, account, Date.now()))
    return admitted(ctx, next, admission, authenticated, now)
  }
}
