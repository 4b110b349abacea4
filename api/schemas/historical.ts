/**
 * POST /v2/jobs/historical/search and POST /v2/jobs/historical/export. Both take the
 * spec's historical filter set; at least one filter must be given.
 *
 * Unlike job search, unknown keys are refused (the spec), one 422 item each. The
 * archive keeps no salary, job type, seniority, industry or work arrangement, and its
 * descriptions are a sample, so a filter on any of those is refused with an item that
 * names the field and says why, rather than being ignored and answering for every
 * posting. A few near misses (company_name, locations, date_posted) name the field meant.
 */
import { array, bool, number, object, string, type AnyObjectSchema, type InferType } from 'yup'
import { locationGroupName, locationGroupNames } from '../../seeds/places/location-groups.ts'
import { AppError, clip, errors, type ErrorItem } from '../errors.ts'
import { validate } from '../validate.ts'
import { calendarDate } from './common.ts'
import { geoLocation } from './search.ts'

export const DEFAULT_SAMPLE_SIZE = 50
export const MAX_SAMPLE_SIZE = 100
/** The most records one historical export holds. */
export const MAX_EXPORT_RECORDS = 10_000_000

// an empty string filters nothing, and would only hide a client's mistake
const strings = (max: number) => array(string().defined().min(1).max(max)).max(50)

const locationGroup = () =>
  string()
    .max(100)
    .test('location-group', function (v) {
      if (v === undefined || v === null || locationGroupName(v) !== null) return true
      return this.createError({ message: `Unknown location_group: ${v}. Known groups: ${locationGroupNames().join(', ')}`, params: { ctx: { allowed: clip(locationGroupNames()) } } })
    })

/** from ≤ to, reported on `to`. */
const ordered = (from: string, to: string) =>
  function (this: { createError: (o: { path: string; message: string }) => unknown }, v: Record<string, unknown> | undefined) {
    const a = v?.[from]
    const b = v?.[to]
    return typeof a !== 'string' || typeof b !== 'string' || a <= b ? true : (this.createError({ path: to, message: `${to} must not be before ${from}` }) as never)
  }

/** The filters, each optional here; historicalBody requires one of them. */
export const historicalFilterFields = {
  job_titles: strings(500),
  keywords: strings(500),
  geo_locations: array(geoLocation.required()).max(20),
  location_group: locationGroup(),
  company_names: strings(300),
  company_slugs: strings(300),
  date_posted_from: calendarDate(),
  date_posted_to: calendarDate(),
  date_expired_from: calendarDate(),
  date_expired_to: calendarDate(),
}

export const FILTER_NAMES = Object.keys(historicalFilterFields)

const withOrderedDates = <S extends AnyObjectSchema>(schema: S) =>
  schema.test('posted-order', ordered('date_posted_from', 'date_posted_to')).test('expired-order', ordered('date_expired_from', 'date_expired_to'))

export const historicalSearchBody = withOrderedDates(
  object({
    ...historicalFilterFields,
    sample_size: number().integer().min(0).max(MAX_SAMPLE_SIZE).default(DEFAULT_SAMPLE_SIZE),
  }),
)
export type HistoricalSearchBody = InferType<typeof historicalSearchBody>

export const historicalExportBody = withOrderedDates(
  object({
    ...historicalFilterFields,
    format: string().required().oneOf(['csv', 'json']),
    /** at most this many records, the most recently posted; without it every match */
    max_records: number().integer().min(1).max(MAX_EXPORT_RECORDS),
    notify: bool().default(false),
  }),
)
export type HistoricalExportBody = InferType<typeof historicalExportBody>

/** What the archive does not hold, by the names a client may send for it. */
const UNSUPPORTED: [string, string[]][] = [
  ['salary', ['salary', 'salary_range', 'salary_min', 'salary_max', 'min_salary', 'max_salary', 'currency', 'include_no_salary', 'compensation', 'pay']],
  ['job type', ['job_types', 'job_type', 'employment_type', 'employment_types']],
  ['seniority', ['experience', 'experience_level', 'experience_levels', 'seniority', 'seniority_level', 'seniority_levels', 'yoe', 'yoe_range', 'include_yoe', 'years_of_experience']],
  ['industry', ['industry', 'industries', 'sub_industry', 'sub_industries', 'subindustry', 'subindustries']],
  ['work arrangement', ['location_types', 'location_type', 'work_arrangement', 'work_arrangements', 'remote', 'remote_only', 'workplace_type']],
  ['description text', ['description', 'description_text', 'description_keywords', 'full_text']],
]
const unsupported = new Map(UNSUPPORTED.flatMap(([kind, names]) => names.map((n) => [n, kind] as const)))

/** Keys close to a filter, with the filter meant. */
const MEANT: Record<string, string> = {
  job_title: 'job_titles',
  company_name: 'company_names',
  company_slug: 'company_slugs',
  locations: 'geo_locations',
  geo_location: 'geo_locations',
  date_posted: 'date_posted_from and date_posted_to',
  date_expired: 'date_expired_from and date_expired_to',
  days_ago: 'date_posted_from',
}

function refusedKeys(given: unknown, fields: string[]): ErrorItem[] {
  if (given === null || typeof given !== 'object' || Array.isArray(given)) return []
  const allowed = `The filters are ${FILTER_NAMES.join(', ')}.`
  return Object.entries(given).flatMap(([key, input]): ErrorItem[] => {
    if (fields.includes(key)) return []
    const loc = ['body', key]
    const kind = unsupported.get(key)
    if (kind) {
      const msg = `Historical search cannot filter on ${kind} (${key}): the archive does not keep it${kind === 'description text' ? ' for every posting' : ''}. ${allowed}`
      return [{ type: 'value_error', loc, msg, input, ctx: { unsupported_filter: kind } }]
    }
    const meant = Object.hasOwn(MEANT, key) ? ` Did you mean ${MEANT[key]}?` : ''
    return [{ type: 'extra_forbidden', loc, msg: `Extra inputs are not permitted.${meant} ${allowed}`, input }]
  })
}

/** The filters given with something in them (an empty list is none). */
export function givenFilters(body: Record<string, unknown>) {
  return FILTER_NAMES.filter((name) => {
    const v = body[name]
    return Array.isArray(v) ? v.length > 0 : v !== undefined && v !== null
  })
}

export const noFilterItem = (input: unknown): ErrorItem => ({
  type: 'value_error',
  loc: ['body'],
  msg: `At least one filter is required: one of ${FILTER_NAMES.join(', ')}`,
  input,
})

/**
 * The body, or the 422 with every problem: its unknown and unsupported keys with what
 * the schema found, then, when all else is right, a body without any filter.
 */
export async function validateHistorical<S extends AnyObjectSchema>(schema: S, given: unknown): Promise<InferType<S>> {
  const refused = refusedKeys(given, Object.keys(schema.fields))
  let body: InferType<S>
  try {
    body = await validate(schema, given)
  } catch (e) {
    if (refused.length && e instanceof AppError && Array.isArray(e.detail)) throw errors.validation([...refused, ...e.detail])
    throw e
  }
  if (refused.length) throw errors.validation(refused)
  if (givenFilters(body).length === 0) throw errors.validation([noFilterItem(given)])
  return body
}
