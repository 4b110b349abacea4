/**
 * RawPosting -> Posting | Rejection. Pure and deterministic given the input and `now`: no DB, no
 * network; the gazetteer and vocabularies load lazily on first call (~0.6 s) and stay in memory.
 * Each step lives in ingest/transform/<what-it-does>.ts with its heuristics documented there.
 */
import type { Posting, RawPosting, Salary } from './types.ts'
import {
  FieldError, dateOnly, isAbsent, isRecord, optionalBoolean, optionalString, optionalTimestamp, requiredString, stringList,
} from './transform/coerce.ts'
import { sanitizeDescription } from './transform/sanitize-description.ts'
import { decodeEntities } from './transform/decode-entities.ts'
import { boundTitle, cleanTitle } from './transform/clean-title.ts'
import { postingLocations } from './transform/locations.ts'
import { inferLocationType, mapLocationType } from './transform/location-type.ts'
import { jobTypeFromTitle, mapJobType } from './transform/job-type.ts'
import { salaryOf as salaryFromSources } from './transform/salary.ts'
import {
  educationFromText, levelFromTitle, levelFromYoe, mapExperienceLevel, saysNoExperience, yoeFromGiven, yoeFromText,
} from './transform/experience.ts'
import { classify } from './transform/categories.ts'
import { extractSkills } from './transform/skills.ts'
import { equityFromText, extractBenefits, visaFromText } from './transform/benefits.ts'
import { normalizeCompany } from './transform/company.ts'
import { detectLanguage, mapLanguage } from './transform/language.ts'
import { extractEmail, extractPhone } from './transform/contacts.ts'
import { requirementsSummary } from './transform/requirements.ts'
import { contentHash, postingHash, primaryLocationKey } from './transform/hash.ts'
import { computeScores } from './transform/scores.ts'
import { boardFromUrl } from './formats/board-name.ts'

/** `reason` is the first problem; `problems` all of them, when the posting has more than one */
export type Rejection = { reason: string; problems?: string[] }

export function isRejection(r: Posting | Rejection): r is Rejection {
  return 'reason' in r
}

/** The first string of a field that may be a string or a list ("FULL_TIME" or ["FULL_TIME", "PART_TIME"]). */
function stringsOf(v: unknown, field: string): string[] {
  if (isAbsent(v)) return []
  if (typeof v === 'string') return [v]
  return stringList(v, field)
}

/**
 * The industries a posting names, as written, for categorization: its own `industry` (NHS Jobs'
 * "Healthcare"), and its company's industries and subindustries, including those outside the
 * spec's list ("Hospitals and Health Care"), which the company record drops.
 */
function industriesOf(raw: RawPosting): string[] {
  const company = isRecord(raw.company) ? raw.company : {}
  return [
    ...stringsOf(raw.industry, 'industry'),
    ...stringList(company.industries, 'company.industries', { semicolonOnly: true }),
    ...stringList(company.subindustries, 'company.subindustries', { semicolonOnly: true }),
  ]
}

/** The salary from the board's fields, its salary text and the description (transform/salary.ts). */
function salaryOf(raw: RawPosting, descriptionText: string): Salary | null {
  const text = optionalString(raw.salary, 'salary')
  // "competitive salary plus benefit&#39;s" has no amount, not one of 39
  return salaryFromSources(raw.salary_range, text ? decodeEntities(text) : null, descriptionText)
}

/**
 * The board a posting came from: its `job_board`, else the run's default (the source's name,
 * IngestOptions.board), else the board its link names (formats/board-name.ts:
 * jobs.nhs.uk -> "NHS Jobs", boards.greenhouse.io -> "Greenhouse", acme.example -> "Acme").
 */
function boardOf(raw: RawPosting, defaultBoard: string | null): string {
  const given = optionalString(raw.job_board, 'job_board')
  if (given) return given
  if (defaultBoard) return defaultBoard
  for (const link of [raw.job_board_link, raw.application_link]) {
    const board = typeof link === 'string' ? boardFromUrl(link) : null
    if (board) return board
  }
  throw new FieldError('job_board', 'required non-empty string (or a job_board_link or application_link to name the board by)')
}

