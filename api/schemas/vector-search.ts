/**
 * POST /v2/jobs/vsearch and POST /v2/jobs/neural-search, validated as strictly as
 * search: string flags refuse a JSON boolean, every number and list has a bound, and
 * the fields the two share with the search filter set are that set's own schemas.
 *
 * What the spec makes a 400 rather than a 422 is checked by the handlers, not here: an
 * invalid search_type, and a search_type without its query, job_id or artifact_id.
 */
import { array, number, object, string, type InferType, type Reference } from 'yup'
import { locationGroupName, locationGroupNames } from '../../seeds/places/location-groups.ts'
import { EMBEDDING_DIM } from '../../ingest/embed/embedder.ts'
import { NEURAL_DEPTH } from '../../sql/vector-search.ts'
import { clip } from '../errors.ts'
import { FIRST_DATE, calendarDate } from './common.ts'
import { userId } from './jobs.ts'
import { geoLocation, jobSearchBody, MAX_LIMIT, MAX_SALARY, MAX_YOE } from './search.ts'

export const SEARCH_TYPES = ['summary', 'job', 'resume'] as const
export type SearchType = (typeof SEARCH_TYPES)[number]
/** vsearch's result set is at most this many jobs: top_k, and so page × limit and offset, stay within it. */
export const MAX_TOP_K = 1_000
/** A query is a sentence or a paragraph; the embedding models read about this much at most. */
export const MAX_QUERY_LENGTH = 2_000
export const MAX_JOB_IDS = 100
export const MAX_VECTORS = 10
export const RELATIVE_DATES = ['today', 'last_week', 'last_month'] as const

type FilterFields = typeof jobSearchBody.fields
/** The filter set's own schema of a field (yup types .fields as schema-or-reference; these are all schemas). */
const filter = <K extends keyof FilterFields>(name: K) => jobSearchBody.fields[name] as Exclude<FilterFields[K], Reference>
const flag = () => string().oneOf(['true', 'false'])
const accuracy = () => string().oneOf(['low', 'medium', 'high']).default('medium')
const similarity = () => number().min(-1).max(1)
const query = () => string().max(MAX_QUERY_LENGTH)

/** from ≤ to, reported on `to`. */
const ordered = (from: string, to: string) =>
  function (this: { createError: (o: { path: string; message: string }) => unknown }, v: Record<string, unknown> | undefined) {
    const a = v?.[from]
    const b = v?.[to]
    return typeof a !== 'number' || typeof b !== 'number' || a <= b ? true : (this.createError({ path: to, message: `${from} must not be greater than ${to}` }) as never)
  }

export const vsearchBody = object({
  /** any string passes here: an unknown one is the spec's 400 */
  search_type: string().max(50),
  query: query(),
  job_id: string().max(30),
  artifact_id: string().max(100),
  industries: filter('industry'),
  subindustries: filter('sub_industry'),
  job_title: string().max(300),
  job_types: filter('job_types'),
  experience: filter('experience'),
  company_types: filter('company_types'),
  job_categories: filter('job_category'),
  job_slug: filter('job_slug'),
  job_board: filter('job_board'),
  company_name: filter('company_name'),
  company_slug: filter('company_slug'),
  locations: geoLocation.default(undefined),
  date_posted: calendarDate(),
  visa_sponsored: flag(),
  top_k: number().integer().min(1).max(MAX_TOP_K).default(10),
  score: similarity(),
  salary_from: number().min(0).max(MAX_SALARY),
  salary_to: number().min(0).max(MAX_SALARY),
  years_from: number().min(0).max(MAX_YOE),
  years_to: number().min(0).max(MAX_YOE),
  page: number().integer().min(1).max(MAX_TOP_K),
  limit: number().integer().min(1).max(MAX_LIMIT),
  offset: number().integer().min(0).max(MAX_TOP_K),
  accuracy: accuracy(),
  return_raw_description: flag(),
})
  .test('salary-order', ordered('salary_from', 'salary_to'))
  .test('years-order', ordered('years_from', 'years_to'))
  .test('page-or-offset', function (v) {
    return v?.page !== undefined && v?.offset !== undefined
      ? this.createError({ path: 'offset', message: 'Use page with limit, or offset with limit, not both' })
      : true
  })

export type VsearchBody = InferType<typeof vsearchBody>

/** A day as YYYY-MM-DD, or today, last_week or last_month. */
const dateOrRelative = () =>
  string().test('date-or-relative', function (v) {
    if (v === undefined || v === null || (RELATIVE_DATES as readonly string[]).includes(v) || calendarDate().isValidSync(v)) return true
    return this.createError({
      message: `Input should be today, last_week, last_month or a day that exists as YYYY-MM-DD, from ${FIRST_DATE} on`,
      params: { itemType: 'date_parsing' },
    })
  })

