/**
 * One per app: the connections admission statements run on and the rate-limit rules.
 *
 * Every keyed request is admitted by one statement (sql/meters.ts admit): the key by
 * its hash, the account's period, the rate-limit windows, the feature gate and the
 * meter's charge or reservation. Nothing is kept in memory: a revoked key, a changed
 * plan, period or allowance apply to the very next request.
 */
import type { Context } from 'koa'
import type { Config } from '../../sql/config.ts'
import type { Db } from '../../sql/db.ts'
import { admit, type Admitted, type Charge, type Meter } from '../../sql/meters.ts'
import type { Limit } from '../../sql/rate-limits.ts'
import type { Credential } from './auth.ts'
import { RateLimiter } from './rate-limit.ts'

export type AdmitOptions = { limits: Limit[]; feature: string | null; meter: { meter: Meter; charge: number; reserve: number } | null; charge: Charge }

export class Admission {
  readonly limiter: RateLimiter

  constructor(
    /** the connections admission statements run on (buildApp's admissionSql) */
    readonly db: Db,
    rateLimits: Config['rateLimits'],
  ) {
    this.limiter = new RateLimiter(db, rateLimits)
  }

  /** Admits a request (sql/meters.ts admit). Null when the credential names no live key or account. */
  admit(who: Credential, o: AdmitOptions): Promise<Admitted | null> {
    return admit(this.db, { who, ...o })
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
