/**
 * The shared job search filter set (spec: "Shared job search filter set"), as POST
 * /v2/jobs/search validates it. Bodies are validated strictly, so the string flags
 * ("true"/"false") refuse a JSON boolean with string_type, as the spec requires.
 * Unknown fields are ignored: a field named `locations` does nothing. Every number
 * has an upper bound, so no value reaches SQL that a column cannot compare with.
 */
import { array, mixed, number, object, string, type InferType } from 'yup'
import { clip } from '../errors.ts'
import categories from '../../seeds/categories.json' with { type: 'json' }
import industries from '../../seeds/industries.json' with { type: 'json' }
import sizeBuckets from '../../seeds/size-buckets.json' with { type: 'json' }
import { calendarDate, MAX_DEPTH, withinDepth } from './common.ts'

export const industryNames = Object.keys(industries)
export const subindustryNames = [...new Set(Object.values(industries as Record<string, string[]>).flat())]

export const MAX_LIMIT = 100
/** Annual amounts in the smallest-unit currencies reach the billions (IDR, VND); past this none is real. */
export const MAX_SALARY = 1e12
export const MAX_YOE = 100
export const MAX_DAYS_AGO = 36_500
export const MAX_RADIUS = 20_000

const flag = () => string().oneOf(['true', 'false'])
const strings = () => array(string().required().max(500)).max(50)

const isStringOrList = (v: unknown): v is string | string[] =>
  (typeof v === 'string' && v.length <= 300) || (Array.isArray(v) && v.length <= 50 && v.every((x) => typeof x === 'string' && x.length <= 300))

/** A string or an array of up to 50 strings, each at most 300 characters. */
export const stringOrList = (field: string) =>
  mixed<string | string[]>().test(
    'string-or-list',
    `${field} must be a string or a list of at most 50 strings, each at most 300 characters`,
    (v) => v === undefined || v === null || isStringOrList(v),
  )

/** A string or an array of strings, every value from `allowed`; the message names the field. */
export const oneOrMany = (field: string, allowed: string[]) =>
  stringOrList(field)
    .test('known-values', function (v) {
      // a value of the wrong shape is string-or-list's to report
      if (v === undefined || v === null || !isStringOrList(v)) return true
      const unknown = (Array.isArray(v) ? v : [v]).filter((x) => !allowed.includes(x))
      return unknown.length === 0
        ? true
        : this.createError({
            message: `Unknown ${field} value${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}. See GET /v2/jobs/data/${field === 'industry' || field === 'industries' ? 'industries' : 'subindustries'}`,
            params: { ctx: { unknown: clip(unknown) } },
          })
    })

const range = (max: number) =>
  object({
    min: number().min(0).max(max).nullable(),
    max: number().min(0).max(max).nullable(),
  })
    .default(undefined)
    .test('min-max', 'min must not be greater than max', (r) => !r || r.min == null || r.max == null || r.min <= r.max)

const blank = (s: string | undefined | null) => !s || !s.trim()

/**
 * A place needs a name: an entry without one (`{}`, or only blank names) would be no
 * filter at all and widen the search to every job, so it is refused.
 */
export const geoLocation = object({
  city: string().max(200),
  region: string().max(200),
  country: string().max(200),
}).test('named-place', 'A place needs at least one of city, region or country', (p) => !p || !(blank(p.city) && blank(p.region) && blank(p.country)))

export const geofilterParams = object({
  mode: string().oneOf(['auto', 'weak', 'strict', 'box']).default('auto'),
  radius: number().min(0).max(MAX_RADIUS).default(25),
  unit: string().oneOf(['mi', 'km', 'degrees']).default('mi'),
})

/** The filter set's fields and their rules; search adds its page-depth cap (jobSearchBody), export does not. */
export const jobSearchFields = object({
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
  yoe: range(MAX_YOE),
  include_yoe: flag(),
  company_name: string().max(300),
  company_slug: string().max(300),
  salary: range(MAX_SALARY),
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
  date_posted: calendarDate(),
  days_ago: number().min(0).max(MAX_DAYS_AGO),
  visa: flag(),
  hide_recruiting_agencies: flag(),
  return_raw_description: flag(),
  sort_by: string().max(50),
  sort_order: string().oneOf(['asc', 'desc']),
  page: number().integer().min(1).max(MAX_DEPTH).default(1),
  limit: number().integer().min(1).max(MAX_LIMIT).default(10),
})

export const jobSearchBody = jobSearchFields.test('depth', function (v) {
  return withinDepth(v) ? true : this.createError({ path: 'page', message: `page × limit may reach at most ${MAX_DEPTH} results; use POST /v2/jobs/export for more` })
})

export type JobSearchBody = InferType<typeof jobSearchBody>

/**
 * GET /v2/jobs/search's parameters: the body's fields, with the ranges flattened
 * (salary_min …), geo_locations as free-text places, and geofilter_params as geo_*.
 */
export const jobSearchQuery = jobSearchBody.omit(['yoe', 'salary', 'geo_locations', 'geofilter_params']).shape({
  salary_min: number().min(0).max(MAX_SALARY),
  salary_max: number().min(0).max(MAX_SALARY),
  yoe_min: number().min(0).max(MAX_YOE),
  yoe_max: number().min(0).max(MAX_YOE),
  geo_locations: array(string().required().max(300)).max(20),
  geo_mode: string().oneOf(['auto', 'weak', 'strict', 'box']),
  geo_radius: number().min(0).max(MAX_RADIUS),
  geo_unit: string().oneOf(['mi', 'km', 'degrees']),
})
export type JobSearchQuery = InferType<typeof jobSearchQuery>
