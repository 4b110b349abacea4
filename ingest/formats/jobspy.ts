/**
 * Scraper CSV as JobSpy (github.com/speedyapply/JobSpy) writes it, one posting a row, columns:
 * id, site, job_url, job_url_direct, title, company, location, date_posted, job_type,
 * salary_source, interval, min_amount, max_amount, currency, is_remote, job_level, job_function,
 * listing_type, emails, description, company_industry, company_url, company_logo,
 * company_url_direct, company_addresses, company_num_employees, company_revenue,
 * company_description, and for Naukri skills, experience_range, company_rating,
 * company_reviews_count, vacancy_count, work_from_home_type. Other columns are ignored.
 *
 * `site` is the board (indeed -> Indeed, zip_recruiter -> ZipRecruiter); `interval` is the
 * period of min_amount/max_amount. Descriptions are markdown by default (JobSpy's
 * description_format) and pass as they are, or are missing on some boards' rows.
 * company_url is the company's page on the board (a LinkedIn one becomes linkedin_link);
 * company_url_direct is the company's own site. Values the pipeline would reject a whole
 * row for are passed only in the forms it reads: a head count such as "1,001 to 5,000" or
 * "10,000+", an experience range such as "3-8 Yrs".
 *
 * What JobSpy's columns mean, from its source (jobspy/__init__.py and each site's scraper):
 * - is_remote is true on Indeed, LinkedIn, Google and Naukri whenever "remote", "work from home"
 *   or "wfh" appears anywhere in the title, location or description ("not a remote role",
 *   "Remote Patient Monitoring"); only Glassdoor's comes from the board's own field (locationType
 *   "S"). So Glassdoor's is_remote is Remote, and elsewhere the arrangement is what the
 *   description states (transform/location-type.ts, statedLocationType), the location and the
 *   title; Naukri's work_from_home_type is inferred the same loose way and read likewise.
 * - job_type is the board's types joined with ", " ("fulltime, parttime"); the first that maps wins.
 * - min_amount, max_amount, interval and currency are the board's figures when salary_source is
 *   "direct_data". With salary_source "description" JobSpy found a "$X - $Y" in the description
 *   and guessed its period from the amount (under 350 hourly, under 30,000 monthly): "$25,000 -
 *   $30,000 a year" becomes monthly. Those rows pass no salary_range, and the pipeline reads the
 *   pay as the description states it.
 * - location is "City, ST, Country" (Indeed's country code "US", others "USA", "Canada").
 */
import { readCsv } from '../read.ts'
import type { RawPosting } from '../types.ts'
import { keyScore, type Adapter, type ReadOptions } from './adapter.ts'
import { boardFromUrl } from './board-name.ts'
import { statedLocationType } from '../transform/location-type.ts'

/** JobSpy's site names (its Site enum) as board names; another site is title-cased ("bdjobs" -> "Bdjobs"). */
const SITES: Record<string, string> = {
  indeed: 'Indeed', linkedin: 'LinkedIn', glassdoor: 'Glassdoor', zip_recruiter: 'ZipRecruiter', ziprecruiter: 'ZipRecruiter',
  google: 'Google Jobs', bayt: 'Bayt', naukri: 'Naukri', bdjobs: 'Bdjobs',
}

const JOBSPY_COLUMNS = ['site', 'job_url', 'job_url_direct', 'min_amount', 'max_amount', 'interval', 'is_remote', 'salary_source', 'company_url_direct', 'job_level']

const HEAD_COUNT = /^\s*\d[\d,.]*\s*(?:\+|(?:-|–|to)\s*\d[\d,.]*)?\s*(?:employees)?\s*$/i
const YEARS = /^\s*\d{1,2}\s*(?:\+|(?:-|–|to)\s*\d{1,2})?\s*(?:years?|yrs?)?\s*$/i

const value = (v: string | undefined) => (v !== undefined && v.trim() && v.trim().toLowerCase() !== 'nan' ? v.trim() : undefined)

function board(site: string | undefined, jobUrl: string | undefined) {
  if (site) return SITES[site.toLowerCase()] ?? site.split(/[_\s]+/).map((w) => w[0].toUpperCase() + w.slice(1)).join(' ')
  return boardFromUrl(jobUrl) ?? undefined
}

export function jobspyRow(row: Record<string, string>, options: ReadOptions = {}): RawPosting {
  const get = (k: string) => value(row[k])
  const min = get('min_amount')
  const max = get('max_amount')
  const remote = get('is_remote')?.toLowerCase()
  const site = get('site')?.toLowerCase()
  const description = get('description')
  const fromDescription = get('salary_source')?.toLowerCase() === 'description'
  const companyUrl = get('company_url')
  const size = get('company_num_employees')
  const years = get('experience_range')
  return {
    source_id: get('id'),
    job_board: board(get('site'), get('job_url')),
    job_board_link: get('job_url'),
    application_link: get('job_url_direct'),
    job_title: get('title'),
    description,
    location_raw: get('location'),
    location_type: site === 'glassdoor' && (remote === 'true' || remote === '1') ? 'Remote' : (description && statedLocationType(description)) || undefined,
    job_type: get('job_type'),
    salary_range: (min || max) && !fromDescription ? { min: min ?? null, max: max ?? null, currency: get('currency') ?? null, period: get('interval') ?? null } : undefined,
    experience_level: get('job_level'),
    yoe_range: years && YEARS.test(years) ? years : undefined,
    skills: get('skills'),
    date_posted: get('date_posted'),
    contact_email: get('emails')?.split(/[,;\s]+/).find((e) => e.includes('@')),
    company: {
      name: get('company') ?? text(options.company),
      link: get('company_url_direct'),
      linkedin_link: companyUrl && /linkedin\.com/i.test(companyUrl) ? companyUrl : undefined,
      logo: get('company_logo'),
      industries: get('company_industry'),
      size_range: size && HEAD_COUNT.test(size) ? size : undefined,
      description_summary: get('company_description'),
    },
  }
}

const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined)

/** The header row's column names, lower-cased and unquoted. */
function headerColumns(sampleText: string) {
  const header = sampleText.split(/\r?\n/, 1)[0].toLowerCase()
  return header.split(',').map((c) => c.trim().replace(/^"|"$/g, ''))
}

export const jobspy: Adapter = {
  name: 'jobspy',
  summary: 'scraper CSV as JobSpy writes it (site, job_url, title, company, location, min_amount, max_amount, interval, …)',
  detect: (s) => {
    if (s.layout) return 0
    const columns = headerColumns(s.text)
    if (!columns.includes('site') || !columns.includes('job_url') || !columns.includes('title')) return 0
    return 0.5 + 0.5 * keyScore(Object.fromEntries(columns.map((c) => [c, 1])), JOBSPY_COLUMNS)
  },
  read: (source, options) => readCsv(source.open(), (row) => jobspyRow(row, options)),
}
