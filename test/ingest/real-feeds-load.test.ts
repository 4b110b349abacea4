/**
 * Issue 16's normalization defects end to end, against a real database: what a search, a job
 * record and an ingest summary show for postings shaped like the real feeds' (NHS Jobs, a
 * new-graduate list, remote boards). The pure cases are in real-feeds.test.ts.
 */
import anyTest, { type TestFn } from 'ava'
import { randomBytes } from 'node:crypto'
import { ingest } from '../../ingest/pipeline.ts'
import type { ReadItem } from '../../ingest/read.ts'
import type { RawPosting } from '../../ingest/types.ts'
import { findJob } from '../../sql/jobs.ts'
import { parse } from '../../sql/query-syntax.ts'
import { searchJobs, type SearchFilters, type SearchPage } from '../../sql/search.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'

const test = anyTest as TestFn<{ db: TestDb }>

test.before(async (t) => {
  t.context = { db: await testDatabase() }
})
test.after.always(async (t) => {
  await t.context.db?.close()
})

const now = new Date('2020-06-01T12:00:00Z')
const items = (rows: RawPosting[]): ReadItem[] => rows.map((raw, i) => ({ line: i + 1, raw }))
const page: SearchPage = { page: 1, limit: 20, sortBy: 'relevance', sortOrder: null, raw: false }
const tag = () => randomBytes(4).toString('hex')

/** A company of its own per test, so concurrent tests never see each other's jobs. */
function company(name: string) {
  const t = tag()
  return { name: `${name} ${t}`, slug: `${name.toLowerCase().replace(/\W+/g, '-')}-${t}` }
}

function search(t: { context: { db: TestDb } }, slug: string, f: SearchFilters = {}, p: Partial<SearchPage> = {}) {
  return searchJobs(t.context.db.sql, { companySlug: slug, ...f }, { ...page, ...p })
}

test('"new grad" finds the titles that say New Grad', async (t) => {
  const c = company('Acme Robotics')
  const summary = await ingest(t.context.db.sql, items([
    { source_id: `ng-1-${c.slug}`, job_board: 'Greenhouse', job_title: 'Software Engineer – New Grad', locations: ['San Francisco, CA'], date_posted: '2020-05-18', company: c },
    { source_id: `ng-2-${c.slug}`, job_board: 'Greenhouse', job_title: 'New Grad Software Engineer', locations: ['Austin, TX'], date_posted: '2020-05-18', company: c },
    { source_id: `ng-3-${c.slug}`, job_board: 'Greenhouse', job_title: 'Software Engineer II', locations: ['Austin, TX'], date_posted: '2020-05-18', company: c },
  ]), { source: 'newgrad', now })
  t.is(summary.inserted, 3)
  const found = await search(t, c.slug, { titles: parse(['new grad']) })
  t.deepEqual(found.jobs.map((j) => j.job_title).sort(), ['New Grad Software Engineer', 'Software Engineer – New Grad'])
})

test('an implausible salary is shown as stated but matches no salary filter and never sorts first', async (t) => {
  const c = company('Leeds Teaching Hospitals')
  const nhs = (id: string, salary_range: object) => ({
    source_id: `${id}-${c.slug}`, job_board: 'NHS Jobs', job_title: `Staff Nurse ${id}`, description: '<p>Ward 12.</p>', date_posted: '2020-05-01',
    locations: [{ city: 'Leeds', country: 'GB', lat: 53.8, lng: -1.55 }], salary_range, company: c,
  })
  await ingest(t.context.db.sql, items([
    nhs('typo', { min: 31365, max: 37890000, currency: 'GBP', period: 'YEAR' }),
    nhs('band6', { min: 31365, max: 37890, currency: 'GBP', period: 'YEAR' }),
    nhs('band5', { min: 24907, max: 30615, currency: 'GBP', period: 'YEAR' }),
  ]), { source: 'nhs-salaries', now })
  const sorted = await search(t, c.slug, {}, { sortBy: 'salary', sortOrder: 'desc' })
  t.deepEqual(sorted.jobs.map((j) => j.job_title), ['Staff Nurse band6', 'Staff Nurse band5', 'Staff Nurse typo'])
  t.deepEqual(sorted.jobs[2].salary_range, { min: 31365, max: 37890000, currency: 'GBP', period: 'yearly' })
  const rich = await search(t, c.slug, { salary: { min: 1_000_000 } })
  t.is(rich.jobs.length, 0)
  const [row] = await t.context.db.sql`select salary_annual_min, salary_annual_max from jobs where job_title = 'Staff Nurse typo' and platform_job_id = ${`typo-${c.slug}`}`
  t.deepEqual({ ...row }, { salary_annual_min: null, salary_annual_max: null })
})

