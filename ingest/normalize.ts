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
import { cleanTitle } from './transform/clean-title.ts'
import { postingLocations } from './transform/locations.ts'
import { inferLocationType, mapLocationType } from './transform/location-type.ts'
import { jobTypeFromTitle, mapJobType } from './transform/job-type.ts'
import { salaryFromRange, salaryFromText } from './transform/salary.ts'
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

export type Rejection = { reason: string }

export function isRejection(r: Posting | Rejection): r is Rejection {
  return 'reason' in r
}

/** The first string of a field that may be a string or a list ("FULL_TIME" or ["FULL_TIME", "PART_TIME"]). */
function stringsOf(v: unknown, field: string): string[] {
  if (isAbsent(v)) return []
  if (typeof v === 'string') return [v]
  return stringList(v, field)
}

function salaryOf(raw: RawPosting): Salary | null {
  const fromRange = salaryFromRange(raw.salary_range)
  if (fromRange) return fromRange
  const text = optionalString(raw.salary, 'salary')
  return text ? salaryFromText(text) : null
}

function normalizeUnchecked(raw: RawPosting, now: Date): Posting {
  const jobBoard = requiredString(raw.job_board, 'job_board')
  const titleRaw = requiredString(raw.job_title, 'job_title')
  if (typeof raw.description !== 'string') throw new FieldError('description', 'required string')
  const descriptionRaw = raw.description
  const company = normalizeCompany(raw.company)
  const datePosted = dateOnly(raw.date_posted, 'date_posted', now.toISOString().slice(0, 10))
  const validThrough = optionalTimestamp(raw.valid_through, 'valid_through')

  const { html, text, blocks } = sanitizeDescription(descriptionRaw)
  const { title, locationHint } = cleanTitle(titleRaw)

  const locationRaw = optionalString(raw.location_raw, 'location_raw')
  const where = postingLocations(raw.locations, locationRaw, locationHint)
  const givenLocationType = optionalString(raw.location_type, 'location_type')
  const locationType = (givenLocationType ? mapLocationType(givenLocationType) : null) ?? inferLocationType(where)

  const jobType = mapJobType(stringsOf(raw.job_type, 'job_type')) ?? jobTypeFromTitle(title)
  const salary = salaryOf(raw)

  let yoe = yoeFromGiven(raw.yoe_range) ?? yoeFromText(text)
  const givenLevel = optionalString(raw.experience_level, 'experience_level')
  const level = (givenLevel ? mapExperienceLevel(givenLevel) : null) ?? levelFromTitle(title) ?? levelFromYoe(yoe)
  if (!yoe && level === 'Entry' && saysNoExperience(text)) yoe = { min: 0, max: null }

  const givenSkills = stringList(raw.skills, 'skills')
  const givenTech = stringList(raw.technologies, 'technologies')
  const { skills, technologies } = extractSkills(title, text, { skills: givenSkills, technologies: givenTech })
  const categories = classify(title, text, stringList(raw.job_categories, 'job_categories', { semicolonOnly: true }))

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
    job_title: title,
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
  return { ...posting, content_hash: contentHash(posting) }
}

/**
 * Validates and normalises one raw posting. Never throws: invalid input returns a Rejection whose
 * reason names the field ("job_title: required non-empty string"); an unexpected internal error
 * returns "internal error: ..." so one bad line cannot stop a load.
 */
export function normalizePosting(raw: RawPosting, opts: { now?: Date } = {}): Posting | Rejection {
  if (!isRecord(raw)) return { reason: 'posting: expected an object' }
  const now = opts.now && !Number.isNaN(opts.now.getTime()) ? opts.now : new Date()
  try {
    return normalizeUnchecked(raw, now)
  } catch (e) {
    if (e instanceof FieldError) return { reason: e.message }
    return { reason: `internal error: ${e instanceof Error ? e.message : String(e)}` }
  }
}
