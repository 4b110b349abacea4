/**
 * POST /v2/jobs/historical/search end to end: the sign-in 401, every 422 (no filter,
 * unknown keys, the filters the archive cannot serve, bad values), the response's shape
 * (years from 2021 or date_posted_from, zero-filled; top companies; the most recent
 * sample titles; coverage; the export quote), every filter, the counts read from the
 * rollup agreeing with the facts, billing at cost 0, and the archive's feeds: expiry,
 * and postings that arrive already expired.
 *
 * Archive rows are written straight into job_archive (the trigger indexes them as it
 * does expiry's rows); each test names its own companies, or places no other test uses,
 * so tests running side by side never see each other's rows.
 */
import anyTest, { type TestFn } from 'ava'
import { randomBytes } from 'node:crypto'
import { ingest } from '../../ingest/pipeline.ts'
import { FIRST_YEAR, zeroFilledYears } from '../../api/routes/historical.ts'
import { DEFAULT_SAMPLE_SIZE } from '../../api/schemas/historical.ts'
import { buildOpenApi } from '../../api/openapi/document.ts'
import { resolvePlace } from '../../seeds/places/geocode.ts'
import { placeKeys } from '../../seeds/places/place-keys.ts'
import { expireJobs } from '../../sql/expiry.ts'
import { EXPORT_TIERS_TEXT, exportQuote, rollupFilter } from '../../sql/historical.ts'
import type { Sql } from '../../sql/db.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { createAccountWithKey, rawPosting, readItems } from '../helpers/factories.ts'
import { spend, usage } from '../billing/fixtures.ts'

const test = anyTest as TestFn<TestApp>

test.before(async (t) => {
  const roomy = { limit: 100_000, windowSeconds: 60 }
  t.context = await startTestApp({ config: { rateLimits: { key: roomy, search: roomy, anonymous: roomy } }, embedder: null })
})
test.after.always(async (t) => {
  await t.context?.close()
})

const THIS_YEAR = new Date().getUTCFullYear()
const tag = () => randomBytes(4).toString('hex')

type Place = { locations: unknown[]; countries: string[]; place_keys: string[] }

/** A place as ingest stores it: the gazetteer's names and coordinates, and its place keys. */
function place(city: string | null, region: string | null, country: string): Place {
  const found = resolvePlace({ city, region, country })
  if (!found) throw new Error(`no place ${city}, ${region}, ${country}`)
  const loc = { city: found.city, region: found.region, country: found.country }
  const coords = found.lat !== null && found.lng !== null ? { coordinates: { lat: found.lat, lng: found.lng } } : {}
  return { locations: [{ ...loc, ...coords }], countries: [found.country!], place_keys: placeKeys([loc]) }
}

type Archived = {
  title: string
  company: string
  slug?: string
  posted: string
  expired?: string
  place?: Place
  skills?: string[]
  technologies?: string[]
  benefits?: string[]
  description?: string | null
}

// far above any id ingest gives a job, so the trigger never takes a real job's places
let nextId = 9_000_000_000_000 + Math.floor(Math.random() * 1e6) * 10_000

/** Archived postings, written as expiry writes them; returns their ids. */
async function archive(sql: Sql, rows: Archived[]) {
  const berlin = place('Berlin', null, 'Germany')
  const values = rows.map((r) => {
    const p = r.place ?? berlin
    return {
      job_id: String(nextId++),
      job_title: r.title,
      company_name: r.company,
      company_slug: r.slug ?? r.company.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
      locations: sql.json(p.locations as never),
      countries: p.countries,
      place_keys: p.place_keys,
      date_posted: r.posted,
      date_expired: r.expired ?? r.posted,
      skills: r.skills ?? [],
      technologies: r.technologies ?? [],
      benefits: r.benefits ?? [],
      description_kept: r.description !== undefined && r.description !== null,
      description: r.description ?? null,
    }
  })
  await sql`insert into job_archive ${sql(values, 'job_id', 'job_title', 'company_name', 'company_slug', 'locations', 'countries', 'place_keys', 'date_posted', 'date_expired', 'skills', 'technologies', 'benefits', 'description_kept', 'description')}`
  return values.map((v) => v.job_id)
}

type Result = {
  total_count: number
  by_year_posted: { year: number; count: number }[]
  top_companies: { company_name: string; count: number }[]
  sample_titles: { job_title: string; year_posted: number }[]
  coverage: { description_text_sample_pct: number; note: string }
  export_quote: { record_count: number; price_usd: number; tiers: string }
}

