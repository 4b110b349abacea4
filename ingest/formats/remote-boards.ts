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
 * The region a time-zone requirement names: "EMEA timezones" -> "EMEA", "USA time zones" -> "USA";
 * offsets and zone names stay as they are ("CET (+/- 3 hours)", "UTC-5 to UTC+1") and are dropped.
 */
function zoneRegion(s: string): string {
  const m = /^(?:in\s+|within\s+)?([A-Za-z][A-Za-z .&/-]{1,30}?)\s+time ?zones?$/i.exec(s)
  return m && !/\b(?:UTC|GMT|CES?T|EES?T|[ECMP][SD]T)\b/.test(m[1]) ? m[1].trim() : s
}

/**
 * A remote-only board's applicant locations as text the pipeline reads as remote scope.
 * e.g. "USA" -> "Remote - USA"; ["Germany", "Austria"] -> "Remote - Germany; Remote - Austria";
 * "Anywhere in the World" -> "Remote - Worldwide"; "Remote (US)" -> "Remote (US)"; "" -> "Remote";
 * "EMEA timezones" -> "Remote - EMEA"
 */
export function remoteScope(where: string | string[] | undefined, { split = true } = {}): string {
  const items = (Array.isArray(where) ? where : split ? (where ?? '').split(',') : [where ?? ''])
    .map((s) => zoneRegion(s.trim()))
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

// HN's names for places the gazetteer reads otherwise ("Bay Area" alone is Somalia's Bay region).
const HN_PLACES: [RegExp, string][] = [[/^(?:the\s+)?(?:sf\s+|san francisco\s+)?bay\s+area(?:,\s*(?:ca|california))?$/i, 'San Francisco, CA']]

/**
 * One header field of places as location alternatives: "Hoboken, NJ and Dublin, Ireland" ->
 * ["Hoboken, NJ", "Dublin, Ireland"]; "ONSITE (partial WFH)" -> ["Hybrid"]; "Bay Area" ->
 * ["San Francisco, CA"]. Split on "and"/"&" only between places that each name their region or
 * country ("San Francisco & San Diego, CA" is left to the place parser).
 */
function hnPlaces(field: string): string[] {
  if (/\bon[- ]?site\b/i.test(field) && /\bpartial(?:ly)?\s+(?:wfh|remote)\b|\bpart(?:ly)?[- ]remote\b/i.test(field)) return ['Hybrid']
  const parts = field.split(/\s+(?:and|&)\s+/i)
  const each = parts.length > 1 && parts.every((p) => p.includes(',')) ? parts : [field]
  return each.map((p) => HN_PLACES.find(([re]) => re.test(p.trim()))?.[1] ?? p)
}

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
  for (const raw of fields.slice(1)) {
    // "Full-time, Onsite, Visa": the visa note goes, the rest still says something
    const f = raw.replace(/\b(?:(?:can )?(?:sponsor(?:s|ship)?|support)\s+)?visas?(?:\s+(?:sponsorship|support|ok|available))?\b/gi, '').replace(/^[\s,;/&-]+|[\s,;/&-]+$/g, '')
    if (!f || URL_LIKE.test(f) || f.includes('@')) continue
    if (SALARY_LIKE.test(f)) out.salary ??= f
    else if (ROLE.test(f.replace(JOB_TYPE, ''))) out.title ??= f
    // a sentence ("At Ad Hoc we build government digital services …") is not a field
    else if (f.split(/\s+/).length > 8) continue
    else {
      // the job-type words alone: "flow.io/careers / Full-time Onsite" says Full-time
      out.jobTypes.push(...(f.match(JOB_TYPES) ?? []))
      // what is left is a place or an arrangement: "Bay Area Full-time" -> "Bay Area", "REMOTE (US)"
      const rest = f.replace(JOB_TYPES, '').replace(/\s{2,}/g, ' ').replace(/^[\s,;/&-]+|[\s,;/&-]+$/g, '')
      if (rest) out.places.push(...hnPlaces(rest))
    }
  }
  return out
}

/** A record that is no job posting, rejected with this reason rather than read as one. */
export class NotAPosting extends Error {}

