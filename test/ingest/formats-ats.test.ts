/**
 * ATS job-board JSON (Greenhouse, Lever, Ashby) as their public APIs return it: each recognized
 * without --format (also a board too large for one job to fit in the detection sample), mapped to
 * RawPostings (company from --company, the data or the board URL) and ingested.
 */
import anyTest, { type TestFn } from 'ava'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { ashby } from '../../ingest/formats/ashby.ts'
import { greenhouse } from '../../ingest/formats/greenhouse.ts'
import { lever } from '../../ingest/formats/lever.ts'
import { openFeed, readSample } from '../../ingest/formats/index.ts'
import { unescapeHtml } from '../../ingest/formats/board-feed.ts'
import { ingest } from '../../ingest/pipeline.ts'
import type { ReadItem } from '../../ingest/read.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'

const test = anyTest as TestFn<{ db: TestDb; dir: string }>

test.before(async (t) => {
  t.context = { db: await testDatabase(), dir: fs.mkdtempSync(path.join(os.tmpdir(), 'ats-test-')) }
})
test.after.always(async (t) => {
  await t.context.db?.close()
  fs.rmSync(t.context.dir, { recursive: true, force: true })
})

const now = new Date('2026-11-20T12:00:00Z')

function write(dir: string, name: string, value: unknown) {
  const file = path.join(dir, name)
  fs.writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value, null, 2))
  return file
}

async function readAll(file: string, opts: { company?: string; format?: string } = {}) {
  const feed = await openFeed(file, opts)
  const items: ReadItem[] = []
  for await (const item of feed.items) items.push(item)
  return { adapter: feed.adapter.name, items, raws: items.flatMap((i) => ('raw' in i ? [i.raw] : [])), errors: items.flatMap((i) => ('error' in i ? [[i.line, i.error] as const] : [])) }
}

// boards-api.greenhouse.io/v1/boards/acmerobotics/jobs?content=true
const ghBackend = {
  absolute_url: 'https://boards.greenhouse.io/acmerobotics/jobs/4012345',
  data_compliance: [{ type: 'gdpr', requires_consent: false, requires_processing_consent: false, requires_retention_consent: false, retention_period: null }],
  internal_job_id: 3312345,
  location: { name: 'San Francisco, CA' },
  metadata: [
    { id: 8800123, name: 'Employment Type', value: 'Full-time', value_type: 'single_select' },
    { id: 8800124, name: 'Annual Salary Range', value: { unit: 'USD', min_value: '150000.0', max_value: '190000.0' }, value_type: 'currency_range' },
  ],
  id: 4012345,
  updated_at: '2026-11-05T10:55:28-05:00',
  requisition_id: 'ENG-112',
  title: 'Senior Backend Engineer',
  company_name: 'Acme Robotics',
  first_published: '2026-11-02T09:00:00-05:00',
  language: 'en',
  content: '&lt;p&gt;Acme Robotics builds warehouse robots.&lt;/p&gt;&lt;ul&gt;&lt;li&gt;Design services in Go &amp;amp; PostgreSQL&lt;/li&gt;&lt;li&gt;5+ years of backend experience&lt;/li&gt;&lt;/ul&gt;',
  departments: [{ id: 4011, name: 'Engineering', child_ids: [], parent_id: null }],
  offices: [{ id: 2201, name: 'San Francisco', location: 'San Francisco, CA, United States', child_ids: [], parent_id: null }],
}
const ghSupport = {
  ...ghBackend,
  absolute_url: 'https://boards.greenhouse.io/acmerobotics/jobs/4012399',
  id: 4012399,
  internal_job_id: 3312399,
  title: 'Customer Support Specialist',
  location: { name: 'Remote - US' },
  metadata: [{ id: 8800125, name: 'Workplace Type', value: 'Remote', value_type: 'single_select' }],
  content: '&lt;p&gt;Help our customers by chat and email.&lt;/p&gt;',
  departments: [{ id: 4020, name: 'Customer Success', child_ids: [], parent_id: null }],
  offices: [],
  first_published: '2026-11-09T12:00:00Z',
}