const month = () =>
  string().test('month', function (v) {
    if (v === undefined || v === null) return true
    const m = /^(\d{4})-(\d{2})$/.exec(v)
    if (m && Number(m[2]) >= 1 && Number(m[2]) <= 12 && v >= FIRST_DATE.slice(0, 7)) return true
    return this.createError({ message: `Input should be a month as YYYY-MM, from ${FIRST_DATE.slice(0, 7)} on`, params: { itemType: 'date_parsing' } })
  })

const locationGroup = () =>
  string()
    .max(100)
    .test('location-group', function (v) {
      if (v === undefined || v === null || locationGroupName(v) !== null) return true
      return this.createError({
        message: `Unknown location_group: ${v}. Known groups: ${locationGroupNames().join(', ')}`,
        params: { ctx: { allowed: clip(locationGroupNames()) } },
      })
    })

const vectorValues = array(number().required()).test('dimensions', function (v) {
  if (!v) return true
  if (v.length !== EMBEDDING_DIM) {
    return this.createError({
      message: `A vector has ${EMBEDDING_DIM} numbers, not ${v.length}`,
      params: { itemType: 'value_error', ctx: { expected_length: EMBEDDING_DIM, actual_length: v.length } },
    })
  }
  // a vector of zeros has no direction to compare
  return v.some((x) => x !== 0) ? true : this.createError({ message: 'A vector of zeros has no direction', params: { itemType: 'value_error' } })
})

export const neuralVector = object({
  job_ids: array(string().required().max(30)).max(MAX_JOB_IDS),
  artifact_id: string().max(100),
  // blank text embeds to nothing in particular; vsearch's blank query is the spec's 400 instead (a summary without its query)
  query: query().test('not-blank', 'query must not be blank', (v) => v === undefined || v.trim().length > 0),
  vectors: array(vectorValues.required()).max(MAX_VECTORS),
  score_threshold: similarity(),
})
  .default(undefined)
  .test('a-source', function (v) {
    if (!v || v.job_ids?.length || v.artifact_id !== undefined || v.query !== undefined || v.vectors?.length) return true
    return this.createError({ message: 'vector needs at least one of job_ids, artifact_id, query or vectors', params: { itemType: 'missing' } })
  })

const pageFields = {
  page: number().integer().min(1).max(NEURAL_DEPTH),
  limit: number().integer().min(1).max(MAX_LIMIT),
}

export const neuralLexical = object({
  job_titles: filter('job_titles'),
  keywords: filter('keywords'),
  job_slug: filter('job_slug'),
  company_slug: filter('company_slug'),
  location_group: locationGroup(),
  location_types: filter('location_types'),
  geo_locations: filter('geo_locations'),
  experience: filter('experience'),
  yoe: filter('yoe'),
  include_yoe: filter('include_yoe'),
  company_types: filter('company_types'),
  company_name: filter('company_name'),
  date_posted: dateOrRelative(),
  days_ago: filter('days_ago'),
  month: month(),
  salary: filter('salary'),
  include_no_salary: filter('include_no_salary'),
  currency: filter('currency'),
  job_types: filter('job_types'),
  job_category: filter('job_category'),
  industry: filter('industry'),
  sub_industry: filter('sub_industry'),
  visa: filter('visa'),
  include_expired: flag(),
  hide_seen_jobs: flag(),
  user_id: userId(),
  job_board: filter('job_board'),
  sort_by: filter('sort_by'),
  sort_order: filter('sort_order'),
  ...pageFields,
}).default(undefined)

export type NeuralLexical = InferType<typeof neuralLexical>

/** page and limit at the top level, or inside lexical (the spec shows both); the same value twice is fine, two different ones are not. */
export function neuralPage(v: { page?: number; limit?: number; lexical?: { page?: number; limit?: number } }) {
  return { page: v.page ?? v.lexical?.page ?? 1, limit: v.limit ?? v.lexical?.limit ?? 10 }
}

export const neuralSearchBody = object({
  vector: neuralVector,
  lexical: neuralLexical,
  accuracy: accuracy(),
  return_raw_description: flag(),
  ...pageFields,
})
  .test('vector-or-lexical', function (v) {
    if (!v || v.vector || v.lexical) return true
    return this.createError({ path: 'vector', message: 'Send vector, lexical or both', params: { itemType: 'missing' } })
  })
  .test('page-once', function (v) {
    for (const field of ['page', 'limit'] as const) {
      const [top, inner] = [v?.[field], v?.lexical?.[field]]
      if (top !== undefined && inner !== undefined && top !== inner) {
        return this.createError({ path: `lexical.${field}`, message: `${field} is ${top} at the top level and ${inner} in lexical; send one, or the same value` })
      }
    }
    return true
  })
  .test('depth', function (v) {
    const { page, limit } = neuralPage(v ?? {})
    return page * limit <= NEURAL_DEPTH
      ? true
      : this.createError({ path: 'page', message: `page × limit may reach at most ${NEURAL_DEPTH} results: neural-search ranks at most ${NEURAL_DEPTH} jobs` })
  })

export type NeuralSearchBody = InferType<typeof neuralSearchBody>