async function search(t: { context: TestApp }, body: unknown, headers?: Record<string, string>) {
  const res = await t.context.post('/v2/jobs/historical/search', body, headers)
  return { res, status: res.status, body: (await res.json()) as Result & { detail: any } }
}

/** Years as counted: one entry per year, ascending. */
const tally = (years: number[]) =>
  [...new Set(years)].sort((a, b) => a - b).map((year) => ({ year, count: years.filter((y) => y === year).length }))

/** The year counts that are not zero. */
const nonZero = (years: { year: number; count: number }[]) => years.filter((y) => y.count > 0)
const yearsFrom = (from: number) => Array.from({ length: THIS_YEAR - from + 1 }, (_, i) => from + i)

// --- authentication and input --------------------------------------------------------

test('no key: the sign-in 401 with X-Billing-Code auth_required; a bad key is the invalid-key 401', async (t) => {
  const missing = await search(t, { job_titles: ['nurse'] }, {})
  t.is(missing.status, 401)
  t.deepEqual(missing.body, { detail: 'Sign in to access this endpoint' })
  t.is(missing.res.headers.get('x-billing-code'), 'auth_required')
  const bad = await search(t, { job_titles: ['nurse'] }, { 'x-api-key': 'jds_never-issued' })
  t.is(bad.status, 401)
  t.deepEqual(bad.body, { detail: 'Invalid or revoked API key' })
})

test('no filter: 422 at ["body"], also for sample_size alone, empty lists and titles that say nothing', async (t) => {
  for (const body of [{}, { sample_size: 10 }, { job_titles: [], company_names: [] }, { job_titles: ['   '] }, { keywords: ['-'] }]) {
    const { status, body: out, res } = await search(t, body)
    t.is(status, 422, JSON.stringify(body))
    t.is(out.detail.length, 1, JSON.stringify(out.detail))
    t.like(out.detail[0], { type: 'value_error', loc: ['body'] })
    t.regex(out.detail[0].msg, /^At least one filter is required: one of job_titles, keywords, geo_locations, location_group, company_names, company_slugs, date_posted_from/)
    t.deepEqual(out.detail[0].input, body)
    t.is(res.headers.get('platform-usage-meter'), null, 'no usage headers on a refusal')
  }
})

test('unknown keys: one extra_forbidden item each, naming the field meant for a near miss', async (t) => {
  const { status, body } = await search(t, { job_titles: ['nurse'], page: 2, limit: 10, company_name: 'Acme', locations: [{ country: 'Germany' }], constructor: 1 })
  t.is(status, 422)
  const byKey = Object.fromEntries(body.detail.map((d: { loc: string[] }) => [d.loc[1], d]))
  t.deepEqual(Object.keys(byKey).sort(), ['company_name', 'constructor', 'limit', 'locations', 'page'])
  for (const d of body.detail) {
    t.is(d.type, 'extra_forbidden')
    t.is(d.loc.length, 2)
    t.regex(d.msg, /^Extra inputs are not permitted\./)
  }
  t.regex(byKey.company_name.msg, /Did you mean company_names\?/)
  t.regex(byKey.locations.msg, /Did you mean geo_locations\?/)
  t.is(byKey.page.input, 2)
  t.deepEqual(byKey.locations.input, [{ country: 'Germany' }])
})

test('filters the archive cannot serve: a 422 value_error at the field, naming it and what it filters', async (t) => {
  const cases: [string, unknown, string][] = [
    ['salary', { min: 50000 }, 'salary'],
    ['salary_range', { min: 1, max: 2 }, 'salary'],
    ['currency', 'USD', 'salary'],
    ['job_types', ['Full Time'], 'job type'],
    ['job_type', 'Contract', 'job type'],
    ['experience', ['Senior'], 'seniority'],
    ['experience_levels', ['Senior'], 'seniority'],
    ['seniority', 'Senior', 'seniority'],
    ['yoe', { min: 2 }, 'seniority'],
    ['industry', ['Healthcare'], 'industry'],
    ['sub_industry', ['Hospitals'], 'industry'],
    ['location_types', ['Remote'], 'work arrangement'],
    ['work_arrangement', 'Remote', 'work arrangement'],
    ['remote', true, 'work arrangement'],
    ['description', 'python', 'description text'],
  ]
  for (const [field, value, kind] of cases) {
    const { status, body } = await search(t, { job_titles: ['nurse'], [field]: value })
    t.is(status, 422, field)
    t.is(body.detail.length, 1, field)
    t.like(body.detail[0], { type: 'value_error', loc: ['body', field], ctx: { unsupported_filter: kind } }, field)
    t.true(body.detail[0].msg.startsWith(`Historical search cannot filter on ${kind} (${field})`), body.detail[0].msg)
    t.deepEqual(body.detail[0].input, value)
  }
  // keywords is a filter here (skills, technologies, benefits)
  t.is((await search(t, { keywords: ['python'] })).status, 200)
})

