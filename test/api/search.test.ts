/** POST/GET /v2/jobs/search over a small, hand-made set of postings. */
import anyTest, { type TestFn } from 'ava'
import { ingest } from '../../ingest/pipeline.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { createAccountWithKey, rawPosting } from '../helpers/factories.ts'
import { spend } from '../billing/fixtures.ts'

const test = anyTest as TestFn<TestApp>

const postings = [
  { n: 1, job_title: 'Senior Software Engineer', description: '<p>Build APIs in Go and PostgreSQL.</p>', location_raw: 'Berlin, Germany', salary_range: { min: 80000, max: 100000, currency: 'EUR', period: 'yearly' }, yoe_range: { min: 5, max: 8 }, experience_level: 'Senior', date_posted: '2026-11-10', company: { name: 'Alpha Soft', size_range: '51-200', industries: ['Tech, Software & IT Services'], subindustries: ['Cloud Technologies'], description_summary: 'Cloud payroll platform' } },
  { n: 2, job_title: 'Software Engineers Intern', description: '<p>Learn Python and Kubernetes.</p>', location_raw: 'Potsdam, Germany', job_type: 'Internship', salary_range: { min: 20, max: 22, currency: 'EUR', period: 'hourly' }, experience_level: 'Entry', date_posted: '2026-11-12', company: { name: 'Alpha Soft' } },
  { n: 3, job_title: 'Engineer, Software', description: '<p>Rust systems work. Visa sponsorship available.</p>', location_raw: 'Munich, Germany', visa_sponsored: true, salary_range: { min: 120000, max: 140000, currency: 'USD', period: 'yearly' }, date_posted: '2026-11-01', company: { name: 'Beta Systems', size_range: '1001-5000', industries: ['Finance'], subindustries: ['Fintech'] } },
  { n: 4, job_title: 'Registered Nurse', description: '<p>Patient care on the cardiology ward.</p>', location_raw: 'Austin, TX', job_type: 'Part-time', date_posted: '2026-11-05', salary_range: undefined, company: { name: 'Gamma Health', size_range: '10000+', industries: ['Healthcare'], subindustries: ['Hospitals'] } },
  { n: 5, job_title: 'Remote Product Designer', description: '<p>Figma and user research.</p>', location_raw: 'Remote - US', location_type: 'Remote', date_posted: '2026-11-15', salary_range: { min: 110000, max: 130000, currency: 'USD', period: 'yearly' }, company: { name: 'Delta Design', size_range: '11-50', industries: ['Design'], subindustries: ['UX/UI Design'] } },
  { n: 6, job_title: 'Contract Data Analyst', description: '<p>SQL and Tableau reporting. Software engineer peers.</p>', location_raw: 'San Francisco, CA', job_type: 'Contract', location_type: 'On-site', date_posted: '2026-10-20', salary_range: { min: 60, max: 70, currency: 'USD', period: 'hourly' }, recruiter_agency: true, company: { name: 'Epsilon Staffing', industries: ['Corporate Services'], subindustries: ['Staffing & Recruiting'], is_recruiting_agency: true } },
  { n: 7, job_title: 'Staff Engineer', description: '<p>Distributed systems in Oakland.</p>', location_raw: 'Oakland, CA', date_posted: '2026-11-11', yoe_range: { min: 10, max: null }, salary_range: undefined, company: { name: 'Zeta Labs', size_range: '201-500' } },
]

test.before(async (t) => {
  // many searches: a roomy rate limit, and a plan whose jobs meter does not block
  const generous = { limit: 100_000, windowSeconds: 60 }
  t.context = await startTestApp({ config: { rateLimits: { key: generous, search: generous, anonymous: generous } } })
  await t.context.db.sql`update accounts set plan = 'scale' where id = ${t.context.accountId}`
  await ingest(
    t.context.db.sql,
    postings.map(({ n, ...p }, i) => ({ line: i + 1, raw: rawPosting({ job_board: n % 2 ? 'Greenhouse' : 'Lever', source_id: `s-${n}`, ...p }, n) as never })),
    { source: 'search-test', now: new Date('2026-11-20T00:00:00Z') },
  )
})
test.after.always(async (t) => {
  await t.context?.close()
})