test('a remote job scoped to a country shows its scope in the job record', async (t) => {
  const c = company('Remote Co')
  await ingest(t.context.db.sql, items([
    { source_id: `r-${c.slug}`, job_board: 'RemoteOK', job_title: 'Backend Engineer', description: '<p>Go and Postgres.</p>', location_raw: 'Remote - US', date_posted: '2020-05-20', company: c },
  ]), { source: 'remote', now })
  const found = await search(t, c.slug, { places: [{ kind: 'key', key: 'c:united states' }] })
  t.is(found.jobs.length, 1)
  // the scope as a country-only location too (docs/search.md, "Geo filters")
  const scope = [{ city: null, region: null, country: 'United States' }]
  t.like(found.jobs[0], { locations: scope, remote_countries: ['United States'], location_type: 'Remote' })
  const record = await findJob(t.context.db.sql, found.jobs[0]._id)
  t.deepEqual(record?.remote_countries, ['United States'])
  t.deepEqual(record?.locations, scope)
})

test('postings past valid_through are counted as expired on arrival, in the summary and the run', async (t) => {
  const c = company('Priory Group')
  const posting = (id: string, valid_through: string) => ({
    source_id: `${id}-${c.slug}`, job_board: 'NHS Jobs', job_title: `Registered Mental Nurse ${id}`, description: '<p>RMN.</p>', date_posted: '2019-08-08', valid_through, company: c,
  })
  const rows = [posting('a', '2019-12-31T23:59:59Z'), posting('b', '2020-03-01'), posting('c', '2020-11-27T23:59:59Z')]
  const summary = await ingest(t.context.db.sql, items(rows), { source: `expired-${c.slug}`, now })
  t.like(summary, { inserted: 3, expired_on_arrival: 2 })
  const [run] = await t.context.db.sql`select inserted, expired_on_arrival, unchanged from ingest_runs where source = ${`expired-${c.slug}`}`
  t.deepEqual({ ...run }, { inserted: 3, expired_on_arrival: 2, unchanged: 0 })
  const expired = await t.context.db.sql`select expired from jobs j join companies co on co.id = j.company_id where co.slug = ${c.slug} order by j.job_title`
  t.deepEqual(expired.map((r) => r.expired), [true, true, false])
  // the same file again: still two past their date, and nothing else moved
  const again = await ingest(t.context.db.sql, items(rows), { source: `expired-${c.slug}`, now: new Date('2020-06-02T12:00:00Z') })
  t.like(again, { unchanged: 3, updated: 0, expired_on_arrival: 2 })
})

