/** Company profile, its jobs, and one of its jobs. */
import Router from '@koa/router'
import type { Context } from 'koa'
import { findCompanyBySlug } from '../../sql/companies.ts'
import type { Sql } from '../../sql/db.ts'
import { readsOf, type Reads } from '../../sql/replicas.ts'
import { findCompanyJob, listCompanyCategories, listCompanyJobs } from '../../sql/jobs.ts'
import { errors } from '../errors.ts'
import { keyed } from '../middleware/keyed.ts'
import { limitFromQuery, perResult } from '../middleware/metering.ts'
import { pageEnvelope, pageQuery } from '../schemas/common.ts'
import { jobQuery } from '../schemas/jobs.ts'
import { pathSegment, validate } from '../validate.ts'

/** How many jobs the profile endpoint embeds; the /jobs listing pages through all. */
export const PROFILE_JOBS = 100

/** The /jobs listing's largest page (pageQuery's limit maximum): its largest possible cost. */
const MAX_PAGE = 100

/** Every lookup reads from a replica when one is usable (sql/replicas.ts). */
export function companyRoutes(sql: Sql | Reads) {
  const router = new Router({ prefix: '/v2/platform/companies' })
  const reads = readsOf(sql)
  router.param('company_slug', pathSegment('company_slug'))
  router.param('job_slug', pathSegment('job_slug'))

  const company = async (ctx: Context, db: Sql) => {
    const found = await findCompanyBySlug(db, ctx.params.company_slug)
    if (!found) throw errors.notFound('Company')
    return found
  }

  router.get('/:company_slug', keyed({ meter: 'm_company_api_calls', cost: 1 }), async (ctx) => {
    ctx.body = await reads.run(async (db) => {
      const { id, ...profile } = await company(ctx, db)
      const { jobs } = await listCompanyJobs(db, id, { limit: PROFILE_JOBS, offset: 0, includeExpired: true })
      return { company: profile, jobs }
    })
  })

  router.get('/:company_slug/jobs', keyed({ meter: 'm_jobs_api_calls', cost: perResult(limitFromQuery(10), MAX_PAGE) }), async (ctx) => {
    const { page, limit } = await validate(pageQuery, ctx.query, 'query')
    const [{ total, jobs }, job_categories] = await reads.run(async (db) => {
      const { id } = await company(ctx, db)
      return Promise.all([listCompanyJobs(db, id, { limit, offset: (page - 1) * limit }), listCompanyCategories(db, id)])
    })
    ctx.body = { jobs, job_categories, ...pageEnvelope(total, page, limit) }
  })

  router.get('/:company_slug/jobs/:job_slug', keyed({ meter: 'm_jobs_api_calls', cost: 1 }), async (ctx) => {
    const { return_raw_description } = await validate(jobQuery, ctx.query, 'query')
    ctx.body = await reads.run(async (db) => {
      const { id } = await company(ctx, db)
      const job = await findCompanyJob(db, id, ctx.params.job_slug, { raw: return_raw_description === 'true' })
      if (!job) throw errors.notFound('Job')
      return job
    })
  })

  return router
}
