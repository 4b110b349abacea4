/**
 * JobSpy's scraper CSV: recognized by its header without --format, each row mapped to a
 * RawPosting (board from `site`, salary from min/max_amount and `interval`), and ingested.
 */
import anyTest, { type TestFn } from 'ava'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { openFeed } from '../../ingest/formats/index.ts'
import { jobspyRow } from '../../ingest/formats/jobspy.ts'
import { ingest } from '../../ingest/pipeline.ts'
import type { ReadItem } from '../../ingest/read.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'

const test = anyTest as TestFn<{ db: TestDb; dir: string }>

test.before(async (t) => {
  t.context = { db: await testDatabase(), dir: fs.mkdtempSync(path.join(os.tmpdir(), 'jobspy-test-')) }
})
test.after.always(async (t) => {
  await t.context.db?.close()
  fs.rmSync(t.context.dir, { recursive: true, force: true })
})

const now = new Date('2026-11-20T12:00:00Z')

// JobSpy's columns, in its order (jobs.to_csv(quoting=csv.QUOTE_NONNUMERIC, index=False))
const COLUMNS = [
  'id', 'site', 'job_url', 'job_url_direct', 'title', 'company', 'location', 'date_posted', 'job_type', 'salary_source', 'interval',
  'min_amount', 'max_amount', 'currency', 'is_remote', 'job_level', 'job_function', 'listing_type', 'emails', 'description',
  'company_industry', 'company_url', 'company_logo', 'company_url_direct', 'company_addresses', 'company_num_employees',
  'company_revenue', 'company_description', 'skills', 'experience_range', 'company_rating', 'company_reviews_count',
  'vacancy_count', 'work_from_home_type',
]

/** A CSV as Python's csv module writes it with QUOTE_NONNUMERIC: text quoted (quotes doubled), numbers bare, missing values as "". */
function jobspyCsv(rows: Record<string, string | number | boolean>[]) {
  // pandas writes the amount columns as floats ("150000.0")
  const cell = (v: string | number | boolean | undefined, c: string) =>
    typeof v === 'number' ? (c.endsWith('_amount') && Number.isInteger(v) ? v.toFixed(1) : String(v))
      : typeof v === 'boolean' ? (v ? 'True' : 'False')
      : `"${(v ?? '').replace(/"/g, '""')}"`
  return [COLUMNS.map((c) => `"${c}"`).join(','), ...rows.map((r) => COLUMNS.map((c) => cell(r[c], c)).join(','))].join('\n') + '\n'
}

