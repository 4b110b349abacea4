/**
 * POST /v2/platform/companies/search (sql/company-search.ts). Its own router, mounted
 * beside companyRoutes: a POST to /search never reaches GET /:company_slug.
 */
import Router from '@koa/router'
import { searchCompanies, type CompanySearchFilters } from '../../sql/company-search.ts'
import type { Sql } from '../../sql/db.ts'
import { readsOf, type Reads } from '../../sql/replicas.ts'
import { parse } from '../../sql/query-syntax.ts'
import { jsonBody } from '../middleware/body.ts'
import { keyed } from '../middleware/keyed.ts'
import { limitFromBody, perResult } from '../middleware/metering.ts'
import { pageEnvelope } from '../schemas/common.ts'
import { companySearchBadRequest, companySearchBody, linkedinKey, MAX_COMPANY_LIMIT, type CompanySearchBody } from '../schemas/companies.ts'
import { placeFilter } from '../search-filters.ts'
import { validate } from '../validate.ts'

const list = (v: string | string[] | undefined | null) => (v === undefined || v === null ? undefined : Array.isArray(v) ? v : [v])

/** A place as job search's geo_locations reads it with the default geofilter_params (auto, 25 mi). */
const AROUND = { mode: 'auto', radius: 25, unit: 'mi' } as const

export function toCompanySearch(body: CompanySearchBody): CompanySearchFilters {
  const hiring = body.hiring === undefined || body.hiring === null ? undefined : body.hiring === true || body.hiring === 'true'
  return {
    text: body.query ? parse([body.query]) : null,
    name: body.company_name,
    industries: list(body.industries),
    subindustries: list(body.subindustries),
    companyTypes: body.company_types,
    jobBoards: list(body.job_board),
    hiring,
    places: body.locations?.map((p) => placeFilter(p, AROUND)),
    linkedinKey: body.linkedin_url ? (linkedinKey(body.linkedin_url) ?? undefined) : undefined,
  }
}

/** Company search reads from a replica when one is usable (sql/replicas.ts). */
export function companySearchRoutes(db: Sql | Reads) {
  const router = new Router({ prefix: '/v2/platform/companies' })
  const reads = readsOf(db)

  // the body is parsed first: the reservation is the requested limit, 1 unit per company
  router.post(
    '/search',
    jsonBody(),
    keyed({ meter: 'm_company_api_calls', cost: perResult(limitFromBody(10), MAX_COMPANY_LIMIT), search: true, bearerKey: true }),
    async (ctx) => {
      companySearchBadRequest(ctx.request.body as Record<string, unknown>)
      const body = await validate(companySearchBody, ctx.request.body)
      const { page, limit } = body
      const { companies, total } = await reads.run((sql) => searchCompanies(sql, toCompanySearch(body), { page, limit }))
      ctx.body = { companies, ...pageEnvelope(total, page, limit) }
    },
  )

  return router
}
