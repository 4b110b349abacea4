/**
 * The gauges GET /metrics reports from the database (api/metrics.ts). They are read on
 * a timer, not per scrape, so that a scrape costs no query however busy the database is.
 */
import type { Db } from './db.ts'

/** pg-boss jobs not yet done, by queue and state (created, retry, active). */
export function countBossJobs(db: Db) {
  return db<{ queue: string; state: string; n: number }[]>`
    select name as queue, state::text as state, count(*)::int as n
    from pgboss.job
    where state < 'completed'
    group by 1, 2`
}

/** Tasks waiting or running, by type and state; finished and failed ones are history, not load. */
export function countOpenTasks(db: Db) {
  return db<{ type: string; state: string; n: number }[]>`
    select type, state, count(*)::int as n
    from tasks
    where state in ('queued', 'processing')
    group by 1, 2`
}

/** This database's sessions by application (the API's pools, the admission's, the workers') and state (active, idle, idle in transaction). */
export function countSessions(db: Db) {
  return db<{ application: string; state: string; n: number }[]>`
    select coalesce(nullif(application_name, ''), 'unnamed') as application, coalesce(state, 'unknown') as state, count(*)::int as n
    from pg_stat_activity
    where datname = current_database() and backend_type = 'client backend'
    group by 1, 2`
}
