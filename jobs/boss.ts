import PgBoss from 'pg-boss'
import type { Logger } from 'pino'
import { reserved, type Sql } from '../sql/db.ts'

/**
 * `maintenanceSeconds`: how often pg-boss fails attempts past their expiry (a dead
 * worker's) so that they are retried; TASK_MAINTENANCE_SECONDS.
 */
export function createBoss(url: string, log: Logger, { maintenanceSeconds = 60 } = {}) {
  const boss = new PgBoss({ connectionString: url, max: 3, schema: 'pgboss', maintenanceIntervalSeconds: maintenanceSeconds })
  boss.on('error', (err) => log.error({ err: { message: err.message, stack: err.stack } }, 'pg-boss error'))
  return boss
}

/** Any number that no other advisory lock of the service uses. */
const QUEUES_LOCK = 727_101

/**
 * Creates the queues that do not exist yet. pg-boss's createQueue, run for the same new
 * queue by two processes starting at once, can deadlock on its queue table, so every
 * process creates its queues under one advisory lock, one process at a time.
 */
export async function createQueues(boss: PgBoss, sql: Sql, queues: (PgBoss.Queue & { name: string })[]) {
  await reserved(sql, async (conn) => {
    await conn`select pg_advisory_lock(${QUEUES_LOCK})`
    try {
      for (const q of queues) if (!(await boss.getQueue(q.name))) await boss.createQueue(q.name, q)
    } finally {
      await conn`select pg_advisory_unlock(${QUEUES_LOCK})`.catch(() => {})
    }
  })
}
