/**
 * The NHS Jobs file as shipped (flattened schema.org, one object per line, gzipped): detected by its
 * keys, mapped to RawPostings (place, arrangement, salary only where the text agrees) and ingested.
 */
import anyTest, { type TestFn } from 'ava'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { nhsLocation, statedRange } from '../../ingest/formats/nhs-jobs.ts'
import { openFeed } from '../../ingest/formats/index.ts'
import { ingest } from '../../ingest/pipeline.ts'
import type { RawPosting } from '../../ingest/types.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'

const test = anyTest as TestFn<{ db: TestDb; dir: string }>

test.before(async (t) => {
  t.context = { db: await testDatabase(), dir: fs.mkdtempSync(path.join(os.tmpdir(), 'nhs-test-')) }
})
test.after.always(async (t) => {
  await t.context.db?.close()
  fs.rmSync(t.context.dir, { recursive: true, force: true })
})

const now = new Date('2020-11-20T12:00:00Z')

/** A record as the file has them, every key present. */
const nhs = (id: string, fields: Record<string, unknown>) => ({
  id,
  title: 'Staff Nurse',
  company_name: 'University Hospital Southampton NHS Foundation Trust',
  company_url: 'https://www.jobs.nhs.uk/xi/agency_info/?agency_id=1021',
  company_logo: 'https://www.jobs.nhs.uk/xi/db_image/logo/1021.png',
  industry: 'Healthcare',
  employment_type: 'FULL_TIME',
  date_posted: '2020-10-05T09:12:44+0100',
  valid_through: '2020-12-31T23:59:59+0000',
  salary_min: null,
  salary_max: null,
  salary_currency: 'GBP',
  salary_period: 'YEAR',
  salary_text: null,
  location_locality: 'Southampton General Hospital, Southampton',
  location_postcode: 'SO16 6YD',
  location_country: 'GB',
  lat: 50.9326,
  lon: -1.43386,
  url: `https://www.jobs.nhs.uk/xi/vacancy/${id}`,
  description_html: '<p>We are looking for a caring and motivated nurse to join our Respiratory ward.</p><p>Band 5 staff nurses rotate across day and night shifts.</p>',
  ...fields,
})

const RECORDS = [
  nhs('916001234', { title: 'Staff Nurse - Respiratory', salary_min: 24907.0, salary_max: 30615.0, salary_text: '£24,907 - £30,615 per annum' }),
  // hourly in the text, annualized in the numbers (the file's 696)
  nhs('916001301', {
    title: 'Bank Healthcare Assistant', employment_type: 'TEMPORARY', salary_min: 21853.0, salary_max: 28577.0, salary_text: '£13.00 to £17.00 per hour',
    company_name: 'Ashford and St Peter&#39;s Hospitals NHS Foundation Trust', location_locality: 'Chertsey, Surrey', location_postcode: 'KT16 0PZ', lat: 51.3795, lon: -0.5283,
  }),
  // a pay band, no numbers
  nhs('916001388', { title: 'Clinical Nurse Specialist', salary_text: 'Band 6', location_locality: 'Truro', location_postcode: 'TR1 3LJ', lat: 50.2668, lon: -5.0937 }),
  // the file misread "£107,668 1 additional PA" as 1076681
  nhs('916001402', { title: 'Consultant Cardiologist', salary_min: 79860.0, salary_max: 1076681.0, salary_text: '£79,860 - £107,668 1 additional PA offered' }),
  // a locality that speaks of home working
  nhs('916001455', { title: 'Informatics Analyst', salary_min: 31365.0, salary_max: 37890.0, salary_text: '£31,365 - £37,890 pa', location_locality: 'Aldershot/Home Working', location_postcode: 'GU11 1AY', lat: 51.2483, lon: -0.7639 }),
]

function writeGz(dir: string, name: string, records: unknown[]) {
  const file = path.join(dir, name)
  fs.writeFileSync(file, gzipSync(records.map((r) => JSON.stringify(r)).join('\n') + '\n'))
  return file
}

