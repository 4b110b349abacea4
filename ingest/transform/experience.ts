/**
 * Years of experience, seniority level and education level.
 *
 * Level from years (minimum of the range): < 1 Entry, 1-2 Junior, 3-5 Mid, >= 6 Senior. Executive
 * only ever comes from a title or a given value: long experience alone does not make a director.
 * Years are NOT inferred from a level: a made-up range would pass the search `yoe` filter and enter
 * salary benchmarks as if the posting had stated it; `include_yoe` already handles unknown years.
 */
import type { ExperienceLevel, Range } from '../types.ts'
import { FieldError, isAbsent, isRecord, optionalNumber } from './coerce.ts'

const WORDS: Record<string, number> = {
  zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, twenty: 20, a: 1, an: 1,
}
const NUM = String.raw`(\d{1,2}(?:\.5)?|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|twenty)`
const num = (s: string) => WORDS[s.toLowerCase()] ?? Number(s)

// "3-5 years", "3 to 5 years", "5+ years", "at least two years", "minimum of 3 years", followed within a
// few words by "experience"/"exp"/"background" so "founded 10 years ago" and "5 years old" don't count.
const RANGE_RE = new RegExp(String.raw`\b${NUM}\s*(?:-|–|—|to)\s*${NUM}\s*\+?\s*(?:years?|yrs?)\b(?:['’]s?)?(?:\s+\S+){0,6}?\s+(?:experience|exp\b|background|in\s+a\s+similar)`, 'i')
const MIN_RE = new RegExp(String.raw`\b(?:(?:at least|minimum(?: of)?|min\.?|over|more than|no less than)\s+)?${NUM}\s*(\+|\s*or more|\s*plus)?\s*(?:years?|yrs?)\b(?:['’]s?)?(?:\s+\S+){0,6}?\s+(?:experience|exp\b|background|in\s+a\s+similar)`, 'i')
const YEARS_RE = /(?:years?|yrs?)\b/i
const NO_EXPERIENCE_RE = /\b(?:no (?:prior |previous )?experience (?:is )?(?:required|necessary|needed)|entry[- ]level|new grads?|recent graduates?)\b/i

/**
 * Given yoe_range: {min, max} object, "3-5", "5+", or a number.
 * e.g. {min: 3, max: 5} -> 3-5; "5+" -> 5-null; 2 -> 2-2; {min: "x"} -> FieldError
 */
export function yoeFromGiven(v: unknown): Range | null {
  if (isAbsent(v)) return null
  if (typeof v === 'number') return v >= 0 && v <= 60 ? { min: v, max: v } : null
  if (typeof v === 'string') {
    const m = /^\s*(\d{1,2})\s*(?:(\+)|(?:-|–|to)\s*(\d{1,2}))?\s*(?:years?|yrs?)?\s*$/i.exec(v)
    if (!m) throw new FieldError('yoe_range', 'expected {min, max} or text like "3-5"')
    return { min: Number(m[1]), max: m[2] ? null : m[3] ? Number(m[3]) : Number(m[1]) }
  }
  if (!isRecord(v)) throw new FieldError('yoe_range', 'expected {min, max}')
  const min = optionalNumber(v.min, 'yoe_range.min')
  const max = optionalNumber(v.max, 'yoe_range.max')
  if (min === null && max === null) return null
  return min !== null && max !== null && min > max ? { min: max, max: min } : { min, max }
}

/**
 * Years from description text; the first statement wins, since requirements lists put the headline
 * requirement first.
 * e.g. "3+ years of experience" -> 3-null; "5-7 years of professional experience" -> 5-7;
 *      "at least two years' experience" -> 2-null; "founded 10 years ago" -> null
 */
export function yoeFromText(text: string): Range | null {
  const head = text.length > 20_000 ? text.slice(0, 20_000) : text
  // both statements name the years; most descriptions never do (7 in 10 of NHS Jobs'), and this
  // one scan is far cheaper than the two patterns, which try a number at every word
  if (!YEARS_RE.test(head)) return null
  const r = RANGE_RE.exec(head)
  const m = MIN_RE.exec(head)
  if (r && (!m || r.index <= m.index)) {
    const a = num(r[1])
    const b = num(r[2])
    if (a <= 40 && b <= 40) return a <= b ? { min: a, max: b } : { min: b, max: a }
  }
  if (m) {
    const a = num(m[1])
    if (a <= 40) return { min: a, max: null }
  }
  return null
}