async function search(t: { context: TestApp }, body: unknown) {
  const res = await t.context.post('/v2/jobs/search', body)
  const json = await res.json()
  return { status: res.status, body: json, titles: (json.jobs ?? []).map((j: { job_title: string }) => j.job_title) as string[] }
}

test('no filters: every live job, newest first, with the page envelope', async (t) => {
  const { status, body, titles } = await search(t, {})
  t.is(status, 200)
  t.is(body.total_count, 7)
  t.is(body.company_count, 6)
  t.is(body.page, 1)
  t.is(body.limit, 10)
  t.is(body.total_pages, 1)
  t.is(titles[0], 'Remote Product Designer')
  const job = body.jobs[0]
  t.is(job.recruiter_ageny, job.recruiter_agency)
  t.deepEqual(job.meta.count, { value: 7, lowerBound: false, exact: true })
  t.is(typeof job.score, 'number')
  t.is(job.description_raw, undefined)
})

test('job_titles: stemming, phrases in order, exclusions, OR across elements', async (t) => {
  t.deepEqual((await search(t, { job_titles: ['engineers'] })).titles.sort(), ['Engineer, Software', 'Senior Software Engineer', 'Software Engineers Intern', 'Staff Engineer'])
  t.deepEqual((await search(t, { job_titles: ['"software engineer"'] })).titles.sort(), ['Senior Software Engineer', 'Software Engineers Intern'])
  t.deepEqual((await search(t, { job_titles: ['"engineer software"'] })).titles, ['Engineer, Software'])
  t.deepEqual((await search(t, { job_titles: ['engineer', '-intern'] })).titles.sort(), ['Engineer, Software', 'Senior Software Engineer', 'Staff Engineer'])
  t.deepEqual((await search(t, { job_titles: ['software -"senior software"'] })).titles.sort(), ['Engineer, Software', 'Software Engineers Intern'])
  t.deepEqual((await search(t, { job_titles: ['nurse', 'designer'] })).titles.sort(), ['Registered Nurse', 'Remote Product Designer'])
  t.deepEqual((await search(t, { job_titles: ['STAFF AND engineer'] })).titles, ['Staff Engineer'])
  t.deepEqual((await search(t, { job_titles: ['-engineer', '-nurse'] })).titles.sort(), ['Contract Data Analyst', 'Remote Product Designer'])
})

test('keywords match description, skills and technologies, not the title', async (t) => {
  t.deepEqual((await search(t, { keywords: ['kubernetes'] })).titles, ['Software Engineers Intern'])
  // "software engineer" is in one description only; titles do not count for keywords
  t.deepEqual((await search(t, { keywords: ['"software engineer"'] })).titles, ['Contract Data Analyst'])
  t.deepEqual((await search(t, { keywords: ['sql AND tableau'] })).titles, ['Contract Data Analyst'])
})

test('unbalanced quotes, punctuation and odd input are text, never a 500', async (t) => {
  for (const q of ['"software', 'engineer"', '"', '-', '--', 'C++ / node.js', '(a | b) & !c', "o'reilly", '""', 'AND', '-"unclosed']) {
    const r = await search(t, { job_titles: [q], keywords: [q] })
    t.is(r.status, 200, q)
  }
  t.deepEqual((await search(t, { job_titles: ['"software'] })).titles.sort(), ['Engineer, Software', 'Senior Software Engineer', 'Software Engineers Intern'])
})

