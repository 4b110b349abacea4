/**
 * Scheduled runs. node-cron fires in every API process; pg-boss runs each scheduled
 * instant once across them, because every process sends that instant's job under the
 * same id, a name-based UUID of the queue and the instant, and pg-boss inserts a job
 * whose id exists as nothing (its send returns null). The instant is node-cron's own
 * (the time the expression names), so processes whose clocks differ a little still
 * agree on it.
 */
import cron from 'node-cron'
import type PgBoss from 'pg-boss'
import type { Logger } from 'pino'
import { v5 as uuidv5 } from 'uuid'

/** The namespace of scheduled runs' job ids (a random UUID, fixed once). */
const SCHEDULED_RUNS = 'a5f1d7a2-4f43-4c57-9a3e-2e0d6c1b8f90'

/** The job id of `queue`'s run at `instant`: the same in every process. */
export const scheduledJobId = (queue: string, instant: Date) => uuidv5(`${queue}@${instant.toISOString()}`, SCHEDULED_RUNS)

/** Enqueues `queue`'s job for the instant `at` unless a process already did; the job id, or null. */
export async function enqueueScheduled(boss: PgBoss, queue: string, at: Date) {
  const instant = new Date(Math.floor(at.getTime() / 1000) * 1000)
  return boss.send(queue, { scheduled_at: instant.toISOString() }, { id: scheduledJobId(queue, instant) })
}

/** Runs `queue` on the cron expression (UTC), once per instant across every process. */
export function scheduleQueue(boss: PgBoss, log: Logger, queue: string, expression: string) {
  return cron.schedule(
    expression,
    ({ date }) => {
      enqueueScheduled(boss, queue, date).catch((err) => log.error({ queue, err: { message: err.message } }, 'could not enqueue a scheduled run'))
    },
    { timezone: 'UTC', name: queue },
  )
}