test('bad values: 422 items at their loc, merged with the refused keys into one answer', async (t) => {
  const cases: [unknown, (string | number)[], string][] = [
    [{ job_titles: ['x'], sample_size: -1 }, ['body', 'sample_size'], 'greater_than_equal'],
    [{ job_titles: ['x'], sample_size: 101 }, ['body', 'sample_size'], 'less_than_equal'],
    [{ job_titles: ['x'], sample_size: 2.5 }, ['body', 'sample_size'], 'int_type'],
    [{ job_titles: ['x'], sample_size: '10' }, ['body', 'sample_size'], 'float_type'],
    [{ job_titles: 'nurse' }, ['body', 'job_titles'], 'list_type'],
    [{ keywords: [1] }, ['body', 'keywords', 0], 'string_type'],
    [{ company_names: [''] }, ['body', 'company_names', 0], 'string_too_short'],
    [{ job_titles: [null] }, ['body', 'job_titles', 0], 'value_error'],
    [{ date_posted_from: '2025-02-30' }, ['body', 'date_posted_from'], 'date_parsing'],
    [{ date_expired_to: '2025/01/01' }, ['body', 'date_expired_to'], 'date_parsing'],
    [{ date_posted_from: '2025-06-01', date_posted_to: '2025-05-31' }, ['body', 'date_posted_to'], 'value_error'],
    [{ date_expired_from: '2026-01-02', date_expired_to: '2026-01-01' }, ['body', 'date_expired_to'], 'value_error'],
    [{ location_group: 'Atlantis' }, ['body', 'location_group'], 'value_error'],
    [{ geo_locations: [{}] }, ['body', 'geo_locations', 0], 'value_error'],
    [{ geo_locations: { country: 'Germany' } }, ['body', 'geo_locations'], 'list_type'],
  ]
  for (const [body, loc, type] of cases) {
    const { status, body: out } = await search(t, body)
    t.is(status, 422, JSON.stringify(body))
    t.like(out.detail[0], { loc, type }, JSON.stringify(out.detail))
  }
  const unknownGroup = await search(t, { location_group: 'Atlantis' })
  t.regex(unknownGroup.body.detail[0].msg, /^Unknown location_group: Atlantis\. Known groups: Northeast, Midwest, /)
  const both = await search(t, { job_titles: 'nurse', salary: { min: 1 }, foo: 1 })
  t.is(both.status, 422)
  t.deepEqual(both.body.detail.map((d: { loc: string[]; type: string }) => [d.loc.join('.'), d.type]).sort(), [
    ['body.foo', 'extra_forbidden'], ['body.job_titles', 'list_type'], ['body.salary', 'value_error'],
  ])
  t.is((await t.context.post('/v2/jobs/historical/search', '{"job_titles": [', { 'x-api-key': t.context.key })).status, 422, 'malformed JSON')
})

// --- the answer ------------------------------------------------------------------------

