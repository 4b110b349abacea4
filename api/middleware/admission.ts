/**
 * What keyed() consults before a handler runs, one per app (one per API process):
 * the key cache, the rate limiter and the meter leases, all answering from memory,
 * plus the loop that keeps them honest. Every TICK_MS it reads the billing_epoch
 * sequence and lets the meters flush when theirs is due (MeterLeases.tick). When the
 * sequence moved (a key revoked, an account, plan or allowance changed) cached keys
 * are dropped and every lease is granted again before use, and then the process
 * records the epoch it applied in api_processes: the admin CLI waits for that record
 * from every live process, so a change holds once the command returns
 * (sql/api-processes.ts). A process that cannot reach the database for TRUST_MS stops
 * answering from its caches, before the admin stops waiting for it.
 */
import type { Context } from 'koa'
import type { Config } from '../../sql/config.ts'
import type { Db } from '../../sql/db.ts'
import { forgetProcess, LIVE_SECONDS, recordEpoch } from '../../sql/api-processes.ts'
import { billingEpoch } from '../../sql/meters.ts'
import { KeyCache } from './auth.ts'
import { FLUSH_MS, MeterLeases } from './meter-leases.ts'
import { RateLimiter } from './rate-limit.ts'

/** how often billing_epoch is read; meters flush every METER_FLUSH_MS (meter-leases.ts) on these ticks */
export const TICK_MS = 50
/** how often a process that saw no change says it is alive */
export const HEARTBEAT_MS = 1000
/** caches are trusted this long after the last poll that reached the database; under LIVE_SECONDS */
export const TRUST_MS = (LIVE_SECONDS * 1000) / 2

export class Admission {
  readonly keys: KeyCache
  readonly limiter: RateLimiter
  readonly meters: MeterLeases
  private epoch: string | null = null
  private timer: NodeJS.Timeout | null = null
  private ticks = 0
  /** when a poll (and the record it owed) last succeeded, and when the record was last written */
  private confirmedAt = 0
  private recordedAt = 0

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
    // a poll already under way may have read the epoch before the caller's change
    await this.polling?.catch(() => {})
    await this.pollEpoch()
    await this.meters.flush()
  }

  /** Stops the tick: nothing is flushed or renewed after this (leases then run out). */
  stop() {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
  }

  /** Stops the tick, flushes, gives back every lease, and leaves api_processes. */
  async close() {
    const running = this.timer !== null
    this.stop()
    await this.meters.close()
    if (running) await forgetProcess(this.db, this.meters.holder)
  }

  private tick() {
    this.meters.tick()
    this.pollEpoch().catch(this.onError)
    if (this.confirmedAt > 0 && Date.now() - this.confirmedAt > TRUST_MS) this.distrust()
    if (++this.ticks % 100 === 0) this.limiter.prune()
  }

  private distrust() {
    this.keys.clear()
    this.meters.invalidate()
  }

  private polling: Promise<void> | null = null

  private pollEpoch() {
    this.polling ??= this.applyEpoch().finally(() => (this.polling = null))
    return this.polling
  }

  private async applyEpoch() {
    const epoch = await billingEpoch(this.db)
    // the first poll too: what was cached before it may predate a change
    const moved = epoch !== this.epoch
    if (moved) this.distrust()
    this.epoch = epoch
    // only a running process says so: the admin waits for it, and it keeps its record fresh
    const now = Date.now()
    if (this.timer && (moved || now - this.recordedAt >= HEARTBEAT_MS)) {
      await recordEpoch(this.db, this.meters.holder, epoch)
      this.recordedAt = now
    }
    this.confirmedAt = now
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