test('a re-run of the same file reports its duplicates as duplicates or unchanged, never as updated', async (t) => {
  const c = company('Chronosphere')
  const body = '<p>Chronosphere | Senior Frontend Engineer | NYC, Seattle | Full-time Onsite</p>'
  const rows: RawPosting[] = [
    // the same Hacker News post twice, under two ids
    { source_id: `hn:1-${c.slug}`, job_board: 'Hacker News', job_title: 'Senior Frontend Engineer', description: body, location_raw: 'New York, NY', date_posted: '2020-03-23', company: c },
    { source_id: `hn:2-${c.slug}`, job_board: 'Hacker News', job_title: 'Senior Frontend Engineer', description: body, location_raw: 'New York, NY', date_posted: '2020-03-23', company: c },
    // a scraped row without an id, listed twice with different links: one source (its duplicate hash)
    { job_board: 'Indeed', job_title: 'UX Designer', description: '<p>Design.</p>', location_raw: 'Seattle, WA', date_posted: '2020-03-24', job_board_link: `https://indeed.example/1-${c.slug}`, company: c },
    { job_board: 'Indeed', job_title: 'UX Designer', description: '<p>Design.</p>', location_raw: 'Seattle, WA', date_posted: '2020-03-24', job_board_link: `https://indeed.example/2-${c.slug}`, company: c },
    // no date_posted: the day of the ingest, which is no change at the source
    { source_id: `him-${c.slug}`, job_board: 'Himalayas', job_title: 'Junior Sales Manager', description: '<p>Sales.</p>', location_raw: 'Germany', company: c },
  ]
  const first = await ingest(t.context.db.sql, items(rows), { source: 'dupes', now })
  t.like(first, { read: 5, inserted: 3, duplicates: 2, updated: 0, unchanged: 0 })
  for (const day of [2, 3]) {
    const again = await ingest(t.context.db.sql, items(rows), { source: 'dupes', now: new Date(`2020-06-0${day}T12:00:00Z`) })
    t.like(again, { read: 5, inserted: 0, updated: 0 }, `run on June ${day}`)
    t.is(again.unchanged + again.duplicates, 5)
    t.is(again.duplicates, 1, 'the id-less row listed twice')
  }
  // across batches too
  const small = await ingest(t.context.db.sql, items(rows), { source: 'dupes', now: new Date('2020-06-04T12:00:00Z'), batchSize: 1 })
  t.like(small, { inserted: 0, updated: 0, unchanged: 4, duplicates: 1 })
  const [{ jobs }] = await t.context.db.sql`select count(*)::int as jobs from jobs j join companies co on co.id = j.company_id where co.slug = ${c.slug}`
  t.is(jobs, 3)
})

test('a posting without a description lands; the board defaults to the source, else to the link\'s', async (t) => {
  const c = company('Hillel International')
  const rejected: string[] = []
  const summary = await ingest(t.context.db.sql, items([
    // a new-grad list's row: title, company, place, link and date
    { source_id: `a-${c.slug}`, job_title: 'Engagement Associate', locations: ['Bloomington, IN'], application_link: `https://boards.greenhouse.io/hillel/jobs/1-${c.slug}`, date_posted: '2020-05-18', company: c },
    { source_id: `b-${c.slug}`, job_title: 'Program Associate', job_board_link: `https://careers.hillel.example/jobs/2-${c.slug}`, date_posted: '2020-05-18', company: c },
    { source_id: `c-${c.slug}`, job_board: 'Simplify', job_title: 'Campus Fellow', date_posted: '2020-05-18', company: c },
    { source_id: `d-${c.slug}`, job_title: 'Intern', date_posted: '2020-05-18', company: c },
    { source_id: `e-${c.slug}`, job_title: 'Intern', date_posted: '2020-05-18', company: { name: ' ' } },
  ]), { source: 'newgrad', now, onRejected: (line, reason) => rejected.push(`${line}: ${reason}`) })
  t.is(summary.inserted, 3)
  t.deepEqual(rejected, [
    '4: job_board: required non-empty string (or a job_board_link or application_link to name the board by)',
    '5: company.name: required non-empty string',
  ])
  const found = await search(t, c.slug, {}, { sortBy: 'company' })
  const boards = Object.fromEntries(found.jobs.map((j) => [j.job_title, j.job_board]))
  t.deepEqual(boards, { 'Engagement Associate': 'Greenhouse', 'Program Associate': 'Hillel Careers', 'Campus Fellow': 'Simplify' })
  t.true(found.jobs.every((j) => j.description === ''))

  const withDefault = await ingest(t.context.db.sql, items([{ source_id: `d-${c.slug}`, job_title: 'Intern', date_posted: '2020-05-18', company: c }]), {
    source: 'newgrad', board: 'NHS Jobs', now,
  })
  t.is(withDefault.inserted, 1)
  const intern = await search(t, c.slug, { titles: parse(['intern']) })
  t.is(intern.jobs[0].job_board, 'NHS Jobs')
})
