/** Company profile, its jobs, and one of its jobs. */
import Router from '@koa/router'
import type { Context } from 'koa'
import { findCompanyBySlug } from '../../sql/companies.ts'
import type { Db } from '../../sql/db.ts'
import { findCompanyJob, listCompanyCategories, listCompanyJobs } from '../../sql/jobs.ts'
import { errors } from '../errors.ts'
import { requireKey } from '../middleware/auth.ts'
import { pageEnvelope, pageQuery } from '../schemas/common.ts'
import { jobQuery } from '../schemas/jobs.ts'
import { validate } from '../validate.ts'

/** How many jobs the profile endpoint embeds; the /jobs listing pages through all. */
export const PROFILE_JOBS = 100

export function companyRoutes(db: Db) {
  const router = new Router({ prefix: '/v2/platform/companies' })

  const company = async (ctx: Context) => {
    const found = await findCompanyBySlug(db, ctx.params.company_slug)
    if (!found) throw errors.notFound('Company')
    return found
  }

  router.get('/:company_slug', requireKey(db), async (ctx) => {
    const { id, ...profile } = await company(ctx)
    const { jobs } = await listCompanyJobs(db, id, { limit: PROFILE_JOBS, offset: 0, includeExpired: true })
    ctx.body = { company: profile, jobs }
  })

  router.get('/:company_slug/jobs', requireKey(db), async (ctx) => {
    const { page, limit } = await validate(pageQuery, ctx.query, 'query')
    const { id } = await company(ctx)
    const [{ total, jobs }, job_categories] = await Promise.all([
      listCompanyJobs(db, id, { limit, offset: (page - 1) * limit }),
      listCompanyCategories(db, id),
    ])
    ctx.body = { jobs, job_categories, ...pageEnvelope(total, page, limit) }
  })

  router.get('/:company_slug/jobs/:job_slug', requireKey(db), async (ctx) => {
    const { return_raw_description } = await validate(jobQuery, ctx.query, 'query')
    const { id } = await company(ctx)
    const job = await findCompanyJob(db, id, ctx.params.job_slug, { raw: return_raw_description === 'true' })
    if (!job) throw errors.notFound('Job')
    ctx.body = job
  })

  return router
}
