/**
 * Postings collected from several job boards, as the shared remote-boards-2025.jsonl.gz ships
 * them: one JSON object a line with flattened fields (id, platform, external_id, title, company,
 * description, url, salary_min/max/currency/type, contract_type, experience_level, location,
 * remote_type, timezone, tech_stack, tags, posted_at, fetched_at) and the board's own JSON in `raw`.
 *
 * The flattened fields are the collector's reading of `raw`, and where `raw` says more it wins:
 * - description: raw's HTML (the flattened one is plain text with the structure gone);
 * - salary: Remotive's stated text ("$30-$35/hour", flattened as 30-35 yearly), Jobicy's
 *   salaryMin/Max/Period, RemoteOK's salary_min/max (0 = not given);
 * - job type, level, logo, category, application link, expiry as each board states them;
 * - Hacker News: the comment's header line (hnHeader, below), not the collector's fields, whose title
 *   runs the header's places and links together and whose contract_type says full-time by default;
 *   a comment without a header (prose, or not a posting) keeps the collector's fields.
 * Not passed: the flattened experience_level and tech_stack, which are the collector's guesses
 * from the text ("lead" for a copywriter, "c#" for a customer care role): the pipeline reads
 * level and technologies from the title and text itself.
 *
 * Places: on the remote-only boards (all but Hacker News and Arbeitnow) the location is where
 * applicants may live, so it becomes the remote posting's scope: "USA" -> "Remote - USA";
 * a list ("Australia, New Zealand", Himalayas' locationRestrictions) -> "Remote - Australia;
 * Remote - New Zealand"; time-zone requirements ("CET (+/- 3 hours)") are not places and are
 * dropped; "Anywhere in the World" / "Global" -> "Remote - Worldwide".
 */
import type { ReadItem } from '../read.ts'
import type { RawPosting } from '../types.ts'
import { isObject, keyScore, type Adapter } from './adapter.ts'
import { boardFromUrl } from './board-name.ts'
import { amount, htmlText, isoFromDateText, isoFromEpoch, text } from './board-feed.ts'
import { jsonRecords } from './json-records.ts'

type Json = Record<string, unknown>

const BOARDS: Record<string, string> = {
  hn: 'Hacker News', arbeitnow: 'Arbeitnow', remoteok: 'RemoteOK', jobicy: 'Jobicy', wwr: 'We Work Remotely',
  remotive: 'Remotive', workingnomads: 'Working Nomads', himalayas: 'Himalayas',
}

const KEYS = ['platform', 'external_id', 'raw', 'remote_type', 'tech_stack', 'fetched_at', 'salary_type', 'contract_type', 'posted_at']

const list = (v: unknown): string[] => (Array.isArray(v) ? v.map(text).filter((x): x is string => !!x) : [])

// A time-zone requirement, not a place: "Time zone: CET (+/- 3 hours)", "USA timezones", "UTC-5 to UTC+1"
const TIME_ZONE = /\btime ?zones?\b|\b(?:UTC|GMT|CES?T|EES?T|[ECMP][SD]T)\b|[+-]\s*\/?\s*-?\s*\d+\s*h(?:ou)?rs?\b/i
const WORLDWIDE = /^(?:anywhere(?: in the world)?|global|worldwide|world ?wide|international)$/i

/**
 * A remote-only board's applicant locations as text the pipeline reads as remote scope.
 * e.g. "USA" -> "Remote - USA"; ["Germany", "Austria"] -> "Remote - Germany; Remote - Austria";
 * "Anywhere in the World" -> "Remote - Worldwide"; "Remote (US)" -> "Remote (US)"; "" -> "Remote"
 */
export function remoteScope(where: string | string[] | undefined, { split = true } = {}): string {
  const items = (Array.isArray(where) ? where : split ? (where ?? '').split(',') : [where ?? ''])
    .map((s) => s.trim())
    .filter((s) => s && !TIME_ZONE.test(s))
  if (!items.length) return 'Remote'
  return items.map((s) => (WORLDWIDE.test(s) ? 'Remote - Worldwide' : /\bremote\b/i.test(s) ? s : `Remote - ${s}`)).join('; ')
}

