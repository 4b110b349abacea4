/**
 * Request-rate limits: per API key on all keyed traffic, per key per second on the
 * search endpoints, per client IP on the anonymous reference endpoints. Counters live
 * in Postgres (sql/rate-limits.ts), so several API processes share one limit.
 *
 * Per-process fast path: a process claims hits from a bucket's window in the
 * database in blocks (half of what the window has left, or what its waiting requests
 * need) and counts requests against its claim in memory. Every hit is claimed before
 * it is used, so all processes together never pass the limit; a block a process does
 * not use in the window is only lost to the others. Once the database says a bucket
 * is over, this process answers 429 from memory until that window ends.
 *
 * Headers, on every limited response (errors included, since errorHandler keeps what
 * is already set): X-RateLimit-Limit, X-RateLimit-Remaining, and X-RateLimit-Reset
 * in seconds until the window ends. Over a limit: 429 with Retry-After.
 */
import type { Context } from 'koa'
import type { Config, RateLimitRule } from '../../sql/config.ts'
import type { Db } from '../../sql/db.ts'
import { claimHits, type Claim, type Claimed } from '../../sql/rate-limits.ts'
import { errors } from '../errors.ts'
import { RATE_LIMIT, RETRY_AFTER, setHeaders } from '../headers.ts'
import { Batcher } from './batcher.ts'

export type LimitRule = RateLimitRule & { bucket: string }
type Outcome = { rule: LimitRule; remaining: number; resetSeconds: number; over: boolean }

type Bucket = {
  /** when the window ends, on this process's clock */
  windowEnd: number
  /** hits this process claimed in the window, and how many of them requests used */
  claimed: number
  used: number
  /** the window's count in the database (every process's claims) at the last claim */
  dbHits: number
  /** the database said the window is over its limit */
  over: boolean
  claiming: Promise<void> | null
  waiting: number
}

export class RateLimiter {
  private buckets = new Map<string, Bucket>()
  private claims: Batcher<Claim, Claimed>
  private accountRules = new WeakMap<object, [LimitRule[], LimitRule[]]>()

  constructor(
    db: Db,
    readonly rules: Config['rateLimits'],
  ) {
    this.claims = new Batcher((items) => claimHits(db, items).then((rows) => items.map((i) => rows.find((r) => r.bucket === i.bucket)!)))
  }

  /**
   * Counts the request against each rule; sets the headers, or throws the rate-limit
   * 429 when one is over. Synchronous when this process's claims cover the request.
   */
  check(ctx: Context, rules: LimitRule[], now = Date.now()): void | Promise<void> {
    // the usual case, without an outcome per rule: every bucket has a claimed hit left
    for (let i = 0; i < rules.length; i++) {
      const b = this.buckets.get(rules[i].bucket)
      if (!b || b.windowEnd <= now || b.used >= b.claimed) return this.checkEach(ctx, rules)
    }
    let tightest = rules[0]
    let remaining = 0
    let reset = 0
    for (let i = 0; i < rules.length; i++) {
      const rule = rules[i]
      const b = this.buckets.get(rule.bucket)!
      b.used++
      const left = remainingIn(rule, b)
      if (i === 0 || left / rule.limit < remaining / tightest.limit) {
        tightest = rule
        remaining = left
        reset = resetSeconds(b, now)
      }
    }
    setHeaders((n, v) => ctx.set(n, v), RATE_LIMIT, [String(tightest.limit), String(remaining), String(reset)])
  }

  /** check() rule by rule: some bucket is over, or needs a claim first. */
  private checkEach(ctx: Context, rules: LimitRule[]): void | Promise<void> {
    const outcomes: Outcome[] = []
    for (let i = 0; i < rules.length; i++) {
      const now = this.takeNow(rules[i])
      if (!now) return this.checkLater(ctx, rules, outcomes)
      outcomes.push(now)
    }
    this.decide(ctx, outcomes)
  }

  /** check() once a rule needs a claim from the database: the rest of the rules in turn. */
  private async checkLater(ctx: Context, rules: LimitRule[], outcomes: Outcome[]) {
    for (let i = outcomes.length; i < rules.length; i++) outcomes.push(await this.take(rules[i]))
    this.decide(ctx, outcomes)
  }

