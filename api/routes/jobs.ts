/** GET /v2/jobs/{job_id}. */
import Router from '@koa/router'
import type { Db } from '../../sql/db.ts'
import { findJob } from '../../sql/jobs.ts'
import { errors } from '../errors.ts'
import { keyed } from '../middleware/keyed.ts'
import { jobViewQuery } from '../schemas/jobs.ts'
import { pathSegment, validate } from '../validate.ts'

export function jobRoutes(db: Db) {
  const router = new Router({ prefix: '/v2/jobs' })
  router.param('job_id', pathSegment('job_id'))

  // the view is recorded for neural-search's hide_seen_jobs, under user_id or the account
  router.get('/:job_id', keyed({ meter: 'm_jobs_api_calls', cost: 1 }), async (ctx) => {
    const { return_raw_description, user_id } = await validate(jobViewQuery, ctx.query, 'query')
    const accountId: string = ctx.state.account.id
    const job = await findJob(db, ctx.params.job_id, {
      raw: return_raw_description === 'true',
      viewer: { accountId, userId: user_id ?? accountId },
    })
    if (!job) throw errors.notFound('Job')
    ctx.body = job
  })

  return router
}
