/**
 * One per app: the connections admission statements run on, the rate-limit rules, and
 * the one thing kept in memory, a hint per key of the account's period fields.
 *
 * Every keyed request is admitted by one statement (sql/meters.ts admit): the key by
 * its hash, the rate-limit windows, the feature gate and the meter reservation. A
 * revoked key, a changed plan or allowance apply to the very next request; nothing
 * is cached that could say otherwise.
 *
 * The hint: a reservation goes on the meter row of the account's current period,
 * which sql/periods.ts computes from the account's period and trial fields. The
 * statement is given the period computed from the fields the key's account had last
 * time, and admits nothing unless the account still has them; when it does not (a
 * key not seen before, a period or trial changed), it says so and returns the fields,
 * and the request is admitted again with the period they give. A stale hint costs one
 * more statement, never a wrong meter row.
 */
import type { Context } from 'koa'
import type { Account } from '../../sql/accounts.ts'
import type { Config } from '../../sql/config.ts'
import type { Db } from '../../sql/db.ts'
import { admit, type Admitted, type Meter } from '../../sql/meters.ts'
import { currentPeriod, type Period, type PeriodFields } from '../../sql/periods.ts'
import type { Limit } from '../../sql/rate-limits.ts'
import type { Credential } from './auth.ts'
import { RateLimiter } from './rate-limit.ts'

const HINTS_MAX = 10_000
const noFields: PeriodFields = { period_start: null, period_end: null, trial_start: null, trial_end: null }
const fieldsOf = (a: Account): PeriodFields => ({ period_start: a.period_start, period_end: a.period_end, trial_start: a.trial_start, trial_end: a.trial_end })

export type AdmitOptions = { limits: Limit[]; feature: string | null; meter: Meter | null; units: number }

export class Admission {
  readonly limiter: RateLimiter
  private hints = new Map<string, PeriodFields>()

  constructor(
    /** the connections admission statements run on (buildApp's admissionSql) */
    readonly db: Db,
    rateLimits: Config['rateLimits'],
  ) {
    this.limiter = new RateLimiter(db, rateLimits)
  }

  /**
   * Admits a request (sql/meters.ts admit), asking again while the statement says the
   * period it was given is not the account's, or the meter row was missing. Null when
   * the credential names no live key or account.
   */
  async admit(who: Credential, o: AdmitOptions): Promise<(Admitted & { period: Period }) | null> {
    const hint = 'keyHash' in who ? who.keyHash : who.accountId
    let fields = this.hints.get(hint) ?? noFields
    // a period to find, then a row to create: the third time holds unless the account changes meanwhile
    for (let attempt = 1; ; attempt++) {
      const period = currentPeriod(fields)
      const admitted = await admit(this.db, { who, limits: o.limits, feature: o.feature, meter: o.meter ? { meter: o.meter, units: o.units, period, fields } : null })
      if (!admitted) {
        this.hints.delete(hint)
        return null
      }
      fields = fieldsOf(admitted.account)
      if (this.hints.size >= HINTS_MAX) this.hints.clear()
      this.hints.set(hint, fields)
      if (!admitted.again) return { ...admitted, period }
      if (attempt === 5) throw new Error(`admission: the account ${admitted.account.id} kept changing its period while a request was admitted`)
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