// "staff" is a rung only on the engineering ladder (Staff Engineer, Staff Data Scientist, Staff
// Product Manager): a Staff Nurse is newly qualified, a Staff Accountant or Staff Geologist junior,
// a Member of Technical Staff anyone.
const STAFF_RUNG = String.raw`staff(?=\s+(?:[\w/&+.-]+\s+){0,3}?(?:engineer|developer|scientist|designer|architect|researcher|programmer|sre|(?:product|program|project) manager)s?\b)`
// "Executive" is a level, but an Executive Assistant assists one and an Account Executive sells.
const EXECUTIVE = String.raw`(?<!account\s)executive(?!\s+(?:assistant|secretary|administrator|officer|chef|housekeeper|pa)\b)`

const LEVEL_WORDS: [RegExp, ExperienceLevel][] = [
  [new RegExp(String.raw`\b(?:c[etfoi]o|chief|vp|svp|evp|avp|vice president|president|director|head of|${EXECUTIVE}|partner|general manager|managing director)\b`, 'i'), 'Executive'],
  [new RegExp(String.raw`\b(?:senior|sr\.?|${STAFF_RUNG}|principal|lead|expert|architect|distinguished)\b`, 'i'), 'Senior'],
  [/\b(?:mid[- ]?level|mid[- ]senior|intermediate|experienced)\b/i, 'Mid'],
  [/\b(?:junior|jr\.?|associate)\b/i, 'Junior'],
  [/\b(?:entry[- ]?level|intern(?:ship)?|graduates?|new (?:college )?grads?|early[- ]career|trainee|apprentice|werkstudent|working student|student|beginner)\b/i, 'Entry'],
]

/**
 * UK NHS Agenda for Change pay bands: support roles (bands 1-3), assistant practitioners and newly
 * qualified professionals (4-5), experienced practitioners (6), specialists and team leaders (7-8d),
 * directors (9). e.g. "Band 6" -> Mid; "AfC Band 8a" -> Senior; "broadband" -> null
 */
export function levelFromBand(text: string): ExperienceLevel | null {
  const m = /\bband:?\s*([1-9])(?:[a-d](?![a-z]))?(?![\d.,])(?!\s*(?:and|or) (?:below|above))/i.exec(text)
  if (!m) return null
  const band = Number(m[1])
  return band <= 3 ? 'Entry' : band <= 5 ? 'Junior' : band === 6 ? 'Mid' : band <= 8 ? 'Senior' : 'Executive'
}

// The clinical ladders, read before the generic words: nursing (Staff Nurse, Sister or Charge Nurse,
// Ward Manager, Matron) and medicine (Foundation doctor, core trainee, Specialty Doctor or
// Registrar, Consultant). "Senior Staff Nurse" is a band-6 nurse, not a senior hire.
const CLINICAL: [RegExp, ExperienceLevel][] = [
  [/\b(?:director of nursing|medical director|clinical director|chief nurse)\b/i, 'Executive'],
  // a hospital consultant, not a "Consultant in Data Engineering" or an "SAP Consultant"
  [/\b(?:(?:locum\s+)?consultant\s+(?:in\s+(?:[a-z&]+\s+){0,3}?(?:medicine|surgery|psychiatry|p(?:a)?ediatrics|an(?:a)?esthe\w+|obstetrics|gyn\w+|[a-z]+ology|dentistry|care)|[a-z]*(?:ist|ian|eon|ine|ics?|ogy)\b|(?:\w+\s+)?(?:physician|surgeon|psychiatrist|radiologist|anaesthetist|paediatrician|nurse|midwife|psychologist|pharmacist|therapist|physiotherapist|orthodontist|dentist))|nurse consultant|ward manager|matron)\b/i, 'Senior'],
  [/\b(?:senior staff nurse|(?:ward |community |charge )?sister|charge nurse|specialty doctor|speciality doctor|staff grade|(?:specialty |specialist )?registrar|st[3-8])\b/i, 'Mid'],
  [/\b(?:staff nurse|staff midwife|core (?:medical )?trainee|ct[1-3]|st[12]|senior house officer|sho|junior (?:doctor|clinical fellow))\b/i, 'Junior'],
  [/\b(?:foundation (?:year|doctor|trainee)|fy[12]|f[12] doctor)\b/i, 'Entry'],
]

/**
 * Given level words -> level. e.g. "Entry level" "intern" "new grad" -> Entry; "Mid-Senior level"
 * -> Mid; "Lead" "Principal" -> Senior; "Director" "VP" -> Executive; "Associate" -> Junior.
 */
