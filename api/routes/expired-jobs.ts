/**
 * GET /v2/jobs/expired-jobs: expired jobs as identifiers, newest first by when this
 * service marked them expired (docs/expired-jobs.md). Costs 0 on m_jobs_api_calls and
 * still sends the usage headers. Mounted before the /v2/jobs/{job_id} router, so
 * "expired-jobs" is never taken for a job id.
 */
import Router from '@koa/router'
import type PgBoss from 'pg-boss'
import { TYPE as EXPIRED_EXPORT } from '../../jobs/export-expired-jobs.ts'
import { createTask, type TaskConfig } from '../../jobs/tasks.ts'
import type { Db, Sql } from '../../sql/db.ts'
import { listExpiredJobs, type ExpiredJob } from '../../sql/expired-feed.ts'
import { keyed } from '../middleware/keyed.ts'
import { errors } from '../errors.ts'
import { jsonBody } from '../middleware/body.ts'
import { expiredExportBody, expiredFeedQuery, FEED_DEPTH, FEED_DEPTH_NOTE, sinceOrBadRequest } from '../schemas/expired-jobs.ts'
import { validate } from '../validate.ts'

/**
 * One page of the feed as the response body. Only the first `depth` jobs of the window
 * are reachable: the page that reaches the cap is cut there and, when jobs lie beyond
 * it, says so in `note` with has_more false; a page past it is empty with the note,
 * without asking the database (so past the cap the note is given whether or not the
 * window is that deep).
 */
export async function readExpiredFeed(db: Db, { since, page, limit }: { since: Date | null; page: number; limit: number }, depth = FEED_DEPTH) {
  const offset = (page - 1) * limit
  const reach = Math.max(0, Math.min(limit, depth - offset))
  const { jobs, more }: { jobs: ExpiredJob[]; more: boolean } = reach > 0 ? await listExpiredJobs(db, { since, offset, limit: reach }) : { jobs: [], more: true }
  const capped = more && offset + reach >= depth
  return {
    jobs,
    since: since?.toISOString() ?? null,
    page,
    limit,
    count_on_page: jobs.length,
    has_more: more && !capped,
    ...(capped ? { note: FEED_DEPTH_NOTE } : {}),
  }
}

export function expiredJobsRoutes(sql: Sql, boss: PgBoss | undefined, tasks: TaskConfig) {
  const db: Db = sql
  const router = new Router({ prefix: '/v2/jobs' })

  router.get('/expired-jobs', keyed({ signIn: true, meter: 'm_jobs_api_calls', cost: 0 }), async (ctx) => {
    const { since, page, limit } = await validate(expiredFeedQuery, ctx.query, 'query')
    ctx.body = await readExpiredFeed(db, { since: since === undefined ? null : sinceOrBadRequest(since), page, limit })
  })

  /**
   * The whole window as a JSONL file, through an export_expired_jobs task
   * (jobs/export-expired-jobs.ts). Free; the task's input records since (as the UTC
   * instant it was read as) and format jsonl.
   */
  router.post('/expired-jobs/export', jsonBody(), keyed({ signIn: true, meter: 'm_jobs_api_calls', cost: 0 }), async (ctx) => {
    const body = await validate(expiredExportBody, ctx.request.body)
    const since = sinceOrBadRequest(body.since)
    if (!boss) throw errors.tasksUnavailable()
    ctx.body = await sql.begin((tx) =>
      createTask(tx, boss, tasks, {
        accountId: ctx.state.account.id,
        type: EXPIRED_EXPORT,
        input: { since: since.toISOString(), format: 'jsonl' },
        notify: body.notify,
      }),
    )
  })

  return router
}
