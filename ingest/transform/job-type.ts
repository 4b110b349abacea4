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
  'contract to hire': 'Contract / Temporary', 'temp to perm': 'Contract / Temporary', 'per diem': 'Contract / Temporary', perdiem: 'Contract / Temporary',
  summer: 'Contract / Temporary', befristet: 'Contract / Temporary', cdd: 'Contract / Temporary',
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

// A post that is not permanent: UK public-sector terms. "Bank" is work from the staff bank, as and
// when needed (per diem); a secondment or a locum covers a post for a time. "Bank holidays" and a
// blood or food bank are not the bank.
const TEMPORARY_TITLE_RE = /\b(?:bank(?! holidays?)(?<!(?:blood|food|milk|tissue|eye|data) bank)|locum|fixed[- ]term|secondment|temporary|maternity (?:leave|cover))\b/i
// In the text only as statements about the post: "on a fixed term contract", "Fixed Term/ Secondment
// – 4 Months", "a one year secondment", "this is a locum post", "on bank contracts". Not the general
// ones: "opportunities for fixed term contracts if you are interested", "secondment to study",
// "creating secondment opportunities", "working at Consultant level on a locum basis", "if you are
// applying for a post as a BANK worker" (a trust's boilerplate).
export const TEMPORARY_TEXT_RE = new RegExp(
  [
    // "fixed term or permanent contracts" offers either: the post's own terms decide
    String.raw`(?<!permanent\s(?:or|and)\s)\bfixed[- ]term\b(?!\s+contracts\b|\s+(?:or|and)\s+permanent)`,
    String.raw`(?:\b(?:a|on|one[- ]year|\d+[- ](?:months?|years?))\s+|fixed[- ]term\s*\/\s*)secondment\b`,
    String.raw`\bsecondment\s*(?:basis|post|position|role|contract|until|for\s+\d|of\s+\d|[–-]\s*\d|\(\d|\/\s*fixed)`,
    String.raw`\blocum (?:post|position|role|contract)\b`,
    String.raw`\bmaternity (?:leave )?cover\b`,
    String.raw`\btemporary (?:post|position|role|contract|basis)\b`,
    String.raw`\bon (?:a )?bank contracts?\b|\bjoin (?:our|the) (?:staff )?bank\b`,
  ].join('|'),
  'i',
)
// Weekly hours: "27 hours per week", "Hours: 15", "37.5 hpw", and the fractions of a 37.5-hour week
// that NHS posts are written in ("18.75 hours", "22.5 hrs") even without "per week"; not "12 hours a
// day", "within 24 hours" or "a 24 hours service". One scan for a number of hours, then its context:
// a single pattern with every form tried at every character cost a second over NHS Jobs' 14,842.
const HOURS_RE = /(\d{1,2}(?:\.\d{1,2})?)\s*(hours?|hrs?|hpw)\b/gi
const HOURS_LABEL_RE = /\bhours(?: of work| per week)?\s*[:–-]\s*(?:up to\s*)?(\d{1,2}(?:\.\d{1,2})?)\b/i
const PER_WEEK_RE = /^\s*(?:(?:per|a|each|every|\/)\s*week\b|p\.?\/?w\b|weekly\b)/i
const PER_DAY_RE = /^\s*(?:a|per|each)\s*(?:day|shift|night)/i
// "a mix of 7.5 hour and 12.5 hour shifts": shift lengths
const SHIFT_RE = /^\s*(?:(?:long\s+|day\s+|night\s+)?shifts?\b|(?:and|or|to|[-–\/])\s*\d)/i

