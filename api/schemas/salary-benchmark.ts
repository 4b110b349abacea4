/**
 * POST /v2/jobs/salary-benchmark's body: the spec's fields and nothing else. An unknown
 * field is a 422 (extra_forbidden, one item per field), unlike search, which ignores
 * them: a benchmark is a paid report, and a misspelt filter would silently widen it.
 *
 * One extension: `date_posted_from` / `date_posted_to` (YYYY-MM-DD) set the window
 * instead of `days_ago`, which reaches back at most 365 days, so that older postings
 * (an archive of 2020) can be benchmarked. docs/market-data.md
 */
import { array, bool, number, object, string, ValidationError, type AnyObject, type InferType, type ObjectSchema } from 'yup'
import { parseExpression } from '../../sql/query-syntax.ts'
import { CURRENCIES } from '../../sql/salary-stats.ts'
import { calendarDate } from './common.ts'
import { geoLocation, industryNames, MAX_SALARY, MAX_YOE, oneOrMany } from './search.ts'

export const MAX_BENCHMARK_DAYS = 365
export const DEFAULT_BENCHMARK_DAYS = 90
export const MAX_TITLES = 20
export const MAX_DESCRIPTION = 20_000
export const MAX_URL = 2_000
export const EXPERIENCE_LEVELS = ['Entry', 'Junior', 'Mid', 'Senior', 'Executive']
export const PAY_PERIODS = ['hourly', 'daily', 'weekly', 'monthly', 'yearly'] as const

/**
 * Refuses fields the schema does not name, one extra_forbidden item per field at its own
 * loc. The test is named noUnknown, as yup's own is, so the OpenAPI document marks the
 * object additionalProperties: false.
 */
export function closed<S extends ObjectSchema<AnyObject>>(schema: S): S {
  return schema.test('noUnknown', function (v) {
    if (!v || typeof v !== 'object') return true
    const known = Object.keys(this.schema.fields)
    const extra = Object.keys(v).filter((k) => !known.includes(k))
    if (!extra.length) return true
    return new ValidationError(
      extra.map((k) => {
        const e = new ValidationError(`Extra inputs are not permitted: ${k}`, (v as AnyObject)[k], this.path ? `${this.path}.${k}` : k, 'noUnknown')
        e.params = { unknown: k }
        return e
      }),
    )
  }) as S
}

const blank = (s: string | undefined | null) => !s || !s.trim()

const title = () =>
  string()
    .max(300)
    .test('not-blank', 'A title needs at least one letter or digit', (s) => s === undefined || /[\p{L}\p{N}]/u.test(s))

/** The benchmarked title must name something: "-senior" alone would benchmark every other posting (job_titles may exclude). */
const mainTitle = () =>
  title().test('names-a-title', 'job_title needs a word to match, not only -exclusions', (s) => s === undefined || !/[\p{L}\p{N}]/u.test(s) || parseExpression(s).include.length > 0)

const yoeRange = () =>
  closed(
    object({
      min: number().min(0).max(MAX_YOE).nullable(),
      max: number().min(0).max(MAX_YOE).nullable(),
    }),
  )
    .default(undefined)
    .test('min-max', 'min must not be greater than max', (r) => !r || r.min == null || r.max == null || r.min <= r.max)

const isHttpUrl = (s: string) => {
  try {
    const u = new URL(s)
    return u.protocol === 'http:' || u.protocol === 'https:'
  } catch {
    return false
  }
}

/** A currency of the rate table (seeds/usd-per-unit.json), in any case: only those can be converted. */
export const knownCurrency = () =>
  string().test('known-currency', function (c) {
    if (c === undefined || CURRENCIES.includes(c.toUpperCase())) return true
    return this.createError({ message: `Unknown currency ${c}: use one of ${CURRENCIES.join(', ')}`, params: { ctx: { expected: CURRENCIES } } })
  })

export const salaryRange = closed(
  object({
    min: number().min(0).max(MAX_SALARY).nullable(),
    max: number().min(0).max(MAX_SALARY).nullable(),
    currency: knownCurrency(),
    period: string().oneOf([...PAY_PERIODS]),
  }),
)
  .default(undefined)
  .test('min-max', 'min must not be greater than max', (r) => !r || r.min == null || r.max == null || r.min <= r.max)

export const salaryBenchmarkBody = closed(
  object({
    public_url: string()
      .max(MAX_URL)
      .test('http-url', 'public_url must be an http or https URL', (s) => s === undefined || isHttpUrl(s.trim())),
    job_title: mainTitle().when('public_url', { is: (u: unknown) => typeof u !== 'string' || blank(u), then: (s) => s.required() }),
    job_titles: array(title().required()).max(MAX_TITLES),
    yoe_range: yoeRange(),
    yoe: yoeRange(),
    description: string().max(MAX_DESCRIPTION),
    salary_range: salaryRange,
    geo_locations: array(geoLocation.required()).max(20),
    location_types: array(string().required().oneOf(['Remote', 'Hybrid', 'In-Person', 'On-site'])).max(4),
    industry: oneOrMany('industry', industryNames),
    experience_levels: array(string().required().oneOf(EXPERIENCE_LEVELS)).max(EXPERIENCE_LEVELS.length),
    days_ago: number().integer().min(1).max(MAX_BENCHMARK_DAYS).default(DEFAULT_BENCHMARK_DAYS),
    date_posted_from: calendarDate(),
    date_posted_to: calendarDate(),
    notify: bool().default(false),
  }),
)
  .test('one-yoe', function (v) {
    if (!v || v.yoe_range === undefined || v.yoe === undefined) return true
    return this.createError({ path: 'yoe', message: 'yoe is an alias of yoe_range: send one of them' })
  })
  .test('one-window', function (v) {
    if (!v || v.days_ago === undefined || (v.date_posted_from === undefined && v.date_posted_to === undefined)) return true
    return this.createError({ path: 'days_ago', message: 'days_ago cannot be combined with date_posted_from or date_posted_to: the dates set the window' })
  })
  .test('window-order', function (v) {
    if (!v?.date_posted_from || !v.date_posted_to || v.date_posted_from <= v.date_posted_to) return true
    return this.createError({ path: 'date_posted_from', message: 'date_posted_from must not be after date_posted_to' })
  })

export type SalaryBenchmarkBody = InferType<typeof salaryBenchmarkBody>