test('the answer: counts by year from 2021 zero-filled, top companies, newest sample titles, coverage and the quote', async (t) => {
  const sql = t.context.db.sql
  const a = `Hist Alpha ${tag()}`
  const b = `Hist Beta ${tag()}`
  await archive(sql, [
    { title: 'Ward Nurse', company: a, posted: '2019-04-02', description: '<p>old</p>' },
    { title: 'Ward Nurse', company: a, posted: '2022-03-01' },
    { title: 'Ward Nurse', company: a, posted: '2022-07-09', description: '<p>kept</p>' },
    { title: 'Charge Nurse', company: a, posted: `${THIS_YEAR}-01-05` },
    { title: 'Night Nurse', company: b, posted: '2025-02-01', description: '<p>kept</p>' },
    { title: 'Newest Nurse', company: b, posted: `${THIS_YEAR}-01-06` },
  ])
  const { status, body, res } = await search(t, { company_names: [a, b.toUpperCase()] })
  t.is(status, 200)
  t.deepEqual(Object.keys(body), ['total_count', 'by_year_posted', 'top_companies', 'sample_titles', 'coverage', 'export_quote'])
  t.is(body.total_count, 6, 'the 2019 posting counts, though its year is not listed')
  t.deepEqual(body.by_year_posted.map((y) => y.year), yearsFrom(FIRST_YEAR))
  t.deepEqual(nonZero(body.by_year_posted), tally([2022, 2022, 2025, THIS_YEAR, THIS_YEAR]))
  t.deepEqual(body.top_companies, [{ company_name: a, count: 4 }, { company_name: b, count: 2 }])
  t.deepEqual(body.sample_titles.slice(0, 3), [
    { job_title: 'Newest Nurse', year_posted: THIS_YEAR },
    { job_title: 'Charge Nurse', year_posted: THIS_YEAR },
    { job_title: 'Night Nurse', year_posted: 2025 },
  ])
  t.is(body.sample_titles.length, 6)
  t.is(body.coverage.description_text_sample_pct, 50)
  t.regex(body.coverage.note, /keeps the description text of 50% of the matching postings/)
  t.deepEqual(body.export_quote, { record_count: 6, price_usd: 0.72, tiers: EXPORT_TIERS_TEXT })
  t.regex(res.headers.get('content-type') ?? '', /^application\/json/)

  // date_posted_from moves the first year, back before 2021 or forward
  const early = await search(t, { company_names: [a], date_posted_from: '2018-01-01' })
  t.deepEqual(early.body.by_year_posted.map((y) => y.year), yearsFrom(2018))
  t.deepEqual(nonZero(early.body.by_year_posted), tally([2019, 2022, 2022, THIS_YEAR]))
  const late = await search(t, { company_names: [a, b], date_posted_from: '2025-01-01' })
  t.deepEqual(late.body.by_year_posted.map((y) => y.year), yearsFrom(2025))
  t.is(late.body.total_count, 3)
  t.is(late.body.coverage.description_text_sample_pct, 33.3)

  // the shape the document gives, every object closed
  const doc = buildOpenApi()
  const schema = (doc.paths['/v2/jobs/historical/search'].post.responses as any)['200'].content['application/json'].schema
  t.deepEqual(Object.keys(body).sort(), [...schema.required].sort())
  for (const key of ['by_year_posted', 'top_companies', 'sample_titles'] as const) {
    t.deepEqual(Object.keys(body[key][0]).sort(), [...schema.properties[key].items.required].sort(), key)
  }
  t.deepEqual(Object.keys(body.coverage).sort(), [...schema.properties.coverage.required].sort())
  t.deepEqual(Object.keys(body.export_quote).sort(), [...schema.properties.export_quote.required].sort())
})

test('nothing matches: zeros for every year, no companies or titles, coverage 0 and a quote of 0', async (t) => {
  const { status, body } = await search(t, { company_names: [`Nobody ${tag()}`] })
  t.is(status, 200)
  t.is(body.total_count, 0)
  t.deepEqual(body.by_year_posted, yearsFrom(FIRST_YEAR).map((year) => ({ year, count: 0 })))
  t.deepEqual(body.top_companies, [])
  t.deepEqual(body.sample_titles, [])
  t.is(body.coverage.description_text_sample_pct, 0)
  t.regex(body.coverage.note, /No archived posting matches/)
  t.deepEqual(body.export_quote, { record_count: 0, price_usd: 0, tiers: EXPORT_TIERS_TEXT })
  // a window after this year lists no year at all
  const future = await search(t, { company_names: ['x'], date_posted_from: `${THIS_YEAR + 1}-01-01` })
  t.deepEqual(future.body.by_year_posted, [])
})

