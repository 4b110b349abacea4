/**
 * What the job-board adapters share: the jobs of a board's JSON however it is laid out,
 * detection from keys (in the sample's records, or in its text when one record is larger
 * than the sample), and the small conversions their fields need (epoch times, escaped
 * HTML, a company named by a board URL's token).
 */
import { decodeHTMLStrict } from 'entities'
import type { ReadItem } from '../read.ts'
import type { RawPosting } from '../types.ts'
import { isObject, keyScore, type Sample, type Source } from './adapter.ts'
import { jsonRecords } from './json-records.ts'

type Job = Record<string, unknown>

/** The jobs a record holds: the `jobs` of a {"jobs": [...]} document, an array's elements, or the record itself. */
function jobsOf(value: unknown): unknown[] {
  if (isObject(value) && Array.isArray(value.jobs)) return value.jobs
  if (Array.isArray(value)) return value
  return [value]
}

/** The first jobs in the sample's records, for detection. */
export function sampleJobs(sample: Sample): Job[] {
  return sample.records.flatMap(jobsOf).filter(isObject).slice(0, 3)
}

/** The share of `keys` that appear as JSON keys (`"key":`) in the text: detection when no whole record fits in the sample. */
export function textKeyShare(text: string, keys: string[]) {
  return keys.filter((k) => new RegExp(`"${k}"\\s*:`).test(text)).length / keys.length
}

/**
 * How sure a board adapter is: a job must have every one of `required`; the share of
 * `typical` it has adds the rest. Without a whole job in the sample, the same test runs
 * on the text's JSON keys, a little less sure.
 */
export function boardScore(sample: Sample, required: string[], typical: string[]) {
  if (!sample.layout) return 0
  const jobs = sampleJobs(sample)
  if (jobs.length) {
    const scores = jobs.map((j) => (required.every((k) => k in j) ? 0.6 + 0.4 * keyScore(j, typical) : 0))
    return Math.max(...scores)
  }
  return textKeyShare(sample.text, required) === 1 ? 0.5 + 0.3 * textKeyShare(sample.text, typical) : 0
}

/**
 * Every job of a board feed mapped to a posting by `map`, which returns the posting or why
 * the job cannot be one. Numbered by line for JSON lines of jobs, else by the job's place in
 * the file (the n-th job of a {"jobs": [...]} document or an array).
 */
export async function* readBoardJobs(source: Source, map: (job: Job) => RawPosting | string): AsyncGenerator<ReadItem> {
  let ordinal = 0
  for await (const r of jsonRecords(source.open(), source.sample.layout)) {
    if ('error' in r) {
      yield { line: r.n, error: r.error }
      continue
    }
    const jobs = jobsOf(r.value)
    const byLine = source.sample.layout === 'lines' && jobs.length === 1 && jobs[0] === r.value
    for (const job of jobs) {
      ordinal++
      const line = byLine ? r.n : ordinal
      if (!isObject(job)) {
        yield { line, error: 'not a JSON object' }
        continue
      }
      const mapped = map(job)
      yield typeof mapped === 'string' ? { line, error: mapped } : { line, raw: mapped }
    }
  }
}

/** A string field, or undefined when it is missing or blank. */
export function text(v: unknown): string | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v)
  return typeof v === 'string' && v.trim() ? v.trim() : undefined
}

/** A positive number from a number or a numeric string, else undefined ("0" and "" say no amount). */
export function amount(v: unknown): number | undefined {
  const n = typeof v === 'string' && v.trim() ? Number(v.replace(/[, ]/g, '')) : v
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : undefined
}

/**
 * An ISO timestamp from epoch seconds or milliseconds (a number above 10^11 is milliseconds:
 * 10^11 seconds is the year 5138). e.g. 1692378089 -> "2023-08-18T17:01:29.000Z"
 */
export function isoFromEpoch(v: unknown): string | undefined {
  const n = typeof v === 'string' && /^\d+(?:\.\d+)?$/.test(v.trim()) ? Number(v) : v
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) return undefined
  const d = new Date(n > 1e11 ? n : n * 1000)
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString()
}

/**
 * A date the pipeline reads (ISO) from an RFC 2822 date as RSS feeds write it; ISO text passes as it is.
 * e.g. "Sat, 14 Feb 2026 23:39:15 +0000" -> "2026-02-14T23:39:15.000Z"
 */
export function isoFromDateText(v: unknown): string | undefined {
  const s = text(v)
  if (!s) return undefined
  if (/^\d{4}-\d{2}-\d{2}/.test(s)) return s
  const d = new Date(s)
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString()
}

/**
 * Undoes one level of HTML escaping, the one a JSON API applies to HTML it returns as text.
 * Each entity is decoded once, so an escaped entity stays an entity for the HTML parser:
 * e.g. "&lt;p&gt;R&amp;amp;D&lt;/p&gt;" -> "<p>R&amp;D</p>"; "A &amp;#8211; B" -> "A &#8211; B".
 */
export function unescapeHtml(s: string): string {
  return decodeHTMLStrict(s)
}

/** Text of an HTML fragment: tags dropped, entities decoded once, spaces collapsed. e.g. "Acme &amp; Co <i>(YC)</i>" -> "Acme & Co (YC)" */
export function htmlText(html: string): string {
  return unescapeHtml(html.replace(/<[^>]*>/g, ' ')).replace(/\s+/g, ' ').trim()
}

/**
 * A company name from a board URL's account token, when nothing else names it: the
 * path segment at `index`, words split on "-" and "_", each capitalized.
 * e.g. ("https://jobs.lever.co/acme-robotics/4b1c…", 0) -> "Acme Robotics"
 */
export function companyFromUrlToken(link: unknown, index: number, hosts: RegExp): string | undefined {
  const s = text(link)
  if (!s) return undefined
  try {
    const url = new URL(s)
    if (!hosts.test(url.hostname)) return undefined
    const token = decodeURIComponent(url.pathname.split('/').filter(Boolean)[index] ?? '')
    const words = token.split(/[-_\s]+/).filter(Boolean)
    return words.length ? words.map((w) => w[0].toUpperCase() + w.slice(1)).join(' ') : undefined
  } catch {
    return undefined
  }
}

export const NO_COMPANY = 'no company name in the data: name it with --company'