const indeed = {
  id: 'in-7f3a9c2b1d4e5f60', site: 'indeed', job_url: 'https://www.indeed.com/viewjob?jk=7f3a9c2b1d4e5f60',
  job_url_direct: 'https://careers.acme-robotics.example/jobs/4411', title: 'Senior Backend Engineer', company: 'Acme Robotics',
  location: 'Austin, TX, US', date_posted: '2026-11-12', job_type: 'fulltime', salary_source: 'direct_data', interval: 'yearly',
  min_amount: 150000.0, max_amount: 185000.5, currency: 'USD', is_remote: false, emails: 'jobs@acme-robotics.example',
  description: '**About Acme**\n\nWe build warehouse robots.\n\n**What you will do**\n\n* Design services in Go and PostgreSQL\n* Mentor two engineers\n\n5+ years of backend experience.',
  company_url: 'https://www.indeed.com/cmp/Acme-Robotics', company_logo: 'https://d2q79iu7y748jz.cloudfront.net/s/_squarelogo/acme.png',
  company_url_direct: 'https://acme-robotics.example', company_addresses: '500 W 2nd St, Austin, TX 78701', company_num_employees: '501 to 1,000',
  company_revenue: '$100M to $500M (USD)', company_description: 'Warehouse robots for mid-size retailers.',
}
const linkedin = {
  id: 'li-4123456789', site: 'linkedin', job_url: 'https://www.linkedin.com/jobs/view/4123456789', title: 'Data Analyst (Contract)',
  company: 'Northwind Traders', location: 'Denver, CO, US', date_posted: '2026-11-15', job_type: 'contract', is_remote: true,
  job_level: 'mid-senior level', job_function: 'Analyst', company_industry: 'Retail',
  company_url: 'https://www.linkedin.com/company/northwind-traders',
  description: 'Northwind is hiring a data analyst for a six-month contract. This is a fully remote role.\n\n- SQL and Looker dashboards\n- Weekly reports for the buying team',
}
const zip = {
  id: 'zr-b8c1d2e3f4', site: 'zip_recruiter', job_url: 'https://www.ziprecruiter.com/c/Contoso-Cafe/Job/Barista/-in-Portland,OR?jid=b8c1d2e3f4',
  title: 'Barista - Part Time', company: 'Contoso Cafe', location: 'Portland, OR, US', date_posted: '2026-11-18', job_type: 'parttime',
  salary_source: 'direct_data', interval: 'hourly', min_amount: 18.5, max_amount: 22.0, currency: 'USD', is_remote: false,
  description: 'Pull espresso shots and keep the bar clean. Weekend shifts.',
}
// Naukri's extra columns; a head count the pipeline cannot read is left out instead of failing the row
const naukri = {
  id: 'nk-150125009876', site: 'naukri', job_url: 'https://www.naukri.com/job-listings-python-developer-150125009876', title: 'Python Developer',
  company: 'Infosys', location: 'Bengaluru', date_posted: '2026-11-10', description: 'Build APIs in Python and SQL. Hybrid (3 days in office) in Bengaluru.',
  skills: 'Python, Django, SQL', experience_range: '3-8 Yrs', work_from_home_type: 'Hybrid', company_num_employees: 'Self-employed',
  company_rating: 3.7, company_reviews_count: 41000, vacancy_count: 4,
}
// Glassdoor rows often come without a description; the rest is still a posting
const glassdoor = {
  id: 'gd-1009512345678', site: 'glassdoor', job_url: 'https://www.glassdoor.com/job-listing/j?jl=1009512345678', title: 'Registered Nurse',
  company: 'Fabrikam Health', location: 'Columbus, OH', date_posted: '2026-11-16', job_type: 'fulltime', interval: 'yearly',
  min_amount: 72000, max_amount: 91000, currency: 'USD', is_remote: false,
}

// Each board as JobSpy writes it, from its scrapers: is_remote is true on Indeed, LinkedIn, Google
// and Naukri whenever the word "remote" appears; only Glassdoor's is the board's own field.
const indeedNotRemote = {
  id: 'in-0a1b2c3d4e5f6071', site: 'indeed', job_url: 'https://www.indeed.com/viewjob?jk=0a1b2c3d4e5f6071', title: 'Telemetry Nurse',
  company: 'Fabrikam Health', location: 'Columbus, OH, US', date_posted: '2026-11-14', job_type: 'fulltime, parttime', is_remote: true,
  description: 'Monitor telemetry and Remote Patient Monitoring alerts. This is not a remote position.',
  company_num_employees: '10,000+', company_industry: 'Hospitals & Health Care',
}
const indeedRemoteWord = {
  id: 'in-1b2c3d4e5f607182', site: 'indeed', job_url: 'https://www.indeed.com/viewjob?jk=1b2c3d4e5f607182', title: 'Field Technician',
  company: 'Contoso Energy', location: 'Tulsa, OK, US', date_posted: '2026-11-14', job_type: 'perdiem', is_remote: true,
  description: 'Service remote-controlled pumps at well sites across the county.',
}
const glassdoorRemote = {
  id: 'gd-2002', site: 'glassdoor', job_url: 'https://www.glassdoor.com/job-listing/j?jl=2002', title: 'Customer Success Manager',
  company: 'Tailspin', date_posted: '2026-11-16', job_type: 'fulltime', is_remote: true, description: 'Own a book of accounts.',
}
// pay found by JobSpy in the description: "$25,000 - $30,000 a year" guessed monthly (under 30,000)
const googleDescriptionPay = {
  id: 'go-3003', site: 'google', job_url: 'https://www.google.com/search?q=jobs&ibp=htl;jobs#htidocid=3003', title: 'Teaching Assistant',
  company: 'Lakeside School District', location: 'Seattle, WA, USA', date_posted: '2026-11-17', job_type: 'volunteer',
  salary_source: 'description', interval: 'monthly', min_amount: 25000, max_amount: 30000, currency: 'USD', is_remote: false,
  description: 'Support classroom teachers. Pay: $25,000 - $30,000 a year.',
}