test('detected by its keys through gzip, and each record mapped to a posting', async (t) => {
  const file = writeGz(t.context.dir, 'nhs-sample.jsonl.gz', [...RECORDS, '[]'])
  fs.appendFileSync(file, gzipSync('not json\n'))
  const feed = await openFeed(file)
  t.is(feed.adapter.name, 'nhs-jobs')
  const raws: RawPosting[] = []
  const errors: [number, string][] = []
  for await (const item of feed.items) {
    if ('raw' in item) raws.push(item.raw)
    else if ('error' in item) errors.push([item.line, item.error])
  }
  t.is(raws.length, 5)
  t.deepEqual(raws[0], {
    source_id: '916001234',
    job_board: 'NHS Jobs',
    job_board_link: 'https://www.jobs.nhs.uk/xi/vacancy/916001234',
    job_title: 'Staff Nurse - Respiratory',
    description: RECORDS[0].description_html,
    company: {
      name: 'University Hospital Southampton NHS Foundation Trust', link: 'https://www.jobs.nhs.uk/xi/agency_info/?agency_id=1021',
      logo: 'https://www.jobs.nhs.uk/xi/db_image/logo/1021.png', industries: ['Healthcare'],
    },
    job_type: 'FULL_TIME',
    experience_level: 'Junior',
    date_posted: '2020-10-05T09:12:44+0100',
    valid_through: '2020-12-31T23:59:59+0000',
    salary: '£24,907 - £30,615 per annum',
    salary_range: { min: 24907, max: 30615, currency: 'GBP', period: 'YEAR' },
    locations: [{ city: 'Southampton', country: 'GB', lat: 50.9326, lng: -1.43386 }],
    location_raw: 'Southampton General Hospital, Southampton, SO16 6YD',
    location_type: 'In-Person',
    industry: 'Healthcare',
  })
  t.like(raws[1], { salary: '£13.00 to £17.00 per hour', salary_range: undefined, locations: [{ city: 'Chertsey', region: 'Surrey', country: 'GB' }] })
  t.like(raws[2], { salary: 'Band 6', salary_range: undefined })
  t.like(raws[3], { salary_range: undefined })
  t.like(raws[4], { locations: [{ city: 'Aldershot/Home Working', country: 'GB', lat: 51.2483, lng: -0.7639 }], location_type: undefined, location_raw: 'Aldershot/Home Working, GU11 1AY' })
  // the "[]" line and the line that is not JSON
  t.deepEqual(errors.map(([line]) => line), [6, 7])
})

test('salary_min/max are kept only where the salary text states them for a year', (t) => {
  t.deepEqual(statedRange({ salary_min: 28333, salary_max: 28333, salary_currency: 'GBP', salary_period: 'YEAR', salary_text: '£28,333.20 per annum' }), { min: 28333.2, max: 28333.2, currency: 'GBP', period: 'YEAR' })
  t.is(statedRange({ salary_min: 24357, salary_max: 24357, salary_period: 'YEAR', salary_text: '£14.49 p/h' }), undefined)
  t.is(statedRange({ salary_min: 22760, salary_max: 46815, salary_period: 'YEAR', salary_text: '£13.54-£27.85' }), undefined)
  t.is(statedRange({ salary_min: 160, salary_max: 160, salary_period: 'YEAR', salary_text: '£160 per week' }), undefined)
  // a bonus taken for the minimum: the amounts are in the text, but not in that order
  t.is(statedRange({ salary_min: 3000, salary_max: 34700, salary_period: 'YEAR', salary_text: '£34,700 &amp; £3000 Welcome Bonus' }), undefined)
  t.like(statedRange({ salary_min: 30615, salary_max: 30615, salary_period: 'YEAR', salary_text: '£30,615 per annum pro rata (£15.66 per hour)' }), { min: 30615, max: 30615, period: 'YEAR' })
  t.like(statedRange({ salary_min: 85000, salary_max: 85000, salary_period: 'YEAR', salary_text: '£85K per annum (wte)' }), { min: 85000, max: 85000 })
  t.like(statedRange({ salary_min: 24214, salary_max: 26220, salary_period: 'YEAR', salary_text: '£24,214 / £26,220 / £27,260' }), { min: 24214, max: 26220 })
  t.is(statedRange({ salary_min: null, salary_max: null, salary_text: 'Competitive' }), undefined)
  t.deepEqual(statedRange({ salary_min: 30000, salary_max: 35000, salary_period: 'YEAR', salary_text: '£30,000 - £35,000 pro rata, 3 days per week' }), { min: 30000, max: 35000, currency: undefined, period: 'YEAR' })
})

