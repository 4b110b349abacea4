import PgBoss from 'pg-boss'
import type { Logger } from 'pino'

export function createBoss(url: string, log: Logger) {
  const boss = new PgBoss({ connectionString: url, max: 3, schema: 'pgboss' })
  boss.on('error', (err) => log.error({ err: { message: err.message, stack: err.stack } }, 'pg-boss error'))
  return boss
}
