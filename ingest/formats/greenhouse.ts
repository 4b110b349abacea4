/**
 * Greenhouse job board API, as https://boards-api.greenhouse.io/v1/boards/<board>/jobs?content=true
 * returns it: {"jobs": [{id, title, absolute_url, location: {name}, content, departments,
 * offices, metadata, updated_at, first_published, company_name, …}], "meta": {…}}.
 * Also read: an array of such jobs, or one job (or one board document) per line.
 *
 * `content` is HTML escaped once more ("&lt;p&gt;"); it is unescaped once, so the HTML
 * the board shows is what the pipeline sanitizes. The company is --company, else the
 * data's company_name, else the board token of absolute_url
 * (https://boards.greenhouse.io/acme/jobs/1 -> "Acme").
 *
 * Metadata are the board's custom fields; those whose name says what they are fill the
 * posting: "Employment Type" -> job_type, "Workplace Type" / "Remote" -> location_type,
 * a currency range named "Salary …" / "Compensation …" / "Pay …" -> salary_range.
 */
import type { RawPosting } from '../types.ts'
import { isObject, type Adapter, type ReadOptions } from './adapter.ts'
import { boardScore, companyFromUrlToken, NO_COMPANY, readBoardJobs, text, unescapeHtml } from './board-feed.ts'

const BOARD_HOSTS = /(?:^|\.)greenhouse\.io$/i

type Metadata = { name?: unknown; value?: unknown; value_type?: unknown }

/** What a board's custom fields say, by their names. e.g. {name: "Employment Type", value: "Full-time"} -> job_type "Full-time" */
function fromMetadata(list: unknown): Partial<RawPosting> {
  const out: Partial<RawPosting> = {}
  if (!Array.isArray(list)) return out
  for (const m of list.filter(isObject) as Metadata[]) {
    const name = text(m.name)?.toLowerCase() ?? ''
    const v = m.value
    const value = Array.isArray(v) ? v.map(text).filter(Boolean).join(', ') : typeof v === 'boolean' ? v : text(v)
    if (/employment|job type|time type|commitment/.test(name) && typeof value === 'string') out.job_type ??= value
    else if (/workplace|location type|work (?:arrangement|model|type|location)/.test(name) && typeof value === 'string') out.location_type ??= value
    else if (/\bremote\b/.test(name) && (value === true || (typeof value === 'string' && /^(?:yes|true)$/i.test(value)))) out.location_type ??= 'Remote'
    else if (/salary|compensation|\bpay\b|wage/.test(name) && isObject(v)) {
      // currency_range: {unit, min_value, max_value}; currency: {unit, amount}
      const min = v.min_value ?? v.amount
      const max = v.max_value ?? v.amount
      if (min !== undefined || max !== undefined) out.salary_range ??= { min: min ?? null, max: max ?? null, currency: v.unit ?? null, period: text(m.name) ?? null }
    } else if (/salary|compensation|\bpay\b|wage/.test(name) && typeof value === 'string') out.salary ??= value
  }
  return out
}

/** pay_input_ranges (the pay transparency ranges a job shows): the first, from cents. */
function payRange(list: unknown): RawPosting['salary_range'] {
  const r = Array.isArray(list) ? list.find(isObject) : undefined
  if (!r || (typeof r.min_cents !== 'number' && typeof r.max_cents !== 'number')) return undefined
  const dollars = (c: unknown) => (typeof c === 'number' ? c / 100 : null)
  return { min: dollars(r.min_cents), max: dollars(r.max_cents), currency: r.currency_type ?? null, period: text(r.title) ?? null }
}

export function greenhouseJob(job: Record<string, unknown>, options: ReadOptions): RawPosting | string {
  const company = text(options.company) ?? text(job.company_name) ?? companyFromUrlToken(job.absolute_url, 0, BOARD_HOSTS)
  if (!company) return NO_COMPANY
  const location = isObject(job.location) ? text(job.location.name) : text(job.location)
  const offices = Array.isArray(job.offices) ? job.offices.filter(isObject).map((o) => text(o.location) ?? text(o.name)).filter((o): o is string => !!o) : []
  const departments = Array.isArray(job.departments) ? job.departments.filter(isObject).map((d) => text(d.name)).filter(Boolean) : []
  const content = typeof job.content === 'string' ? unescapeHtml(job.content) : undefined
  const meta = fromMetadata(job.metadata)
  const link = text(job.absolute_url)
  return {
    source_id: text(job.id),
    job_board: 'Greenhouse',
    job_board_link: link,
    application_link: link,
    job_title: job.title,
    description: content,
    location_raw: location,
    // the offices only when the job names no location: an office list is the company's, not always the job's
    locations: location ? undefined : offices.length ? offices : undefined,
    team: departments[0],
    date_posted: text(job.first_published) ?? text(job.updated_at),
    language: text(job.language),
    ...meta,
    salary_range: payRange(job.pay_input_ranges) ?? meta.salary_range,
    company: { name: company },
  }
}

export const greenhouse: Adapter = {
  name: 'greenhouse',
  summary: 'Greenhouse job board API JSON ({"jobs": [...]} from boards-api.greenhouse.io); the company from --company, company_name or the board token',
  detect: (s) => boardScore(s, ['absolute_url'], ['content', 'internal_job_id', 'updated_at', 'location', 'requisition_id', 'metadata', 'departments', 'offices']),
  read: (source, options) => readBoardJobs(source, (job) => greenhouseJob(job, options)),
}
