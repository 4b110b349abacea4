/**
 * How many statements the service's foreground has been running on this database for at
 * least LONG_MS: the API's pools and the command-line tools (ingest, admin), told apart
 * by their application_name (sql/db.ts) from the task workers and from pg-boss.
 * Background work rests only while some are (jobs/pace.ts). A statement that ended,
 * however recently, takes nothing from anyone; one younger than LONG_MS is most likely a
 * lookup, an admission or a task-status poll, over in a millisecond or two, while a
 * search's statements run for tens of milliseconds and are seen for most of that time.
 *
 * Only a server lists other sessions: the embedded database serves every connection in
 * one session of its own, so there the API's own request queues are the signal.
 */
import { ADMISSION_APPLICATION, APPLICATION, type Db } from './db.ts'

export const LONG_MS = 5

export async function countForegroundStatements(db: Db) {
  const [row] = await db<{ running: number }[]>`
    select count(*)::int as running
    from pg_stat_activity
    where datname = current_database()
      and pid <> pg_backend_pid()
      and application_name in (${APPLICATION}, ${ADMISSION_APPLICATION})
      and state = 'active'
      and query_start < clock_timestamp() - make_interval(secs => ${LONG_MS / 1000})`
  return row.running
}
