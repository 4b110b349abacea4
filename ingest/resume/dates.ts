/**
 * Resume dates to the schema's forms: "YYYY-MM", "YYYY" when no month is written, and
 * "Present" for an open end. Ranges are found inside a line so the rest of the line
 * (title, company) can be read without them.
 */

const MONTHS: Record<string, number> = {
  jan: 1, january: 1, feb: 2, february: 2, mar: 3, march: 3, apr: 4, april: 4, may: 5, jun: 6, june: 6,
  jul: 7, july: 7, aug: 8, august: 8, sep: 9, sept: 9, september: 9, oct: 10, october: 10,
  nov: 11, november: 11, dec: 12, december: 12,
}
/** Seasons map to the month they start in the northern hemisphere: "Summer 2019" -> 2019-06. */
const SEASONS: Record<string, number> = { spring: 3, summer: 6, fall: 9, autumn: 9, winter: 12 }

const MONTH_NAME = '(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)'
const SEASON = '(?:spring|summer|fall|autumn|winter)'
const YEAR = '(?:19[5-9]\\d|20\\d\\d)'
const PRESENT = '(?:present|current(?:ly)?|now|(?:to|till|until)\\s+(?:date|now)|today|ongoing)'

/** One date as written, longest forms first so "Jan 2020" is not read as "2020". */
export const DATE_SOURCE =
  `(?:${MONTH_NAME}\\.?,?(?:\\s+of)?\\s*'?${YEAR}|${MONTH_NAME}\\.?\\s*['’]\\d\\d(?!\\d)|${SEASON},?\\s+${YEAR}|${YEAR}[-/.](?:0?[1-9]|1[0-2])(?![\\d])|(?:0?[1-9]|1[0-2])[-/.]${YEAR}|${YEAR})`
const SEP = `\\s*(?:[-–—−~→]+|\\bto\\b|\\buntil\\b|\\btill\\b|\\bthrough\\b|\\bthru\\b|\\band\\b|&|[-–—]?\\s*>)\\s*`
/** "Sep. 2018 Exp. Dec. 2019", "2019 – expected 2021": an end not reached yet is still the end */
const EXPECTED = '(?:(?:exp\\.|expected|anticipated)\\s*)?'
const RANGE_RE = new RegExp(`(?<![\\w/])(?:from\\s+)?(${DATE_SOURCE})(?:(?:${SEP}|\\s+)${EXPECTED}(${DATE_SOURCE}|${PRESENT})(?![\\w]))?`, 'i')
const OPEN_RANGE_RE = new RegExp(`(?<![\\w/])(?:since\\s+)?(${DATE_SOURCE})${SEP}$`, 'i')
/** A separator and a month with no year after it, right after a date. */
const CUT_END_RE = new RegExp(`^${SEP}${MONTH_NAME}\\.?(?![\\w])(?!\\s*'?${YEAR})`, 'i')
const SINCE_RE = new RegExp(`(?<![\\w/])since\\s+(${DATE_SOURCE})(?![\\w])`, 'i')
const PRESENT_RE = new RegExp(`^${PRESENT}$`, 'i')

/**
 * One written date to YYYY-MM / YYYY / "Present", or undefined when it is not a date.
 * e.g. "Jan. 2020" -> "2020-01", "1/2020" -> "2020-01", "Fall 2018" -> "2018-09", "to date" -> "Present"
 */
