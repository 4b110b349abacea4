/**
 * The NHS Jobs file as shipped (nhs-jobs-2020.jsonl.gz): schema.org JobPostings flattened to one
 * JSON object per line, with the fields id, title, company_name, company_url, company_logo,
 * industry, employment_type, date_posted, valid_through, salary_min/max/currency/period,
 * salary_text, location_locality, location_postcode, location_country, lat, lon, url,
 * description_html. Every posting is on the NHS Jobs board.
 */
import type { RawPosting } from '../types.ts'
import { isObject, keyScore, type Adapter, type Sample } from './adapter.ts'
import { jsonRecords } from './json-records.ts'
import { jobTypeFromTerms } from '../transform/job-type.ts'
import { levelFromBand, levelFromTitle } from '../transform/experience.ts'

/** The keys that tell this file from other flattened feeds. */
const NHS_KEYS = ['location_locality', 'location_postcode', 'location_country', 'salary_text', 'salary_period', 'company_logo', 'description_html', 'lat', 'lon']

const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : typeof v === 'number' && Number.isFinite(v) ? String(v) : undefined)
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && /^\s*\d+(?:\.\d+)?\s*$/.test(v) ? Number(v) : null)

// An amount ("£85K" too), or a range of two, and the period stated right after it: "£14.49 p/h",
// "£13.00 to £17.00 per hour", "£160 per week", "£28,333.20 per annum". In "£30,000, 3 days per
// week" the week follows the 3, which is no salary in the file's numbers, so it never matters.
const STATED_RE = new RegExp(
  String.raw`((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?k?)(?:\s*(?:-|–|to)\s*£?\s*((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?k?))?\s*` +
    String.raw`(?:(p\/?h|ph|pw|pcm|hourly|daily|weekly|monthly|sessional)\b|(?:per|an?|each|\/)\s*(hour|hr|h|session|day|week|wk|month|mth)\b)?`,
  'gi',
)

/**
 * salary_min/max as a salary_range only where salary_text states the same amounts, in the same
 * order, with no period but the year. The file annualized hourly rates without saying so (text
 * "£13.00 to £17.00 per hour", period YEAR, amounts 21853-28577), took a weekly rate for a yearly
 * one ("£160 per week", 160 a YEAR), a bonus for the minimum ("£34,700 & £3000 Welcome Bonus" is
 * 3000-34700) and misread text ("£79,860 - £107,668 1 additional PA" has a max of 1076681); there
 * the text alone goes to the pipeline, which reads it as stated. An amount matches when the text's,
 * with pence, truncates to it (£28,333.20 -> 28333), and the text's is used.
 * e.g. {salary_min: 25304, salary_max: 34169, salary_text: "£25,304 to £34,169 Per Annum"} -> the range
 *      {salary_min: 30615, salary_text: "£30,615 per annum pro rata (£15.66 per hour)"} -> 30615 a year
 *      {salary_min: 21853, salary_text: "£13.00 to £17.00 per hour"} -> none
 *      {salary_min: null, salary_text: "Band 5"} -> none (no number is made from a band)
 */
export function statedRange(r: Record<string, unknown>) {
  const min = num(r.salary_min)
  const max = num(r.salary_max)
  if (min === null && max === null) return undefined
  const range = (lo: number | null, hi: number | null) => ({ min: lo, max: hi, currency: str(r.salary_currency), period: str(r.salary_period) })
  const stated = str(r.salary_text)
  if (!stated) return range(min, max)
  const yearly: number[] = []
  for (const m of stated.matchAll(STATED_RE)) {
    if (m[3] || m[4]) continue // a rate by the hour, session, day, week or month
    for (const a of [m[1], m[2]]) if (a) yearly.push(Number(a.replace(/[,k]/gi, '')) * (/k$/i.test(a) ? 1000 : 1))
  }
  const at = (n: number | null) => (n === null ? -1 : yearly.findIndex((a) => a - n >= 0 && a - n < 1))
  const [i, j] = [at(min), at(max)]
  if ((min !== null && i < 0) || (max !== null && j < 0) || (i >= 0 && j >= 0 && j < i)) return undefined
  return range(i >= 0 ? yearly[i] : null, j >= 0 ? yearly[j] : null)
}

// Counties that follow the town in a locality ("Chertsey, Surrey", "Bury, Lancashire").
const COUNTY_RE = new RegExp(
  String.raw`^(?:.+shire|surrey|kent|essex|(?:east |west )?sussex|norfolk|suffolk|cumbria|devon|cornwall|somerset|dorset|middlesex|merseyside|` +
    String.raw`(?:west|east|north|south) midlands|(?:north|south|west|east) yorkshire|east riding of yorkshire|greater london|greater manchester|` +
    String.raw`tyne and wear|(?:county )?durham|rutland|northumberland|isle of wight|herts|hants|lancs|beds|bucks|berks|notts|wilts|worcs|gloucs|` +
    String.raw`cambs|northants|oxon|leics|staffs|glamorgan|gwent|powys|gwynedd|clwyd|fife|lothian|tayside|highland)$`,
  'i',
)
const POSTCODE_RE = /^[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2}$/i
// A locality that speaks of the work arrangement ("Home Based", "Aldershot/Home Working", "Flexible, National").
const ARRANGEMENT_RE = /\b(?:remote(?:ly)?|home[- ]?(?:based|working|worker)|homeworking|working from home|wfh|flexible|hybrid|agile)\b/i

