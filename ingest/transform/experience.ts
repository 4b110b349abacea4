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

const LEVEL_WORDS: [RegExp, ExperienceLevel][] = [
  [/\b(?:c[etfoi]o|chief|vp|svp|evp|avp|vice president|president|director|head of|executive|partner|general manager|managing director)\b/i, 'Executive'],
  [/\b(?:senior|sr\.?|staff|principal|lead|expert|architect|distinguished)\b/i, 'Senior'],
  [/\b(?:mid[- ]?level|mid[- ]senior|intermediate|experienced)\b/i, 'Mid'],
  [/\b(?:junior|jr\.?|associate)\b/i, 'Junior'],
  [/\b(?:entry[- ]?level|intern(?:ship)?|graduate|new grad|trainee|apprentice|werkstudent|working student|student|beginner)\b/i, 'Entry'],
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

/**
 * Level from title words; "associate" counts as Junior; "manager" alone says nothing (Account, Case, Store Manager).
 * e.g. "Senior Backend Engineer" -> Senior; "VP of Sales" -> Executive; "Software Engineering Intern"
 * -> Entry; "Backend Engineer" -> null
 */
export function levelFromTitle(title: string): ExperienceLevel | null {
  for (const [re, level] of LEVEL_WORDS) if (re.test(title)) return level
  if (/\b(?:I|1)\s*$/.test(title)) return 'Junior' // "Engineer I"
  if (/\b(?:II|2)\s*$/.test(title)) return 'Mid'
  if (/\b(?:III|IV|3|4)\s*$/.test(title)) return 'Senior'
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