export function normalizeDate(raw: string): string | undefined {
  const s = raw.trim().replace(/\s+/g, ' ').replace(/[.,]$/, '')
  if (!s) return undefined
  if (PRESENT_RE.test(s)) return 'Present'
  // "June of 2011" is June 2011
  let m = s.match(new RegExp(`^(${MONTH_NAME})\\.?,?(?:\\s+of)?\\s*'?(${YEAR})$`, 'i'))
  if (m) return `${m[2]}-${pad(MONTHS[m[1].toLowerCase()])}`
  // "Jan '19": a two-digit year is this century's unless that would be in the future
  m = s.match(new RegExp(`^(${MONTH_NAME})\\.?\\s*['’](\\d\\d)$`, 'i'))
  if (m) {
    const yy = Number(m[2])
    const year = 2000 + yy <= new Date().getUTCFullYear() + 1 ? 2000 + yy : 1900 + yy
    return `${year}-${pad(MONTHS[m[1].toLowerCase()])}`
  }
  m = s.match(new RegExp(`^(${SEASON}),?\\s+(${YEAR})$`, 'i'))
  if (m) return `${m[2]}-${pad(SEASONS[m[1].toLowerCase()])}`
  m = s.match(new RegExp(`^(${YEAR})[-/.](0?[1-9]|1[0-2])(?:[-/.]\\d{1,2})?$`))
  if (m) return `${m[1]}-${pad(Number(m[2]))}`
  m = s.match(new RegExp(`^(0?[1-9]|1[0-2])[-/.](${YEAR})$`))
  if (m) return `${m[2]}-${pad(Number(m[1]))}`
  m = s.match(new RegExp(`^(${YEAR})$`))
  if (m) return m[1]
  return undefined
}

const pad = (n: number) => String(n).padStart(2, '0')

export type DateRange = { start_date?: string; end_date?: string; /** the line without the dates */ rest: string }

/**
 * The first date or date range in a line, and the line without it.
 * e.g. "Software Engineer  Jan 2020 – Present" -> {start_date: "2020-01", end_date: "Present", rest: "Software Engineer"};
 * "2016 - 2020" -> 2016..2020; "Apr. 2019 Nov. 2021" (dash lost in the PDF) -> 2019-04..2021-11;
 * "Since March 2019" -> 2019-03..Present. A single date is an end date ("Graduated May 2020").
 */
export function findDateRange(line: string): DateRange | null {
  const since = line.match(SINCE_RE)
  if (since) {
    const start = normalizeDate(since[1])
    if (start) return { start_date: start, end_date: 'Present', rest: cut(line, since.index!, since[0].length) }
  }
  const m = line.match(RANGE_RE)
  if (!m) return null
  const first = normalizeDate(m[1])
  if (!first) return null
  if (m[2]) {
    const second = normalizeDate(m[2])
    if (second) return { start_date: first, end_date: second, rest: cut(line, m.index!, m[0].length) }
  }
  const open = line.slice(m.index!).match(OPEN_RANGE_RE)
  if (open) return { start_date: first, rest: cut(line, m.index!, line.length - m.index!) }
  // the end's year wrapped to the next line: "Jun. 2019-Nov. Logistics Coordinator" starts in 2019
  const cutShort = line.slice(m.index! + m[0].length).match(CUT_END_RE)
  if (cutShort) return { start_date: first, rest: cut(line, m.index!, m[0].length + cutShort[0].length) }
  return { end_date: first, rest: cut(line, m.index!, m[0].length) }
}

/** The line without [at, at+len), its now-dangling separators removed. */
function cut(line: string, at: number, len: number): string {
  const before = line.slice(0, at).replace(/[\s,|•·–—(-]+$/, '')
  const after = line.slice(at + len).replace(/^[\s,|•·–—)-]+/, '')
  return [before, after].filter(Boolean).join(' | ').trim()
}

/** Whether the line holds a date range or a single date. */
export const hasDate = (line: string) => findDateRange(line) !== null

/** "2020-01" or "2020" to a month count (a bare year counts as January for a start, December for an end). */
export function monthIndex(date: string, end: boolean, now: Date): number | null {
  if (date === 'Present') return now.getUTCFullYear() * 12 + now.getUTCMonth()
  const m = date.match(/^(\d{4})(?:-(\d{2}))?$/)
  if (!m) return null
  const month = m[2] ? Number(m[2]) - 1 : end ? 11 : 0
  return Number(m[1]) * 12 + month
}