/** The fields every board shares, from the flattened record. */
function flattened(r: Json): RawPosting {
  const platform = text(r.platform)?.toLowerCase() ?? ''
  const min = amount(r.salary_min)
  const max = amount(r.salary_max)
  return {
    source_id: text(r.external_id),
    job_board: BOARDS[platform] ?? boardFromUrl(text(r.url)) ?? text(r.platform),
    job_board_link: text(r.url),
    job_title: text(r.title),
    description: text(r.description),
    location_raw: text(r.location),
    location_type: text(r.remote_type),
    job_type: text(r.contract_type),
    salary_range: min || max ? { min: min ?? null, max: max ?? null, currency: text(r.salary_currency) ?? null, period: text(r.salary_type) ?? null } : undefined,
    date_posted: text(r.posted_at),
    company: { name: text(r.company) },
  }
}

// Words that make a header field a role: "Senior Backend Engineer", "Various Roles", "Full stack, Data science".
const ROLE =
  /\b(?:engineers?|engineering|developers?|dev|programmers?|programming|scientists?|science|designers?|managers?|analysts?|architects?|leads?|head of|directors?|vp|cto|cfo|coo|sre|devops|researchers?|interns?|internships?|specialists?|consultants?|admins?|administrators?|recruiters?|marketers?|marketing|writers?|technicians?|founding|positions?|roles?|openings?|jobs?|product|sales|support|operations|ops|data|full[- ]?stack|front[- ]?end|back[- ]?end|ios|android|mobile|ml|qa|security|accountants?|associates?|coordinators?|executives?|representatives?|officers?|hackers?|mathematicians?|physicists?|teachers?|instructors?|freelancers?|software|staff|senior|junior|sr\.?|jr\.?|principal|leaders?|marketeers?|various|multiple|several|hiring)\b/i
const JOB_TYPE = /\b(?:full[- ]?time|part[- ]?time|contract(?:or|s)?|intern(?:ship)?s?|freelance|permanent|temporary|fte)\b/i
const JOB_TYPES = new RegExp(JOB_TYPE.source, 'gi')
const ARRANGEMENT = /\b(?:remote|on[- ]?site|hybrid|wfh|in[- ]office|in[- ]person|relocation)\b/i
const URL_LIKE = /https?:\/\/|\bwww\.|^[\w.-]+\.(?:com|io|ai|co|org|net|dev|app|jobs|xyz|tech|so)(?:\/\S*)?$/i
const SALARY_LIKE = /[$€£]\s?\d|\b\d{2,3}\s?k\b/i

type HnHeader = { company: string; title?: string; places: string[]; jobTypes: string[]; salary?: string }

/**
 * A "Who is hiring?" comment opens with a header line of fields between pipes (or " / ", or " - "):
 *   "CodeWeavers | St Paul, MN, USA | Full Time | REMOTE | Wine, 3D Graphics, and General Open Source Developers"
 * The first field is the company; of the others, a link is skipped, a salary kept as text, a field
 * with role words ("Engineer", "Developers", "Various Roles") is the title (the first such), one with
 * only job-type words ("Full Time", "Fulltime, Onsite") the job type, and the rest (places and
 * "REMOTE (US based)") the location text; links, e-mail addresses, visa notes and sentences are skipped.
 * Null when the line has fewer than two fields: a comment that is not a posting, or one in prose.
 * e.g. -> {company: "CodeWeavers", title: "Wine, 3D Graphics, and General Open Source Developers",
 *          places: ["St Paul, MN, USA", "REMOTE"], jobTypes: ["Full Time"]}
 */
export function hnHeader(html: string): HnHeader | null {
  const line = html.split(/<p>|\n/i).map(htmlText).find(Boolean) ?? ''
  let fields = line.split('|')
  // without pipes, " / " between three fields or more, or " - " between four or more ("AdGear - ONSITE - Backend Engineer - Montreal - FullTime")
  if (fields.length < 2) fields = line.split(' / ').length >= 3 ? line.split(' / ') : line.split(' - ').length >= 4 ? line.split(' - ') : fields
  fields = fields.map((f) => f.trim()).filter(Boolean)
  if (fields.length < 2 || fields[0].length > 80) return null
  // "Gaia Platform ( https://www.gaiaplatform.io )", "Channable - https://www.channable.com"
  const company = fields[0].replace(/\(\s*(?:https?:\/\/|www\.)[^)]*\)|\s+-\s+(?:https?:\/\/|www\.)\S*$/g, '').trim()
  const out: HnHeader = { company, places: [], jobTypes: [] }
  for (const f of fields.slice(1)) {
    if (URL_LIKE.test(f) || f.includes('@') || /\bvisas?\b/i.test(f)) continue
    if (SALARY_LIKE.test(f)) out.salary ??= f
    else if (ROLE.test(f.replace(JOB_TYPE, ''))) out.title ??= f
    // a sentence ("At Ad Hoc we build government digital services …") is not a field
    else if (f.split(/\s+/).length > 8) continue
    else {
      if (JOB_TYPE.test(f)) out.jobTypes.push(f)
      // "Full-time, Onsite": a job type that also says where; "Berlin" or "REMOTE (US)": a place
      if (ARRANGEMENT.test(f) || !JOB_TYPE.test(f)) out.places.push(f.replace(JOB_TYPES, '').replace(/^[\s,;/&-]+|[\s,;/&-]+$/g, ''))
    }
  }
  return out
}

