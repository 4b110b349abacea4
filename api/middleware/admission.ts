/**
 * What keyed() consults before a handler runs, one per app (one per API process):
 * the key cache, the rate limiter and the meter leases, all answering from memory,
 * plus the loop that keeps them honest. Every TICK_MS it reads the billing_epoch
 * sequence and lets the meters flush when theirs is due (MeterLeases.tick); when the sequence moved
 * (a key revoked, an account, plan or allowance changed) cached keys are dropped and
 * every lease is granted again, so such a change applies within one tick.
 */
import type { Context } from 'koa'
import type { Config } from '../../sql/config.ts'
import type { Db } from '../../sql/db.ts'
import { billingEpoch } from '../../sql/meters.ts'
import { KeyCache } from './auth.ts'
import { FLUSH_MS, MeterLeases } from './meter-leases.ts'
import { RateLimiter } from './rate-limit.ts'

/** how often billing_epoch is read; meters flush every METER_FLUSH_MS (meter-leases.ts) on these ticks */
export const TICK_MS = 50

export class Admission {
  readonly keys: KeyCache
  readonly limiter: RateLimiter
  readonly meters: MeterLeases
  private epoch: string | null = null
  private timer: NodeJS.Timeout | null = null
  private ticks = 0

  constructor(
    /** the admission's own connections (buildApp's admissionSql) */
    readonly db: Db,
    rateLimits: Config['rateLimits'],
    private onError: (err: unknown) => void = () => {},
    flushMs = FLUSH_MS,
  ) {
    this.keys = new KeyCache(db)
    this.limiter = new RateLimiter(db, rateLimits)
    this.meters = new MeterLeases(db, onError, flushMs)
  }

  /** Starts the tick; it never keeps the process alive on its own. */
  start() {
    if (this.timer) return this
    this.timer = setInterval(() => this.tick(), TICK_MS).unref()
    return this
  }

  /**
   * Applies what changed in the database and records what was charged, now: what a
   * tick does, awaited. Tests call it after changing accounts behind the API's back.
   */
  async sync() {
    await this.pollEpoch()
    await this.meters.flush()
  }

  /** Stops the tick: nothing is flushed or renewed after this (leases then run out). */
  stop() {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
  }

  /** Stops the tick, flushes, and gives back every lease. */
  async close() {
    this.stop()
    await this.meters.close()
  }

  private tick() {
    this.meters.tick()
    this.pollEpoch().catch(this.onError)
    if (++this.ticks % 100 === 0) this.limiter.prune()
  }

  private polling: Promise<void> | null = null

  private pollEpoch() {
    this.polling ??= billingEpoch(this.db)
      .then((epoch) => {
        // the first poll too: what was cached before it may predate a change
        if (epoch !== this.epoch) {
          this.keys.clear()
          this.meters.invalidate()
        }
        this.epoch = epoch
      })
      .finally(() => (this.polling = null))
    return this.polling
  }
}

declare module 'koa' {
  interface DefaultContext {
    /** set by buildApp: the app's admission state */
    admission?: Admission
  }
}

/** The app's admission (buildApp and the test servers set it on app.context). */
export function admissionOf(ctx: Context): Admission {
  if (!ctx.admission) throw new Error('no admission on the app context: serve routers through buildApp')
  return ctx.admission
}
