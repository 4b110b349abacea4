/** Claims of scheduled instants: one process enqueues each (migration 0003_processes). */
import type { Db } from './db.ts'

/** True for the first claim of this queue's instant, false for every later one. */
export async function claimScheduledRun(db: Db, queue: string, at: Date) {
  const rows = await db`
    insert into scheduled_runs (queue, scheduled_at) values (${queue}, ${at})
    on conflict do nothing
    returning queue`
  return rows.length === 1
}

export async function pruneScheduledRuns(db: Db, before: Date) {
  const result = await db`delete from scheduled_runs where scheduled_at < ${before}`
  return result.count
}