test('relevance ranks title matches above description matches', async (t) => {
  // the keywords match one description only, of a job whose title has neither word; the titles match four jobs
  const described = await search(t, { keywords: ['software OR engineer'] })
  t.deepEqual(described.titles, ['Contract Data Analyst'])
  const titled = await search(t, { job_titles: ['engineer'] })
  t.deepEqual([...titled.titles].sort(), ['Engineer, Software', 'Senior Software Engineer', 'Software Engineers Intern', 'Staff Engineer'])
  const scores = (r: { body: { jobs: { score: number }[] } }) => r.body.jobs.map((j) => j.score)
  t.true(Math.min(...scores(titled)) > Math.max(...scores(described)), `title matches ${scores(titled)}, a description match ${scores(described)}`)
  t.deepEqual([...scores(titled)].sort((a, b) => b - a), scores(titled), 'best first')
})

test('filters: location types with On-site alias, job types with Contract alias and job_type spelling', async (t) => {
  t.deepEqual((await search(t, { location_types: ['On-site'] })).titles, ['Contract Data Analyst'])
  t.deepEqual((await search(t, { location_types: ['Remote'] })).titles, ['Remote Product Designer'])
  t.deepEqual((await search(t, { job_types: ['Contract'] })).titles, ['Contract Data Analyst'])
  t.deepEqual((await search(t, { job_type: ['Internship'] })).titles, ['Software Engineers Intern'])
  t.deepEqual((await search(t, { job_types: ['Part Time'] })).titles, ['Registered Nurse'])
})

test('filters: salary annualized, currency, include_no_salary; yoe with include_yoe', async (t) => {
  t.deepEqual((await search(t, { salary: { min: 115000 }, currency: 'USD' })).titles.sort(), ['Contract Data Analyst', 'Engineer, Software', 'Remote Product Designer'])
  t.deepEqual((await search(t, { salary: { min: 100000, max: 125000 }, currency: 'USD', sort_by: 'salary', sort_order: 'asc' })).titles, ['Remote Product Designer', 'Engineer, Software', 'Contract Data Analyst'])
  const withMissing = await search(t, { salary: { min: 115000 }, currency: 'USD', include_no_salary: 'true' })
  t.true(withMissing.titles.includes('Registered Nurse'))
  t.deepEqual((await search(t, { yoe: { min: 9 } })).titles, ['Staff Engineer'])
  t.true((await search(t, { yoe: { min: 9 }, include_yoe: 'true' })).titles.includes('Registered Nurse'))
})

test('filters: company, industry, size buckets, board, visa, agencies, dates, category', async (t) => {
  t.deepEqual((await search(t, { company_name: 'alpha soft' })).titles.sort(), ['Senior Software Engineer', 'Software Engineers Intern'])
  t.is((await search(t, { company_slug: 'beta-systems' })).titles[0], 'Engineer, Software')
  t.deepEqual((await search(t, { industry: 'Healthcare' })).titles, ['Registered Nurse'])
  t.deepEqual((await search(t, { industry: ['Healthcare', 'Design'] })).titles.sort(), ['Registered Nurse', 'Remote Product Designer'])
  t.deepEqual((await search(t, { sub_industry: ['Fintech'] })).titles, ['Engineer, Software'])
  t.deepEqual((await search(t, { company_types: ['10000+', '11-50'] })).titles.sort(), ['Registered Nurse', 'Remote Product Designer'])
  t.is((await search(t, { job_board: 'Lever' })).body.total_count, 3)
  t.is((await search(t, { job_board: ['Lever', 'Greenhouse'] })).body.total_count, 7)
  t.deepEqual((await search(t, { visa: 'true' })).titles, ['Engineer, Software'])
  t.false((await search(t, { hide_recruiting_agencies: 'true' })).titles.includes('Contract Data Analyst'))
  t.deepEqual((await search(t, { date_posted: '2026-11-12' })).titles, ['Remote Product Designer', 'Software Engineers Intern'])
  t.deepEqual((await search(t, { company_keywords: ['payroll'] })).titles.sort(), ['Senior Software Engineer', 'Software Engineers Intern'])
  t.deepEqual((await search(t, { experience: ['Entry'] })).titles, ['Software Engineers Intern'])
  const slug = (await search(t, { job_titles: ['nurse'] })).body.jobs[0].job_slug
  t.deepEqual((await search(t, { job_slug: slug })).titles, ['Registered Nurse'])
  t.true((await search(t, { return_raw_description: 'true', limit: 1 })).body.jobs[0].description_raw.length > 0)
})