// api.lever.co/v0/postings/northwind-traders?mode=json
const leverAnalyst = {
  additional: '<div>Northwind is an equal opportunity employer.</div>',
  additionalPlain: 'Northwind is an equal opportunity employer.',
  categories: { commitment: 'Full-time', department: 'Data', location: 'New York, NY', team: 'Analytics', allLocations: ['New York, NY', 'Boston, MA'] },
  createdAt: 1762425600000, // 2025-11-06
  descriptionPlain: 'Northwind sells specialty foods.',
  description: '<div>Northwind sells specialty foods.</div>',
  id: '0f7d2c4e-5a1b-4c3d-9e8f-1a2b3c4d5e6f',
  lists: [{ text: 'What you will do', content: '<li>Build Looker dashboards</li><li>Model sales data in dbt</li>' }],
  text: 'Senior Data Analyst',
  country: 'US',
  workplaceType: 'hybrid',
  salaryRange: { currency: 'USD', interval: 'per-year-salary', min: 120000, max: 145000 },
  hostedUrl: 'https://jobs.lever.co/northwind-traders/0f7d2c4e-5a1b-4c3d-9e8f-1a2b3c4d5e6f',
  applyUrl: 'https://jobs.lever.co/northwind-traders/0f7d2c4e-5a1b-4c3d-9e8f-1a2b3c4d5e6f/apply',
}
const leverDesigner = {
  ...leverAnalyst,
  categories: { commitment: 'Contract', department: 'Design', location: 'Remote', team: 'Brand', allLocations: ['Remote'] },
  createdAt: 1763030400000, // 2025-11-13
  id: '9a8b7c6d-1111-4222-8333-944455566677',
  lists: [],
  text: 'Brand Designer',
  country: 'CA',
  workplaceType: 'remote',
  salaryRange: { currency: 'CAD', interval: 'per-hour-wage', min: 55, max: 70 },
  hostedUrl: 'https://jobs.lever.co/northwind-traders/9a8b7c6d-1111-4222-8333-944455566677',
  applyUrl: 'https://jobs.lever.co/northwind-traders/9a8b7c6d-1111-4222-8333-944455566677/apply',
}

// api.ashbyhq.com/posting-api/job-board/fabrikam?includeCompensation=true
const ashbyEngineer = {
  id: 'a1b2c3d4-0000-4000-8000-000000000001',
  title: 'Platform Engineer',
  department: 'Engineering',
  team: 'Platform',
  employmentType: 'FullTime',
  location: 'Berlin',
  secondaryLocations: [{ location: 'Munich', address: { postalAddress: { addressLocality: 'Munich', addressRegion: 'Bavaria', addressCountry: 'Germany' } } }],
  publishedAt: '2026-11-03T08:15:00.000+00:00',
  isListed: true,
  isRemote: false,
  workplaceType: 'Hybrid',
  address: { postalAddress: { addressLocality: 'Berlin', addressRegion: 'Berlin', addressCountry: 'Germany' } },
  jobUrl: 'https://jobs.ashbyhq.com/fabrikam/a1b2c3d4-0000-4000-8000-000000000001',
  applyUrl: 'https://jobs.ashbyhq.com/fabrikam/a1b2c3d4-0000-4000-8000-000000000001/application',
  descriptionHtml: '<p>Fabrikam runs payments for European marketplaces.</p><h3>You will</h3><ul><li>Run Kubernetes clusters</li></ul>',
  descriptionPlain: 'Fabrikam runs payments for European marketplaces.',
  shouldDisplayCompensationOnJobPostings: true,
  compensation: {
    compensationTierSummary: '€75K – €90K • Offers Equity',
    scrapeableCompensationSalarySummary: '€75K - €90K',
    summaryComponents: [
      { compensationType: 'Salary', interval: '1 YEAR', currencyCode: 'EUR', minValue: 75000, maxValue: 90000 },
      { compensationType: 'EquityPercentage', interval: 'NONE', currencyCode: null, minValue: 0.05, maxValue: 0.1 },
    ],
  },
}
const ashbyIntern = {
  ...ashbyEngineer,
  id: 'a1b2c3d4-0000-4000-8000-000000000002',
  title: 'Data Science Intern',
  employmentType: 'Intern',
  location: 'Remote (EU)',
  secondaryLocations: [],
  isRemote: true,
  workplaceType: null,
  address: null,
  jobUrl: 'https://jobs.ashbyhq.com/fabrikam/a1b2c3d4-0000-4000-8000-000000000002',
  applyUrl: 'https://jobs.ashbyhq.com/fabrikam/a1b2c3d4-0000-4000-8000-000000000002/application',
  publishedAt: '2026-11-12T10:00:00.000+00:00',
  compensation: { compensationTierSummary: '€2.5K per month', summaryComponents: [] },
}