/** A description is optional (scraped board rows often have none); when given it must be text. */
function descriptionOf(raw: RawPosting): string {
  if (isAbsent(raw.description)) return ''
  if (typeof raw.description !== 'string') throw new FieldError('description', 'expected a string')
  return raw.description
}

function normalizeUnchecked(raw: RawPosting, now: Date, defaultBoard: string | null): Posting {
  const titleRaw = requiredString(raw.job_title, 'job_title')
  const company = normalizeCompany(raw.company)
  const jobBoard = boardOf(raw, defaultBoard)
  const descriptionRaw = descriptionOf(raw)
  const datePosted = dateOnly(raw.date_posted, 'date_posted', now.toISOString().slice(0, 10))
  const validThrough = optionalTimestamp(raw.valid_through, 'valid_through')

  const { html, text, blocks } = sanitizeDescription(descriptionRaw)
  const { title, locationHint } = cleanTitle(titleRaw)

  const givenLocationText = optionalString(raw.location_raw, 'location_raw')
  // kept as the readable text: "St Leonard&#39;s on Sea" is stored as "St Leonard's on Sea"
  const locationRaw = givenLocationText ? decodeEntities(givenLocationText).replace(/\s+/g, ' ').trim() || null : null
  const where = postingLocations(raw.locations, locationRaw, locationHint)
  const givenLocationType = optionalString(raw.location_type, 'location_type')
  const locationType = (givenLocationType ? mapLocationType(givenLocationType) : null) ?? inferLocationType(where)

  const jobType = mapJobType(stringsOf(raw.job_type, 'job_type')) ?? jobTypeFromTitle(title)
  const salary = salaryOf(raw, text)

  let yoe = yoeFromGiven(raw.yoe_range) ?? yoeFromText(text)
  const givenLevel = optionalString(raw.experience_level, 'experience_level')
  const level = (givenLevel ? mapExperienceLevel(givenLevel) : null) ?? levelFromTitle(title) ?? levelFromYoe(yoe)
  if (!yoe && level === 'Entry' && saysNoExperience(text)) yoe = { min: 0, max: null }

  const givenSkills = stringList(raw.skills, 'skills')
  const givenTech = stringList(raw.technologies, 'technologies')
  const { skills, technologies } = extractSkills(title, text, { skills: givenSkills, technologies: givenTech }, company.name)
  const categories = classify(title, text, stringList(raw.job_categories, 'job_categories', { semicolonOnly: true }), industriesOf(raw))

  const visa = visaFromText(text, optionalBoolean(raw.visa_sponsored, 'visa_sponsored'))
  const benefits = extractBenefits(text, stringList(raw.benefits, 'benefits'), visa)
  const equity = equityFromText(text, optionalBoolean(raw.offers_equity, 'offers_equity'))
  const agency = optionalBoolean(raw.recruiter_agency, 'recruiter_agency') ?? company.is_recruiting_agency

  const givenLanguage = optionalString(raw.language, 'language')
  const sourceId = optionalString(raw.source_id, 'source_id')

  const partial: Omit<Posting, 'scores' | 'md5_hash' | 'content_hash'> = {
    source_id: sourceId,
    job_board: jobBoard,
    job_board_link: optionalString(raw.job_board_link, 'job_board_link'),
    application_link: optionalString(raw.application_link, 'application_link'),
    job_title: boundTitle(title),
    job_title_raw: titleRaw,
    description: html,
    description_raw: descriptionRaw,
    description_text: text,
    location_raw: locationRaw,
    locations: where.locations,
    location_type: locationType,
    remote_countries: where.remoteCountries,
    job_type: jobType,
    salary,
    yoe_min: yoe?.min ?? null,
    yoe_max: yoe?.max ?? null,
    experience_level: level,
    education_level: optionalString(raw.education_level, 'education_level') ?? educationFromText(text),
    language: givenLanguage ? mapLanguage(givenLanguage) : detectLanguage(text),
    team: optionalString(raw.team, 'team'),
    requirements_summary: optionalString(raw.requirements_summary, 'requirements_summary') ?? requirementsSummary(blocks),
    job_categories: categories,
    skills,
    technologies,
    benefits,
    visa_sponsored: visa,
    recruiter_agency: agency,
    offers_equity: equity,
    date_posted: datePosted,
    valid_through: validThrough,
    contact_email: optionalString(raw.contact_email, 'contact_email') ?? extractEmail(text),
    contact_phone: optionalString(raw.contact_phone, 'contact_phone') ?? extractPhone(text),
    company,
  }
  const md5 = postingHash({
    companyName: company.name,
    title,
    location: primaryLocationKey(where.locations, where.remoteCountries, locationType === 'Remote'),
    text,
  })
  const posting = { ...partial, md5_hash: md5, scores: computeScores(partial) }
  // A date_posted the feed leaves out is the day of the ingest, which is no change at the source:
  // hashed as absent, so tomorrow's re-run of the same file finds the posting unchanged.
  return { ...posting, content_hash: contentHash(isAbsent(raw.date_posted) ? { ...posting, date_posted: null } : posting) }
}

