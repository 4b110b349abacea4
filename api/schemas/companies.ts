/**
 * POST /v2/platform/companies/search: its body, and the checks the spec answers with
 * a 400 rather than a 422 (limit above 100, a malformed LinkedIn URL, unsafe strings).
 * Everything else is the usual validation: a wrong type, an unknown industry or
 * company type is a 422 naming the field and the value.
 */
import { array, mixed, number, object, string, type InferType } from 'yup'
import { errors } from '../errors.ts'
import { checkStrings, codePoint, CONTROL_CHARACTER, LONE_SURROGATE, locText } from '../validate.ts'
import { MAX_DEPTH, withinDepth } from './common.ts'
import { geoLocation, industryNames, oneOrMany, stringOrList, subindustryNames } from './search.ts'

/** The company_types tags, in the order a profile lists them (docs/companies.md says how each is derived). */
export const COMPANY_TYPES = ['Startup', 'Public Company', 'Non-Profit', 'Enterprise', 'Agency', 'Recruiting Agency', 'Government', 'Remote-first'] as const

export const MAX_COMPANY_LIMIT = 100
/** `query` is a sentence at most; every other string (a name, an industry, a URL, a place) fits in this. */
export const MAX_QUERY_LENGTH = 500
export const MAX_STRING_LENGTH = 300

export const LINKEDIN_PREFIXES = ['https://www.linkedin.com/company/', 'https://linkedin.com/company/']

const flag = () =>
  mixed<boolean | 'true' | 'false'>().test(
    'boolean',
    'hiring must be true or false (a JSON boolean, or the string "true" or "false")',
    (v) => v === undefined || v === null || typeof v === 'boolean' || v === 'true' || v === 'false',
  )

export const companySearchBody = object({
  query: string().max(MAX_QUERY_LENGTH),
  company_name: string().max(MAX_STRING_LENGTH),
  industries: oneOrMany('industries', industryNames),
  subindustries: oneOrMany('subindustries', subindustryNames),
  company_types: array(string().required().oneOf([...COMPANY_TYPES])).max(COMPANY_TYPES.length),
  job_board: stringOrList('job_board'),
  hiring: flag(),
  locations: array(geoLocation.required()).max(20),
  linkedin_url: string().max(MAX_STRING_LENGTH),
  page: number().integer().min(1).max(MAX_DEPTH).default(1),
  limit: number().integer().min(1).max(MAX_COMPANY_LIMIT).default(10),
}).test('depth', function (v) {
  return withinDepth(v) ? true : this.createError({ path: 'page', message: `page × limit may reach at most ${MAX_DEPTH} results` })
})

export type CompanySearchBody = InferType<typeof companySearchBody>

/**
 * The company part of a LinkedIn company URL, lower-cased, as linkedin_company_key()
 * in sql/migrations/0016 reads stored links: "https://linkedin.com/company/Acme/?x=1" → "acme".
 * Null when the URL does not start with one of LINKEDIN_PREFIXES (any case) or names no company.
 */
export function linkedinKey(url: string): string | null {
  const given = url.trim()
  const prefix = LINKEDIN_PREFIXES.find((p) => given.slice(0, p.length).toLowerCase() === p)
  if (!prefix) return null
  const company = /^[^/?#\s]+/.exec(given.slice(prefix.length))?.[0]
  return company ? company.toLowerCase() : null
}

const unsafe = (s: string, loc: (string | number)[], key: boolean) => {
  const what = `${key ? 'key' : 'string'} at ${locText(loc)}`
  const control = CONTROL_CHARACTER.exec(s)
  if (control) return `Unsafe string: the ${what} holds a control character (${codePoint(control[0])} at position ${control.index})`
  const surrogate = LONE_SURROGATE.exec(s)
  if (surrogate) return `Unsafe string: the ${what} holds a lone UTF-16 surrogate (${codePoint(surrogate[0])} at position ${surrogate.index}); send well-formed Unicode`
  const max = !key && loc.length === 2 && loc[1] === 'query' ? MAX_QUERY_LENGTH : MAX_STRING_LENGTH
  if (s.length > max) return `Unsafe string: the ${what} is ${s.length} characters long; at most ${max} are accepted`
  return null
}

/**
 * The spec's 400s, checked before validation: unsafe strings anywhere in the body
 * (control characters including NUL, lone surrogates, over-long values, in known
 * fields or not), `limit` above 100, and a `linkedin_url` that is not a LinkedIn
 * company URL. Each is a 400 whose detail is a string naming the field.
 */
export function companySearchBadRequest(body: Record<string, unknown>) {
  const found = checkStrings(body, ['body'], unsafe)
  if (found) throw errors.badRequest(found)
  // 1e309 (Infinity) is screen()'s 422, as on every route
  if (typeof body.limit === 'number' && Number.isFinite(body.limit) && body.limit > MAX_COMPANY_LIMIT) {
    throw errors.badRequest(`limit must be at most ${MAX_COMPANY_LIMIT} (got ${body.limit})`)
  }
  if (typeof body.linkedin_url === 'string' && linkedinKey(body.linkedin_url) === null) {
    throw errors.badRequest(`linkedin_url must be a LinkedIn company URL starting with ${LINKEDIN_PREFIXES.join(' or ')} followed by the company's name`)
  }
}