function write(name: string, text: string, dir: string) {
  const file = path.join(dir, name)
  fs.writeFileSync(file, text)
  return file
}

async function readAll(file: string, opts: { company?: string } = {}) {
  const feed = await openFeed(file, opts)
  const items: ReadItem[] = []
  for await (const item of feed.items) items.push(item)
  return { adapter: feed.adapter.name, items, raws: items.flatMap((i) => ('raw' in i ? [i.raw] : [])) }
}

test('a JobSpy CSV is recognized by its header, whatever the file is called', async (t) => {
  const file = write('scrape-2026-11-20.txt', jobspyCsv([indeed, linkedin]), t.context.dir)
  const { adapter, raws } = await readAll(file)
  t.is(adapter, 'jobspy')
  t.is(raws.length, 2)
  // the project's own CSV is still the project's
  const own = write('own.csv', 'job_title,company_name,description,job_board\nEngineer,Acme,Builds robots,Acme Careers\n', t.context.dir)
  t.is((await readAll(own)).adapter, 'csv')
})

test('a row maps to the posting shape: board from site, salary from the amounts and interval, company fields', async (t) => {
  const file = write('rows.csv', jobspyCsv([indeed, linkedin, naukri, glassdoor]), t.context.dir)
  const { raws } = await readAll(file)
  t.deepEqual(raws[0], {
    source_id: 'in-7f3a9c2b1d4e5f60',
    job_board: 'Indeed',
    job_board_link: 'https://www.indeed.com/viewjob?jk=7f3a9c2b1d4e5f60',
    application_link: 'https://careers.acme-robotics.example/jobs/4411',
    job_title: 'Senior Backend Engineer',
    description: indeed.description,
    location_raw: 'Austin, TX, US',
    location_type: undefined,
    job_type: 'fulltime',
    salary_range: { min: '150000.0', max: '185000.5', currency: 'USD', period: 'yearly' },
    experience_level: undefined,
    yoe_range: undefined,
    skills: undefined,
    date_posted: '2026-11-12',
    contact_email: 'jobs@acme-robotics.example',
    company: {
      name: 'Acme Robotics',
      link: 'https://acme-robotics.example',
      linkedin_link: undefined,
      logo: 'https://d2q79iu7y748jz.cloudfront.net/s/_squarelogo/acme.png',
      industries: undefined,
      size_range: '501 to 1,000',
      description_summary: 'Warehouse robots for mid-size retailers.',
    },
  })
  t.like(raws[1], { job_board: 'LinkedIn', location_type: 'Remote', experience_level: 'mid-senior level', company: { name: 'Northwind Traders', linkedin_link: 'https://www.linkedin.com/company/northwind-traders', industries: 'Retail' } })
  t.like(raws[2], { job_board: 'Naukri', location_type: 'Hybrid', skills: 'Python, Django, SQL', yoe_range: '3-8 Yrs', company: { size_range: undefined } })
  t.like(raws[3], { job_board: 'Glassdoor', description: undefined, salary_range: { min: '72000.0', max: '91000.0', currency: 'USD', period: 'yearly' } })
})

test('an unknown site is named after itself; the company falls back to --company', (t) => {
  t.like(jobspyRow({ site: 'bayt', title: 'Accountant', company: '', job_url: 'https://www.bayt.com/en/uae/jobs/accountant-1/' }, { company: 'Contoso' }), {
    job_board: 'Bayt',
    company: { name: 'Contoso' },
  })
  t.is(jobspyRow({ site: 'new_board', title: 'x' }).job_board, 'New Board')
})