/** The weekly hours a text states first, as written. e.g. "… - 27 hours per week" -> "27"; "within 24 hours" -> null */
function weeklyHours(text: string): string | null {
  const label = HOURS_LABEL_RE.exec(text)
  for (const m of text.matchAll(HOURS_RE)) {
    if (label && m.index > label.index) break
    // "8-20.30 hours weekdays" and "09:00-17.30 hours" are times of day
    if (m.index > 0 && /[\d.,£:\-–]/.test(text[m.index - 1])) continue
    const after = text.slice(m.index + m[0].length, m.index + m[0].length + 24)
    if (m[2].toLowerCase() === 'hpw' || PER_WEEK_RE.test(after) || (m[1].includes('.') && !PER_DAY_RE.test(after) && !SHIFT_RE.test(after))) return m[1]
  }
  return label ? label[1] : null
}
// The post's WTE ("This is a 0.4WTE Band 8a role", "part time (0.5wte) post"), not the team's
// ("a team of 2.6wte Consultants", "1.0 WTE").
const WTE_RE = /(?:\b(?:a|the|this|post|role|position|is|for|of|at)\s+|\()(0?\.\d{1,2})\s*w\.?t\.?e\b/i
// Consultants' time is counted in programmed activities: 10 PAs is full time; a post of 3 to 9.5
// is part time, but not the supporting activities within one ("2.5 PA in the first year") or an
// on-call supplement ("0.5PA for on-call").
const PAS_RE = /(?<![\d.])([3-9](?:\.5)?)\s*(?:x\s*)?(?:PAs?|programmed activities)\b(?!\s*(?:a|per)\s*(?:day|month)|\s+(?:for|of)\s+(?:on[- ]call|SPA|supporting))/
// "This is a part time, permanent post", "on a part time basis"; not "on a part-time or job share
// basis" or "full time/ part time": options, where the post's own terms decide
const PART_TIME_PHRASE_RE = /(?<!(?:full[- ]time|or)\s*\/?\s*)\b(?:for an? |this (?:is an? )?|the |on an? )part[- ]time\b(?!\s+(?:hours|available|options?|working (?:is|will be) considered)|\s*(?:or|\/)\s)|\bpart[- ]time\s+(?:post|position|role|vacancy|contract|basis)\b/i

/**
 * The job type a UK public-sector posting states in its title and text, where a feed's
 * employment type says only FULL_TIME or TEMPORARY: a temporary post first (bank, locum,
 * fixed term, secondment, maternity cover), then the hours (under 30 a week, a WTE under 1,
 * under 10 programmed activities or a part-time post: Part Time; 30 hours or more: Full Time).
 * Null when the text states neither, and the feed's value stands.
 * e.g. ("Bank Staff Nurse", …) -> 'Contract / Temporary'; (…, "Fixed Term/ Secondment – 4 Months")
 *      -> 'Contract / Temporary'; ("Advanced Physiotherapist", "… - 27 hours per week") -> 'Part Time';
 *      (…, "Full-time, 37.5 hours per week") -> 'Full Time'; (…, "25 days holiday plus bank holidays") -> null
 */
export function jobTypeFromTerms(title: string, text: string): JobType | null {
  if (TEMPORARY_TITLE_RE.test(title) || TEMPORARY_TEXT_RE.test(text)) return 'Contract / Temporary'
  const titleHours = /(?<![\d.])(\d{1,2}(?:\.\d{1,2})?)\s*(?:hours?|hrs?)\b/i.exec(title)
  const hours = titleHours ? titleHours[1] : weeklyHours(text)
  if (hours !== null) {
    const h = Number(hours)
    if (h >= 1 && h <= 60) return h < 30 ? 'Part Time' : 'Full Time'
  }
  // each pattern only where its word is: most texts have none of them
  const wte = /w\.?t\.?e/i.test(text) ? WTE_RE.exec(text) : null
  if (wte && Number(wte[1]) < 1) return 'Part Time'
  const pas = /\bPAs?\b|programmed activit/.test(text) ? PAS_RE.exec(text) : null
  if (pas && Number(pas[1]) < 10 && Number(pas[1]) > 0) return 'Part Time'
  if (/\bpart[- ]time\b/i.test(title) || (/part[- ]time/i.test(text) && PART_TIME_PHRASE_RE.test(text))) return 'Part Time'
  return null
}