test('sample_size: 50 by default, 0 to 100, the most recently posted first; top_companies at most 10', async (t) => {
  const sql = t.context.db.sql
  const prefix = `Hist Many ${tag()}`
  // 12 companies, company k with k + 1 postings; 90 postings a day apart
  const rows: Archived[] = []
  for (let k = 0; k < 12; k++) for (let i = 0; i <= k; i++) rows.push({ title: `Role ${k}-${i}`, company: `${prefix} ${String(k).padStart(2, '0')}`, posted: '2025-01-01' })
  const start = Date.UTC(2025, 0, 1)
  rows.forEach((r, i) => (r.posted = new Date(start + i * 86_400_000).toISOString().slice(0, 10)))
  await archive(sql, rows)
  const slugs = [...new Set(rows.map((r) => r.company.toLowerCase().replace(/[^a-z0-9]+/g, '-')))]
  const byDefault = await search(t, { company_slugs: slugs })
  t.is(byDefault.body.total_count, 78)
  t.is(byDefault.body.sample_titles.length, DEFAULT_SAMPLE_SIZE)
  const newestFirst = [...rows].reverse().map((r) => r.title)
  t.deepEqual(byDefault.body.sample_titles.map((s) => s.job_title), newestFirst.slice(0, DEFAULT_SAMPLE_SIZE))
  t.is(byDefault.body.top_companies.length, 10)
  t.deepEqual(byDefault.body.top_companies[0], { company_name: `${prefix} 11`, count: 12 })
  t.deepEqual(byDefault.body.top_companies[9], { company_name: `${prefix} 02`, count: 3 })
  t.is((await search(t, { company_slugs: slugs, sample_size: 0 })).body.sample_titles.length, 0)
  t.is((await search(t, { company_slugs: slugs, sample_size: 100 })).body.sample_titles.length, 78)
  t.is((await search(t, { company_slugs: slugs, sample_size: 7 })).body.sample_titles.length, 7)
})

// --- filters -----------------------------------------------------------------------------

test('job_titles: the search syntax over titles (words, phrases, exclusion, OR)', async (t) => {
  const sql = t.context.db.sql
  const co = `Hist Titles ${tag()}`
  await archive(sql, [
    { title: 'Senior Data Engineer', company: co, posted: '2025-01-01' },
    { title: 'Data Engineering Intern', company: co, posted: '2025-01-02' },
    { title: 'Engineer of Data Platforms', company: co, posted: '2025-01-03' },
    { title: 'Registered Nurse', company: co, posted: '2025-01-04' },
    { title: 'Travel Registered Nurse', company: co, posted: '2025-01-05' },
  ])
  const titles = async (job_titles: string[]) =>
    (await search(t, { company_names: [co], job_titles })).body.sample_titles.map((s) => s.job_title).sort()
  t.deepEqual(await titles(['data engineer']), ['Data Engineering Intern', 'Engineer of Data Platforms', 'Senior Data Engineer'])
  t.deepEqual(await titles(['"data engineer"']), ['Data Engineering Intern', 'Senior Data Engineer'], 'a phrase: the words side by side, stemmed')
  t.deepEqual(await titles(['data engineer', '-intern']), ['Engineer of Data Platforms', 'Senior Data Engineer'])
  t.deepEqual(await titles(['"registered nurse" -travel']), ['Registered Nurse'])
  t.deepEqual(await titles(['nurse', 'platforms']), ['Engineer of Data Platforms', 'Registered Nurse', 'Travel Registered Nurse'])
  t.deepEqual(await titles(['-nurse', '-engineer']), [])
  t.deepEqual(await titles(['data AND senior']), ['Senior Data Engineer'])
})

test('keywords: skills, technologies and benefits only, never the description; a phrase within one term', async (t) => {
  const sql = t.context.db.sql
  const co = `Hist Keywords ${tag()}`
  await archive(sql, [
    { title: 'A', company: co, posted: '2025-01-01', technologies: ['Python', 'AWS'] },
    { title: 'B', company: co, posted: '2025-01-02', skills: ['machine learning'], benefits: ['health insurance'] },
    { title: 'C', company: co, posted: '2025-01-03', description: '<p>Python and machine learning every day</p>', skills: ['Excel'] },
    { title: 'D', company: co, posted: '2025-01-04', skills: ['machine'], technologies: ['learning'] },
  ])
  const titles = async (keywords: string[]) =>
    (await search(t, { company_names: [co], keywords })).body.sample_titles.map((s) => s.job_title).sort()
  t.deepEqual(await titles(['python']), ['A'], 'the description does not count')
  t.deepEqual(await titles(['python aws']), ['A'])
  t.deepEqual(await titles(['python', 'insurance']), ['A', 'B'])
  t.deepEqual(await titles(['"machine learning"']), ['B'], 'a phrase stands within one term')
  t.deepEqual(await titles(['machine learning']), ['B', 'D'], 'words may come from different terms')
  t.deepEqual(await titles(['machine -insurance']), ['D'])
  t.deepEqual(await titles(['-python']), ['B', 'C', 'D'])
})

