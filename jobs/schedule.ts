/**
 * Scheduled runs. node-cron fires in every API process; each scheduled instant is
 * claimed once in the database (sql/scheduled-runs.ts) and its job enqueued in the same
 * transaction, so it runs exactly once across processes, and a process that dies
 * between the two leaves neither. The instant is node-cron's own (the time the
 * expression names), so processes whose clocks differ a little still agree on it.
 */
import cron from 'node-cron'
import type PgBoss from 'pg-boss'
import type { Logger } from 'pino'
import { bossDb } from '../sql/boss-db.ts'
import type { Sql } from '../sql/db.ts'
import { claimScheduledRun } from '../sql/scheduled-runs.ts'

/** Enqueues `queue`'s job for the instant `at` unless a process already did; the job id, or null. */
export async function enqueueScheduled(boss: PgBoss, sql: Sql, queue: string, at: Date) {
  const instant = new Date(Math.floor(at.getTime() / 1000) * 1000)
  return sql.begin(async (tx) => {
    if (!(await claimScheduledRun(tx, queue, instant))) return null
    return boss.send(queue, { scheduled_at: instant.toISOString() }, { db: bossDb(tx) })
  })
}

/** Runs `queue` on the cron expression (UTC), once per instant across every process. */
export function scheduleQueue(boss: PgBoss, sql: Sql, log: Logger, queue: string, expression: string) {
  return cron.schedule(
    expression,
    ({ date }) => {
      enqueueScheduled(boss, sql, queue, date).catch((err) => log.error({ queue, err: { message: err.message } }, 'could not enqueue a scheduled run'))
    },
    { timezone: 'UTC', name: queue },
  )
}
