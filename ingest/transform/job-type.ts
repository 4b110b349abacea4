/**
 * Employment type -> 'Full Time' | 'Part Time' | 'Contract / Temporary' | 'Internship' | null.
 * Boards send schema.org values (FULL_TIME, CONTRACTOR), words ("Permanent") or lists of them.
 */
import type { JobType } from '../types.ts'

const TABLE: Record<string, JobType> = {
  'full time': 'Full Time', fulltime: 'Full Time', permanent: 'Full Time', regular: 'Full Time', 'permanent full time': 'Full Time', 'full time permanent': 'Full Time', vollzeit: 'Full Time', cdi: 'Full Time', 'temps plein': 'Full Time',
  'part time': 'Part Time', parttime: 'Part Time', teilzeit: 'Part Time', 'temps partiel': 'Part Time',
  contract: 'Contract / Temporary', contractor: 'Contract / Temporary', temporary: 'Contract / Temporary', temp: 'Contract / Temporary',
  freelance: 'Contract / Temporary', freelancer: 'Contract / Temporary', 'fixed term': 'Contract / Temporary', seasonal: 'Contract / Temporary',
  'contract to hire': 'Contract / Temporary', 'temp to perm': 'Contract / Temporary', 'per diem': 'Contract / Temporary', befristet: 'Contract / Temporary', cdd: 'Contract / Temporary',
  'contract / temporary': 'Contract / Temporary', 'contract temporary': 'Contract / Temporary',
  internship: 'Internship', intern: 'Internship', praktikum: 'Internship', stage: 'Internship', apprenticeship: 'Internship', trainee: 'Internship',
}

function key(s: string): string {
  return s.toLowerCase().replace(/[_\-/]+/g, ' ').replace(/\s+/g, ' ').trim()
}

/**
 * Maps a given employment type. A list maps to its first recognised entry.
 * e.g. "FULL_TIME" -> 'Full Time', "Contractor" -> 'Contract / Temporary', ["INTERN"] -> 'Internship',
 * "Full-time or part-time" -> 'Full Time' (first word that maps), "Volunteer" -> null
 */
export function mapJobType(values: string[]): JobType | null {
  for (const v of values) {
    const k = key(v)
    if (TABLE[k]) return TABLE[k]
    for (const part of k.split(/\s*(?:,|;| or | and )\s*/)) if (TABLE[part]) return TABLE[part]
  }
  return null
}

/**
 * Infers a type from the title when none was given; only the unambiguous words count.
 * e.g. "Software Engineering Intern" -> 'Internship', "Contract Java Developer" -> 'Contract / Temporary',
 * "Part-Time Cashier" -> 'Part Time', "Internal Auditor" -> null
 */
export function jobTypeFromTitle(title: string): JobType | null {
  if (/\b(?:intern|internship|praktikant(?:in)?|praktikum|co-?op student|summer student)\b/i.test(title)) return 'Internship'
  if (/\b(?:contract(?:or)?|freelance|temporary|temp|fixed[- ]term|seasonal)\b/i.test(title)) return 'Contract / Temporary'
  if (/\bpart[- ]?time\b/i.test(title)) return 'Part Time'
  if (/\bfull[- ]?time\b/i.test(title)) return 'Full Time'
  return null
}
