/**
 * The monthly period roll-over (00:00 UTC on the 1st) as a pg-boss queue. Requests
 * never depend on it: each computes its own period (sql/periods.ts) and meter rows are
 * per period, so a new month starts from zero the moment it begins. This only records
 * the current period on subscription accounts and prunes old rate-limit windows, dead
 * leases and the claims of scheduled runs (kept 90 days, for the record).
 */
import type PgBoss from 'pg-boss'
import type { Logger } from 'pino'
import { rollPeriods } from '../sql/billing.ts'
import type { Sql } from '../sql/db.ts'

export const queue = 'billing.roll-periods'
export const options: PgBoss.Queue = { name: queue, retryLimit: 3, retryDelay: 60, retryBackoff: true, policy: 'singleton' }

export const handler =
  (sql: Sql, log: Logger) =>
  async ([job]: PgBoss.Job<object>[]) => {
    const result = await rollPeriods(sql)
    log.info({ job_id: job.id, ...result }, 'billing periods rolled')
    return result
  }