test('per board: is_remote only where the board states it, joined job types, pay stated only in the description', async (t) => {
  const file = write('boards.csv', jobspyCsv([indeedNotRemote, indeedRemoteWord, glassdoorRemote, googleDescriptionPay]), t.context.dir)
  const { raws } = await readAll(file)
  t.like(raws[0], { job_board: 'Indeed', location_type: 'In-Person', job_type: 'fulltime, parttime', location_raw: 'Columbus, OH, US', company: { size_range: '10,000+', industries: 'Hospitals & Health Care' } })
  t.like(raws[1], { location_type: undefined, job_type: 'perdiem' })
  t.like(raws[2], { job_board: 'Glassdoor', location_type: 'Remote' })
  t.like(raws[3], { job_board: 'Google Jobs', salary_range: undefined, location_raw: 'Seattle, WA, USA' })

  const { sql } = t.context.db
  const rejected: string[] = []
  await ingest(sql, (await openFeed(file)).items, { source: file, now, onRejected: (line, reason) => rejected.push(`${line}: ${reason}`) })
  t.deepEqual(rejected, [])
  const rows = await sql`
    select j.job_title, j.location_type, j.job_type, j.salary_min::float8 as min, j.salary_max::float8 as max, j.salary_period,
           array(select l.country from job_locations l where l.job_id = j.id order by l.position) as countries
    from jobs j where j.job_title in ('Telemetry Nurse', 'Field Technician', 'Customer Success Manager', 'Teaching Assistant')`
  const by = Object.fromEntries(rows.map((r) => [r.job_title, r]))
  t.like(by['Telemetry Nurse'], { location_type: 'In-Person', job_type: 'Full Time', countries: ['United States'] })
  t.like(by['Field Technician'], { location_type: null, job_type: 'Contract / Temporary' })
  t.like(by['Customer Success Manager'], { location_type: 'Remote', job_type: 'Full Time' })
  t.like(by['Teaching Assistant'], { job_type: null, min: 25000, max: 30000, salary_period: 'yearly', countries: ['United States'] })
})

test('JobSpy rows land as jobs: board, company, places, arrangement, salary, job type, dates', async (t) => {
  const { sql } = t.context.db
  const file = write('land.csv', jobspyCsv([indeed, linkedin, zip]), t.context.dir)
  const feed = await openFeed(file)
  const rejected: string[] = []
  const summary = await ingest(sql, feed.items, { source: file, now, onRejected: (line, reason) => rejected.push(`${line}: ${reason}`) })
  t.deepEqual(rejected, [])
  t.is(summary.inserted, 3)
  const rows = await sql`
    select j.job_title, c.name as company, j.job_board, j.location_type, j.job_type, j.salary_min::float8 as min, j.salary_max::float8 as max,
           j.salary_currency, j.salary_period, j.salary_annual_min::float8 as annual_min, j.date_posted::text, j.application_link, j.expired,
           array(select l.city || ', ' || l.region || ', ' || l.country from job_locations l where l.job_id = j.id order by l.position) as places
    from jobs j join companies c on c.id = j.company_id
    where j.job_board in ('Indeed', 'LinkedIn', 'ZipRecruiter') and c.name in ('Acme Robotics', 'Northwind Traders', 'Contoso Cafe') order by j.job_board`
  t.like(rows[0], {
    job_title: 'Senior Backend Engineer', company: 'Acme Robotics', job_board: 'Indeed', location_type: null, job_type: 'Full Time',
    min: 150000, max: 185000.5, salary_currency: 'USD', salary_period: 'yearly', annual_min: 150000, date_posted: '2026-11-12',
    application_link: 'https://careers.acme-robotics.example/jobs/4411', expired: false,
  })
  t.deepEqual(rows[0].places, ['Austin, Texas, United States'])
  t.like(rows[1], { company: 'Northwind Traders', job_board: 'LinkedIn', location_type: 'Remote', job_type: 'Contract / Temporary', min: null, date_posted: '2026-11-15' })
  t.like(rows[2], { company: 'Contoso Cafe', job_board: 'ZipRecruiter', job_type: 'Part Time', min: 18.5, max: 22, salary_period: 'hourly', annual_min: 38480 })
  t.deepEqual(rows[2].places, ['Portland, Oregon, United States'])

  // the same file again changes nothing
  const again = await ingest(sql, (await openFeed(file)).items, { source: file, now: new Date(now.getTime() + 3600_000) })
  t.like(again, { inserted: 0, updated: 0, unchanged: 3, rejected: 0 })
})
