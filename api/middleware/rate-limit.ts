/**
 * Request-rate limits: per API key on all keyed traffic, per key per second on the
 * search endpoints, per client IP on the anonymous reference endpoints. Counters live
 * in Postgres (sql/rate-limits.ts), so several API processes share one limit.
 *
 * Per-process fast path: once the database says a bucket is over its limit, this
 * process answers 429 from memory until that window ends. A window's count only
 * grows, so the database would answer the same; the shared limit still holds.
 *
 * Headers, on every limited response (errors included, since errorHandler keeps what
 * is already set): X-RateLimit-Limit, X-RateLimit-Remaining, and X-RateLimit-Reset
 * in seconds until the window ends. Over a limit: 429 with Retry-After.
 */
import type { Context, Next } from 'koa'
import type { Config, RateLimitRule } from '../config.ts'
import { loadConfig } from '../config.ts'
import type { Db } from '../../sql/db.ts'
import { hitRateLimits } from '../../sql/rate-limits.ts'
import { errors } from '../errors.ts'

export type LimitRule = RateLimitRule & { bucket: string }
type Outcome = { rule: LimitRule; remaining: number; resetSeconds: number; over: boolean }

export class RateLimiter {
  /** bucket → when its full window ends (ms since epoch) */
  private blockedUntil = new Map<string, number>()

  constructor(
    private db: Db,
    readonly rules: Config['rateLimits'],
  ) {}

  /** Counts the request against each rule; throws the rate-limit 429 when one is over. */
  async check(ctx: Context, rules: LimitRule[]) {
    this.fastPath(ctx, rules)
    const hits = await hitRateLimits(this.db, rules.map(({ bucket, windowSeconds }) => ({ bucket, windowSeconds })))
    this.apply(ctx, rules, rules.map((rule) => hits.find((h) => h.bucket === rule.bucket)!))
  }

  /** Throws the 429 from memory when a bucket is known to be over until its window ends. */
  fastPath(ctx: Context, rules: LimitRule[]) {
    const now = Date.now()
    for (const rule of rules) {
      const until = this.blockedUntil.get(rule.bucket)
      if (until === undefined) continue
      if (until > now) this.refuse(ctx, { rule, remaining: 0, resetSeconds: Math.ceil((until - now) / 1000), over: true })
      this.blockedUntil.delete(rule.bucket)
    }
  }

  /**
   * The request's counts, one per rule in order (from hitRateLimits or the admission
   * statement): sets the headers, or remembers the bucket and throws the 429.
   */
  apply(ctx: Context, rules: LimitRule[], hits: { hits: number; reset_ms: number }[]) {
    const now = Date.now()
    const outcomes: Outcome[] = rules.map((rule, i) => {
      const hit = hits[i]
      return { rule, remaining: Math.max(0, rule.limit - hit.hits), resetSeconds: Math.max(1, Math.ceil(hit.reset_ms / 1000)), over: hit.hits > rule.limit }
    })
    const over = outcomes.find((o) => o.over)
    if (over) {
      if (this.blockedUntil.size > 10_000) this.prune(now)
      this.blockedUntil.set(over.rule.bucket, now + over.resetSeconds * 1000)
      return this.refuse(ctx, over)
    }
    // the tightest rule is what the client should pace itself by
    const tightest = outcomes.reduce((a, b) => (b.remaining / b.rule.limit < a.remaining / a.rule.limit ? b : a))
    ctx.set(headers(tightest))
  }

  private refuse(ctx: Context, o: Outcome): never {
    const h = headers(o)
    ctx.set(h)
    throw errors.rateLimited(o.rule.limit, o.rule.windowSeconds, { ...h, 'Retry-After': String(o.resetSeconds) })
  }

  private prune(now: number) {
    for (const [bucket, until] of this.blockedUntil) if (until <= now) this.blockedUntil.delete(bucket)
  }
}

const headers = (o: Outcome) => ({
  'X-RateLimit-Limit': String(o.rule.limit),
  'X-RateLimit-Remaining': String(o.remaining),
  'X-RateLimit-Reset': String(o.resetSeconds),
})

declare module 'koa' {
  interface DefaultContext {
    /** set by buildApp: one limiter per app, with the app's configured limits */
    rateLimiter?: RateLimiter
  }
}

const fallbacks = new WeakMap<object, RateLimiter>()

/** The app's limiter; a router served without buildApp (tests) gets one with the environment's limits. */
export function limiterFor(ctx: Context, db: Db): RateLimiter {
  if (ctx.rateLimiter) return ctx.rateLimiter
  let limiter = fallbacks.get(db)
  if (!limiter) fallbacks.set(db, (limiter = new RateLimiter(db, loadConfig().rateLimits)))
  return limiter
}

/** The anonymous limit, per client IP: the public reference endpoints. */
export function anonymousRateLimit(db: Db) {
  return async (ctx: Context, next: Next) => {
    const limiter = limiterFor(ctx, db)
    await limiter.check(ctx, [{ bucket: `ip:${ctx.ip}`, ...limiter.rules.anonymous }])
    return next()
  }
}

/** Per key (or per account, for a JWT), plus the per-second search limit when asked for. */
export function keyRules(limiter: RateLimiter, id: string, search: boolean): LimitRule[] {
  const rules = [{ bucket: `key:${id}`, ...limiter.rules.key }]
  if (search) rules.push({ bucket: `search:${id}`, ...limiter.rules.search })
  return rules
}