function hn(r: Json, raw: Json, base: RawPosting): RawPosting {
  const html = text(raw.text)
  const header = html ? hnHeader(html) : null
  if (!html || !header) return { ...base, job_type: undefined, description: html ?? base.description }
  return {
    ...base,
    // a header naming no role ("Point (YC W19) | San Francisco, CA | Onsite | https://www.point.app") hires for
    // whatever the comment goes on to list; the collector's title is then its other fields run together
    job_title: header.title ?? 'Various roles',
    company: { name: header.company },
    description: html,
    location_raw: header.places.length ? header.places.join('; ') : base.location_raw,
    // the collector marks nearly every comment full-time, even when it says nothing: only the header counts
    job_type: header.jobTypes.length ? header.jobTypes.join(', ') : undefined,
    salary: base.salary_range ? undefined : header.salary,
    date_posted: base.date_posted ?? isoFromEpoch(raw.created_at_i),
  }
}

/** Each board's raw JSON over the flattened fields. */
const FROM_RAW: Record<string, (r: Json, raw: Json, base: RawPosting) => RawPosting> = {
  hn,
  arbeitnow: (r, raw, base) => ({
    ...base,
    description: text(raw.description) ?? base.description,
    location_type: raw.remote === true ? 'Remote' : base.location_type,
    job_type: list(raw.job_types).length ? list(raw.job_types) : base.job_type,
    date_posted: base.date_posted ?? isoFromEpoch(raw.created_at),
  }),
  remoteok: (r, raw, base) => {
    const min = amount(raw.salary_min)
    const max = amount(raw.salary_max)
    return {
      ...base,
      description: text(raw.description) ?? base.description,
      location_raw: remoteScope(text(raw.location) ?? text(base.location_raw), { split: false }),
      location_type: 'Remote',
      // RemoteOK states yearly USD; 0 means not given
      salary_range: min || max ? { min: min ?? null, max: max ?? null, currency: 'USD', period: 'yearly' } : base.salary_range,
      application_link: text(raw.apply_url),
      date_posted: base.date_posted ?? isoFromEpoch(raw.epoch),
      company: { name: base.company?.name, logo: text(raw.company_logo) ?? text(raw.logo) },
    }
  },
  jobicy: (r, raw, base) => {
    const min = amount(raw.salaryMin)
    const max = amount(raw.salaryMax)
    return {
      ...base,
      // escaped twice ("Engineer &amp;#8211; DoD"), as the pipeline's entity decoding expects of some feeds
      job_title: text(raw.jobTitle) ?? base.job_title,
      description: text(raw.jobDescription) ?? base.description,
      location_raw: remoteScope(text(raw.jobGeo) ?? text(base.location_raw)),
      location_type: 'Remote',
      job_type: list(raw.jobType).length ? list(raw.jobType) : base.job_type,
      experience_level: text(raw.jobLevel),
      salary_range: min || max ? { min: min ?? null, max: max ?? null, currency: text(raw.salaryCurrency) ?? null, period: text(raw.salaryPeriod) ?? null } : base.salary_range,
      job_categories: list(raw.jobIndustry),
      date_posted: base.date_posted ?? text(raw.pubDate),
      company: { name: base.company?.name, logo: text(raw.companyLogo) },
    }
  },
  wwr: (r, raw, base) => {
    const media = raw['media:content']
    const region = [text(raw.state), text(raw.region), text(raw.country)].filter((x, i, a) => x && a.indexOf(x) === i) as string[]
    return {
      ...base,
      description: text(raw.description) ?? base.description,
      location_raw: region.length ? remoteScope(region.join(', '), { split: false }) : remoteScope(text(base.location_raw), { split: false }),
      location_type: 'Remote',
      job_type: text(raw.type) ?? base.job_type,
      job_categories: text(raw.category),
      application_link: text(raw.link),
      date_posted: base.date_posted ?? isoFromDateText(raw.pubDate),
      valid_through: isoFromDateText(raw.expires_at),
      company: { name: base.company?.name, logo: isObject(media) ? text(media['@_url']) : undefined },
    }
  },
  remotive: (r, raw, base) => ({
    ...base,
    description: text(raw.description) ?? base.description,
    location_raw: remoteScope(text(raw.candidate_required_location) ?? text(base.location_raw)),
    location_type: 'Remote',
    job_type: text(raw.job_type) ?? base.job_type,
    // the stated text: the collector dropped its period and its "k" ("$165k - $300k" became 165-300 yearly)
    salary_range: 'salary' in raw ? undefined : base.salary_range,
    salary: text(raw.salary),
    job_categories: text(raw.category),
    date_posted: base.date_posted ?? text(raw.publication_date),
    company: { name: base.company?.name, logo: text(raw.company_logo_url) ?? text(raw.company_logo) },
  }),
  workingnomads: (r, raw, base) => ({
    ...base,
    description: text(raw.description) ?? base.description,
    location_raw: remoteScope(text(raw.location) ?? text(base.location_raw)),
    location_type: 'Remote',
    job_categories: text(raw.category_name),
    date_posted: base.date_posted ?? text(raw.pub_date),
  }),
  himalayas: (r, raw, base) => {
    const min = amount(raw.minSalary)
    const max = amount(raw.maxSalary)
    const restrictions = list(raw.locationRestrictions)
    return {
      ...base,
      source_id: base.source_id ?? text(raw.guid),
      job_board_link: base.job_board_link ?? text(raw.guid),
      application_link: text(raw.applicationLink),
      description: text(raw.description) ?? base.description,
      location_raw: restrictions.length ? remoteScope(restrictions) : remoteScope(text(base.location_raw), { split: false }),
      location_type: 'Remote',
      job_type: text(raw.employmentType) ?? base.job_type,
      experience_level: list(raw.seniority)[0],
      salary_range: min || max ? { min: min ?? null, max: max ?? null, currency: text(raw.currency) ?? null, period: text(r.salary_type) ?? null } : base.salary_range,
      date_posted: base.date_posted ?? isoFromEpoch(raw.pubDate),
      valid_through: isoFromEpoch(raw.expiryDate),
      company: { name: base.company?.name, logo: text(raw.companyLogo) },
    }
  },
}

