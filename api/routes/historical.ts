/**
 * POST /v2/jobs/historical/search: free discovery over the archive of expired postings
 * (counts by year posted, top companies, sample titles, description coverage, and the
 * price an export of the matches would have). POST /v2/jobs/historical/export: those
 * matches as a file, through an export_historical_jobs task (jobs/export-historical.ts).
 *
 * Both cost 0 on m_jobs_api_calls, as the expired-jobs feed and its export do: they
 * need a key and send the usage headers, and keep answering at the meter's cap.
 * Mounted before the /v2/jobs/{job_id} router.
 */
import Router from '@koa/router'
import type PgBoss from 'pg-boss'
import { TYPE, type HistoricalExportParams } from '../../jobs/export-historical.ts'
import { createTask, type TaskConfig } from '../../jobs/tasks.ts'
import { locationGroup } from '../../seeds/places/location-groups.ts'
import type { Sql } from '../../sql/db.ts'
import { readsOf, type Reads } from '../../sql/replicas.ts'
import { countHistorical, exportQuote, resolveHistorical, sampleHistoricalTitles, type HistoricalFilters } from '../../sql/historical.ts'
import { parse } from '../../sql/query-syntax.ts'
import { errors } from '../errors.ts'
import { jsonBody } from '../middleware/body.ts'
import { keyed } from '../middleware/keyed.ts'
import {
  FILTER_NAMES, historicalExportBody, historicalSearchBody, noFilterItem, validateHistorical,
  type HistoricalExportBody, type HistoricalSearchBody,
} from '../schemas/historical.ts'
import { placeFilter } from '../search-filters.ts'

/** by_year_posted starts here unless date_posted_from says otherwise (the spec). */
export const FIRST_YEAR = 2021

/** A geo_locations entry as job search reads it by default: a city is 25 miles around it, a region or country exact. */
const AUTO = { mode: 'auto', radius: 25, unit: 'mi' } as const

type FilterBody = Pick<HistoricalSearchBody, 'job_titles' | 'keywords' | 'geo_locations' | 'location_group' | 'company_names' | 'company_slugs' | 'date_posted_from' | 'date_posted_to' | 'date_expired_from' | 'date_expired_to'>

/**
 * The filters as SQL reads them: titles and keywords parsed, places resolved with the
 * gazetteer. A filter that resolves to nothing (job_titles of blanks, or of exclusions
 * alone is still a filter) leaves the body without one: the same 422 as none given.
 */
export function toHistorical(body: FilterBody, given: unknown): HistoricalFilters {
  const f: HistoricalFilters = {
    titles: parse(body.job_titles),
    keywords: parse(body.keywords),
    places: (body.geo_locations ?? []).map((g) => placeFilter(g, AUTO)),
    // the schema accepts only names locationGroup knows
    placeGroups: body.location_group ? [locationGroup(body.location_group) ?? []] : [],
    companyNames: body.company_names,
    companySlugs: body.company_slugs,
    postedFrom: body.date_posted_from,
    postedTo: body.date_posted_to,
    expiredFrom: body.date_expired_from,
    expiredTo: body.date_expired_to,
  }
  const some = f.titles || f.keywords || f.places!.length || f.placeGroups!.length || f.companyNames?.length || f.companySlugs?.length ||
    f.postedFrom || f.postedTo || f.expiredFrom || f.expiredTo
  if (!some) throw errors.validation([noFilterItem(given)])
  return f
}

const round1 = (x: number) => Math.round(x * 10) / 10

/** Every year from `from` to `to`, with its count or 0. */
export function zeroFilledYears(counted: { year: number; count: number }[], from: number, to: number) {
  const by = new Map(counted.map((y) => [y.year, y.count]))
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => ({ year: from + i, count: by.get(from + i) ?? 0 }))
}

export async function historicalSearch(sql: Sql, body: HistoricalSearchBody, filters: HistoricalFilters, now = new Date()) {
  const resolved = await resolveHistorical(sql, filters)
  const counts = await countHistorical(sql, resolved)
  const sample = await sampleHistoricalTitles(sql, resolved, body.sample_size, counts.total_count)
  const from = body.date_posted_from ? Number(body.date_posted_from.slice(0, 4)) : FIRST_YEAR
  const pct = counts.total_count > 0 ? round1((100 * counts.described) / counts.total_count) : 0
  return {
    total_count: counts.total_count,
    by_year_posted: zeroFilledYears(counts.years, from, now.getUTCFullYear()),
    top_companies: counts.top_companies,
    sample_titles: sample.map((s) => ({ job_title: s.job_title, year_posted: s.year_posted })),
    coverage: {
      description_text_sample_pct: pct,
      note:
        counts.total_count === 0
          ? 'No archived posting matches, so there is no description text to measure.'
          : `The archive keeps the description text of ${pct}% of the matching postings (those whose source gave one); ` +
            'every match has its title, company, places, dates, skills, technologies and benefits. An export carries the description where it is kept.',
    },
    export_quote: exportQuote(counts.total_count),
  }
}

/** The search reads from a replica when one is usable (sql/replicas.ts); an export's task is created on the primary. */
export function historicalRoutes(db: Sql | Reads, boss: PgBoss | undefined, tasks: TaskConfig) {
  const router = new Router({ prefix: '/v2/jobs/historical' })
  const reads = readsOf(db)
  const sql = reads.primary

  router.post('/search', jsonBody(), keyed({ signIn: true, meter: 'm_jobs_api_calls', cost: 0 }), async (ctx) => {
    const body = await validateHistorical(historicalSearchBody, ctx.request.body)
    const filters = toHistorical(body, ctx.request.body)
    ctx.body = await reads.run((db) => historicalSearch(db, body, filters))
  })

  router.post('/export', jsonBody(), keyed({ signIn: true, meter: 'm_jobs_api_calls', cost: 0 }), async (ctx) => {
    const body: HistoricalExportBody = await validateHistorical(historicalExportBody, ctx.request.body)
    const filters = toHistorical(body, ctx.request.body)
    if (!boss) throw errors.tasksUnavailable()
    const params: HistoricalExportParams = { filters, max: body.max_records ?? null }
    const given = Object.fromEntries(FILTER_NAMES.flatMap((name) => (body[name as keyof FilterBody] === undefined ? [] : [[name, body[name as keyof FilterBody]]])))
    ctx.body = await sql.begin((tx) =>
      createTask(tx, boss, tasks, {
        accountId: ctx.state.account.id,
        type: TYPE,
        input: { filters: given, format: body.format, max_records: body.max_records ?? null, notify: body.notify },
        notify: body.notify,
        params,
      }),
    )
  })

  return router
}
