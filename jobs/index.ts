/** Registers every queue and worker, and the schedules that feed them. */
import cron from 'node-cron'
import type PgBoss from 'pg-boss'
import type { Logger } from 'pino'
import type { Config } from '../sql/config.ts'
import type { Sql } from '../sql/db.ts'
import * as rollPeriods from './billing-roll-periods.ts'
import * as expire from './jobs-expire.ts'

export async function startWorkers(boss: PgBoss, sql: Sql, log: Logger, config: Config) {
  await boss.createQueue(expire.queue, expire.options)
  await boss.work(expire.queue, expire.handler(sql, log, config.expireAfterDays))
  // node-cron only enqueues; singleton policy keeps two servers from running it twice
  const task = cron.schedule(config.expireCron, () => {
    boss.send(expire.queue, {}).catch((err) => log.error({ err: { message: err.message } }, 'could not enqueue expiry'))
  }, { timezone: 'UTC' })
  await boss.createQueue(rollPeriods.queue, rollPeriods.options)
  await boss.work(rollPeriods.queue, rollPeriods.handler(sql, log))
  const periods = cron.schedule(config.periodCron, () => {
    boss.send(rollPeriods.queue, {}).catch((err) => log.error({ err: { message: err.message } }, 'could not enqueue the period roll-over'))
  }, { timezone: 'UTC' })
  return { stop: () => (task.stop(), periods.stop()) }
}