test('each board is recognized without --format, and none is taken for another or for postings', async (t) => {
  const dir = t.context.dir
  const gh = write(dir, 'acme.json', { jobs: [ghBackend, ghSupport], meta: { total: 2 } })
  const lv = write(dir, 'northwind.json', [leverAnalyst, leverDesigner])
  const ab = write(dir, 'fabrikam.json', { apiVersion: '1', jobs: [ashbyEngineer, ashbyIntern] })
  t.is((await readAll(gh)).adapter, 'greenhouse')
  t.is((await readAll(lv)).adapter, 'lever')
  t.is((await readAll(ab)).adapter, 'ashby')
  for (const [file, own] of [[gh, greenhouse], [lv, lever], [ab, ashby]] as const) {
    const sample = await readSample(file)
    for (const other of [greenhouse, lever, ashby].filter((a) => a !== own)) t.is(other.detect(sample), 0, `${other.name} on ${path.basename(file)}`)
  }
  // one job per line is read too
  t.is((await readAll(write(dir, 'lever.jsonl', [leverAnalyst, leverDesigner].map((p) => JSON.stringify(p)).join('\n')))).adapter, 'lever')
  // the project's own postings stay the project's
  const own = write(dir, 'own.json', [{ job_title: 'Engineer', company: { name: 'Acme' }, description: 'x', job_board: 'Acme Careers', location_raw: 'Berlin' }])
  t.is((await readAll(own)).adapter, 'json')
})

test('a board larger than the detection sample is recognized from its keys', async (t) => {
  const jobs = Array.from({ length: 40 }, (_, i) => ({ ...ghBackend, id: 5000000 + i, absolute_url: `https://boards.greenhouse.io/acmerobotics/jobs/${5000000 + i}`, content: ghBackend.content.repeat(20) }))
  const file = write(t.context.dir, 'big-board.json', { jobs, meta: { total: 40 } })
  t.true(fs.statSync(file).size > 64 * 1024)
  const { adapter, raws } = await readAll(file)
  t.is(adapter, 'greenhouse')
  t.is(raws.length, 40)
})

test('Greenhouse: content unescaped once, location, department, metadata, company', async (t) => {
  const { raws } = await readAll(write(t.context.dir, 'gh-map.json', { jobs: [ghBackend, ghSupport] }))
  t.deepEqual(raws[0], {
    source_id: '4012345',
    job_board: 'Greenhouse',
    job_board_link: 'https://boards.greenhouse.io/acmerobotics/jobs/4012345',
    application_link: 'https://boards.greenhouse.io/acmerobotics/jobs/4012345',
    job_title: 'Senior Backend Engineer',
    description: '<p>Acme Robotics builds warehouse robots.</p><ul><li>Design services in Go &amp; PostgreSQL</li><li>5+ years of backend experience</li></ul>',
    location_raw: 'San Francisco, CA',
    locations: undefined,
    team: 'Engineering',
    date_posted: '2026-11-02T09:00:00-05:00',
    language: 'en',
    job_type: 'Full-time',
    salary_range: { min: '150000.0', max: '190000.0', currency: 'USD', period: 'Annual Salary Range' },
    company: { name: 'Acme Robotics' },
  })
  t.like(raws[1], { location_raw: 'Remote - US', location_type: 'Remote', team: 'Customer Success', salary_range: undefined })
  t.is(unescapeHtml('&lt;p&gt;R&amp;amp;D &amp;#8211; &#39;ok&#39;&lt;/p&gt;'), "<p>R&amp;D &#8211; 'ok'</p>")
})