test('geo: strict country, remote scoped to a country, weak radius, box, and units', async (t) => {
  t.deepEqual((await search(t, { geo_locations: [{ country: 'Germany' }] })).titles.sort(), ['Engineer, Software', 'Senior Software Engineer', 'Software Engineers Intern'])
  t.deepEqual((await search(t, { geo_locations: [{ country: 'US' }], location_types: ['Remote'] })).titles, ['Remote Product Designer'])
  // Potsdam is ~27 km from Berlin: inside 25 mi, outside 10 km
  t.deepEqual((await search(t, { geo_locations: [{ city: 'Berlin' }] })).titles.sort(), ['Senior Software Engineer', 'Software Engineers Intern'])
  t.deepEqual((await search(t, { geo_locations: [{ city: 'Berlin' }], geofilter_params: { radius: 10, unit: 'km' } })).titles, ['Senior Software Engineer'])
  t.deepEqual((await search(t, { geo_locations: [{ city: 'Berlin' }], geofilter_params: [{ mode: 'strict' }] })).titles, ['Senior Software Engineer'])
  t.deepEqual((await search(t, { geo_locations: [{ city: 'San Francisco', region: 'CA' }], geofilter_params: { mode: 'weak', radius: 15 } })).titles.sort(), ['Contract Data Analyst', 'Staff Engineer'])
  t.deepEqual((await search(t, { geo_locations: [{ region: 'Texas' }], geofilter_params: { mode: 'box' } })).titles, ['Registered Nurse'])
  t.deepEqual((await search(t, { geo_locations: [{ city: 'Berlin' }], geofilter_params: { mode: 'box', radius: 0.5, unit: 'degrees' } })).titles.sort(), ['Senior Software Engineer', 'Software Engineers Intern'])
  // `locations` is not the filter's name: ignored
  t.is((await search(t, { locations: [{ country: 'Germany' }] })).body.total_count, 7)
})

test('sorting is stable across pages: no repeats, no gaps', async (t) => {
  for (const sort_by of ['date_posted', 'salary', 'company', 'yoe', 'relevance', 'nonsense']) {
    const all = (await search(t, { sort_by, limit: 7 })).body.jobs.map((j: { _id: string }) => j._id)
    const paged: string[] = []
    for (let page = 1; page <= 4; page++) paged.push(...(await search(t, { sort_by, limit: 2, page })).body.jobs.map((j: { _id: string }) => j._id))
    t.deepEqual(paged, all, sort_by)
  }
  const byCompany = (await search(t, { sort_by: 'company', sort_order: 'desc' })).body.jobs.map((j: { company_name: string }) => j.company_name)
  t.is(byCompany[0], 'Zeta Labs')
  t.is((await search(t, { limit: 3, page: 3 })).body.total_pages, 3)
})

test('validation: string flags, geofilter mode, unknown industry, types, malformed JSON', async (t) => {
  const flag = await search(t, { hide_recruiting_agencies: true })
  t.is(flag.status, 422)
  t.like(flag.body.detail[0], { type: 'string_type', loc: ['body', 'hide_recruiting_agencies'], input: true })
  const raw = await search(t, { return_raw_description: true })
  t.is(raw.body.detail[0].type, 'string_type')
  const mode = await search(t, { geofilter_params: { mode: 'fuzzy' } })
  t.like(mode.body.detail[0], { type: 'enum', loc: ['body', 'geofilter_params', 'mode'], input: 'fuzzy' })
  const modeList = await search(t, { geofilter_params: [{ mode: 'auto' }, { mode: 'nope' }] })
  t.deepEqual(modeList.body.detail[0].loc, ['body', 'geofilter_params', 1, 'mode'])
  const industry = await search(t, { industry: ['Finance', 'Space Mining'] })
  t.is(industry.status, 422)
  t.deepEqual(industry.body.detail[0].loc, ['body', 'industry'])
  t.regex(industry.body.detail[0].msg, /industry.*Space Mining/)
  const sub = await search(t, { sub_industry: ['Nope'] })
  t.regex(sub.body.detail[0].msg, /sub_industry/)
  t.is((await search(t, { job_titles: 'engineer' })).body.detail[0].type, 'list_type')
  t.is((await search(t, { limit: 'ten' })).body.detail[0].type, 'float_type')
  t.is((await search(t, { limit: 1000 })).status, 422)
  t.is((await search(t, { page: 5000, limit: 100 })).status, 422)
  t.is((await search(t, { category: 'x', sort_by: 'bogus' })).status, 200)
  const bad = await t.context.post('/v2/jobs/search', '{"job_titles": [')
  t.is(bad.status, 422)
  t.is((await bad.json()).detail[0].type, 'json_invalid')
  const noKey = await t.context.post('/v2/jobs/search', {}, {})
  t.is(noKey.status, 401)
  t.deepEqual(await noKey.json(), { detail: 'Missing authorization header' })
})

