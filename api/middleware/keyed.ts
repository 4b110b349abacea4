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
 * Steps 1–4 cost one database statement before the handler and one after, both shared
 * with the other requests in flight (metering.ts Batcher): the key's account comes from
 * a cache of at most KEY_CACHE_TTL_MS (auth.ts), and one admission statement checks that
 * the cached key is still live and its account unchanged, counts the rate limits and
 * reserves on the meter row (sql/meters.ts admitBatch); the settlement after the handler
 * is another (settleBatch). A stale cached key is read again and admitted again, so
 * revocation and plan changes take effect on the next request.
 *
 * `cost` is a number of units per request, 0 for a route on a meter that costs nothing
 * (it still reports usage headers), or perResult(limitFrom, maxPage) for 1 unit per
 * result returned. Without `meter` the route is not metered (tasks, billing).
 */
import type { Middleware } from 'koa'
import type { Db } from '../../sql/db.ts'
import { planFeatures, type Feature, type Meter } from '../../sql/meters.ts'
import { currentPeriod } from '../../sql/periods.ts'
import { errors } from '../errors.ts'
import { authenticateKeyed, forgetKey, type AuthOptions } from './auth.ts'
import { admit, fixedCost, meterAround, type Cost } from './metering.ts'
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
  const feature = opts.feature && !(planFeatures as readonly string[]).includes(opts.feature) ? opts.feature : null
  const meter = opts.meter ?? null
  const costOpt = opts.cost ?? 1
  const cost: Cost | 0 = typeof costOpt === 'number' ? (costOpt === 0 ? 0 : fixedCost(costOpt)) : costOpt

  return async (ctx, next) => {
    // 1. authentication (401 before anything is counted)
    let auth = await authenticateKeyed(ctx, db, opts)
    for (let attempt = 1; ; attempt++) {
      const { account } = auth
      ctx.state.account = account
      const limiter = limiterFor(ctx, db)
      const rules = keyRules(limiter, account.key_id ?? `account:${account.id}`, opts.search ?? false)
      // 2. a bucket this process already knows is over: 429 without asking the database
      limiter.fastPath(ctx, rules)
      const featureOk = !feature || account.features.includes(feature)
      const period = currentPeriod(account)
      const units = meter && featureOk && cost !== 0 ? cost.reserve(ctx) : 0
      const admission = await admit(db, {
        keyId: auth.fingerprint ? account.key_id : null,
        fingerprint: auth.fingerprint,
        buckets: rules.map(({ bucket, windowSeconds, limit }) => ({ bucket, windowSeconds, limit })),
        accountId: account.id,
        plan: account.plan,
        reserve: meter && units > 0 ? { meter, period, cost: units } : null,
      })
      if (admission.kind === 'stale') {
        // revoked, or the account changed since it was cached: read it again (401 if revoked)
        if (auth.keyHash) forgetKey(db, auth.keyHash)
        if (attempt >= 5) throw new Error('the account kept changing during admission')
        auth = await authenticateKeyed(ctx, db, opts, true)
        continue
      }
      // 2. the rate limits (429 + Retry-After); nothing was reserved when one is over
      limiter.apply(ctx, rules, admission.hits)
      // 3. the feature gate (403)
      if (!featureOk) throw errors.featureMissing(feature!)
      if (!meter) return next()
      // 4. metering (429 + X-Billing-Code: limit_exceeded when the reservation was refused)
      return meterAround(ctx, next, db, meter, cost, units, period, admission)
    }
  }
}