/** Boards whose every posting is remote: their location is the applicants' (see the module comment). */
const REMOTE_ONLY = new Set(['remoteok', 'jobicy', 'wwr', 'remotive', 'workingnomads', 'himalayas'])

export function remoteBoardsRecord(r: Json): RawPosting {
  const platform = text(r.platform)?.toLowerCase() ?? ''
  const base = flattened(r)
  const raw = isObject(r.raw) ? r.raw : {}
  const fromRaw = FROM_RAW[platform]
  if (fromRaw && Object.keys(raw).length) return fromRaw(r, raw, base)
  // a record without its board's JSON: the flattened fields, scoped as the board's would be
  if (REMOTE_ONLY.has(platform)) return { ...base, location_raw: remoteScope(text(base.location_raw), { split: false }), location_type: 'Remote' }
  return base
}

async function* read(records: AsyncIterable<{ n: number; value?: unknown; error?: string }>): AsyncGenerator<ReadItem> {
  for await (const r of records) {
    if (r.error !== undefined) yield { line: r.n, error: r.error }
    else if (!isObject(r.value)) yield { line: r.n, error: 'not a JSON object' }
    else yield { line: r.n, raw: remoteBoardsRecord(r.value) }
  }
}

export const remoteBoards: Adapter = {
  name: 'remote-boards',
  summary: 'postings from several boards with each board\'s JSON in `raw` (platform, title, company, …, raw), as remote-boards-2025.jsonl.gz ships them',
  detect: (s) => {
    if (s.layout !== 'lines' && s.layout !== 'array') return 0
    const scores = s.records.slice(0, 3).map((r) => (isObject(r) && 'platform' in r && 'raw' in r ? 0.5 + 0.5 * keyScore(r, KEYS) : 0))
    return Math.max(0, ...scores)
  },
  read: (source) => read(jsonRecords(source.open(), source.sample.layout)),
}