export function mapExperienceLevel(value: string): ExperienceLevel | null {
  const v = value.trim().toLowerCase()
  const exact: Record<string, ExperienceLevel> = { entry: 'Entry', junior: 'Junior', mid: 'Mid', senior: 'Senior', executive: 'Executive' }
  if (exact[v]) return exact[v]
  if (/\bmid[- ]senior\b/.test(v)) return 'Mid'
  for (const [re, level] of LEVEL_WORDS) if (re.test(v)) return level
  return null
}

// A rung number after the role: "Engineer II", "Software Engineer I - Back-end", "Analyst 2 (Remote)";
// not a band, grade or year ("Band 3 - Health", "Year 2").
const RUNG_RE = /\b(0|I{1,3}|IV|[1-4])\s*(?:[-–—:,(|/]|$)/
const NOT_A_RUNG_RE = /\b(?:band|grade|level|tier|step|year|phase|type|class|stage|covid|top)\s*$/i

/**
 * Level from title words: a pay band, the clinical ladders, then the generic words; "associate"
 * counts as Junior; "manager" alone says nothing (Account, Case, Store Manager); "Mid/Senior" is Mid.
 * e.g. "Senior Backend Engineer" -> Senior; "VP of Sales" -> Executive; "Software Engineering Intern"
 * -> Entry; "Staff Nurse" -> Junior; "Band 6 - Staff Nurse" -> Mid; "Consultant Psychiatrist" -> Senior;
 * "Software Engineer II – New College Grad" -> Entry; "Engineer I - Platform" -> Junior; "Backend Engineer" -> null
 */
export function levelFromTitle(title: string): ExperienceLevel | null {
  const band = levelFromBand(title)
  if (band) return band
  for (const [re, level] of CLINICAL) if (re.test(title)) return level
  if (/\bmid\s*[-/]\s*senior\b/i.test(title)) return 'Mid'
  for (const [re, level] of LEVEL_WORDS) if (re.test(title)) return level
  const m = RUNG_RE.exec(title)
  const rung = m && !NOT_A_RUNG_RE.test(title.slice(0, m.index)) ? m[1] : undefined
  if (rung === '0') return 'Entry'
  if (rung === 'I' || rung === '1') return 'Junior'
  if (rung === 'II' || rung === '2') return 'Mid'
  if (rung) return 'Senior'
  return null
}

/** Level from years (see module comment). e.g. {min: 0} -> Entry, {min: 4} -> Mid, {min: 8} -> Senior */
export function levelFromYoe(yoe: Range | null): ExperienceLevel | null {
  const y = yoe?.min ?? null
  if (y === null) return null
  if (y < 1) return 'Entry'
  if (y < 3) return 'Junior'
  if (y < 6) return 'Mid'
  return 'Senior'
}

/** Whether the text says no experience is needed (then yoe is 0 unless stated). */
export function saysNoExperience(text: string): boolean {
  return NO_EXPERIENCE_RE.test(text)
}

const EDUCATION: [RegExp, string, number][] = [
  [/\b(?:high school|secondary school|ged\b|a-levels?)/i, 'High School', 1],
  [/\b(?:associate['’]?s? degree|associate of (?:arts|science))\b/i, "Associate's Degree", 2],
  [/\b(?:bachelor['’]?s?|b\.?sc?\.?|b\.a\.|ba\/bs|bs\/ba|undergraduate degree|college degree|university degree)(?=[\s,.;)/]|$)/i, "Bachelor's Degree", 3],
  [/\b(?:master['’]?s?(?: degree)?|m\.?sc\.?|mba|m\.s\.|graduate degree)(?=[\s,.;)/]|$)/i, "Master's Degree", 4],
  [/\b(?:ph\.?d\.?|doctorate|doctoral degree|md degree)(?=[\s,.;)/]|$)/i, 'Doctorate', 5],
]

/**
 * The lowest degree the text mentions, because "Bachelor's required, Master's preferred" requires a
 * Bachelor's. e.g. "BS/MS in Computer Science" -> Bachelor's Degree; "PhD in ML" -> Doctorate
 */
export function educationFromText(text: string): string | null {
  const head = text.length > 20_000 ? text.slice(0, 20_000) : text
  let best: [string, number] | null = null
  for (const [re, name, rank] of EDUCATION) if ((!best || rank < best[1]) && re.test(head)) best = [name, rank]
  return best ? best[0] : null
}
