/** Ingest end to end against a real database: counts, bad rows, idempotency, duplicates, CSV. */
import anyTest, { type TestFn } from 'ava'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { ingest } from '../../ingest/pipeline.ts'
import { readPostings } from '../../ingest/read.ts'
import { generatePostings } from '../../ingest/generator/postings.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'
import { rawPosting, readItems } from '../helpers/factories.ts'
import { MAX_TITLE } from '../../ingest/transform/clean-title.ts'

const test = anyTest as TestFn<{ db: TestDb; dir: string }>

test.before(async (t) => {
  t.context = { db: await testDatabase(), dir: fs.mkdtempSync(path.join(os.tmpdir(), 'ingest-test-')) }
})
test.after.always(async (t) => {
  await t.context.db?.close()
  fs.rmSync(t.context.dir, { recursive: true, force: true })
})

const now = new Date('2026-11-20T12:00:00Z')

function writeJsonl(dir: string, name: string, lines: string[]) {
  const file = path.join(dir, name)
  fs.writeFileSync(file, lines.join('\n') + '\n')
  return file
}

test.serial('1,000 postings with 3 broken rows: 997 land and the 3 lines are named', async (t) => {
  const { sql } = t.context.db
  const lines = [...generatePostings({ jobs: 1000, seed: 7, now: '2026-11-20' })].map((p) => JSON.stringify(p))
  lines[99] = '{"job_title": "Truncated'
  lines[499] = JSON.stringify({ ...JSON.parse(lines[499]), job_title: 42 })
  lines[899] = JSON.stringify({ ...JSON.parse(lines[899]), company: { name: '' } })
  const file = writeJsonl(t.context.dir, 'thousand.jsonl', lines)
  const rejected: [number, string][] = []
  const summary = await ingest(sql, readPostings(file, { bytes: () => 0 }), { source: file, now, onRejected: (line, reason) => rejected.push([line, reason]) })
  t.deepEqual(rejected.map(([line]) => line), [100, 500, 900])
  t.regex(rejected[0][1], /JSON/)
  t.regex(rejected[1][1], /job_title/)
  t.regex(rejected[2][1], /company/)
  t.is(summary.read, 1000)
  t.is(summary.rejected, 3)
  t.is(summary.inserted + summary.duplicates + summary.updated, 997)
  const [{ jobs, sources }] = await sql`
    select (select count(*)::int from jobs) as jobs, (select count(*)::int from job_sources) as sources`
  t.is(jobs, summary.inserted)
  t.is(sources, 997)

  // the same file again: counts unchanged, and nothing but last_seen_at moves
  const snapshot = () => sql`
    select j.*, j.last_seen_at as _ls from jobs j order by id`.then((rows) => rows.map(({ last_seen_at: _a, _ls: _b, ...rest }) => JSON.stringify(rest)))
  const before = await snapshot()
  const companiesBefore = await sql`select * from companies order by id`
  const later = new Date(now.getTime() + 3600_000)
  const again = await ingest(sql, readPostings(file, { bytes: () => 0 }), { source: file, now: later })
  t.is(again.inserted, 0)
  t.is(again.updated, 0)
  t.is(again.duplicates, 0)
  t.is(again.unchanged, 997)
  t.deepEqual(await snapshot(), before)
  t.deepEqual(await sql`select * from companies order by id`, companiesBefore)
  const [{ stale }] = await sql`select count(*)::int as stale from jobs where last_seen_at <> ${later}`
  t.is(stale, 0)
})

test('a duplicate from another board joins the first job and keeps both links', async (t) => {
  const { sql } = t.context.db
  const first = rawPosting({ job_board: 'BoardA', source_id: 'a-1', job_board_link: 'https://a.example/1', company: { name: 'Dupe Co' } }, 1)
  const copy = { ...first, job_board: 'BoardB', source_id: 'b-9', job_board_link: 'https://b.example/9' }
  const summary = await ingest(sql, readItems([first, copy]), { source: 'dupes', now })
  t.is(summary.inserted, 1)
  t.is(summary.duplicates, 1)
  const rows = await sql`
    select j.id, j.job_board, array_agg(s.job_board_link order by s.job_board) as links
    from jobs j join job_sources s on s.job_id = j.id join companies c on c.id = j.company_id
    where c.name = 'Dupe Co' group by j.id`
  t.is(rows.length, 1)
  t.is(rows[0].job_board, 'BoardA')
  t.deepEqual(rows[0].links, ['https://a.example/1', 'https://b.example/9'])
})

test('a posting edited at its source is updated in place', async (t) => {
  const { sql } = t.context.db
  const v1 = rawPosting({ source_id: 'edit-1', company: { name: 'Edit Co' } }, 2)
  await ingest(sql, readItems([v1]), { source: 'v1', now })
  const [before] = await sql`select j.id, j.job_slug from jobs j join companies c on c.id = j.company_id where c.name = 'Edit Co'`
  const summary = await ingest(sql, readItems([{ ...v1, salary_range: { min: 95000, max: 99000, currency: 'EUR', period: 'yearly' } }]), { source: 'v2', now })
  t.is(summary.updated, 1)
  const [after] = await sql`select j.id, j.salary_max::int from jobs j join companies c on c.id = j.company_id where c.name = 'Edit Co'`
  t.is(after.id, before.id)
  t.is(after.salary_max, 99000)
})