  private decide(ctx: Context, outcomes: Outcome[]) {
    const over = outcomes.find((o) => o.over)
    if (over) {
      const h = headers(over)
      ctx.set(h)
      throw errors.rateLimited(over.rule.limit, over.rule.windowSeconds, { ...h, [RETRY_AFTER]: String(over.resetSeconds) })
    }
    // the tightest rule is what the client should pace itself by
    let tightest = outcomes[0]
    for (const o of outcomes) if (o.remaining / o.rule.limit < tightest.remaining / tightest.rule.limit) tightest = o
    setHeaders((n, v) => ctx.set(n, v), RATE_LIMIT, [String(tightest.rule.limit), String(tightest.remaining), String(tightest.resetSeconds)])
  }

  /**
   * An account's rules: per key (or per account, for a JWT), plus the per-second
   * search limit when asked for. Built once per account object, which the key cache
   * shares between requests.
   */
  rulesFor(account: { id: string; key_id: string | null }, search: boolean): LimitRule[] {
    let rules = this.accountRules.get(account)
    if (!rules) {
      const id = account.key_id ?? `account:${account.id}`
      const key = { bucket: `key:${id}`, ...this.rules.key }
      rules = [[key], [key, { bucket: `search:${id}`, ...this.rules.search }]]
      this.accountRules.set(account, rules)
    }
    return rules[search ? 1 : 0]
  }

  /** Forgets buckets whose window has ended. */
  prune() {
    const now = Date.now()
    for (const [name, b] of this.buckets) if (b.windowEnd <= now && !b.claiming) this.buckets.delete(name)
  }

  /** The rule's outcome from memory, or null when the bucket needs a claim first. */
  private takeNow(rule: LimitRule): Outcome | null {
    const now = Date.now()
    const b = this.buckets.get(rule.bucket)
    if (!b || b.windowEnd <= now) return null
    if (b.used < b.claimed) {
      b.used++
      return { rule, remaining: remainingIn(rule, b), resetSeconds: resetSeconds(b, now), over: false }
    }
    if (b.over) return { rule, remaining: 0, resetSeconds: resetSeconds(b, now), over: true }
    return null
  }

  private async take(rule: LimitRule): Promise<Outcome> {
    for (;;) {
      const now = Date.now()
      let b = this.buckets.get(rule.bucket)
      if (!b || (b.windowEnd <= now && !b.claiming)) {
        b = { windowEnd: 0, claimed: 0, used: 0, dbHits: 0, over: false, claiming: null, waiting: 0 }
        this.buckets.set(rule.bucket, b)
      }
      const known = this.takeNow(rule)
      if (known) return known
      if (b.claiming) {
        b.waiting++
        await b.claiming.finally(() => b.waiting--)
        continue
      }
      const bucket = b
      bucket.claiming = this.claim(rule, bucket).finally(() => (bucket.claiming = null))
      await bucket.claiming
    }
  }

  private async claim(rule: LimitRule, b: Bucket) {
    const left = rule.limit - b.dbHits
    const hits = Math.max(1 + b.waiting, Math.floor(left / 2))
    const row = await this.claims.push({ bucket: rule.bucket, windowSeconds: rule.windowSeconds, hits })
    const end = Date.now() + row.reset_ms
    // a new window (in the database's clock) starts the count over
    if (end - b.windowEnd > (rule.windowSeconds * 1000) / 2) {
      b.claimed = 0
      b.used = 0
      b.over = false
    }
    b.windowEnd = end
    b.dbHits = row.hits
    const granted = Math.max(0, Math.min(hits, rule.limit - (row.hits - hits)))
    b.claimed += granted
    b.over = granted === 0
  }
}

/** what the window has left for the client, counting every process's claims */
const remainingIn = (rule: LimitRule, b: Bucket) => Math.max(0, rule.limit - (b.dbHits - b.claimed + b.used))

const resetSeconds = (b: Bucket, now: number) => Math.max(1, Math.ceil((b.windowEnd - now) / 1000))

const headers = (o: Outcome) => ({
  [RATE_LIMIT[0]]: String(o.rule.limit),
  [RATE_LIMIT[1]]: String(o.remaining),
  [RATE_LIMIT[2]]: String(o.resetSeconds),
})
