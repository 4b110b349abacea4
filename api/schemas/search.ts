/**
 * The shared job search filter set (spec: "Shared job search filter set"), as POST
 * /v2/jobs/search validates it. Bodies are validated strictly, so the string flags
 * ("true"/"false") refuse a JSON boolean with string_type, as the spec requires.
 * Unknown fields are ignored: a field named `locations` does nothing.
 */
import { array, mixed, number, object, string, type InferType } from 'yup'
import categories from '../../seeds/categories.json' with { type: 'json' }
import industries from '../../seeds/industries.json' with { type: 'json' }
import sizeBuckets from '../../seeds/size-buckets.json' with { type: 'json' }

const industryNames = Object.keys(industries)
const subindustryNames = [...new Set(Object.values(industries as Record<string, string[]>).flat())]

export const MAX_LIMIT = 100
/** Deep offsets get slow and no client pages that far; export covers bulk needs. */
export const MAX_DEPTH = 10_000

const flag = () => string().oneOf(['true', 'false'])
const strings = () => array(string().required().max(500)).max(50)

/** A string or an array of up to 50 strings. */
const stringOrList = (field: string) =>
  mixed<string | string[]>().test('string-or-list', `${field} must be a string or a list of strings`, (v) =>
    v === undefined || v === null || typeof v === 'string' || (Array.isArray(v) && v.length <= 50 && v.every((x) => typeof x === 'string')),
  )

/** A string or an array of strings, every value from `allowed`; the message names the field. */
const oneOrMany = (field: string, allowed: string[]) =>
  stringOrList(field)
    .test('known-values', function (v) {
      const values = v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]
      const unknown = values.filter((x) => typeof x === 'string' && !allowed.includes(x))
      return unknown.length === 0
        ? true
        : this.createError({
            message: `Unknown ${field} value${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}. See GET /v2/jobs/data/${field === 'industry' ? 'industries' : 'subindustries'}`,
            params: { ctx: { unknown } },
          })
    })

const range = () =>
  object({
    min: number().min(0).nullable(),
    max: number().min(0).nullable(),
  })
    .default(undefined)
    .test('min-max', 'min must not be greater than max', (r) => !r || r.min == null || r.max == null || r.min <= r.max)

export const geoLocation = object({
  city: string().max(200),
  region: string().max(200),
  country: string().max(200),
})

export const geofilterParams = object({
  mode: string().oneOf(['auto', 'weak', 'strict', 'box']).default('auto'),
  radius: number().min(0).max(20_000).default(25),
  unit: string().oneOf(['mi', 'km', 'degrees']).default('mi'),
})

export const jobSearchBody = object({
  job_titles: strings(),
  keywords: strings(),
  company_keywords: strings(),
  job_slug: string().max(300),
  location_types: array(string().required().oneOf(['Remote', 'Hybrid', 'In-Person', 'On-site'])).max(3),
  geo_locations: array(geoLocation.required()).max(20),
  geofilter_params: mixed<Record<string, unknown> | Record<string, unknown>[]>().test(
    'object-or-list',
    'geofilter_params must be an object or a list of objects',
    (v) => v === undefined || v === null || (typeof v === 'object' && (!Array.isArray(v) || v.length <= 20)),
  ),
  experience: array(string().required().oneOf(['Entry', 'Junior', 'Mid', 'Senior', 'Executive'])).max(5),
  yoe: range(),
  include_yoe: flag(),
  company_name: string().max(300),
  company_slug: string().max(300),
  salary: range(),
  include_no_salary: flag(),
  currency: string().matches(/^[A-Za-z]{3}$/, 'currency must be a 3-letter currency code such as USD'),
  job_types: array(string().required().oneOf(['Full Time', 'Part Time', 'Contract', 'Contract / Temporary', 'Internship'])).max(5),
  /** This endpoint accepts the singular spelling too (the spec's request body uses it). */
  job_type: array(string().required().oneOf(['Full Time', 'Part Time', 'Contract', 'Contract / Temporary', 'Internship'])).max(5),
  job_category: array(string().required().oneOf([...categories, 'Other'])).max(40),
  company_types: array(string().required().oneOf(sizeBuckets)).max(8),
  job_board: stringOrList('job_board'),
  industry: oneOrMany('industry', industryNames),
  sub_industry: oneOrMany('sub_industry', subindustryNames),
  date_posted: string().matches(/^\d{4}-\d{2}-\d{2}$/, 'date_posted must be a date as YYYY-MM-DD').test('real-date', 'date_posted is not a real date', (v) => !v || !Number.isNaN(Date.parse(v))),
  days_ago: number().min(0).max(36500),
  visa: flag(),
  hide_recruiting_agencies: flag(),
  return_raw_description: flag(),
  sort_by: string().max(50),
  sort_order: string().oneOf(['asc', 'desc']),
  page: number().integer().min(1).default(1),
  limit: number().integer().min(1).max(MAX_LIMIT).default(10),
}).test('depth', `page × limit may reach at most ${MAX_DEPTH} results`, function (v) {
  return !v || (v.page ?? 1) * (v.limit ?? 10) <= MAX_DEPTH
    ? true
    : this.createError({ path: 'page', message: `page × limit may reach at most ${MAX_DEPTH} results; use POST /v2/jobs/export for more` })
})

export type JobSearchBody = InferType<typeof jobSearchBody>

/**
 * GET /v2/jobs/search's parameters: the body's fields, with the ranges flattened
 * (salary_min …), geo_locations as free-text places, and geofilter_params as geo_*.
 */
export const jobSearchQuery = jobSearchBody.omit(['yoe', 'salary', 'geo_locations', 'geofilter_params']).shape({
  salary_min: number().min(0),
  salary_max: number().min(0),
  yoe_min: number().min(0),
  yoe_max: number().min(0),
  geo_locations: array(string().required().max(300)).max(20),
  geo_mode: string().oneOf(['auto', 'weak', 'strict', 'box']),
  geo_radius: number().min(0).max(20_000),
  geo_unit: string().oneOf(['mi', 'km', 'degrees']),
})
export type JobSearchQuery = InferType<typeof jobSearchQuery>
