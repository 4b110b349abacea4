/** The daily expiry run as a pg-boss queue: the cron only enqueues, a worker does the work. */
import type PgBoss from 'pg-boss'
import type { Logger } from 'pino'
import type { Sql } from '../sql/db.ts'
import { expireJobs } from '../sql/expiry.ts'

export const queue = 'jobs.expire'
export const options: PgBoss.Queue = { name: queue, retryLimit: 3, retryDelay: 60, retryBackoff: true, policy: 'singleton' }

export const handler =
  (sql: Sql, log: Logger, afterDays: number) =>
  async ([job]: PgBoss.Job<object>[]) => {
    const result = await expireJobs(sql, { afterDays })
    log.info({ job_id: job.id, ...result }, 'expiry run')
    return result
  }
