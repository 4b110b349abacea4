/**
 * Turns a validated search request into SearchFilters: aliases resolved (On-site,
 * Contract, job_type), flags read, and geo_locations resolved with the gazetteer
 * ingest uses, so "UK" finds what ingest stored as "United Kingdom".
 *
 * A place never widens a search: every geo_locations entry becomes a filter. One the
 * gazetteer does not know is matched by its names exactly, so "Atlantis" finds only
 * jobs stored under that name (none); an entry without any name is refused by the
 * schema (schemas/search.ts).
 */
import { ValidationError } from 'yup'
import { resolvePlace } from '../seeds/places/geocode.ts'
import { placeKey } from '../seeds/places/place-keys.ts'
import { parse } from '../sql/query-syntax.ts'
import { METERS_PER_DEGREE, type PlaceFilter, type SearchFilters, type SearchPage, type SortBy } from '../sql/search.ts'
import { errors, toItems } from './errors.ts'
import { geofilterParams, type JobSearchBody } from './schemas/search.ts'

const METERS = { mi: 1609.344, km: 1000, degrees: METERS_PER_DEGREE } as const
const SORTS: SortBy[] = ['relevance', 'date_posted', 'salary', 'company', 'yoe']

const list = (v: string | string[] | undefined | null) => (v === undefined || v === null ? undefined : Array.isArray(v) ? v : [v])
const flag = (v: string | undefined) => (v === undefined ? undefined : v === 'true')

/** A name with its surrounding blanks removed; a blank one is no name. */
const named = (s: string | undefined) => s?.trim() || undefined

type GeoParams = { mode: 'auto' | 'weak' | 'strict' | 'box'; radius: number; unit: 'mi' | 'km' | 'degrees' }

/** geofilter_params is one object (applies to every place) or one per geo_locations entry. */
function geoParams(raw: unknown, count: number): GeoParams[] {
  const given = raw === undefined || raw === null ? [{}] : Array.isArray(raw) ? raw : [raw]
  const parsed = given.map((p, i) => {
    try {
      return geofilterParams.validateSync(p ?? {}, { strict: true, abortEarly: false }) && (geofilterParams.cast(p ?? {}) as GeoParams)
    } catch (e) {
      if (e instanceof ValidationError) throw errors.validation(toItems(e, Array.isArray(raw) ? ['body', 'geofilter_params', i] : ['body', 'geofilter_params']))
      throw e
    }
  })
  return Array.from({ length: Math.max(count, 1) }, (_, i) => parsed[Math.min(i, parsed.length - 1)])
}

/**
 * auto: a city is a radius around it (strict when the gazetteer does not know where it
 * is); a region or a country alone is an exact match. box: the place's bounding box,
 * or a square of the radius around a city.
 */
export function placeFilter(given: { city?: string; region?: string; country?: string }, params: GeoParams): PlaceFilter {
  const entry = { city: named(given.city), region: named(given.region), country: named(given.country) }
  // the schema refuses such an entry; without a name there would be no filter, and every job would match
  if (!entry.city && !entry.region && !entry.country) throw new Error('placeFilter: a place without a name')
  const found = resolvePlace(entry)
  const names = {
    city: found?.city ?? entry.city ?? null,
    region: found?.region ?? entry.region ?? null,
    country: found?.country ?? entry.country ?? null,
  }
  const meters = params.radius * METERS[params.unit]
  const point = found && found.lat !== null && found.lng !== null ? { lat: found.lat, lng: found.lng } : null
  const strict = (): PlaceFilter => {
    const key = placeKey(names)
    return key ? { kind: 'key', key } : { kind: 'strict', ...names }
  }
  if (params.mode === 'strict' || (params.mode === 'auto' && !entry.city)) return strict()
  if (params.mode === 'box') {
    if (entry.city && point) {
      const dLat = meters / METERS_PER_DEGREE
      const dLng = dLat / Math.max(Math.cos((point.lat * Math.PI) / 180), 0.01)
      return { kind: 'box', bbox: [point.lng - dLng, point.lat - dLat, point.lng + dLng, point.lat + dLat], countryKey: null }
    }
    if (!entry.city && found?.bbox) return { kind: 'box', bbox: found.bbox, countryKey: entry.region ? null : placeKey({ country: names.country }) }
    return strict()
  }
  return point ? { kind: 'radius', ...point, meters } : strict()
}

export function toSearch(body: JobSearchBody): { filters: SearchFilters; page: SearchPage } {
  const geo = body.geo_locations ?? []
  const params = geoParams(body.geofilter_params, geo.length)
  const places = geo.map((g, i) => placeFilter(g, params[i]))
  const jobTypes = [...(body.job_types ?? []), ...(body.job_type ?? [])].map((t) => (t === 'Contract' ? 'Contract / Temporary' : t))
  const sortBy = SORTS.includes(body.sort_by as SortBy) ? (body.sort_by as SortBy) : 'relevance' // unknown values are ignored
  const filters: SearchFilters = {
    titles: parse(body.job_titles),
    keywords: parse(body.keywords),
    companyKeywords: parse(body.company_keywords),
    jobSlug: body.job_slug,
    locationTypes: body.location_types?.map((t) => (t === 'On-site' ? 'In-Person' : t)),
    places,
    experience: body.experience,
    yoe: body.yoe ?? undefined,
    includeNoYoe: flag(body.include_yoe),
    companyName: body.company_name,
    companySlug: body.company_slug,
    salary: body.salary ?? undefined,
    currency: body.currency,
    includeNoSalary: flag(body.include_no_salary),
    jobTypes,
    categories: body.job_category,
    sizeBuckets: body.company_types,
    jobBoards: list(body.job_board),
    industries: list(body.industry),
    subindustries: list(body.sub_industry),
    postedSince: latest(body.date_posted, body.days_ago),
    visa: flag(body.visa),
    hideAgencies: body.hide_recruiting_agencies === 'true',
  }
  return {
    filters,
    page: {
      page: body.page ?? 1,
      limit: body.limit ?? 10,
      sortBy,
      sortOrder: (body.sort_order as 'asc' | 'desc' | undefined) ?? null,
      raw: body.return_raw_description === 'true',
    },
  }
}

/** date_posted and days_ago both mean "on or after"; with both, the later date wins. */
function latest(date: string | undefined, daysAgo: number | undefined) {
  const fromDays = daysAgo === undefined ? undefined : new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10)
  if (!date) return fromDays
  if (!fromDays) return date
  return date > fromDays ? date : fromDays
}
