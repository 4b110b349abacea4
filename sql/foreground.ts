/**
 * How many statements the service's foreground is running on this database now: the
 * API's pools and the command-line tools (ingest, admin), told apart by their
 * application_name (sql/db.ts) from the task workers and from pg-boss. Background work
 * rests only while some are (jobs/pace.ts): a statement that ended, however recently,
 * takes nothing from anyone.
 *
 * Only a server lists other sessions: the embedded database serves every connection in
 * one session of its own, so there the API's own request queues are the signal.
 */
import { ADMISSION_APPLICATION, APPLICATION, type Db } from './db.ts'

export async function countForegroundStatements(db: Db) {
  const [row] = await db<{ running: number }[]>`
    select count(*)::int as running
    from pg_stat_activity
    where datname = current_database()
      and pid <> pg_backend_pid()
      and application_name in (${APPLICATION}, ${ADMISSION_APPLICATION})
      and state = 'active'`
  return row.running
}
