/**
 * Job title clean-up. Boards decorate titles with gender markers, urgency and locations; search,
 * categorisation and the duplicate hash want the bare title.
 * e.g. "SENIOR SRE (m/f/d) - URGENT!!! | Berlin" -> "Senior SRE" (location hint "Berlin")
 */
import { findCities, findRegions, countryCode } from '../../seeds/places/geocode.ts'
import { decodeEntities } from './decode-entities.ts'

// German/Austrian/Swiss law asks for gender-neutral ads: (m/w/d), (w/m/d), (m/f/x), (all genders) ...
const GENDER_RE = /\s*[([]\s*(?:[mwfdhx*]|div|diverse)(?:\s*[/|,]\s*(?:[mwfdhx*]|div|diverse)){1,3}\s*[)\]]|\s*\((?:all genders?|gn\*?|genderneutral|alle geschlechter)\)|\s+\b[mwf]\/[mwf]\/[dx]\b/gi
// Urgency and hype, only as a tag: "URGENT - Nurse", "Urgently hiring: Driver", "Nurse - URGENT!!!",
// "(Urgent)". Inside the title the words are the job's own: "Urgent Care Practitioner",
// "Urgent Treatment Centre Nurse".
const URGENCY = String.raw`(?:urgent(?:ly)?(?:\s+(?:hiring|requirement|need(?:ed)?|vacancy|role))?|immediate(?:ly)?\s+(?:start|hire|hiring|joiner)s?|hiring\s+(?:now|immediately)|apply\s+(?:now|today)|asap)`
const URGENT_RE = new RegExp(
  String.raw`^\s*${URGENCY}\s*(?:[-–—|:!]+\s*|$)|\s*[-–—|:,]\s*${URGENCY}\s*!*\s*(?=[-–—|:(]|$)|\s*[([]\s*${URGENCY}\s*!*\s*[)\]]`,
  'gi',
)
// A "new posting" tag, only in a tag's own punctuation: "NEW!", "(New)", "[NEW]", "*NEW*", and
// "New:" at the start. The bare word is part of the title ("New Grad", "New York", "New Hall").
const NEW_TAG_RE = /\s*[-–—|:]?\s*(?:\(\s*new\s*!*\s*\)|\[\s*new\s*!*\s*\]|\*+\s*new\s*!*\s*\*+|\bnew\s*!+)\s*[-–—|:]?|^\s*new\s*:\s*/gi
const BANG_RE = /\s*!{1,}/g

// Words kept (or put) in this exact case when fixing ALL CAPS titles.
const ACRONYMS = new Map(
  [
    'SRE', 'QA', 'QC', 'AWS', 'GCP', 'iOS', 'macOS', 'API', 'UI', 'UX', 'UI/UX', 'IT', 'HR', 'CEO', 'CTO', 'CFO', 'COO', 'CIO', 'CISO', 'CMO', 'VP', 'SVP', 'EVP',
    'SQL', 'PHP', '.NET', 'ML', 'AI', 'SAP', 'CNC', 'HVAC', 'RN', 'LPN', 'CNA', 'CDL', 'DevOps', 'DevSecOps', 'MLOps', 'SDET', 'SEO', 'SEM', 'CRM', 'ERP', 'BI',
    'II', 'III', 'IV', 'JavaScript', 'TypeScript', 'GraphQL', 'PhD', 'MBA', 'CPA', 'EMEA', 'APAC', 'USA', 'UK', 'US', 'EU', 'NYC', 'B2B', 'B2C', 'SaaS', 'IoT',
    'R&D', 'PR', 'ICU', 'ER', 'OR', 'NLP', 'LLM', 'ETL', 'GIS', 'PLC', 'CAD', 'PMP', 'SOC', 'NOC', 'AR', 'AP', 'GL', 'FP&A', 'EHS', 'HSE', 'OTR', 'LTL', 'K-12', 'DBA',
    'AVP', 'GM', 'IC', 'SME', 'TV', 'CSR', 'BDR', 'SDR', 'AE', 'CS', 'PMM', 'MRI', 'CT', 'EMT', 'LVN', 'NP', 'PA-C', 'DPT', 'OT', 'PT', 'SLP', 'RF', 'FPGA', 'ASIC',
    'C++', 'C#', 'Node.js', 'React.js', 'iPhone', 'eCommerce', 'YouTube', 'LinkedIn', 'PhD',
    // the NHS's: services, roles and teams
    'NHS', 'CAMHS', 'IAPT', 'HCA', 'A&E', 'AHP', 'ACP', 'ANP', 'ODP', 'MSK', 'ITU', 'SALT', 'EPRR', 'CQC', 'MDT', 'GP', 'GPs', 'PCN', 'ICT', 'AfC',
  ].map((w) => [w.toUpperCase(), w]),
)
const MINOR = new Set(['a', 'an', 'and', 'as', 'at', 'but', 'by', 'for', 'in', 'of', 'on', 'or', 'the', 'to', 'with', 'via', 'per', 'de'])

/**
 * ALL CAPS -> Title Case, keeping known acronyms. Only applied when the title has no lowercase
 * letters, so deliberate casing ("iOS Engineer", "McKinsey") is never touched.
 * e.g. "SENIOR IOS ENGINEER - AWS" -> "Senior iOS Engineer - AWS"; "QA TESTER" -> "QA Tester"
 */
