/** GET /v2/jobs/{job_id}. */
import Router from '@koa/router'
import type { Sql } from '../../sql/db.ts'
import { findJob, insertJobView } from '../../sql/jobs.ts'
import type { Reads } from '../../sql/replicas.ts'
import { errors } from '../errors.ts'
import { keyed } from '../middleware/keyed.ts'
import { jobViewQuery } from '../schemas/jobs.ts'
import { pathSegment, validate } from '../validate.ts'

/**
 * `admission`: the admission's connections, whose generic plan saves planning the
 * lookup's join (api/app.ts). With `reads` (sql/replicas.ts), the job is read from a
 * replica when one is usable and its view recorded on the admission's connections; on
 * the primary, one statement does both.
 */
export function jobRoutes(admission: Sql, reads?: Reads) {
  const router = new Router({ prefix: '/v2/jobs' })
  router.param('job_id', pathSegment('job_id'))

  // the view is recorded for neural-search's hide_seen_jobs, under user_id or the account
  router.get('/:job_id', keyed({ meter: 'm_jobs_api_calls', cost: 1 }), async (ctx) => {
    const { return_raw_description, user_id } = await validate(jobViewQuery, ctx.query, 'query')
    const accountId: string = ctx.state.account.id
    const raw = return_raw_description === 'true'
    const viewer = { accountId, userId: user_id ?? accountId }
    const lookup = async (db: Sql) => {
      const onReplica = db !== admission && db !== reads?.primary
      const job = await findJob(onReplica ? db : admission, ctx.params.job_id, { raw, viewer: onReplica ? undefined : viewer })
      // a 404 on a replica is asked of the primary (Replicas.run)
      if (!job) throw errors.notFound('Job')
      return { job, onReplica }
    }
    const { job, onReplica } = await (reads ? reads.run(lookup) : lookup(admission))
    if (onReplica) await insertJobView(admission, viewer, job._id)
    ctx.body = job
  })

  return router
}