test('geo_locations: a country, a region, a city 25 miles around, a remote posting open to a country; location_group', async (t) => {
  const sql = t.context.db.sql
  const co = `Hist Places ${tag()}`
  const remoteUs = { locations: [{ city: null, region: null, country: 'United States' }], countries: ['United States'], place_keys: placeKeys([], ['United States']) }
  await archive(sql, [
    { title: 'SF', company: co, posted: '2025-01-01', place: place('San Francisco', 'California', 'US') },
    { title: 'Oakland', company: co, posted: '2025-01-02', place: place('Oakland', 'California', 'US') },
    { title: 'Austin', company: co, posted: '2025-01-03', place: place('Austin', 'Texas', 'US') },
    { title: 'Remote US', company: co, posted: '2025-01-04', place: remoteUs },
    { title: 'Munich', company: co, posted: '2025-01-05', place: place('Munich', 'Bavaria', 'DE') },
    { title: 'Vienna', company: co, posted: '2025-01-06', place: place('Vienna', 'Vienna', 'AT') },
    { title: 'London', company: co, posted: '2025-01-07', place: place('London', 'England', 'GB') },
  ])
  const titles = async (more: Record<string, unknown>) =>
    (await search(t, { company_names: [co], ...more })).body.sample_titles.map((s) => s.job_title).sort()
  t.deepEqual(await titles({ geo_locations: [{ country: 'United States' }] }), ['Austin', 'Oakland', 'Remote US', 'SF'])
  t.deepEqual(await titles({ geo_locations: [{ country: 'US' }] }), ['Austin', 'Oakland', 'Remote US', 'SF'], 'names as the gazetteer reads them')
  t.deepEqual(await titles({ geo_locations: [{ region: 'California' }] }), ['Oakland', 'SF'])
  t.deepEqual(await titles({ geo_locations: [{ city: 'San Francisco', region: 'CA' }] }), ['Oakland', 'SF'], 'Oakland lies within 25 miles')
  t.deepEqual(await titles({ geo_locations: [{ city: 'Austin' }, { country: 'Germany' }] }), ['Austin', 'Munich'])
  t.deepEqual(await titles({ geo_locations: [{ country: 'Atlantis' }] }), [], 'an unknown place matches nothing')
  t.deepEqual(await titles({ location_group: 'DACH' }), ['Munich', 'Vienna'])
  t.deepEqual(await titles({ location_group: 'bay area' }), ['Oakland', 'SF'])
  t.deepEqual(await titles({ location_group: 'West_South_Central' }), ['Austin'], 'a census division: its states')
  t.deepEqual(await titles({ location_group: 'UK_Ireland', geo_locations: [{ country: 'Germany' }] }), [], 'a group AND geo_locations')
  t.deepEqual(await titles({ location_group: 'Europe', geo_locations: [{ region: 'Bavaria' }] }), ['Munich'])
})

test('company_slugs, date windows posted and expired, and filters together', async (t) => {
  const sql = t.context.db.sql
  const co = `Hist Dates ${tag()}`
  const other = `Hist Dates Other ${tag()}`
  await archive(sql, [
    { title: 'Jan', company: co, posted: '2025-01-15', expired: '2025-02-15' },
    { title: 'Mar', company: co, posted: '2025-03-01', expired: '2025-03-31' },
    { title: 'Jun', company: co, posted: '2025-06-30', expired: '2025-08-01' },
    { title: 'Jun other', company: other, posted: '2025-06-30', expired: '2025-07-01' },
  ])
  const slug = co.toLowerCase().replace(/[^a-z0-9]+/g, '-')
  const titles = async (body: Record<string, unknown>) => (await search(t, body)).body.sample_titles.map((s) => s.job_title).sort()
  t.deepEqual(await titles({ company_slugs: [slug] }), ['Jan', 'Jun', 'Mar'])
  t.deepEqual(await titles({ company_slugs: [slug], date_posted_from: '2025-03-01', date_posted_to: '2025-06-30' }), ['Jun', 'Mar'], 'inclusive days')
  t.deepEqual(await titles({ company_slugs: [slug], date_posted_to: '2025-02-28' }), ['Jan'])
  t.deepEqual(await titles({ company_slugs: [slug], date_expired_from: '2025-03-31', date_expired_to: '2025-03-31' }), ['Mar'])
  t.deepEqual(await titles({ company_names: [co, other], date_expired_from: '2025-07-01' }), ['Jun', 'Jun other'])
  t.deepEqual(await titles({ company_names: [co], company_slugs: [other.toLowerCase().replace(/[^a-z0-9]+/g, '-')] }), [], 'names AND slugs')
  t.deepEqual(await titles({ company_names: [co], job_titles: ['jun OR jan'] }), [], 'OR is a word, not an operator')
})