test('the company: --company, else company_name, else the board token; none at all is an error naming --company', async (t) => {
  const { company_name: _, ...noName } = ghBackend
  const file = write(t.context.dir, 'gh-noname.json', { jobs: [noName] })
  t.is((await readAll(file)).raws[0].company?.name, 'Acmerobotics')
  t.is((await readAll(file, { company: 'Acme Robotics Inc.' })).raws[0].company?.name, 'Acme Robotics Inc.')
  const custom = write(t.context.dir, 'gh-custom.json', { jobs: [{ ...noName, absolute_url: 'https://acme.example/careers?gh_jid=4012345' }] })
  const { errors } = await readAll(custom)
  t.deepEqual(errors, [[1, 'no company name in the data: name it with --company']])
  t.is((await readAll(write(t.context.dir, 'lv-co.json', [leverAnalyst]))).raws[0].company?.name, 'Northwind Traders')
  t.is((await readAll(write(t.context.dir, 'ab-co.json', { jobs: [ashbyEngineer] }))).raws[0].company?.name, 'Fabrikam')
})

test('Lever: the page\'s description with its lists, all locations, workplace, salary interval, remote scope from the country', async (t) => {
  const { raws } = await readAll(write(t.context.dir, 'lv-map.json', [leverAnalyst, leverDesigner]))
  t.deepEqual(raws[0], {
    source_id: '0f7d2c4e-5a1b-4c3d-9e8f-1a2b3c4d5e6f',
    job_board: 'Lever',
    job_board_link: leverAnalyst.hostedUrl,
    application_link: leverAnalyst.applyUrl,
    job_title: 'Senior Data Analyst',
    description: '<div>Northwind sells specialty foods.</div>\n<h3>What you will do</h3><ul><li>Build Looker dashboards</li><li>Model sales data in dbt</li></ul>\n<div>Northwind is an equal opportunity employer.</div>',
    location_raw: 'New York, NY',
    locations: ['New York, NY', 'Boston, MA'],
    location_type: 'hybrid',
    job_type: 'Full-time',
    team: 'Analytics',
    salary_range: { min: 120000, max: 145000, currency: 'USD', period: 'yearly' },
    date_posted: '2025-11-06T10:40:00.000Z',
    company: { name: 'Northwind Traders' },
  })
  t.like(raws[1], { location_raw: 'Remote - Canada', location_type: 'remote', job_type: 'Contract', salary_range: { currency: 'CAD', period: 'hourly' } })
})

test('Ashby: postal addresses as places, workplace or isRemote, compensation components, equity', async (t) => {
  const { raws } = await readAll(write(t.context.dir, 'ab-map.json', { apiVersion: '1', jobs: [ashbyEngineer, ashbyIntern] }))
  t.deepEqual(raws[0], {
    source_id: ashbyEngineer.id,
    job_board: 'Ashby',
    job_board_link: ashbyEngineer.jobUrl,
    application_link: ashbyEngineer.applyUrl,
    job_title: 'Platform Engineer',
    description: ashbyEngineer.descriptionHtml,
    location_raw: 'Berlin',
    locations: [{ city: 'Berlin', region: 'Berlin', country: 'Germany' }, { city: 'Munich', region: 'Bavaria', country: 'Germany' }],
    location_type: 'Hybrid',
    job_type: 'FullTime',
    team: 'Platform',
    date_posted: '2026-11-03T08:15:00.000+00:00',
    salary_range: { min: 75000, max: 90000, currency: 'EUR', period: 'yearly' },
    salary: undefined,
    offers_equity: true,
    company: { name: 'Fabrikam' },
  })
  t.like(raws[1], { location_raw: 'Remote (EU)', locations: ['Remote (EU)'], location_type: 'Remote', job_type: 'Intern', salary_range: undefined, salary: '€2.5K per month', offers_equity: undefined })
})

