/**
 * POST /v2/jobs/search and its URL-parameter twin GET /v2/jobs/search. Mounted before
 * the /v2/jobs/{job_id} router, so "search" is never taken for a job id.
 */
import Router from '@koa/router'
import type { Context } from 'koa'
import { parseLocationText } from '../../seeds/places/geocode.ts'
import type { Sql } from '../../sql/db.ts'
import { readsOf, type Reads } from '../../sql/replicas.ts'
import { estimateSearch, searchJobs, type SearchResult } from '../../sql/search.ts'
import { jsonBody } from '../middleware/body.ts'
import { keyed } from '../middleware/keyed.ts'
import { limitFromBody, limitFromQuery, perResult } from '../middleware/metering.ts'
import { pageEnvelope } from '../schemas/common.ts'
import { jobSearchBody, jobSearchQuery, MAX_LIMIT, type JobSearchQuery } from '../schemas/search.ts'
import { toSearch } from '../search-filters.ts'
import { validate } from '../validate.ts'

/** Query parameters that carry lists: each value is one repeated parameter; nothing is split on commas. */
export const LIST_PARAMS = [
  'job_titles', 'keywords', 'company_keywords', 'location_types', 'experience', 'job_types', 'job_type',
  'job_category', 'company_types', 'job_board', 'industry', 'sub_industry',
]

/** Lists arrive as repeated parameters: make every list parameter an array. */
export function listParams(query: Context['query']) {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined) continue
    out[k] = LIST_PARAMS.includes(k) || k === 'geo_locations' ? ([] as string[]).concat(v) : Array.isArray(v) ? v[0] : v
  }
  return out
}

/**
 * The GET form of the filter set as the POST body: salary_min/max and yoe_min/max
 * become ranges, free-text geo_locations ("Berlin, Germany", "Austin, TX", "Germany")
 * are read like ingest reads locations, and geo_mode/geo_radius/geo_unit become
 * geofilter_params.
 *
 * Text that names no place ingest would store ("12345", "Remote") stays a filter, as
 * the POST body {city: text} would: it matches no job rather than dropping the
 * location filter. Blank text is an entry without a name, which validation refuses.
 */
export function queryToBody(q: JobSearchQuery) {
  const { salary_min, salary_max, yoe_min, yoe_max, geo_locations, geo_mode, geo_radius, geo_unit, ...rest } = q
  const body: Record<string, unknown> = { ...rest }
  if (salary_min !== undefined || salary_max !== undefined) body.salary = { min: salary_min ?? null, max: salary_max ?? null }
  if (yoe_min !== undefined || yoe_max !== undefined) body.yoe = { min: yoe_min ?? null, max: yoe_max ?? null }
  if (geo_locations) {
    body.geo_locations = geo_locations.flatMap((text): { city?: string; region?: string; country?: string }[] => {
      const parsed = parseLocationText(text)
      const found = parsed.locations.map(({ city, region, country }) => ({ city: city ?? undefined, region: region ?? undefined, country: country ?? undefined }))
      if (found.length) return found
      if (parsed.remoteCountries.length) return parsed.remoteCountries.map((country) => ({ country }))
      return [{ city: text }]
    })
  }
  const geo = { mode: geo_mode, radius: geo_radius, unit: geo_unit }
  if (Object.values(geo).some((v) => v !== undefined)) body.geofilter_params = Object.fromEntries(Object.entries(geo).filter(([, v]) => v !== undefined))
  return body
}

function respond(result: SearchResult, page: number, limit: number) {
  const count = { value: result.total, lowerBound: !result.exact, exact: result.exact }
  return {
    jobs: result.jobs.map((job, i) => ({
      ...job,
      // the spec's search schema misspells it; both are sent so either client works
      recruiter_ageny: job.recruiter_agency,
      meta: { count, score: job.score, page, limit, position: (page - 1) * limit + i + 1 },
    })),
    company_count: result.companies,
    ...pageEnvelope(result.total, page, limit),
  }
}

/** Searches and estimates read from a replica when one is usable (sql/replicas.ts). */
export function searchRoutes(db: Sql | Reads) {
  const router = new Router({ prefix: '/v2/jobs' })
  const reads = readsOf(db)

  // the body is parsed first: the reservation is the requested limit, 1 unit per job
  router.post('/search', jsonBody(), keyed({ meter: 'm_jobs_api_calls', cost: perResult(limitFromBody(10), MAX_LIMIT) }), async (ctx) => {
    const body = await validate(jobSearchBody, ctx.request.body)
    const { filters, page } = toSearch(body)
    ctx.body = respond(await reads.run((db) => searchJobs(db, filters, page)), page.page, page.limit)
  })

  router.get('/search', keyed({ meter: 'm_jobs_api_calls', cost: perResult(limitFromQuery(10), MAX_LIMIT) }), async (ctx) => {
    const query = await validate(jobSearchQuery, listParams(ctx.query), 'query')
    const body = await validate(jobSearchBody, queryToBody(query), 'query')
    const { filters, page } = toSearch(body)
    ctx.body = respond(await reads.run((db) => searchJobs(db, filters, page)), page.page, page.limit)
  })

  /**
   * A dry run of the search: how many jobs and companies match, and what a search or
   * an export with this page and limit would cost. It costs nothing itself.
   */
  router.post('/estimate', jsonBody(), keyed({ meter: 'm_jobs_api_calls', cost: 0 }), async (ctx) => {
    const body = await validate(jobSearchBody, ctx.request.body)
    const { filters, page } = toSearch(body)
    const { total, companies, exact } = await reads.run((db) => estimateSearch(db, filters))
    const onPage = Math.max(0, Math.min(page.limit, total - (page.page - 1) * page.limit))
    ctx.body = {
      total_count: total,
      company_count: companies,
      count: { value: total, exact, lowerBound: !exact },
      page: page.page,
      limit: page.limit,
      total_pages: Math.ceil(total / page.limit),
      cost: {
        meter: 'm_jobs_api_calls',
        search_units: onPage,
        export_units: Math.min(page.limit, total),
      },
    }
  })

  return router
}
