/**
 * Company normalisation: slug, profile fields, size range and bucket, industries restricted to the
 * reference list, recruiting-agency flag.
 */
import industryTable from '../../seeds/industries.json' with { type: 'json' }
import sizeBuckets from '../../seeds/size-buckets.json' with { type: 'json' }
import type { Company, RawCompany } from '../types.ts'
import { slugify } from './slug.ts'
import { decodeEntities } from './decode-entities.ts'
import { FieldError, isAbsent, isRecord, optionalBoolean, optionalNumber, optionalString, requiredString, stringList } from './coerce.ts'

const INDUSTRIES = industryTable as Record<string, string[]>
const INDUSTRY_BY_KEY = new Map(Object.keys(INDUSTRIES).map((i) => [i.toLowerCase(), i]))
const SUBINDUSTRY_PARENTS = new Map<string, { name: string; parents: Set<string> }>()
for (const [industry, subs] of Object.entries(INDUSTRIES)) {
  for (const s of subs) {
    const entry = SUBINDUSTRY_PARENTS.get(s.toLowerCase()) ?? { name: s, parents: new Set<string>() }
    entry.parents.add(industry)
    SUBINDUSTRY_PARENTS.set(s.toLowerCase(), entry)
  }
}
const RECRUITING = 'Staffing & Recruiting'

// Buckets parsed once from the reference list: "51-200" -> [51, 200], "10000+" -> [10000, Infinity].
const BUCKETS = (sizeBuckets as string[]).map((b) => {
  const m = /^(\d+)(?:-(\d+)|\+)$/.exec(b)!
  return { name: b, min: Number(m[1]), max: m[2] ? Number(m[2]) : Infinity }
})

/**
 * Size range from {min, max}, "51-200", "10,001+", "10000+", "1,001-5,000 employees" or a head count.
 * e.g. "51-200" -> 51-200; "10,001+" -> 10001-null; 75 -> 75-75; {min: 11, max: 50} -> 11-50
 */
export function parseSizeRange(v: unknown): { min: number | null; max: number | null } {
  if (isAbsent(v)) return { min: null, max: null }
  if (typeof v === 'number') return Number.isFinite(v) && v > 0 ? { min: Math.round(v), max: Math.round(v) } : { min: null, max: null }
  if (typeof v === 'string') {
    const m = /^\s*(\d[\d,. ]*)\s*(?:(\+|or more)|(?:-|–|to)\s*(\d[\d,. ]*))?\s*(?:employees|people|staff)?\s*$/i.exec(v)
    if (!m) throw new FieldError('company.size_range', 'expected {min, max}, "51-200", "10000+" or a number')
    const n = (s: string) => Number(s.replace(/[,. ]/g, ''))
    const min = n(m[1])
    return { min, max: m[2] ? null : m[3] ? n(m[3]) : min }
  }
  if (!isRecord(v)) throw new FieldError('company.size_range', 'expected {min, max}, "51-200", "10000+" or a number')
  const min = optionalNumber(v.min, 'company.size_range.min')
  const max = optionalNumber(v.max, 'company.size_range.max')
  return min !== null && max !== null && min > max ? { min: max, max: min } : { min, max }
}

/** The reference bucket containing the range's upper end (its lower end when open-ended). e.g. 51-200 -> "51-200", 10001-null -> "10000+" */
export function sizeBucket(min: number | null, max: number | null): string | null {
  const n = max ?? min
  if (n === null || n <= 0) return null
  // open-ended ("10000+"): the open bucket when it starts there, not the one that ends there
  const open = BUCKETS.find((b) => b.max === Infinity)
  if (max === null && open && n >= open.min) return open.name
  return (BUCKETS.find((b) => n >= b.min && n <= b.max) ?? BUCKETS.find((b) => b.max === Infinity && n > b.min) ?? null)?.name ?? null
}