test('countries, companies and whole years are counted from the rollup, which agrees with the facts', async (t) => {
  const sql = t.context.db.sql
  const co = `Hist Rollup ${tag()}`
  const iceland = place('Reykjavik', null, 'IS')
  const lux = place('Luxembourg', null, 'LU')
  // one posting open to both countries: in a group of both it counts once
  const both = { locations: [...iceland.locations, ...lux.locations], countries: ['Iceland', 'Luxembourg'], place_keys: [...iceland.place_keys, ...lux.place_keys] }
  await archive(sql, [
    { title: 'Ice 1', company: co, posted: '2022-05-01', place: iceland, description: 'x' },
    { title: 'Ice 2', company: `${co} B`, posted: '2025-05-01', place: iceland },
    { title: 'Lux 1', company: co, posted: '2025-06-01', place: lux },
    { title: 'Both', company: co, posted: `${THIS_YEAR}-01-01`, place: both },
  ])
  const iceKey = { kind: 'key', key: 'c:iceland' } as const
  t.deepEqual(rollupFilter({ places: [iceKey] }), { countries: [['c:iceland']], fromYear: null, toYear: null })
  t.deepEqual(rollupFilter({ companyNames: ['x'], postedFrom: '2018-01-01', postedTo: '2024-12-31' }), { countries: [], fromYear: 2018, toYear: 2024 })
  t.is(rollupFilter({ places: [iceKey], postedFrom: '2018-01-02' }), null, 'a window that cuts a year')
  t.is(rollupFilter({ places: [iceKey], postedTo: '2024-12-30' }), null)
  t.is(rollupFilter({ places: [iceKey], expiredFrom: '2024-01-01' }), null)
  t.is(rollupFilter({ places: [{ kind: 'key', key: 'r:iceland|capital region' }] }), null)
  t.is(rollupFilter({ places: [iceKey], titles: { expressions: [], exclude: [{ phrase: false, text: 'x' }] } }), null)
  const cases: [Record<string, unknown>, number][] = [
    [{ geo_locations: [{ country: 'Iceland' }] }, 3],
    [{ geo_locations: [{ country: 'Iceland' }, { country: 'Luxembourg' }] }, 4],
    [{ geo_locations: [{ country: 'Iceland' }], company_names: [co] }, 2],
    [{ geo_locations: [{ country: 'Luxembourg' }], location_group: 'Nordics' }, 1],
    [{ geo_locations: [{ country: 'Iceland' }], date_posted_from: '2023-01-01' }, 2],
    [{ geo_locations: [{ country: 'Iceland' }, { country: 'Luxembourg' }], date_posted_from: '2022-01-01', date_posted_to: '2025-12-31' }, 3],
    [{ company_names: [co, `${co} B`], date_posted_to: '2024-12-31' }, 1],
  ]
  for (const [body, total] of cases) {
    const rollup = (await search(t, body)).body
    // an expiry window that holds every posting sends the search to the facts
    const facts = (await search(t, { ...body, date_expired_from: '1900-01-01' })).body
    t.is(rollup.total_count, total, JSON.stringify(body))
    t.deepEqual(rollup.top_companies, facts.top_companies, JSON.stringify(body))
    t.deepEqual(rollup.by_year_posted, facts.by_year_posted)
    t.is(rollup.total_count, facts.total_count)
    t.is(rollup.coverage.description_text_sample_pct, facts.coverage.description_text_sample_pct)
    t.deepEqual(rollup.sample_titles, facts.sample_titles)
  }
  // an archive row rewritten (its dates moved) and one removed: the rollup follows
  await sql`update job_archive set date_posted = '2023-03-03' where job_title = 'Ice 2' and company_name = ${`${co} B`}`
  await sql`delete from job_archive where job_title = 'Lux 1' and company_name = ${co}`
  const after = (await search(t, { geo_locations: [{ country: 'Iceland' }, { country: 'Luxembourg' }] })).body
  t.is(after.total_count, 3)
  t.deepEqual(nonZero(after.by_year_posted), tally([2022, 2023, THIS_YEAR]))
})

