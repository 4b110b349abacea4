/**
 * CSV rows are header-mapped onto the JSONL input shape. Headers are matched
 * case-insensitively after trimming; nested company fields use a `company_` prefix;
 * list columns (skills, technologies, benefits, job_categories, company_services,
 * company_industries, company_subindustries, locations) hold values separated by ';'
 * or '|'. Example header:
 *   job_title,company_name,location,salary,job_type,description,job_board,date_posted
 */
import type { RawCompany, RawPosting } from './types.ts'

const aliases: Record<string, string> = {
  title: 'job_title',
  position: 'job_title',
  company: 'company_name',
  employer: 'company_name',
  location: 'location_raw',
  url: 'application_link',
  apply_url: 'application_link',
  link: 'job_board_link',
  board: 'job_board',
  source: 'job_board',
  id: 'source_id',
  employment_type: 'job_type',
  workplace_type: 'location_type',
  remote: 'location_type',
  posted: 'date_posted',
  posted_at: 'date_posted',
  description_html: 'description',
  company_website: 'company_link',
  company_url: 'company_link',
  company_description: 'company_description_summary',
  company_size: 'company_size_range',
  company_industry: 'company_industries',
}

const listColumns = new Set(['skills', 'technologies', 'benefits', 'job_categories', 'locations'])
const companyListColumns = new Set(['services', 'industries', 'subindustries'])

const splitList = (v: string) =>
  v
    .split(/[;|]/)
    .map((s) => s.trim())
    .filter(Boolean)

export function canonicalHeader(h: string) {
  const k = h.trim().toLowerCase().replace(/[\s-]+/g, '_')
  return aliases[k] ?? k
}

export function csvRowToPosting(row: Record<string, string>): RawPosting {
  const posting: RawPosting = {}
  const company: RawCompany & Record<string, unknown> = {}
  const salary: Record<string, string> = {}
  const yoe: Record<string, string> = {}
  for (const [header, value] of Object.entries(row)) {
    if (value === undefined || value.trim() === '') continue
    const key = canonicalHeader(header)
    if (key.startsWith('company_')) {
      const field = key.slice('company_'.length)
      company[field] = companyListColumns.has(field) ? splitList(value) : value.trim()
    } else if (/^salary_(min|max|currency|period)$/.test(key)) salary[key.slice(7)] = value.trim()
    else if (/^yoe_(min|max)$/.test(key)) yoe[key.slice(4)] = value.trim()
    else posting[key] = listColumns.has(key) ? splitList(value) : value.trim()
  }
  if (Object.keys(salary).length) {
    posting.salary_range = {
      min: salary.min === undefined ? null : Number(salary.min.replace(/[, ]/g, '')),
      max: salary.max === undefined ? null : Number(salary.max.replace(/[, ]/g, '')),
      currency: salary.currency ?? null,
      period: salary.period ?? null,
    }
  }
  if (Object.keys(yoe).length) posting.yoe_range = { min: yoe.min === undefined ? null : Number(yoe.min), max: yoe.max === undefined ? null : Number(yoe.max) }
  if (Object.keys(company).length) posting.company = company
  return posting
}