test('salary as stated plus annual amounts; an unknown period stays unknown', async (t) => {
  const { sql } = t.context.db
  await ingest(sql, readItems([
    rawPosting({ source_id: 'sal-h', company: { name: 'Hourly Co' }, salary_range: { min: 20, max: 25, currency: 'USD', period: 'hour' } }, 3),
    // a month's pay or a year's: no period is inferred (a yearly-sized "$120-150k" would be yearly)
    rawPosting({ source_id: 'sal-u', company: { name: 'Unknown Period Co' }, salary_range: undefined, salary: '$2,000-3,000' }, 4),
  ]), { source: 'salaries', now })
  const rows = await sql`
    select c.name, j.salary_min::float8 as min, j.salary_max::float8 as max, j.salary_period, j.salary_annual_min::float8 as amin, j.salary_annual_max::float8 as amax
    from jobs j join companies c on c.id = j.company_id where c.name in ('Hourly Co', 'Unknown Period Co') order by c.name`
  t.like(rows[0], { name: 'Hourly Co', min: 20, max: 25, salary_period: 'hourly', amin: 41600, amax: 52000 })
  t.like(rows[1], { name: 'Unknown Period Co', min: 2000, max: 3000, salary_period: null, amin: null, amax: null })
})

test('CSV is header-mapped, and a bad CSV row is reported by line', async (t) => {
  const { sql } = t.context.db
  const file = path.join(t.context.dir, 'postings.csv')
  fs.writeFileSync(file, [
    'Title,Company,Location,Salary,Employment Type,Description,Board,Posted,Skills',
    'Line Cook,CSV Kitchen,"Austin, TX",$18/hour,Part-time,<p>Prep and grill.</p>,CsvBoard,2026-11-01,Food Safety;Knife Skills',
    ',No Title Co,"Berlin, Germany",,Full Time,<p>x</p>,CsvBoard,2026-11-01,',
    'Data Analyst,CSV Insights,"London, United Kingdom","£40,000 - £45,000 per annum",Full Time,<p>SQL and Tableau.</p>,CsvBoard,2026-11-02,',
  ].join('\n'))
  const rejected: number[] = []
  const summary = await ingest(sql, readPostings(file, { bytes: () => 0 }), { source: file, now, onRejected: (line) => rejected.push(line) })
  t.deepEqual(rejected, [3])
  t.is(summary.inserted, 2)
  const [cook] = await sql`
    select j.job_type, j.salary_period, j.salary_annual_min::int as amin, j.locations, j.skills
    from jobs j join companies c on c.id = j.company_id where c.name = 'CSV Kitchen'`
  t.is(cook.job_type, 'Part Time')
  t.is(cook.salary_period, 'hourly')
  t.is(cook.amin, 18 * 2080)
  t.is(cook.locations[0].city, 'Austin')
  t.is(cook.locations[0].region, 'Texas')
  t.is(typeof cook.locations[0].coordinates.lat, 'number')
})

test('locations are indexed per place, remote is a scope and not a place', async (t) => {
  const { sql } = t.context.db
  await ingest(sql, readItems([
    rawPosting({ source_id: 'loc-multi', company: { name: 'Multi Co' }, location_raw: 'New York, NY; Boston, MA' }, 5),
    rawPosting({ source_id: 'loc-remote', company: { name: 'Remote Co' }, location_raw: 'Remote - US', location_type: undefined }, 6),
  ]), { source: 'locations', now })
  const multi = await sql`
    select l.city, l.region, l.country from job_locations l join jobs j on j.id = l.job_id join companies c on c.id = j.company_id
    where c.name = 'Multi Co' order by l.position`
  t.is(multi.length, 2)
  t.regex(multi[0].city, /^New York/)
  t.is(multi[1].city, 'Boston')
  t.is(multi[1].region, 'Massachusetts')
  const [remote] = await sql`
    select j.location_type, j.remote_countries, (select count(*)::int from job_locations l where l.job_id = j.id) as places
    from jobs j join companies c on c.id = j.company_id where c.name = 'Remote Co'`
  t.is(remote.location_type, 'Remote')
  t.deepEqual(remote.remote_countries, ['United States'])
  t.is(remote.places, 0)
})

test('a title of thousands of characters lands bounded, with the whole in job_title_raw; two that differ past the bound stay two jobs', async (t) => {
  const { sql } = t.context.db
  // a post's first paragraph in the title field, as some boards send it; its vector
  // would not fit an entry of the date index that carries titles (migration 0027)
  const paragraph = Array.from({ length: 700 }, (_, i) => `platform${i % 97} engineer${i}`).join(' ')
  const summary = await ingest(sql, readItems([
    rawPosting({ source_id: 'long-title-1', job_title: `${paragraph} first`, company: { name: 'Long Title Co' } }, 71),
    rawPosting({ source_id: 'long-title-2', job_title: `${paragraph} second`, company: { name: 'Long Title Co' } }, 72),
  ]), { source: 'long-titles', now })
  t.is(summary.rejected, 0)
  t.is(summary.inserted, 2)
  const rows = await sql<{ job_title: string; job_title_raw: string }[]>`
    select j.job_title, j.job_title_raw from jobs j join companies c on c.id = j.company_id
    where c.name = 'Long Title Co' order by j.id`
  t.is(rows.length, 2)
  for (const r of rows) {
    t.true(r.job_title.length <= MAX_TITLE)
    t.true(r.job_title.endsWith('…'))
    t.true(r.job_title_raw.length > 10_000)
  }
  t.is(rows[0].job_title, rows[1].job_title)
  t.not(rows[0].job_title_raw, rows[1].job_title_raw)
})
