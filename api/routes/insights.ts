/**
 * POST /v2/jobs/insights and POST /v2/platform/companies/{company_slug}/insights: market
 * aggregates, answered at once (sql/insights.ts), 1 unit of m_insights_calls each. Both
 * are mounted before the routers whose parameters would take their paths
 * (/v2/jobs/{job_id}, /v2/platform/companies/{company_slug}).
 */
import Router from '@koa/router'
import { findCompanyBySlug } from '../../sql/companies.ts'
import type { Sql } from '../../sql/db.ts'
import { readsOf, type Reads } from '../../sql/replicas.ts'
import { companyInsights, jobInsights } from '../../sql/insights.ts'
import { errors } from '../errors.ts'
import { jsonBody } from '../middleware/body.ts'
import { keyed } from '../middleware/keyed.ts'
import { companyInsightsBody, jobInsightsBody } from '../schemas/insights.ts'
import { toSearch } from '../search-filters.ts'
import { pathSegment, validate } from '../validate.ts'

const METERED = { signIn: true, meter: 'm_insights_calls', cost: 1 } as const

/** Both read from a replica when one is usable (sql/replicas.ts). */
export function insightsRoutes(db: Sql | Reads) {
  const router = new Router({ prefix: '/v2' })
  const reads = readsOf(db)
  router.param('company_slug', pathSegment('company_slug'))

  router.post('/jobs/insights', jsonBody(), keyed(METERED), async (ctx) => {
    const { currency, ...search } = await validate(jobInsightsBody, ctx.request.body)
    // currency is the report's, not search's filter on the currency postings state
    const { filters } = toSearch(search)
    const { total, ...insights } = await reads.run((db) => jobInsights(db, filters, currency.toUpperCase()))
    ctx.body = { total_count: total, currency: currency.toUpperCase(), ...insights }
  })

  router.post('/platform/companies/:company_slug/insights', jsonBody(), keyed(METERED), async (ctx) => {
    const { currency } = await validate(companyInsightsBody, ctx.request.body)
    const { company, insights } = await reads.run(async (db) => {
      const company = await findCompanyBySlug(db, ctx.params.company_slug)
      if (!company) throw errors.notFound('Company')
      return { company, insights: await companyInsights(db, company.id, currency.toUpperCase()) }
    })
    ctx.body = { company_slug: company.company_slug, company_name: company.company_name, currency: currency.toUpperCase(), ...insights }
  })

  return router
}