test('GET /v2/jobs/search: same shape, repeated parameters, free-text places; not taken as a job id', async (t) => {
  const res = await t.context.get('/v2/jobs/search?job_titles=engineer&job_titles=nurse&geo_locations=Germany&limit=5&sort_by=date_posted')
  t.is(res.status, 200)
  const body = await res.json()
  t.deepEqual(body.jobs.map((j: { job_title: string }) => j.job_title), ['Software Engineers Intern', 'Senior Software Engineer', 'Engineer, Software'])
  t.is(body.limit, 5)
  const tx = await (await t.context.get('/v2/jobs/search?geo_locations=Austin,%20TX&geo_mode=strict')).json()
  t.deepEqual(tx.jobs.map((j: { job_title: string }) => j.job_title), ['Registered Nurse'])
  const sal = await (await t.context.get('/v2/jobs/search?salary_min=115000&currency=USD&visa=true')).json()
  t.deepEqual(sal.jobs.map((j: { job_title: string }) => j.job_title), ['Engineer, Software'])
  const bad = await t.context.get('/v2/jobs/search?limit=abc')
  t.is(bad.status, 422)
  t.deepEqual((await bad.json()).detail[0].loc, ['query', 'limit'])
  t.is((await t.context.get('/v2/jobs/search?geo_mode=fuzzy')).status, 422)
})

test('billing: 1 unit per job returned, reserved at the limit; estimate is free and works at the cap', async (t) => {
  const { sql } = t.context.db
  const { accountId, key } = await createAccountWithKey(sql, 'free')
  const headers = { 'x-api-key': key }
  const res = await t.context.post('/v2/jobs/search', { job_titles: ['engineer'], limit: 3 }, headers)
  t.is(res.status, 200)
  t.is((await res.json()).jobs.length, 3)
  t.is(res.headers.get('platform-usage-meter'), 'm_jobs_api_calls')
  t.is(res.headers.get('platform-usage-total-used'), '3')

  // use up all but 2 of the free plan's 500 jobs
  await spend(sql, accountId, 'm_jobs_api_calls', 495)
  await t.context.sync()
  const refused = await t.context.post('/v2/jobs/search', { limit: 10 }, headers)
  t.is(refused.status, 429)
  t.is(refused.headers.get('x-billing-code'), 'limit_exceeded')
  t.regex((await refused.json()).detail, /limit/)
  const lowered = await t.context.post('/v2/jobs/search', { limit: 2 }, headers)
  t.is(lowered.status, 200)

  const estimate = await t.context.post('/v2/jobs/estimate', { job_titles: ['engineer'], limit: 3, page: 2 }, headers)
  t.is(estimate.status, 200)
  t.like(await estimate.json(), { total_count: 4, company_count: 3, page: 2, limit: 3, total_pages: 2, cost: { meter: 'm_jobs_api_calls', search_units: 1, export_units: 3 } })
  t.is(estimate.headers.get('platform-usage-total-used'), '500')
})