test('the three boards land as jobs: board, company, places, arrangement, salary, job type, date', async (t) => {
  const { sql } = t.context.db
  const dir = t.context.dir
  const files = [
    write(dir, 'land-gh.json', { jobs: [ghBackend, ghSupport] }),
    write(dir, 'land-lv.json', [leverAnalyst, leverDesigner]),
    write(dir, 'land-ab.json', { apiVersion: '1', jobs: [ashbyEngineer, ashbyIntern] }),
  ]
  for (const file of files) {
    const rejected: string[] = []
    const summary = await ingest(sql, (await openFeed(file)).items, { source: file, now, onRejected: (line, reason) => rejected.push(`${line}: ${reason}`) })
    t.deepEqual(rejected, [], path.basename(file))
    t.is(summary.inserted, 2, path.basename(file))
  }
  const rows = await sql`
    select j.job_title, c.name as company, j.job_board, j.location_type, j.remote_countries, j.job_type, j.team,
           j.salary_min::float8 as min, j.salary_max::float8 as max, j.salary_currency, j.salary_period, j.salary_annual_min::float8 as annual_min,
           j.offers_equity, j.date_posted::text, j.job_board_link, j.description,
           array(select l.city || ', ' || l.country from job_locations l where l.job_id = j.id order by l.position) as places
    from jobs j join companies c on c.id = j.company_id
    where j.job_board in ('Greenhouse', 'Lever', 'Ashby')`
  const byTitle = Object.fromEntries(rows.map((r) => [r.job_title, r]))
  t.like(byTitle['Senior Backend Engineer'], {
    company: 'Acme Robotics', job_board: 'Greenhouse', job_type: 'Full Time', team: 'Engineering', min: 150000, max: 190000,
    salary_currency: 'USD', salary_period: 'yearly', date_posted: '2026-11-02',
  })
  t.deepEqual(byTitle['Senior Backend Engineer'].places, ['San Francisco, United States'])
  t.regex(byTitle['Senior Backend Engineer'].description, /<li>Design services in Go &amp; PostgreSQL<\/li>/)
  t.like(byTitle['Customer Support Specialist'], { location_type: 'Remote', remote_countries: ['United States'], date_posted: '2026-11-09' })
  t.like(byTitle['Senior Data Analyst'], { company: 'Northwind Traders', job_board: 'Lever', location_type: 'Hybrid', job_type: 'Full Time', min: 120000, salary_period: 'yearly', date_posted: '2025-11-06' })
  t.deepEqual(byTitle['Senior Data Analyst'].places, ['New York City, United States', 'Boston, United States'])
  t.like(byTitle['Brand Designer'], { location_type: 'Remote', remote_countries: ['Canada'], job_type: 'Contract / Temporary', min: 55, max: 70, salary_currency: 'CAD', salary_period: 'hourly', annual_min: 114400 })
  t.like(byTitle['Platform Engineer'], { company: 'Fabrikam', job_board: 'Ashby', location_type: 'Hybrid', job_type: 'Full Time', min: 75000, salary_currency: 'EUR', salary_period: 'yearly', offers_equity: true, date_posted: '2026-11-03' })
  t.deepEqual(byTitle['Platform Engineer'].places, ['Berlin, Germany', 'Munich, Germany'])
  t.like(byTitle['Data Science Intern'], { location_type: 'Remote', job_type: 'Internship', min: 2500, salary_currency: 'EUR', salary_period: 'monthly' })
})