/**
 * The place of a posting. A locality is "[premises, …,] town[, county]": a hospital or a street
 * before the town, as the file flattened the address ("Southampton General Hospital, Southampton",
 * "Willenhall, West Midlands", "Bury, Lancashire, BL8 2BS"). The town goes to the pipeline as the
 * city with the county as region and the file's coordinates; the whole locality and postcode stay
 * in location_raw. A street-addressed posting is In-Person, unless its locality speaks of home or
 * flexible working ("Flexible, Cambridge", "Oxted/Homebased"): then the pipeline reads the
 * arrangement from location_raw.
 * e.g. "Southampton General Hospital, Southampton", "SO16 6YD", GB, 50.93, -1.43
 *   -> {city: "Southampton", country: "GB", lat: 50.93, lng: -1.43}, "Southampton General Hospital, Southampton, SO16 6YD", In-Person
 */
export function nhsLocation(r: Record<string, unknown>): Pick<RawPosting, 'locations' | 'location_raw' | 'location_type'> {
  const locality = str(r.location_locality)
  const postcode = str(r.location_postcode)
  const country = str(r.location_country)
  const location_raw = [locality, postcode].filter(Boolean).join(', ') || undefined
  const parts = (locality ?? '').split(',').map((p) => p.trim()).filter((p) => p && !POSTCODE_RE.test(p))
  let town = parts.length - 1
  while (town >= 0 && COUNTY_RE.test(parts[town])) town--
  const place = {
    city: town >= 0 ? parts[town] : undefined,
    region: parts[town + 1],
    country,
    lat: num(r.lat) ?? undefined,
    lng: num(r.lon) ?? undefined,
  }
  const located = place.city || place.region || country
  return {
    locations: located ? [Object.fromEntries(Object.entries(place).filter(([, v]) => v !== undefined))] : undefined,
    location_raw,
    location_type: located && (locality || postcode) && !ARRANGEMENT_RE.test(locality ?? '') ? 'In-Person' : undefined,
  }
}

/**
 * The job type and level a posting states beyond the feed's fields. employment_type is FULL_TIME
 * for most postings whatever their terms, so the terms in the title and text win: "Fixed Term/
 * Secondment – 4 Months", a bank post, "27 hours per week" (job-type.ts, jobTypeFromTerms). The
 * level is the Agenda for Change band the title, the salary text or the description names first
 * ("£31,365 - £37,890 per annum (Band 6)" -> Mid), when the title's own ladder words do not
 * place it (levelFromTitle reads a band or "Staff Nurse" in the title).
 */
export function nhsTerms(r: Record<string, unknown>): Pick<RawPosting, 'job_type' | 'experience_level'> {
  const title = str(r.title) ?? ''
  const html = str(r.description_html) ?? ''
  const text = html.replace(/<[^>]*>/g, ' ').replace(/&nbsp;|&#160;/g, ' ')
  // a volunteer has none of the spec's job types
  const stated = /\bvolunt(?:eer|ary)\b/i.test(title) ? 'Volunteer' : jobTypeFromTerms(title, text)
  // an apprentice or trainee is Entry whatever band the post leads to
  const fromTitle = levelFromTitle(title)
  const level = levelFromBand(title) ?? (fromTitle === 'Entry' ? fromTitle : null) ?? levelFromBand(str(r.salary_text) ?? '') ?? levelFromBand(text) ?? fromTitle
  return { job_type: stated ?? r.employment_type, experience_level: level ?? undefined }
}

/** One record as a posting. */
export function nhsToRaw(r: Record<string, unknown>): RawPosting {
  const industry = str(r.industry)
  return {
    source_id: r.id,
    job_board: 'NHS Jobs',
    job_board_link: r.url,
    job_title: r.title,
    description: r.description_html,
    company: { name: r.company_name, link: r.company_url, logo: r.company_logo, industries: industry ? [industry] : undefined },
    ...nhsTerms(r),
    date_posted: r.date_posted,
    valid_through: r.valid_through,
    salary: r.salary_text,
    salary_range: statedRange(r),
    ...nhsLocation(r),
    // not read by the pipeline today; kept so categorization can weigh it ("Healthcare")
    industry,
  }
}

export const nhsJobs: Adapter = {
  name: 'nhs-jobs',
  summary: 'NHS Jobs postings flattened from schema.org (location_locality, location_postcode, salary_text …), one JSON object per line',
  detect: (s: Sample) => (s.layout === 'lines' || s.layout === 'array' ? Math.max(0, ...s.records.map((r) => keyScore(r, NHS_KEYS))) : 0),
  read: async function* (source) {
    for await (const r of jsonRecords(source.open(), source.sample.layout ?? 'lines')) {
      if ('error' in r) yield { line: r.n, error: r.error }
      else if (!isObject(r.value)) yield { line: r.n, error: 'not a JSON object' }
      else yield { line: r.n, raw: nhsToRaw(r.value) }
    }
  },
}
