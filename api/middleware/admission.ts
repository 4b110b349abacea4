/**
 * One per app: the connections admission statements run on, the rate-limit rules, and
 * the gathering of requests into admission statements.
 *
 * Every keyed request is admitted by one statement (sql/meters.ts admitAll): the key by
 * its hash, the account's period, the rate-limit windows, the feature gate and the
 * meter's charge or reservation. Requests that arrive while STATEMENTS_IN_FLIGHT
 * admissions run wait for one of them to finish and then go in one statement together:
 * a request alone goes at once, and under load one statement admits many, so that
 * Postgres writes a rate-limit and a meter row once per statement rather than once per
 * request, and requests of one key no longer queue for those rows' locks one by one.
 * Each request still waits for exactly one statement. Nothing is kept in memory: a
 * revoked key, a changed plan, period or allowance apply to the next statement.
 */
import DataLoader from 'dataloader'
import type { Context } from 'koa'
import type { Config } from '../../sql/config.ts'
import type { Db } from '../../sql/db.ts'
import { admitAll, type Admitted, type AdmitRequest, type Charge, type Meter } from '../../sql/meters.ts'
import type { Limit } from '../../sql/rate-limits.ts'
import type { Credential } from './auth.ts'
import { RateLimiter } from './rate-limit.ts'

export type AdmitOptions = { limits: Limit[]; feature: string | null; meter: { meter: Meter; charge: number; reserve: number } | null; charge: Charge }

/** Admission statements running at once per process: two keep one gathering while the other runs. */
export const STATEMENTS_IN_FLIGHT = 2

export class Admission {
  readonly limiter: RateLimiter
  private readonly batches: DataLoader<AdmitRequest, Admitted | null>
  /** statements running or about to, and the gathered batches waiting for one to finish */
  private running = 0
  private waiting: (() => void)[] = []

  constructor(
    /** the connections admission statements run on (buildApp's admissionSql) */
    readonly db: Db,
    rateLimits: Config['rateLimits'],
  ) {
    this.limiter = new RateLimiter(db, rateLimits)
    this.batches = new DataLoader((rs) => this.run(rs), {
      // no size limit: a split batch would run two statements on one turn of schedule
      cache: false,
      batchScheduleFn: (dispatch) => this.schedule(dispatch),
    })
  }

  /** Admits a request (sql/meters.ts admitAll). Null when the credential names no live key or account. */
  admit(who: Credential, o: AdmitOptions): Promise<Admitted | null> {
    return this.batches.load({ who, ...o })
  }

  /**
   * A batch goes as soon as the code that asked has run (a request alone is not held
   * back for a turn of the event loop) while fewer than STATEMENTS_IN_FLIGHT run, or
   * else when one of them finishes, with whatever gathered meanwhile.
   */
  private schedule(dispatch: () => void) {
    if (this.running < STATEMENTS_IN_FLIGHT) {
      this.running++
      queueMicrotask(dispatch)
    } else this.waiting.push(dispatch)
  }

  private async run(rs: readonly AdmitRequest[]) {
    try {
      return await admitAll(this.db, rs)
    } finally {
      const next = this.waiting.shift()
      if (next) queueMicrotask(next)
      else this.running--
    }
  }

  /** Nothing to apply or record: every request reads the database, and settles before it is answered. */
  async sync() {}

  /** Nothing to flush or give back (see sync). */
  async close() {}
}

declare module 'koa' {
  interface DefaultContext {
    /** set by buildApp: the app's admission */
    admission?: Admission
  }
}

/** The app's admission (buildApp and the test servers set it on app.context). */
export function admissionOf(ctx: Context): Admission {
  if (!ctx.admission) throw new Error('no admission on the app context: serve routers through buildApp')
  return ctx.admission
}
