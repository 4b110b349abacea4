/**
 * POST /v2/jobs/salary-benchmark: creates a salary_benchmark task (jobs/salary-benchmark.ts).
 * The request is resolved here, once, into what the worker runs: the posting a
 * public_url names (a 422 when none does), the title query, the filters, the window of
 * dates and the report's currency. 1 unit of m_salary_benchmarks is charged in the
 * transaction that creates the task, and refunded if the task fails. Mounted before the
 * /v2/jobs/{job_id} router.
 */
import Router from '@koa/router'
import type PgBoss from 'pg-boss'
import countryCurrency from '../../seeds/country-currency.json' with { type: 'json' }
import { resolvePlace } from '../../seeds/places/geocode.ts'
import type { SalaryPeriod } from '../../ingest/types.ts'
import { TYPE, type BenchmarkParams, type ProposedRange } from '../../jobs/salary-benchmark.ts'
import { createTask, type TaskConfig } from '../../jobs/tasks.ts'
import type { Sql } from '../../sql/db.ts'
import { parse } from '../../sql/query-syntax.ts'
import { exactTitle, findPostingByUrl, type UrlPosting } from '../../sql/salary-benchmark.ts'
import { CURRENCIES } from '../../sql/salary-stats.ts'
import { errors } from '../errors.ts'
import { jsonBody } from '../middleware/body.ts'
import { keyed } from '../middleware/keyed.ts'
import { chargeWithin } from '../middleware/metering.ts'
import { MAX_BENCHMARK_DAYS, salaryBenchmarkBody, type SalaryBenchmarkBody } from '../schemas/salary-benchmark.ts'
import { placeFilter } from '../search-filters.ts'
import { validate } from '../validate.ts'

const METER = 'm_salary_benchmarks'
const COUNTRY_CURRENCY: Record<string, string> = countryCurrency

const day = (d: Date) => d.toISOString().slice(0, 10)
const addDays = (date: string, n: number) => day(new Date(Date.parse(`${date}T00:00:00Z`) + n * 86_400_000))

/**
 * The window of posting dates, both ends included: the dates when given (a missing
 * start is a year before the end, a missing end is today), else the last days_ago days.
 */
export function benchmarkWindow(b: Pick<SalaryBenchmarkBody, 'days_ago' | 'date_posted_from' | 'date_posted_to'>, now = new Date()) {
  const today = day(now)
  if (b.date_posted_from || b.date_posted_to) {
    const to = b.date_posted_to ?? today
    return { from: b.date_posted_from ?? addDays(to, -(MAX_BENCHMARK_DAYS - 1)), to }
  }
  return { from: addDays(today, -(b.days_ago ?? 90)), to: today }
}

/** The currency of a country, when every place names one with the same currency; else USD. */
export function currencyOfCountries(countries: (string | null | undefined)[]) {
  const found = new Set(countries.map((c) => (c ? COUNTRY_CURRENCY[c] : undefined)))
  const [only] = found
  return found.size === 1 && only ? only : 'USD'
}

/** A posting's title as a title query: its words, with nothing read as syntax (no quotes, no -exclusion). */
const plainWords = (title: string) => title.replace(/"/g, ' ').replace(/(^|\s)-+/g, '$1')

const PERIODS: SalaryPeriod[] = ['hourly', 'daily', 'weekly', 'monthly', 'yearly']

/** The posting's own stated pay as a range to place, when it states one in a currency with a rate. */
function statedRange(p: UrlPosting): ProposedRange | null {
  if (p.salary_min === null && p.salary_max === null) return null
  if (!p.salary_currency || !CURRENCIES.includes(p.salary_currency)) return null
  if (!PERIODS.includes(p.salary_period as SalaryPeriod)) return null
  return { min: p.salary_min, max: p.salary_max, currency: p.salary_currency, period: p.salary_period as SalaryPeriod }
}

/**
 * What the worker runs. A public_url's posting takes precedence: its title replaces
 * job_title, its country the geo_locations, its experience level experience_levels,
 * and its stated pay stands in for an absent salary_range; the other fields narrow.
 */
export function resolveBenchmark(b: SalaryBenchmarkBody, posting: UrlPosting | null, now = new Date()): BenchmarkParams {
  const title = posting ? plainWords(posting.job_title) : b.job_title!
  const requested = [title, ...(b.job_titles ?? [])]
  const geo = posting?.country ? [{ country: posting.country }] : (b.geo_locations ?? [])
  const auto = { mode: 'auto', radius: 25, unit: 'mi' } as const
  const window = benchmarkWindow(b, now)
  const range = b.salary_range
  const currency = range?.currency?.toUpperCase() ?? currencyOfCountries(geo.map((g) => resolvePlace(g)?.country ?? g.country))
  const given: ProposedRange | null =
    range && (range.min != null || range.max != null)
      ? { min: range.min ?? null, max: range.max ?? null, currency, period: (range.period as SalaryPeriod | undefined) ?? 'yearly' }
      : null
  const yoe = b.yoe_range ?? b.yoe
  return {
    query: {
      titles: parse(requested)!,
      exactTitles: [...new Set(requested.map(exactTitle).filter(Boolean))],
      filters: {
        places: geo.map((g) => placeFilter(g, auto)),
        locationTypes: b.location_types?.map((t) => (t === 'On-site' ? 'In-Person' : t)),
        industries: b.industry === undefined || b.industry === null ? undefined : ([] as string[]).concat(b.industry),
        experience: posting?.experience_level ? [posting.experience_level] : b.experience_levels,
        yoe: yoe ?? undefined,
        postedSince: window.from,
        postedBefore: addDays(window.to, 1),
        includeExpired: true,
      },
      excludeId: posting?.id ?? null,
    },
    title,
    description: b.description ?? null,
    currency,
    proposed: given ?? (posting ? statedRange(posting) : null),
    window,
    postingId: posting?.id ?? null,
  }
}

export function salaryBenchmarkRoutes(sql: Sql, boss: PgBoss | undefined, config: TaskConfig) {
  const router = new Router({ prefix: '/v2/jobs' })

  router.post('/salary-benchmark', jsonBody(), keyed(), async (ctx) => {
    const body = await validate(salaryBenchmarkBody, ctx.request.body)
    if (!boss) throw errors.tasksUnavailable()
    const posting = body.public_url ? await findPostingByUrl(sql, body.public_url) : null
    if (body.public_url && !posting) {
      throw errors.validation([
        { type: 'value_error', loc: ['body', 'public_url'], msg: 'No posting in the database has this application or job board link', input: body.public_url },
      ])
    }
    const params = resolveBenchmark(body, posting)
    const { days_ago, ...rest } = body
    const input = body.date_posted_from || body.date_posted_to ? rest : { ...rest, days_ago }
    ctx.body = await sql.begin(async (tx) => {
      const key = await chargeWithin(ctx, tx, METER, 1)
      return createTask(tx, boss, config, {
        accountId: ctx.state.account.id,
        type: TYPE,
        input,
        notify: body.notify,
        params,
        charge: { meter: METER, units: 1, periodStart: key.period.start },
      })
    })
  })

  return router
}