export function fixAllCaps(title: string): string {
  if (!/[A-Z]/.test(title) || /[a-z]/.test(title)) return title
  const letters = title.replace(/[^A-Z]/g, '')
  if (letters.length < 4) return title
  let first = true
  return title.replace(/[^\s/,()&-]+(?:[/&][^\s/,()]+)*/g, (word) => {
    const known = ACRONYMS.get(word)
    const isFirst = first
    first = false
    if (known) return known
    const lower = word.toLowerCase()
    if (!isFirst && MINOR.has(lower)) return lower
    // Words without vowels ("HVAC" aside, e.g. "SR", "MGR", "PLC") are abbreviations: keep them loud.
    if (/^[A-Z]{2,4}$/.test(word) && !/[AEIOUY]/.test(word)) return word
    return lower.replace(/(^|[-'’.])(\p{L})/gu, (_m, p: string, c: string) => p + c.toUpperCase())
  })
}

const MODALITY_RE = /^(?:fully |100% )?(?:remote|hybrid|on-?site|in-office|wfh|work from home|anywhere)\b/i

/**
 * Whether a title suffix is a work arrangement and/or a well-known place: "Remote", "Remote US",
 * "Berlin", "NY", "Germany", "San Francisco, CA". Two-letter country codes other than US/UK do not
 * count, so "Engineer - IT" and "Engineer, AI" keep their suffix; neither do small places, so
 * "Engineer - Platform" keeps "Platform" (a village somewhere).
 */
function isLocationSuffix(s: string): boolean {
  let t = s.trim()
  if (!t || t.length > 60) return false
  const modality = MODALITY_RE.exec(t)
  if (modality) {
    t = t.slice(modality[0].length).replace(/^[\s\-–—:(,]+|[\s)]+$/g, '')
    if (!t) return true
  }
  const segs = t.split(',').map((x) => x.trim())
  if (segs.length > 3) return false
  return segs.every((seg) => {
    if (!/^[\p{L} .'-]+$/u.test(seg)) return false
    const folded = seg.toLowerCase()
    const cc = countryCode(seg)
    if (cc && (folded.length > 3 || folded === 'us' || folded === 'uk' || folded === 'usa')) return true
    if (findRegions(seg).length && (seg.length > 3 || /^[A-Z]{2,3}$/.test(seg))) return true
    const city = findCities(seg)[0]
    return city !== undefined && city.population >= 50_000
  })
}

/** `removed`: the decorations taken out (gender markers, urgency and new-posting tags), for the ingest report */
export type CleanTitle = { title: string; locationHint: string | null; removed: string[] }

/**
 * The longest title stored. Search finds the newest title matches in an index of the
 * date that carries each job's title vector (migration 0027), and an index entry has a
 * size limit (2,704 bytes) that the vector of a title of some thousand characters
 * passes: a board that puts a post's first paragraph in its title field. job_title_raw
 * keeps the whole, and the duplicate hash reads the whole.
 */
export const MAX_TITLE = 200

/** The title cut to MAX_TITLE characters at a word boundary, with an ellipsis; a shorter one as it is. */
export function boundTitle(title: string): string {
  if (title.length <= MAX_TITLE) return title
  const head = title.slice(0, MAX_TITLE)
  const space = head.lastIndexOf(' ')
  const cut = space >= MAX_TITLE / 2 ? head.slice(0, space) : head.slice(0, MAX_TITLE - 1)
  return `${cut.replace(/[\s\-–—|:,;.(]+$/, '')}…`
}

/**
 * Cleans a raw title:
 * - HTML entities decoded ("Wireless &amp;#038; Modem" -> "Wireless & Modem", decode-entities.ts)
 * - whitespace collapsed; gender markers "(m/f/d)", "(w/m/d)", "(all genders)" removed
 * - urgency "- URGENT", "Immediate start", "!!!" and new-posting tags "NEW!", "(New)", "*NEW*"
 *   removed; the word "new" itself stays ("Software Engineer – New Grad", "Analyst - New York")
 * - trailing location suffixes " - Remote", "| Berlin", "(Remote)", "@ London, UK" removed (up to
 *   two, e.g. "Engineer - Berlin - Hybrid"), returned as locationHint
 * - ALL CAPS fixed to Title Case with acronyms kept
 * e.g. "Backend Developer (m/w/d) | Berlin" -> {title "Backend Developer", locationHint "Berlin"}
 */
export function cleanTitle(raw: string): CleanTitle {
  const decoded = decodeEntities(raw).replace(/\s+/g, ' ').trim()
  const removed: string[] = []
  let t = decoded
  for (const re of [GENDER_RE, NEW_TAG_RE, URGENT_RE]) t = t.replace(re, (m) => (removed.push(m.trim()), ' '))
  t = t.replace(BANG_RE, '').replace(/\s+/g, ' ').trim()
  const hints: string[] = []
  for (let i = 0; i < 3; i++) {
    // Greedy prefix, so the last separator splits: "A - B - Remote" -> "A - B" + "Remote".
    const m = /^(.{3,}\S)\s*\(([^()]+)\)$/.exec(t) ?? /^(.{3,})(?:\s[-–—@]\s|\s*\|\s*|\s*,\s+)(.+)$/.exec(t)
    if (!m || !isLocationSuffix(m[2])) break
    hints.unshift(m[2].trim())
    t = m[1].trim()
  }
  t = t.replace(/^[\s\-–—|:,]+|[\s\-–—|:,]+$/g, '').replace(/\s+/g, ' ')
  if (!t) t = decoded
  return { title: fixAllCaps(t), locationHint: hints.length ? hints.join(', ') : null, removed }
}
