/**
 * POST /v2/jobs/search and its URL-parameter twin GET /v2/jobs/search. Mounted before
 * the /v2/jobs/{job_id} router, so "search" is never taken for a job id.
 */
import Router from '@koa/router'
import type { Context } from 'koa'
import { parseLocationText } from '../../ingest/transform/geo.ts'
import type { Db } from '../../sql/db.ts'
import { searchJobs, type SearchResult } from '../../sql/search.ts'
import { jsonBody } from '../middleware/body.ts'
import { requireKey } from '../middleware/auth.ts'
import { pageEnvelope } from '../schemas/common.ts'
import { jobSearchBody } from '../schemas/search.ts'
import { toSearch } from '../search-filters.ts'
import { validate } from '../validate.ts'

/** Query parameters that carry lists: each value is one repeated parameter; nothing is split on commas. */
export const LIST_PARAMS = [
  'job_titles', 'keywords', 'company_keywords', 'location_types', 'experience', 'job_types', 'job_type',
  'job_category', 'company_types', 'job_board', 'industry', 'sub_industry',
]

/**
 * The GET form of the filter set: lists as repeated parameters, salary_min/max and
 * yoe_min/max for the ranges, geo_locations as free text ("Berlin, Germany",
 * "Austin, TX", "Germany") resolved like ingest does, and geo_mode/geo_radius/geo_unit.
 */
export function queryToBody(query: Context['query']) {
  const one = (k: string) => (Array.isArray(query[k]) ? query[k]![0] : (query[k] as string | undefined))
  const many = (k: string) => (query[k] === undefined ? undefined : ([] as string[]).concat(query[k] as string | string[]))
  const body: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || k.startsWith('geo_') || /^(salary|yoe)_(min|max)$/.test(k)) continue
    body[k] = LIST_PARAMS.includes(k) ? many(k) : one(k)
  }
  for (const r of ['salary', 'yoe']) {
    if (one(`${r}_min`) !== undefined || one(`${r}_max`) !== undefined) body[r] = { min: one(`${r}_min`), max: one(`${r}_max`) }
  }
  const places = many('geo_locations')?.flatMap((text): { city?: string; region?: string; country?: string }[] => {
    const parsed = parseLocationText(text)
    const found = parsed.locations.map(({ city, region, country }) => ({ city: city ?? undefined, region: region ?? undefined, country: country ?? undefined }))
    return found.length ? found : parsed.remoteCountries.map((country) => ({ country }))
  })
  if (places) body.geo_locations = places
  if (one('geo_mode') !== undefined || one('geo_radius') !== undefined || one('geo_unit') !== undefined) {
    body.geofilter_params = Object.fromEntries(
      [['mode', one('geo_mode')], ['radius', one('geo_radius') === undefined ? undefined : Number(one('geo_radius'))], ['unit', one('geo_unit')]].filter(([, v]) => v !== undefined),
    )
  }
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

export function searchRoutes(db: Db) {
  const router = new Router({ prefix: '/v2/jobs' })

  router.post('/search', requireKey(db), jsonBody(), async (ctx) => {
    const body = await validate(jobSearchBody, ctx.request.body ?? {})
    const { filters, page } = toSearch(body)
    ctx.body = respond(await searchJobs(db, filters, page), page.page, page.limit)
  })

  router.get('/search', requireKey(db), async (ctx) => {
    const body = await validate(jobSearchBody, queryToBody(ctx.query), 'query')
    const { filters, page } = toSearch(body)
    ctx.body = respond(await searchJobs(db, filters, page), page.page, page.limit)
  })

  return router
}