// --- billing ----------------------------------------------------------------------------

test.serial('costs 0 on m_jobs_api_calls: usage headers, nothing charged, and it answers at the meter cap', async (t) => {
  const { db, post } = t.context
  const { accountId, key } = await createAccountWithKey(db.sql, 'free')
  const as = { 'x-api-key': key }
  const res = await post('/v2/jobs/historical/search', { job_titles: ['nurse'] }, as)
  t.is(res.status, 200)
  t.like(usage(res), { meter: 'm_jobs_api_calls', unit: 'jobs', 'included-limit': '500', 'total-used': '0' })
  t.truthy(res.headers.get('x-ratelimit-limit'))
  await spend(db.sql, accountId, 'm_jobs_api_calls', 500)
  await t.context.sync()
  t.is((await post('/v2/jobs/search', { limit: 10 }, as)).status, 429, 'search is refused at the cap')
  const capped = await post('/v2/jobs/historical/search', { job_titles: ['nurse'] }, as)
  t.is(capped.status, 200)
  t.like(usage(capped), { 'included-remaining': '0', 'total-used': '500' })
  await t.context.sync()
  const [row] = await db.sql<{ used: number }[]>`select coalesce(sum(used), 0)::int as used from usage_meters where account_id = ${accountId}`
  t.is(row.used, 500, 'the searches charged nothing')
})

// --- the quote ----------------------------------------------------------------------------

test('the export quote: 0.12, 0.03, 0.01 and 0.001 a record by step, 0.50 at least, exact at every boundary', (t) => {
  const cases: [number, number][] = [
    [0, 0],
    [1, 0.5],
    [4, 0.5],
    [5, 0.6],
    [999, 119.88],
    [1_000, 120],
    [1_001, 120.03],
    [9_999, 389.97],
    [10_000, 390],
    [10_001, 390.01],
    [99_999, 1289.99],
    [100_000, 1290],
    [100_001, 1290.001],
    [1_000_000, 2190],
    [29_000_000, 30190],
  ]
  for (const [records, price] of cases) t.deepEqual(exportQuote(records), { record_count: records, price_usd: price, tiers: EXPORT_TIERS_TEXT }, String(records))
  t.regex(EXPORT_TIERS_TEXT, /0\.12 .*first 1,000.*0\.03 .*next 9,000.*0\.01 .*next 90,000.*0\.001 .*after 100,000.*0\.50 minimum/)
})

test('zero-filled years: every year from the first to the last, counts where there are some', (t) => {
  t.deepEqual(zeroFilledYears([{ year: 2019, count: 4 }, { year: 2022, count: 2 }], 2021, 2023), [
    { year: 2021, count: 0 }, { year: 2022, count: 2 }, { year: 2023, count: 0 },
  ])
  t.deepEqual(zeroFilledYears([], 2027, 2026), [])
})

// --- what feeds the archive --------------------------------------------------------------

test.serial('postings that arrive already expired are searchable at once; expiry archives the others', async (t) => {
  const sql = t.context.db.sql
  const co = `Hist Feed Trust ${tag()}`
  const old = rawPosting({ job_board: 'HistFeedBoard', source_id: `old-${tag()}`, job_title: 'Staff Nurse Band 5', date_posted: '2019-03-01', valid_through: '2019-04-01', company: { name: co } })
  const live = rawPosting({ job_board: 'HistFeedBoard', source_id: `live-${tag()}`, job_title: 'Ward Manager', date_posted: '2026-11-01', valid_through: '2099-01-01', company: { name: co } })
  const summary = await ingest(sql, readItems([old, live]), { source: 'historical-feed' })
  t.is(summary.expired_on_arrival, 1)
  const before = await search(t, { company_names: [co], date_posted_from: '2018-01-01' })
  t.is(before.body.total_count, 1, 'no expiry run was needed')
  t.deepEqual(nonZero(before.body.by_year_posted), [{ year: 2019, count: 1 }])
  t.deepEqual(before.body.sample_titles, [{ job_title: 'Staff Nurse Band 5', year_posted: 2019 }])

  // the live one, once past its valid_through, is archived by expiry
  await expireJobs(sql, { afterDays: 30, now: new Date('2099-01-02T00:00:00Z') })
  const after = await search(t, { company_names: [co], job_titles: ['ward manager'] })
  t.is(after.body.total_count, 1)
  t.deepEqual(after.body.top_companies, [{ company_name: co, count: 1 }])
})
