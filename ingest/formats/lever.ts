/**
 * Lever postings API, as https://api.lever.co/v0/postings/<account>?mode=json returns it: a JSON
 * array of postings {id, text, categories: {commitment, location, team, department, allLocations},
 * workplaceType, salaryRange: {min, max, currency, interval}, hostedUrl, applyUrl, createdAt (ms),
 * description, descriptionPlain, lists: [{text, content}], additional, country}. One posting
 * per line is read too.
 *
 * The description is the posting page's: the description, then each list as a heading and
 * its items, then `additional`. The company is --company, else the account in hostedUrl
 * (https://jobs.lever.co/acme-robotics/… -> "Acme Robotics").
 */
import { countries } from 'countries-list'
import type { RawPosting, SalaryPeriod } from '../types.ts'
import { isObject, type Adapter, type ReadOptions } from './adapter.ts'
import { boardScore, companyFromUrlToken, isoFromEpoch, NO_COMPANY, readBoardJobs, text } from './board-feed.ts'

const BOARD_HOSTS = /(?:^|\.)lever\.co$/i

/** salaryRange.interval values; "one-time" has no period. */
const INTERVALS: Record<string, SalaryPeriod> = {
  'per-year-salary': 'yearly', 'per-month-salary': 'monthly', 'per-week-salary': 'weekly', 'per-day-wage': 'daily', 'per-hour-wage': 'hourly',
}

/** The page's HTML: description, then "lists" ({text: heading, content: "<li>…</li>"}), then additional. */
function descriptionHtml(p: Record<string, unknown>): string | undefined {
  const lists = Array.isArray(p.lists)
    ? p.lists.filter(isObject).map((l) => `<h3>${text(l.text) ?? ''}</h3><ul>${typeof l.content === 'string' ? l.content : ''}</ul>`)
    : []
  const body = text(p.description) ?? [text(p.opening), text(p.descriptionBody)].filter(Boolean).join('\n')
  const parts = [body, ...lists, text(p.additional)].filter(Boolean)
  return parts.length ? parts.join('\n') : text(p.descriptionPlain)
}

export function leverPosting(p: Record<string, unknown>, options: ReadOptions): RawPosting | string {
  const company = text(options.company) ?? companyFromUrlToken(p.hostedUrl, 0, BOARD_HOSTS) ?? companyFromUrlToken(p.applyUrl, 0, BOARD_HOSTS)
  if (!company) return NO_COMPANY
  const c = isObject(p.categories) ? p.categories : {}
  const all = Array.isArray(c.allLocations) ? c.allLocations.map(text).filter((l): l is string => !!l) : []
  const workplace = text(p.workplaceType)
  let location = text(c.location)
  // a remote posting located only as "Remote" is scoped by its country code: "CA" -> "Remote - Canada"
  const code = text(p.country)?.toUpperCase()
  const country = code && code in countries ? countries[code as keyof typeof countries].name : undefined
  if (workplace === 'remote' && country && (!location || /^remote$/i.test(location))) location = `Remote - ${country}`
  const s = isObject(p.salaryRange) ? p.salaryRange : null
  const interval = s ? text(s.interval) : undefined
  return {
    source_id: text(p.id),
    job_board: 'Lever',
    job_board_link: text(p.hostedUrl),
    application_link: text(p.applyUrl),
    job_title: p.text,
    description: descriptionHtml(p),
    location_raw: location,
    locations: all.length ? all : undefined,
    location_type: workplace && workplace !== 'unspecified' ? workplace : undefined,
    job_type: text(c.commitment),
    team: text(c.team) ?? text(c.department),
    salary_range: s && (s.min != null || s.max != null) ? { min: s.min ?? null, max: s.max ?? null, currency: s.currency ?? null, period: interval ? (INTERVALS[interval] ?? null) : null } : undefined,
    date_posted: isoFromEpoch(p.createdAt),
    company: { name: company },
  }
}

export const lever: Adapter = {
  name: 'lever',
  summary: 'Lever postings API JSON (an array from api.lever.co/v0/postings/<account>); the company from --company or the hostedUrl\'s account',
  detect: (s) => boardScore(s, ['hostedUrl', 'categories'], ['text', 'applyUrl', 'createdAt', 'descriptionPlain', 'lists', 'workplaceType', 'additional']),
  read: (source, options) => readBoardJobs(source, (p) => leverPosting(p, options)),
}
