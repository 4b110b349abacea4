/**
 * Request-rate limits: per API key on all keyed traffic, per key per second on the
 * search endpoints, per client IP on the anonymous reference endpoints. Every request
 * is counted in Postgres (sql/rate-limits.ts), so every API process shares one limit:
 * a keyed request by its admission statement, an anonymous one by check() here.
 *
 * Headers, on every limited response (errors included, since errorHandler keeps what
 * is already set): X-RateLimit-Limit, X-RateLimit-Remaining, and X-RateLimit-Reset
 * in seconds until the window ends, of the tightest window. Over a limit: 429 with
 * Retry-After.
 */
import type { Context } from 'koa'
import type { Config, RateLimitRule } from '../../sql/config.ts'
import type { Db } from '../../sql/db.ts'
import { countRequest, type Limit } from '../../sql/rate-limits.ts'
import { errors } from '../errors.ts'
import { RATE_LIMIT, RETRY_AFTER, setHeaders } from '../headers.ts'

export type LimitRule = RateLimitRule & { bucket: string }

/** A window's count, this request included. */
export type Window = RateLimitRule & { hits: number; resetMs: number }

export class RateLimiter {
  private keyedWindows: [Limit[], Limit[]]

  constructor(
    private db: Db,
    readonly rules: Config['rateLimits'],
  ) {
    const key = { prefix: 'key:', ...rules.key }
    this.keyedWindows = [[key], [key, { prefix: 'search:', ...rules.search }]]
  }

  /** The windows a keyed request counts against: per key, and on the search endpoints per second too. */
  windows(search: boolean): Limit[] {
    return this.keyedWindows[search ? 1 : 0]
  }

  /** Counts a request that needs no key against `rules` (the per-IP limit); sets the headers, or throws the 429. */
  async check(ctx: Context, rules: LimitRule[]) {
    const counted = await countRequest(this.db, rules)
    enforce(ctx, rules.map((rule, i) => ({ ...rule, hits: counted[i].hits, resetMs: counted[i].reset_ms })))
  }
}

/** Sets the rate-limit headers of the tightest window, or throws the rate-limit 429 when a window is over. */
export function enforce(ctx: Context, windows: Window[]) {
  const remaining = (w: Window) => Math.max(0, w.limit - w.hits)
  const reset = (w: Window) => Math.max(1, Math.ceil(w.resetMs / 1000))
  const over = windows.find((w) => w.hits > w.limit)
  // the tightest window is what the client should pace itself by
  let shown = over ?? windows[0]
  if (!over) for (const w of windows) if (remaining(w) / w.limit < remaining(shown) / shown.limit) shown = w
  const values = [String(shown.limit), String(remaining(shown)), String(reset(shown))]
  if (over) {
    const headers = Object.fromEntries(RATE_LIMIT.map((name, i) => [name, values[i]]))
    ctx.set(headers)
    throw errors.rateLimited(over.limit, over.windowSeconds, { ...headers, [RETRY_AFTER]: values[2] })
  }
  setHeaders((n, v) => ctx.set(n, v), RATE_LIMIT, values)
}
