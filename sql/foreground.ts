/**
 * Whether the service's foreground ran a statement on this database within the last
 * `withinMs` milliseconds, or is running one: the API's pools and the command-line tools
 * (ingest, admin), told apart by their application_name (sql/db.ts) from the task
 * workers and from pg-boss. An export rests only when this is so (jobs/pace.ts).
 *
 * A session idle since before the window has its state_change before it; one that ran
 * a statement in the window changed state at the statement's end, and one still at work
 * is active. Only a server lists other sessions: the embedded database serves every
 * connection in one session of its own, so the workers there rest after every step
 * (jobs/index.ts).
 */
import { ADMISSION_APPLICATION, APPLICATION, type Db } from './db.ts'

export async function foregroundActiveWithin(db: Db, withinMs: number) {
  const [row] = await db<{ active: boolean }[]>`
    select exists (
      select from pg_stat_activity
      where datname = current_database()
        and pid <> pg_backend_pid()
        and application_name in (${APPLICATION}, ${ADMISSION_APPLICATION})
        and (state = 'active' or state_change > clock_timestamp() - make_interval(secs => ${withinMs / 1000}))
    ) as active`
  return row.active
}