/**
 * Industries and subindustries kept only when in seeds/industries.json (case-insensitive, canonical
 * spelling back). A subindustry must belong to one of the kept industries, or to any industry when
 * none was kept. Unknown values are dropped, not rejected.
 * e.g. ["software development"] -> []; ["tech, software & it services"] -> ["Tech, Software & IT Services"]
 */
export function filterIndustries(industries: string[], subindustries: string[]): { industries: string[]; subindustries: string[] } {
  const kept = [...new Set(industries.map((i) => INDUSTRY_BY_KEY.get(i.trim().toLowerCase())).filter((x): x is string => !!x))]
  const subs: string[] = []
  for (const s of subindustries) {
    const entry = SUBINDUSTRY_PARENTS.get(s.trim().toLowerCase())
    if (!entry || subs.includes(entry.name)) continue
    if (!kept.length || kept.some((k) => entry.parents.has(k))) subs.push(entry.name)
  }
  return { industries: kept, subindustries: subs }
}

/**
 * A company object; `company.name` is required. HTML entities in the name are decoded
 * (decode-entities.ts), so "McKinsey &amp; Company" is "McKinsey & Company", with the slug
 * mckinsey-and-company, as if it had been written plainly.
 */
// A sentence where a name belongs: a Hacker News comment's first line, a description's opening.
// Real names run long ("University Hospitals Bristol and Weston NHS Foundation Trust (formerly
// University Hospitals Bristol NHS Foundation Trust)", 121 characters), so length alone decides
// only past 160 characters; shorter text is a sentence when it asks, exclaims, runs on past a full
// stop, or speaks as a person ("We're hiring …", "I've applied …").
const PERSON_RE = /^(?:i|i'm|i've|i'd|we|we're|we've|we'd|you|you're|our|my|hey|hi|hello|just|but)\b/i

/**
 * Whether a company name is a sentence, which no name is: a feed's adapter took the wrong text.
 * e.g. "But you don't have money for paying salaries ? It seems you guys …" -> true;
 *      "Black Country Healthcare NHS Foundation Trust (formerly known as …)" -> false
 */
export function isSentence(name: string): boolean {
  if (name.length > 160) return true
  if (name.split(/\s+/).length < 6) return false
  return /[?!]/.test(name) || /\b[a-z]{3,}\.\s+[A-Z]/.test(name) || PERSON_RE.test(name.replace(/[’]/g, "'"))
}

export function normalizeCompany(raw: unknown): Company {
  if (!isRecord(raw)) throw new FieldError('company', 'required object with a name')
  const c = raw as RawCompany
  const name = decodeEntities(requiredString(c.name, 'company.name')).replace(/\s+/g, ' ').trim()
  if (!name) throw new FieldError('company.name', 'required non-empty string')
  if (isSentence(name)) throw new FieldError('company.name', `a sentence, not a name ("${name.slice(0, 40)}…"): the feed's adapter read the wrong text`)
  const givenSlug = optionalString(c.slug, 'company.slug')
  const size = parseSizeRange(c.size_range)
  const { industries, subindustries } = filterIndustries(
    stringList(c.industries, 'company.industries', { semicolonOnly: true }),
    stringList(c.subindustries, 'company.subindustries', { semicolonOnly: true }),
  )
  const agency = optionalBoolean(c.is_recruiting_agency, 'company.is_recruiting_agency')
  return {
    name,
    slug: slugify(givenSlug || name),
    logo: optionalString(c.logo, 'company.logo'),
    link: optionalString(c.link, 'company.link'),
    linkedin_link: optionalString(c.linkedin_link, 'company.linkedin_link'),
    description_summary: optionalString(c.description_summary, 'company.description_summary'),
    services: stringList(c.services, 'company.services'),
    size_min: size.min,
    size_max: size.max,
    size_bucket: sizeBucket(size.min, size.max),
    industries,
    subindustries,
    type: optionalString(c.type, 'company.type'),
    // An industry of "Staffing & Recruiting" makes a company an agency unless it says otherwise.
    is_recruiting_agency: agency ?? subindustries.includes(RECRUITING),
  }
}
