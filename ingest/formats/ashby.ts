/**
 * Ashby job board API, as https://api.ashbyhq.com/posting-api/job-board/<board>?includeCompensation=true
 * returns it: {"jobs": [{id, title, department, team, employmentType, location, secondaryLocations,
 * isRemote, workplaceType, address: {postalAddress: {addressLocality, addressRegion, addressCountry}},
 * publishedAt, jobUrl, applyUrl, descriptionHtml, descriptionPlain, compensation}]}.
 * Also read: an array of such jobs, or one job per line.
 *
 * Places: the postal addresses (primary, then each secondary location's), as {city, region,
 * country}; `location` stays the raw text. Salary: the first salary component of
 * compensation.summaryComponents ({minValue, maxValue, currencyCode, interval: "1 YEAR"}), else the
 * tier summary as text ("$81K – $87K • Offers Equity"); an equity component or "Equity" in the
 * summary sets offers_equity. The company is --company, else the board name in jobUrl
 * (https://jobs.ashbyhq.com/acme/… -> "Acme").
 */
import type { RawPosting, SalaryPeriod } from '../types.ts'
import { isObject, type Adapter, type ReadOptions } from './adapter.ts'
import { boardScore, companyFromUrlToken, NO_COMPANY, readBoardJobs, text } from './board-feed.ts'

const BOARD_HOSTS = /(?:^|\.)ashbyhq\.com$/i

/** compensation intervals ("1 YEAR", "1 HOUR"); "NONE" (equity, one-off bonuses) has no period. */
const INTERVALS: [RegExp, SalaryPeriod][] = [[/YEAR/i, 'yearly'], [/MONTH/i, 'monthly'], [/WEEK/i, 'weekly'], [/DAY/i, 'daily'], [/HOUR/i, 'hourly']]

/** {city, region, country} from a postal address, or the location's text when it has none. */
function place(address: unknown, fallback: unknown) {
  const a = isObject(address) && isObject(address.postalAddress) ? address.postalAddress : null
  const p = a ? { city: text(a.addressLocality), region: text(a.addressRegion), country: text(a.addressCountry) } : null
  return p && (p.city || p.region || p.country) ? p : text(fallback)
}

function compensation(c: unknown): Pick<RawPosting, 'salary_range' | 'salary' | 'offers_equity'> {
  if (!isObject(c)) return {}
  const components = Array.isArray(c.summaryComponents) ? c.summaryComponents.filter(isObject) : []
  const summary = text(c.compensationTierSummary) ?? text(c.scrapeableCompensationSalarySummary)
  const equity = components.some((x) => /equity/i.test(text(x.compensationType) ?? '')) || (summary ? /equity/i.test(summary) : false)
  const salary = components.find((x) => /salary|hourly|wage/i.test(text(x.compensationType) ?? '') && (x.minValue != null || x.maxValue != null))
  const interval = salary ? text(salary.interval) ?? '' : ''
  return {
    salary_range: salary
      ? { min: salary.minValue ?? null, max: salary.maxValue ?? null, currency: salary.currencyCode ?? null, period: INTERVALS.find(([re]) => re.test(interval))?.[1] ?? null }
      : undefined,
    salary: salary ? undefined : summary,
    offers_equity: equity || undefined,
  }
}

export function ashbyJob(job: Record<string, unknown>, options: ReadOptions): RawPosting | string {
  const company = text(options.company) ?? companyFromUrlToken(job.jobUrl, 0, BOARD_HOSTS) ?? companyFromUrlToken(job.applyUrl, 0, BOARD_HOSTS)
  if (!company) return NO_COMPANY
  const secondary = Array.isArray(job.secondaryLocations) ? job.secondaryLocations.filter(isObject).map((l) => place(l.address, l.location)) : []
  const locations = [place(job.address, job.location), ...secondary].filter(Boolean)
  const workplace = text(job.workplaceType)
  return {
    source_id: text(job.id),
    job_board: 'Ashby',
    job_board_link: text(job.jobUrl),
    application_link: text(job.applyUrl),
    job_title: job.title,
    description: text(job.descriptionHtml) ?? text(job.descriptionPlain),
    location_raw: text(job.location),
    locations: locations.length ? locations : undefined,
    location_type: workplace ?? (job.isRemote === true ? 'Remote' : undefined),
    job_type: text(job.employmentType),
    team: text(job.team) ?? text(job.department),
    date_posted: text(job.publishedAt),
    ...compensation(job.compensation),
    company: { name: company },
  }
}

export const ashby: Adapter = {
  name: 'ashby',
  summary: 'Ashby job board API JSON ({"jobs": [...]} from api.ashbyhq.com/posting-api/job-board/<board>); the company from --company or the jobUrl\'s board',
  detect: (s) =>
    Math.max(
      boardScore(s, ['jobUrl'], ['descriptionHtml', 'publishedAt', 'isRemote', 'employmentType', 'isListed', 'secondaryLocations', 'applyUrl']),
      boardScore(s, ['descriptionHtml'], ['publishedAt', 'isRemote', 'employmentType', 'isListed', 'secondaryLocations', 'applyUrl']),
    ),
  read: (source, options) => readBoardJobs(source, (job) => ashbyJob(job, options)),
}
