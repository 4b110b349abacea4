/**
 * Signals derived from a parsed resume: total years of work (overlapping jobs counted once)
 * and a seniority level from those years and the title words of the latest job.
 */
import { monthIndex } from './dates.ts'
import type { ParsedResume } from './types.ts'

export type Level = 'Entry' | 'Junior' | 'Mid' | 'Senior' | 'Lead' | 'Executive'
export type ExperienceSummary = { total_years: number | null; level: Level | null; confidence: number }

const LEVELS: Level[] = ['Entry', 'Junior', 'Mid', 'Senior', 'Lead', 'Executive']

/** Title words, strongest first: "VP of Engineering" is Executive even though it has no "senior". */
const TITLE_LEVELS: [RegExp, Level][] = [
  [/\b(chief|c[etfoi]o|vp|svp|evp|vice[\s-]president|president|head of|director|partner|founder|co-?founder|owner|general manager)\b/i, 'Executive'],
  [/\b(lead|principal|staff|manager|architect|head)\b/i, 'Lead'],
  [/\b(senior|sr\.?|snr|iii|expert)\b/i, 'Senior'],
  [/\b(junior|jr\.?|associate|assistant|i)\b/i, 'Junior'],
  [/\b(intern|internship|trainee|apprentice|graduate|student|entry[\s-]level)\b/i, 'Entry'],
]

/** Years to a level when no title word says otherwise: <1 Entry, <3 Junior, <6 Mid, <10 Senior, else Lead. */
function levelFromYears(years: number): Level {
  if (years < 1) return 'Entry'
  if (years < 3) return 'Junior'
  if (years < 6) return 'Mid'
  if (years < 10) return 'Senior'
  return 'Lead'
}

/**
 * e.g. jobs 2015-01..2018-12 and 2018-06..Present (now 2024-06) -> total_years 9.4 (the overlap counted once);
 * latest title "Senior Engineer" -> level Senior. The level is the latest title's when it has a level word,
 * else the years'. Confidence grows with dated jobs, a title word, and their agreement.
 */
export function experienceSummary(parsed: ParsedResume, now = new Date()): ExperienceSummary {
  const jobs = parsed.work_experience ?? []
  const ranges: [number, number][] = []
  let latest: { end: number; title?: string } | null = null
  for (const j of jobs) {
    const start = j.start_date ? monthIndex(j.start_date, false, now) : null
    const end = j.end_date ? monthIndex(j.end_date, true, now) : null
    if (start !== null && end !== null && end >= start) ranges.push([start, end + 1])
    const when = end ?? start
    if (when !== null && (!latest || when > latest.end)) latest = { end: when, title: j.title }
  }
  if (!latest && jobs.length) latest = { end: 0, title: jobs[0].title }
  const total = ranges.length ? mergedMonths(ranges) / 12 : null
  const total_years = total === null ? null : Math.round(total * 10) / 10
  const titleLevel = latest?.title ? TITLE_LEVELS.find(([re]) => re.test(latest!.title!))?.[1] ?? null : null
  const yearsLevel = total_years === null ? null : levelFromYears(total_years)
  const level = titleLevel ?? yearsLevel

  let confidence = 0
  if (jobs.length) {
    confidence += 0.5 * (ranges.length / jobs.length)
    if (titleLevel) confidence += 0.25
    if (titleLevel && yearsLevel) {
      const gap = Math.abs(LEVELS.indexOf(titleLevel) - LEVELS.indexOf(yearsLevel))
      confidence += gap <= 1 ? 0.15 : 0
    } else if (yearsLevel) confidence += 0.1
    confidence += 0.1 * Math.min(ranges.length, 3) / 3
  }
  return { total_years, level, confidence: Math.round(Math.min(1, confidence) * 100) / 100 }
}

/** Months covered by the union of [start, end) ranges. */
function mergedMonths(ranges: [number, number][]): number {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0])
  let total = 0
  let [s, e] = sorted[0]
  for (const [a, b] of sorted.slice(1)) {
    if (a <= e) e = Math.max(e, b)
    else {
      total += e - s
      ;[s, e] = [a, b]
    }
  }
  return total + (e - s)
}