/** What stands in for a required field set aside while a rejected posting's other problems are looked for. */
const STAND_INS: Record<string, unknown> = { job_title: 'x', company: { name: 'x' }, 'company.name': 'x', job_board: 'x' }

/** Removes the field a FieldError names ("salary_range", "company.size_range"), or puts a stand-in in its place. */
function setAside(raw: Record<string, unknown>, field: string) {
  const [top, sub] = field.split(/[.[]/, 2)
  if (sub !== undefined && isRecord(raw[top])) {
    const inner = { ...(raw[top] as Record<string, unknown>) }
    if (field in STAND_INS) inner[sub] = STAND_INS[field]
    else delete inner[sub.replace(/\].*$/, '')]
    raw[top] = inner
  } else if (top in STAND_INS) raw[top] = STAND_INS[top]
  else delete raw[top]
}

/**
 * Every problem of a rejected posting, not only the first: the posting is normalized again with
 * each field found wrong set aside (a required one replaced by a stand-in) until nothing more is.
 * e.g. {job_title: 7, company: {}, date_posted: "soon"} ->
 *   ["job_title: required non-empty string", "company.name: required non-empty string", "date_posted: ..."]
 */
function problemsOf(raw: RawPosting, first: FieldError, now: Date, board: string | null): string[] {
  const problems = [first.message]
  const probe: Record<string, unknown> = { ...raw }
  let field = first.field
  // a posting has a few dozen fields: the bound only guards against a field that cannot be set aside
  for (let i = 0; i < 50; i++) {
    setAside(probe, field)
    try {
      normalizeUnchecked(probe as RawPosting, now, board)
      break
    } catch (e) {
      if (!(e instanceof FieldError) || problems.includes(e.message)) break
      problems.push(e.message)
      field = e.field
    }
  }
  return problems
}

/**
 * Validates and normalises one raw posting. Never throws: invalid input returns a Rejection whose
 * reason names the field ("job_title: required non-empty string"), and whose problems list every
 * field that is wrong; an unexpected internal error returns "internal error: ..." so one bad line
 * cannot stop a load.
 * Required: a title and a company name. The board is `job_board`, else `board` (the source's
 * name), else the one the posting's link names; a posting without a description is kept.
 */
export function normalizePosting(raw: RawPosting, opts: { now?: Date; board?: string | null } = {}): Posting | Rejection {
  if (!isRecord(raw)) return { reason: 'posting: expected an object' }
  const now = opts.now && !Number.isNaN(opts.now.getTime()) ? opts.now : new Date()
  const board = opts.board?.trim() || null
  try {
    return normalizeUnchecked(raw, now, board)
  } catch (e) {
    if (!(e instanceof FieldError)) return { reason: `internal error: ${e instanceof Error ? e.message : String(e)}` }
    const problems = problemsOf(raw, e, now, board)
    return problems.length > 1 ? { reason: e.message, problems } : { reason: e.message }
  }
}