// Words that open a comment's sentence, not a company's name: "Hey, a friendly note", "But you don't …".
const NOT_A_NAME = /^(?:hey|hi|hello|i|i'm|i've|we|we're|my|our|is|are|but|just|love|nobody|does|do|anyone|thanks|this|the|please|if|why|what|how|any|so|also|note|senior|junior|remote|onsite|full[- ]time|machine)\b/i
const NAME = String.raw`[A-Z0-9][\w.&'’-]*(?:\s+(?:[A-Z0-9][\w.&'’-]*|of|and|for|&)){0,3}`
// "Shopify is hiring …", "Density (density.io) is actively looking …", "Chainlink - https://chain.link",
// "LearnerShape, AI-driven workforce skills startup", "Daily Harvest looking for …"
const LEADING_NAME_RE = new RegExp(
  String.raw`^(${NAME}?)\s*(?:\([^)]{0,120}\)\s*)?(?:,\s|\s-\s|:\s|\s(?=https?:\/\/|We\b|Our\b)|(?:[Ii]s|[Aa]re)\s+(?:hiring|a|an|the|actively|currently|now|\w+ing)\b|(?:was|were)\s+\w+ed\b|(?:looking|hiring|seeking|searching|raised|based in)\b)`,
)
// "We're hiring a ton at Coinbase (https://coinbase.com)", "At Tesorio we are looking", "a dev shop called Bauhaus Labs (…)"
const AT_NAME_RE = new RegExp(String.raw`\b(?:[Aa]t|join|called)\s+(${NAME})(?=\s*[(,.]|\s+(?:is|are|we|https?:\/\/)\b)`)
// a company's own careers site; an ATS's host names the ATS, not the company
const CAREERS_HOST_RE = /https?:\/\/(?:jobs|careers)\.(?!lever\.|greenhouse\.|ashbyhq\.|workable\.|smartrecruiters\.|bamboohr\.|jobvite\.|recruitee\.)([a-z0-9-]{2,40})\.(?:com|io|co|org|net)\b/i

/**
 * The company of a comment without a header, from its first sentence's conventions: a leading
 * name followed by "is hiring", "(link)", " - " or ","; "at <Name> (" or "join <Name>"; else a
 * company careers site it links to (jobs.apple.com -> Apple), or the site it opens with. Null for a comment that names none
 * (a reply, a note to readers): such a comment is no posting.
 * e.g. "Shopify is hiring for all R&D roles at https://…" -> "Shopify";
 *      "I've previously applied at Alto and have yet to receive a response..." -> null
 */
export function hnProseCompany(textOfComment: string): string | null {
  // "REMOTE WorkReduce is an American company …": an arrangement before the name is no part of it
  const first = textOfComment.replace(/\s+/g, ' ').trim().slice(0, 300).replace(/^(?:remote|onsite|on-site|hybrid)\b[\s:|-]*/i, '')
  const lead = LEADING_NAME_RE.exec(first)?.[1]
  if (lead && !NOT_A_NAME.test(lead) && !ROLE.test(lead)) return lead.trim()
  const at = AT_NAME_RE.exec(first)?.[1]
  if (at && !ROLE.test(at)) return at.trim()
  // a comment that opens with its company's site: "https://grafana.com/ …"
  const host = CAREERS_HOST_RE.exec(first)?.[1] ?? /^https?:\/\/(?:www\.)?([a-z0-9-]{2,40})\.(?:com|io|co|ai|org|net|dev|app)\b/i.exec(first)?.[1]
  return host ? host.charAt(0).toUpperCase() + host.slice(1) : null
}

// "Role: Principal Software Engineer Descripton: …": a header without a role names it in the text
const ROLE_LINE_RE = /\b(?:role|position|job title)\s*:\s*([^<\n]{3,80}?)(?=\s+(?:descr\w*|location|about|responsibilities|requirements|salary|team)\s*:|\s*<|\n|$)/i

function hn(r: Json, raw: Json, base: RawPosting): RawPosting {
  const html = text(raw.text)
  const header = html ? hnHeader(html) : null
  if (!html || !header) {
    // the collector names the company by the comment's first 100 characters: a sentence, not a name
    const company = html ? hnProseCompany(htmlText(html)) : base.company?.name
    if (!company) throw new NotAPosting('Hacker News comment without a "Company | Role | Place" header or a company named in its first sentence: a reply or a note, not a posting')
    return { ...base, company: { name: company }, location_raw: undefined, job_type: undefined, description: html ?? base.description }
  }
  const roleLine = header.title ? undefined : ROLE_LINE_RE.exec(html.slice(0, 1500))?.[1]
  return {
    ...base,
    // a header naming no role ("Point (YC W19) | San Francisco, CA | Onsite | https://www.point.app") hires for
    // whatever the comment goes on to list; the collector's title is then its other fields run together
    job_title: header.title ?? (roleLine ? htmlText(roleLine) : 'Various roles'),
    company: { name: header.company },
    description: html,
    // without places in the header the collector's location is its title: nothing. The collector's
    // arrangement stands ("Onsite (remote while quarantine is in effect)" is onsite), but for
    // "ONSITE (partial WFH)", which it reads as onsite
    location_raw: header.places.length ? header.places.join('; ') : undefined,
    location_type: header.places.includes('Hybrid') ? 'Hybrid' : base.location_type,
    // the collector marks nearly every comment full-time, even when it says nothing: only the header counts
    job_type: header.jobTypes.length ? header.jobTypes.join(', ') : undefined,
    salary: base.salary_range ? undefined : header.salary,
    date_posted: base.date_posted ?? isoFromEpoch(raw.created_at_i),
  }
}

// Arbeitnow's `remote` is true only for fully remote posts; its offices' postings say hybrid or
// on-site in the text, in German or English. LinkedIn's "#LI-Hybrid" tags are the poster's
// default, often on a driver's or mechanic's post: not read.
const HYBRID_TEXT_RE =
  /\bhybrid\b|\bhome[- ]?office\b|\bmobile[sn]? arbeiten\b|\bremote[- ]möglich\b|\b(?:possibilit(?:y|ies)|option|opportunit(?:y|ies))\s+(?:to|of)\s+work(?:ing)?\s+(?:from home|remotely)\b|\bwork from home \(optional\)/i
const HYBRID_WORD_RE = /\bhybrid\b|\b(?:possibilit(?:y|ies)|option|opportunit(?:y|ies))\s+(?:to|of)\s+work(?:ing)?\s+(?:from home|remotely)\b|\bwork from home \(optional\)/i
const ONSITE_TEXT_RE = /\boffice[- ]first\b|\bvor ort\b(?! (?:und|oder) remote)|\bin[- ]office (?:role|position|job)\b|\bon[- ]?site (?:role|position|job)\b/i

/**
 * An Arbeitnow posting's arrangement as its text states it: "🏠 Hybrid / Remote möglich", "Home
 * Office und Workation-Möglichkeiten", "mobiles Arbeiten" -> Hybrid; "office-first culture" ->
 * In-Person; else null (the board's flag stands). A posting the board marks remote is hybrid only
 * where the text says so ("hybrid", working from home as an option): its "Homeoffice /
 * ortsunabhängig" is the whole job.
 */
export function arbeitnowArrangement(html: string, remote = false): 'Hybrid' | 'In-Person' | null {
  const t = html.replace(/#LI-\w+/gi, ' ')
  if (remote) return HYBRID_WORD_RE.test(t) ? 'Hybrid' : null
  if (HYBRID_TEXT_RE.test(t)) return 'Hybrid'
  if (ONSITE_TEXT_RE.test(t)) return 'In-Person'
  return null
}

// "LOCATION: Remote US" in a description whose board left the location empty; a sentence
// ("Location: We prioritise candidates who are based in Dubai …") is not one.
const LOCATION_LINE_RE = /\blocation\s*:\s*([^\n<.;]{2,40}?)\s*(?:<|\n|$|\.\s)/i

function locationLine(html: string | undefined): string | undefined {
  // "<strong>LOCATION: </strong><em>Remote US</em></p>": the markup around the label goes, line ends stay
  const m = html ? LOCATION_LINE_RE.exec(html.slice(0, 20_000).replace(/<\/?(?:strong|b|em|i|span|u)\b[^>]*>/gi, '')) : null
  return m && m[1].trim().split(/\s+/).length <= 4 ? m[1].trim() : undefined
}

/** Each board's raw JSON over the flattened fields. */
const FROM_RAW: Record<string, (r: Json, raw: Json, base: RawPosting) => RawPosting> = {
  hn,
  arbeitnow: (r, raw, base) => ({
    ...base,
    description: text(raw.description) ?? base.description,
    location_type: arbeitnowArrangement(text(raw.description) ?? '', raw.remote === true) ?? (raw.remote === true ? 'Remote' : base.location_type),
    job_type: list(raw.job_types).length ? list(raw.job_types) : base.job_type,
    date_posted: base.date_posted ?? isoFromEpoch(raw.created_at),
  }),
  remoteok: (r, raw, base) => {
    const min = amount(raw.salary_min)
    const max = amount(raw.salary_max)
    return {
      ...base,
      description: text(raw.description) ?? base.description,
      location_raw: remoteScope(text(raw.location) ?? text(base.location_raw) ?? locationLine(text(raw.description)), { split: false }),
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
    else {
      let raw: RawPosting
      try {
        raw = remoteBoardsRecord(r.value)
      } catch (e) {
        if (!(e instanceof NotAPosting)) throw e
        yield { line: r.n, error: e.message }
        continue
      }
      yield { line: r.n, raw }
    }
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
