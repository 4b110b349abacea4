/**
 * Field validation and coercion for RawPosting values. Each reader returns the typed value, null for
 * "absent" (undefined, null, "" or whitespace), or throws FieldError naming the field; normalize.ts
 * turns the error into a Rejection, so a bad line is reported instead of half-loaded.
 *
 * Lists: a JSON array of strings, or, for CSV rows, one string split on ";" (or on "," when there is
 * no ";"). Fields whose vocabulary contains commas ("Accounting, Payroll & Financial Planning Jobs",
 * industries) split on ";" only. A string that looks like a JSON array ('["a","b"]') is parsed.
 */

export class FieldError extends Error {
  constructor(readonly field: string, readonly expected: string) {
    super(`${field}: ${expected}`)
  }
}

export function isAbsent(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'string' && v.trim() === '')
}

/** Required non-empty string. e.g. "  Senior Engineer " -> "Senior Engineer"; 42 -> FieldError */
export function requiredString(v: unknown, field: string): string {
  if (typeof v !== 'string' || !v.trim()) throw new FieldError(field, 'required non-empty string')
  return v.trim()
}

/** Optional string; numbers are accepted as text (ids, phone numbers in CSV). */
export function optionalString(v: unknown, field: string): string | null {
  if (isAbsent(v)) return null
  if (typeof v === 'string') return v.trim()
  if (typeof v === 'number' && Number.isFinite(v)) return String(v)
  throw new FieldError(field, 'expected a string')
}

/**
 * Boolean from true/false, "true"/"false", "yes"/"no", "y"/"n", "1"/"0", 1/0 (case-insensitive).
 * e.g. "Yes" -> true, "no" -> false, "maybe" -> FieldError
 */
export function optionalBoolean(v: unknown, field: string): boolean | null {
  if (isAbsent(v)) return null
  if (typeof v === 'boolean') return v
  if (v === 1 || v === 0) return v === 1
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase()
    if (s === 'true' || s === 'yes' || s === 'y' || s === '1') return true
    if (s === 'false' || s === 'no' || s === 'n' || s === '0') return false
  }
  throw new FieldError(field, 'expected a boolean (true/false/yes/no)')
}

/** List of strings; see the module comment for the CSV form. e.g. "Python; SQL" -> ["Python", "SQL"] */
export function stringList(v: unknown, field: string, opts: { semicolonOnly?: boolean } = {}): string[] {
  if (isAbsent(v)) return []
  if (typeof v === 'string') {
    const s = v.trim()
    if (s.startsWith('[') && s.endsWith(']')) {
      try {
        return stringList(JSON.parse(s), field, opts)
      } catch (e) {
        if (e instanceof FieldError) throw e
        // Not JSON after all: fall through to splitting.
      }
    }
    const sep = s.includes(';') || opts.semicolonOnly ? ';' : ','
    return dedupe(s.split(sep).map((x) => x.trim()).filter(Boolean))
  }
  if (Array.isArray(v)) {
    const out: string[] = []
    for (const x of v) {
      if (isAbsent(x)) continue
      if (typeof x !== 'string') throw new FieldError(field, 'expected an array of strings')
      out.push(x.trim())
    }
    return dedupe(out)
  }
  throw new FieldError(field, 'expected an array of strings')
}

/** Case-insensitive dedupe keeping the first spelling. */
export function dedupe(list: string[]): string[] {
  const seen = new Set<string>()
  return list.filter((x) => {
    const k = x.toLowerCase()
    if (seen.has(k)) return false
    seen.add(k)
    return true
  })
}

/**
 * Number from a number or numeric string ("1,200", "3.5", "120k"). Returns null when absent.
 * e.g. "120k" -> 120000, "1,200" -> 1200, "abc" -> FieldError
 */
export function optionalNumber(v: unknown, field: string): number | null {
  if (isAbsent(v)) return null
  if (typeof v === 'number') {
    if (Number.isFinite(v)) return v
    throw new FieldError(field, 'expected a finite number')
  }
  if (typeof v === 'string') {
    const m = /^\s*[^\d\s.,-]{0,3}\s*(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?\s*([kKmM])?\s*$/.exec(v)
    if (m) {
      const n = Number(m[1].replace(/,/g, '') + (m[2] ?? ''))
      return m[3] ? n * (m[3].toLowerCase() === 'k' ? 1_000 : 1_000_000) : n
    }
  }
  throw new FieldError(field, 'expected a number')
}

function isRealDate(y: number, m: number, d: number): boolean {
  const t = new Date(Date.UTC(y, m - 1, d))
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/
const DATETIME_RE = /^(\d{4})-(\d{2})-(\d{2})[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?$/i

/**
 * Calendar date as YYYY-MM-DD from "2024-05-01" or an ISO datetime ("2024-05-01T23:30:00-05:00"
 * is 2024-05-02 in UTC). Missing -> `fallback`. Anything else, or an impossible date like
 * "2024-02-30", -> FieldError.
 */
export function dateOnly(v: unknown, field: string, fallback: string): string {
  if (isAbsent(v)) return fallback
  if (typeof v === 'string') {
    const s = v.trim()
    const d = DATE_RE.exec(s)
    if (d && isRealDate(+d[1], +d[2], +d[3])) return s
    const dt = DATETIME_RE.exec(s)
    if (dt && isRealDate(+dt[1], +dt[2], +dt[3])) {
      const t = new Date(s.replace(' ', 'T'))
      if (!Number.isNaN(t.getTime())) return t.toISOString().slice(0, 10)
    }
  }
  throw new FieldError(field, 'expected YYYY-MM-DD or an ISO datetime')
}

/**
 * ISO timestamp from a date or datetime. A bare date means "through the end of that day" (UTC),
 * e.g. "2024-06-30" -> "2024-06-30T23:59:59.999Z".
 */
export function optionalTimestamp(v: unknown, field: string): string | null {
  if (isAbsent(v)) return null
  if (typeof v === 'string') {
    const s = v.trim()
    const d = DATE_RE.exec(s)
    if (d && isRealDate(+d[1], +d[2], +d[3])) return `${s}T23:59:59.999Z`
    const dt = DATETIME_RE.exec(s)
    if (dt && isRealDate(+dt[1], +dt[2], +dt[3])) {
      const t = new Date(s.replace(' ', 'T'))
      if (!Number.isNaN(t.getTime())) return t.toISOString()
    }
  }
  throw new FieldError(field, 'expected YYYY-MM-DD or an ISO datetime')
}

/** Plain object check: {min, max} shaped input. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
