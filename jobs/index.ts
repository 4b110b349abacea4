/** Registers every queue and worker, and the schedules that feed them. */
import type PgBoss from 'pg-boss'
import type { Logger } from 'pino'
import type { Config } from '../sql/config.ts'
import type { Sql } from '../sql/db.ts'
import * as rollPeriods from './billing-roll-periods.ts'
import * as expire from './jobs-expire.ts'
import { scheduleQueue } from './schedule.ts'

export async function startWorkers(boss: PgBoss, sql: Sql, log: Logger, config: Config) {
  await boss.createQueue(expire.queue, expire.options)
  await boss.work(expire.queue, expire.handler(sql, log, config.expireAfterDays))
  await boss.createQueue(rollPeriods.queue, rollPeriods.options)
  await boss.work(rollPeriods.queue, rollPeriods.handler(sql, log))
  const schedules = [scheduleQueue(boss, sql, log, expire.queue, config.expireCron), scheduleQueue(boss, sql, log, rollPeriods.queue, config.periodCron)]
  return { stop: () => Promise.all(schedules.map((s) => s.stop())) }
}