test('a locality is premises, town and county: the town is the place', (t) => {
  const at = (locality: string) => nhsLocation({ location_locality: locality, location_postcode: 'AB1 2CD', location_country: 'GB', lat: 52.1, lon: -1.2 })
  t.like(at('John Radcliffe Hospital, Oxford').locations, [{ city: 'Oxford', country: 'GB', lat: 52.1, lng: -1.2 }])
  t.like(at('Bury, Lancashire, BL8 2BS').locations, [{ city: 'Bury', region: 'Lancashire' }])
  t.like(at('Guildford, Surrey').locations, [{ city: 'Guildford', region: 'Surrey' }])
  t.deepEqual(at('Hertfordshire').locations, [{ region: 'Hertfordshire', country: 'GB', lat: 52.1, lng: -1.2 }])
  t.is(at('ARLESEY').location_type, 'In-Person')
  t.is(at('Home Based').location_type, undefined)
  t.like(at('Flexible, Cambridge'), { locations: [{ city: 'Cambridge' }], location_type: undefined })
})

test('end to end: NHS Jobs postings stored with title, employer, place, In-Person, salary as stated, type and dates; a re-run changes nothing', async (t) => {
  const { sql } = t.context.db
  const file = writeGz(t.context.dir, 'nhs-e2e.jsonl.gz', RECORDS)
  const summary = await ingest(sql, (await openFeed(file)).items, { source: file, now })
  t.is(summary.rejected, 0)
  t.is(summary.inserted, 5)
  const rows = await sql`
    select j.platform_job_id, j.job_title, c.name as company, j.locations, j.location_type, j.salary_min::float8 as min, j.salary_max::float8 as max,
      j.salary_currency, j.salary_period, j.salary_annual_min::float8 as annual_min, j.job_type, j.date_posted::text, j.valid_through, j.job_board, j.location_raw
    from jobs j join companies c on c.id = j.company_id join job_sources s on s.job_id = j.id
    where s.job_board = 'NHS Jobs' order by j.platform_job_id`
  t.is(rows.length, 5)
  t.like(rows[0], {
    job_title: 'Staff Nurse - Respiratory', company: 'University Hospital Southampton NHS Foundation Trust', location_type: 'In-Person',
    min: 24907, max: 30615, salary_currency: 'GBP', salary_period: 'yearly', job_type: 'Full Time', date_posted: '2020-10-05', job_board: 'NHS Jobs',
  })
  t.deepEqual(rows[0].locations, [{ city: 'Southampton', region: 'England', country: 'United Kingdom', coordinates: { lat: 50.9326, lng: -1.43386 } }])
  t.is(new Date(rows[0].valid_through).toISOString(), '2020-12-31T23:59:59.000Z')
  // the hourly rate as stated, not the file's annualized figure
  // (the text is read by the pipeline's salary parser, tested on its own in salary.test.ts)
  t.like(rows[1], { job_title: 'Bank Healthcare Assistant', max: 17, salary_period: 'hourly', job_type: 'Contract / Temporary', location_type: 'In-Person' })
  t.like(rows[1].locations[0], { city: 'Chertsey', country: 'United Kingdom' })
  t.like(rows[2].locations[0], { city: 'Truro', country: 'United Kingdom' })
  // the text's amounts, not the file's typo; "1 additional PA" is a programmed activity, not per annum,
  // and the text states no period, so it is inferred from the amounts' size (transform/salary.ts inferPeriod)
  t.like(rows[3], { min: 79860, max: 107668, salary_period: 'yearly' })
  // home working named: not In-Person by the adapter; the pipeline reads the arrangement from the text
  t.is(rows[4].location_raw, 'Aldershot/Home Working, GU11 1AY')
  t.not(rows[4].location_type, 'In-Person')

  const again = await ingest(sql, (await openFeed(file)).items, { source: file, now: new Date(now.getTime() + 3600_000) })
  t.like(again, { inserted: 0, updated: 0, duplicates: 0, unchanged: 5, rejected: 0 })
})
