/**
 * POST /v2/jobs/insights and POST /v2/platform/companies/{slug}/insights over real HTTP:
 * every figure against postings made for the test (each test has a company of its own,
 * so job insights filter on its slug), zero-filled weeks and months, currency
 * conversion, groups of at least 5, the sample's scaled counts, and the statuses: 401,
 * 404, 422 items, the quota 429 with its headers, and one unit charged per call.
 */
import anyTest, { type TestFn } from 'ava'
import { randomBytes } from 'node:crypto'
import { ingest } from '../../ingest/pipeline.ts'
import { toSearch } from '../../api/search-filters.ts'
import { jobInsightsBody } from '../../api/schemas/insights.ts'
import { jobInsights } from '../../sql/insights.ts'
import { USD_PER_UNIT } from '../../sql/scores.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { createAccountWithKey, rawPosting, readItems } from '../helpers/factories.ts'
import { spend, usage } from '../billing/fixtures.ts'
import { marketSchemas } from '../../api/openapi/market.ts'

/** The documented fields, no more and no fewer (the schemas are closed). */
const documentedKeys = (schema: keyof typeof marketSchemas) => Object.keys(marketSchemas[schema].properties!).sort()

type Ctx = { app: TestApp }
const test = anyTest as TestFn<Ctx>

test.before(async (t) => {
  const app = await startTestApp({
    embedder: null,
    config: { rateLimits: { key: { limit: 100_000, windowSeconds: 60 }, search: { limit: 100_000, windowSeconds: 1 }, anonymous: { limit: 100_000, windowSeconds: 60 } } },
  })
  await app.db.sql`update accounts set plan = 'scale' where id = ${app.accountId}`
  await app.sync()
  t.context = { app }
})

test.after.always(async (t) => {
  await t.context.app?.close()
})

const DAY = 86_400_000
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const daysAgo = (n: number) => isoDay(Date.now() - n * DAY)
/** Monday of the week (UTC) `n` weeks before this one. */
function monday(weeksBack: number) {
  const today = Date.parse(`${isoDay(Date.now())}T00:00:00Z`)
  const dow = (new Date(today).getUTCDay() + 6) % 7
  return isoDay(today - dow * DAY - weeksBack * 7 * DAY)
}

type Posting = {
  title?: string
  pay?: number | null
  currency?: string
  level?: string
  type?: string
  jobType?: string
  place?: string
  posted?: string
  expiredOn?: string
  categories?: string[]
  skills?: string[]
  technologies?: string[]
}

let n = 0
/** A company of its own with these postings; returns its slug and name. */
async function company(app: TestApp, postings: Posting[]) {
  const name = `Insight Co ${randomBytes(4).toString('hex')}`
  const rows = postings.map((p) =>
    rawPosting(
      {
        source_id: `insights-${++n}-${randomBytes(3).toString('hex')}`,
        job_title: p.title ?? `Account Executive ${n}`,
        salary_range: p.pay === null ? null : { min: p.pay ?? 60_000, max: p.pay ?? 60_000, currency: p.currency ?? 'EUR', period: 'yearly' },
        experience_level: p.level ?? 'Mid',
        location_type: p.type ?? 'Hybrid',
        job_type: p.jobType ?? 'Full Time',
        location_raw: p.place ?? 'Berlin, Germany',
        date_posted: p.posted ?? daysAgo(3),
        job_categories: p.categories ?? ['Sales Jobs'],
        skills: p.skills ?? [],
        technologies: p.technologies ?? [],
        ...(p.expiredOn ? { valid_through: `${p.expiredOn}T00:00:00Z` } : {}),
        description: `<p>Posting number ${n}.</p>`,
        company: { name, link: `https://${name.replace(/\W/g, '').toLowerCase()}.example.test` },
      },
      n,
    ),
  )
  const summary = await ingest(app.db.sql, readItems(rows), { source: 'insights-test' })
  if (summary.rejected) throw new Error(JSON.stringify(summary.reject_reasons))
  const [{ slug }] = await app.db.sql<{ slug: string }[]>`select slug from companies where name = ${name}`
  return { slug, name }
}

/** percentile_cont as Postgres computes it. */
function percentile(xs: number[], p: number) {
  const s = [...xs].sort((a, b) => a - b)
  const pos = p * (s.length - 1)
  const lo = Math.floor(pos)
  return s[lo] + (pos - lo) * ((s[Math.min(lo + 1, s.length - 1)] ?? s[lo]) - s[lo])
}

const insightUnits = async (app: TestApp, accountId: string) => {
  await app.sync()
  const [row] = await app.db.sql<{ used: number }[]>`
    select coalesce(sum(used), 0)::int as used from usage_meters where account_id = ${accountId} and meter = 'm_insights_calls'`
  return row.used
}

test('job insights: counts, zero-filled weeks, top lists, salaries converted to USD with groups of at least 5, remote share; 1 unit', async (t) => {
  const { app } = t.context
  const senior = [60_000, 62_000, 64_000, 66_000, 68_000, 70_000]
  const junior = [40_000, 42_000, 44_000, 46_000, 48_000]
  const { slug, name } = await company(app, [
    ...senior.map((pay, i) => ({ pay, level: 'Senior', place: i < 4 ? 'Berlin, Germany' : 'Munich, Germany', skills: ['Negotiation'], technologies: ['Salesforce'], posted: daysAgo(i) })),
    ...junior.map((pay) => ({ pay, level: 'Junior', type: 'Remote', place: 'Remote - Germany', jobType: 'Part Time', skills: ['Negotiation', 'Customer Service'], posted: monday(2) })),
    { pay: 90_000, level: 'Executive', categories: ['Finance Jobs'] },
    { pay: null, level: 'Executive', categories: ['Finance Jobs'], posted: monday(5) },
    // expired: in the weekly trend, not in the counts
    { pay: 1_000_000, level: 'Senior', posted: monday(3), expiredOn: daysAgo(1) },
    // live but posted 20 weeks ago: in the counts, before the trend
    { pay: 61_000, level: 'Mid', posted: monday(20) },
  ])
  const { accountId, key } = await createAccountWithKey(app.db.sql, 'scale')
  const res = await app.post('/v2/jobs/insights', { company_slug: slug, page: 3, limit: 5, sort_by: 'salary' }, { 'x-api-key': key })
  t.is(res.status, 200, await res.clone().text())
  t.like(usage(res), { meter: 'm_insights_calls', unit: 'calls', feature: 'insights', 'total-used': '1' })
  t.is(await insightUnits(app, accountId), 1)
  const body = await res.json()

  t.deepEqual(Object.keys(body).sort(), documentedKeys('JobInsights'))
  t.deepEqual(Object.keys(body.salary).sort(), Object.keys(marketSchemas.JobInsights.properties!.salary.properties!).sort())
  t.is(body.total_count, 14)
  t.is(body.currency, 'USD')
  t.deepEqual(body.sample, { postings: 14, of: 14 })
  // weeks: Monday to Sunday, the current one last, every one present
  t.is(body.postings_by_week.length, 12)
  t.deepEqual(body.postings_by_week.map((w: { week_start: string }) => w.week_start), Array.from({ length: 12 }, (_, i) => monday(11 - i)))
  const weekOf = Object.fromEntries(body.postings_by_week.map((w: { week_start: string; count: number }) => [w.week_start, w.count]))
  t.is(weekOf[monday(2)], 5)
  t.is(weekOf[monday(3)], 1, 'the expired posting counts in the week it was posted')
  t.is(weekOf[monday(5)], 1)
  t.is(body.postings_by_week.reduce((a: number, w: { count: number }) => a + w.count, 0), 14, '14 live and 1 expired, less the one posted 20 weeks ago')
  t.is(body.postings_by_week.filter((w: { count: number }) => w.count === 0).length >= 6, true, 'zero-filled')

  t.deepEqual(body.location_types, { Hybrid: 9, Remote: 5 })
  t.deepEqual(body.job_types, { 'Full Time': 9, 'Part Time': 5 })
  t.deepEqual(body.experience_levels, { Executive: 2, Junior: 5, Mid: 1, Senior: 6 })
  t.deepEqual(body.top_job_categories, [{ value: 'Sales Jobs', count: 12 }, { value: 'Finance Jobs', count: 2 }])
  t.deepEqual(body.top_companies, [{ value: name, count: 14, company_slug: slug }])
  t.deepEqual(body.top_skills.slice(0, 2), [{ value: 'Negotiation', count: 11 }, { value: 'Customer Service', count: 5 }])
  t.deepEqual(body.top_technologies[0], { value: 'Salesforce', count: 6 })
  t.deepEqual(body.top_countries, [{ value: 'Germany', count: 14 }], 'a remote posting counts once, by the country it hires in')
  t.deepEqual(body.top_cities, [
    { value: 'Berlin', country: 'Germany', count: 7 },
    { value: 'Munich', country: 'Germany', count: 2 },
  ])
  t.is(body.remote_share, Math.round((5 / 14) * 10_000) / 10_000)

  const usd = USD_PER_UNIT.EUR
  const all = [...senior, ...junior, 90_000, 61_000]
  t.like(body.salary, { count: 13, currency: 'USD', period: 'yearly', p50: Math.round(percentile(all, 0.5) * usd), min: Math.round(40_000 * usd) })
  t.deepEqual(Object.keys(body.salary.by_experience_level).sort(), ['Junior', 'Senior'], 'Executive and Mid have fewer than 5 salaries')
  t.like(body.salary.by_experience_level.Senior, { count: 6, p50: Math.round(percentile(senior, 0.5) * usd), currency: 'USD' })
  t.like(body.salary.by_experience_level.Junior, { count: 5, p25: Math.round(42_000 * usd) })

  const eur = await (await app.post('/v2/jobs/insights', { company_slug: slug, currency: 'eur' })).json()
  t.like(eur.salary, { currency: 'EUR', p50: percentile(all, 0.5), min: 40_000, max: 90_000 })
  t.is(eur.currency, 'EUR')

  const remote = await (await app.post('/v2/jobs/insights', { company_slug: slug, location_types: ['Remote'] })).json()
  t.is(remote.total_count, 5)
  t.is(remote.remote_share, 1)
})

test('job insights: no match gives zeros, empty lists and null statistics, not an error', async (t) => {
  const { app } = t.context
  const res = await app.post('/v2/jobs/insights', { job_titles: [`nothing${randomBytes(4).toString('hex')}`] })
  t.is(res.status, 200)
  const body = await res.json()
  t.like(body, { total_count: 0, remote_share: null, location_types: {}, top_skills: [], top_cities: [], sample: { postings: 0, of: 0 } })
  t.is(body.postings_by_week.length, 12)
  t.true(body.postings_by_week.every((w: { count: number }) => w.count === 0))
  t.like(body.salary, { count: 0, p50: null, min: null, by_experience_level: {} })
})

test('job insights over more matches than the sample: skills and places from the sample, their counts scaled to the total', async (t) => {
  const { app } = t.context
  const { slug } = await company(
    app,
    Array.from({ length: 12 }, (_, i) => ({ skills: i % 3 === 0 ? ['Cold Calling', 'Negotiation'] : ['Negotiation'], place: 'Hamburg, Germany' })),
  )
  const valid = jobInsightsBody.cast(await jobInsightsBody.validate({ company_slug: slug }, { strict: true }))
  const { filters } = toSearch({ ...valid, currency: undefined })
  const full = await jobInsights(app.db.sql, filters, 'USD')
  const sampled = await jobInsights(app.db.sql, filters, 'USD', { sample: 4 })
  t.deepEqual(full.sample, { postings: 12, of: 12 })
  t.deepEqual(sampled.sample, { postings: 4, of: 12 })
  t.deepEqual(sampled.top_skills[0], { value: 'Negotiation', count: 12 }, 'every posting has it: 4 of 4, scaled to 12')
  t.deepEqual(sampled.top_countries, [{ value: 'Germany', count: 12 }])
  t.deepEqual(sampled.top_cities, [{ value: 'Hamburg', country: 'Germany', count: 12 }])
  t.is(sampled.total, 12)
  t.deepEqual(sampled.location_types, full.location_types, 'counts are exact whatever the sample')
  t.deepEqual(sampled.salary, full.salary)
  const again = await jobInsights(app.db.sql, filters, 'USD', { sample: 4 })
  t.deepEqual(again.top_skills, sampled.top_skills, 'the same sample on every call')
})

test('company insights: open roles by category, 12 zero-filled months of postings live and expired, places, salaries by category, lifetime', async (t) => {
  const { app } = t.context
  const monthsAgo = (k: number) => {
    const d = new Date()
    return isoDay(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - k, 10))
  }
  const { slug, name } = await company(app, [
    { categories: ['Sales Jobs'], pay: 50_000, place: 'Berlin, Germany' },
    { categories: ['Sales Jobs'], pay: 52_000, place: 'Berlin, Germany' },
    { categories: ['Sales Jobs'], pay: 54_000, place: 'Munich, Germany', type: 'Remote' },
    { categories: ['Finance Jobs'], pay: 80_000, place: 'Berlin, Germany' },
    { categories: ['Finance Jobs'], pay: null, place: 'Berlin, Germany' },
    // expired, 10 and 20 days after posting, two months ago
    { categories: ['Sales Jobs'], pay: 56_000, posted: monthsAgo(2), expiredOn: isoDay(Date.parse(monthsAgo(2)) + 10 * DAY) },
    { categories: ['Sales Jobs'], pay: 58_000, posted: monthsAgo(2), expiredOn: isoDay(Date.parse(monthsAgo(2)) + 20 * DAY) },
    // expired 30 days after posting, 14 months ago: in the lifetime, not in the trend or the salaries
    { categories: ['Finance Jobs'], pay: 200_000, posted: monthsAgo(14), expiredOn: isoDay(Date.parse(monthsAgo(14)) + 30 * DAY) },
  ])
  const { accountId, key } = await createAccountWithKey(app.db.sql, 'scale')
  const res = await app.post(`/v2/platform/companies/${slug}/insights`, {}, { 'x-api-key': key })
  t.is(res.status, 200, await res.clone().text())
  t.like(usage(res), { meter: 'm_insights_calls', 'total-used': '1' })
  t.is(await insightUnits(app, accountId), 1)
  const body = await res.json()
  t.deepEqual(Object.keys(body).sort(), documentedKeys('CompanyInsights'))
  t.deepEqual(Object.keys(body.salary).sort(), documentedKeys('SalaryStats'))
  t.like(body, { company_slug: slug, company_name: name, currency: 'USD' })
  t.deepEqual(body.open_roles, { total: 5, by_category: [{ value: 'Sales Jobs', count: 3 }, { value: 'Finance Jobs', count: 2 }] })

  t.is(body.hiring_trend.length, 12)
  const months = Array.from({ length: 12 }, (_, i) => monthsAgo(11 - i).slice(0, 7))
  t.deepEqual(body.hiring_trend.map((m: { month: string }) => m.month), months)
  const byMonth = Object.fromEntries(body.hiring_trend.map((m: { month: string; count: number }) => [m.month, m.count]))
  t.is(byMonth[monthsAgo(2).slice(0, 7)], 2, 'the expired postings, in the month they were posted')
  t.is(byMonth[daysAgo(3).slice(0, 7)], 5)
  t.is(body.hiring_trend.reduce((a: number, m: { count: number }) => a + m.count, 0), 7)

  t.deepEqual(body.locations, [
    { city: 'Berlin', region: 'State of Berlin', country: 'Germany', count: 4 },
    { city: 'Munich', region: 'Bavaria', country: 'Germany', count: 1 },
  ])
  t.deepEqual(body.location_types, { Hybrid: 4, Remote: 1 })
  const usd = USD_PER_UNIT.EUR
  t.like(body.salary, { count: 6, currency: 'USD', p50: Math.round(percentile([50_000, 52_000, 54_000, 56_000, 58_000, 80_000], 0.5) * usd) })
  t.deepEqual(Object.keys(body.salary_by_category).sort(), ['Finance Jobs', 'Sales Jobs'])
  t.like(body.salary_by_category['Sales Jobs'], { count: 5, min: Math.round(50_000 * usd), max: Math.round(58_000 * usd), p50: Math.round(54_000 * usd) })
  t.like(body.salary_by_category['Finance Jobs'], { count: 1, min: Math.round(80_000 * usd), max: Math.round(80_000 * usd), p50: null }, 'a range, no percentiles below 5')
  t.deepEqual(body.posting_lifetime, { median_days: 20, expired_postings: 3 })

  const eur = await (await app.post(`/v2/platform/companies/${slug}/insights`, { currency: 'EUR' })).json()
  t.like(eur.salary_by_category['Sales Jobs'], { currency: 'EUR', p50: 54_000 })
})

test('company insights: an unknown slug is a 404 and costs nothing', async (t) => {
  const { app } = t.context
  const { accountId, key } = await createAccountWithKey(app.db.sql, 'scale')
  const res = await app.post('/v2/platform/companies/no-such-company-anywhere/insights', {}, { 'x-api-key': key })
  t.is(res.status, 404)
  t.deepEqual(await res.json(), { detail: 'Company not found' })
  t.is(await insightUnits(app, accountId), 0)
})

test('validation: 422 items as job search gives them, the report currency, unknown company-insights fields; nothing charged', async (t) => {
  const { app } = t.context
  const { accountId, key } = await createAccountWithKey(app.db.sql, 'scale')
  const { slug } = await company(app, [{}])
  const cases: [string, unknown, { type: string; loc: (string | number)[] }][] = [
    ['/v2/jobs/insights', { hide_recruiting_agencies: true }, { type: 'string_type', loc: ['body', 'hide_recruiting_agencies'] }],
    ['/v2/jobs/insights', { currency: 'XYZ' }, { type: 'value_error', loc: ['body', 'currency'] }],
    ['/v2/jobs/insights', { currency: 5 }, { type: 'string_type', loc: ['body', 'currency'] }],
    ['/v2/jobs/insights', { experience: ['Guru'] }, { type: 'enum', loc: ['body', 'experience', 0] }],
    ['/v2/jobs/insights', { limit: 1000 }, { type: 'less_than_equal', loc: ['body', 'limit'] }],
    ['/v2/jobs/insights', { industry: 'Nope' }, { type: 'value_error', loc: ['body', 'industry'] }],
    ['/v2/jobs/insights', { geo_locations: [{ city: 'Berlin' }], geofilter_params: { mode: 'nearby' } }, { type: 'enum', loc: ['body', 'geofilter_params', 'mode'] }],
    [`/v2/platform/companies/${slug}/insights`, { currency: 'XYZ' }, { type: 'value_error', loc: ['body', 'currency'] }],
    [`/v2/platform/companies/${slug}/insights`, { window: 12 }, { type: 'extra_forbidden', loc: ['body', 'window'] }],
    ['/v2/platform/companies/a%01b/insights', {}, { type: 'value_error', loc: ['path', 'company_slug'] }],
  ]
  for (const [route, body, item] of cases) {
    const res = await app.post(route, body, { 'x-api-key': key })
    t.is(res.status, 422, `${route} ${JSON.stringify(body)}`)
    const { detail } = await res.json()
    const found = detail.find((d: { loc: unknown[] }) => JSON.stringify(d.loc) === JSON.stringify(item.loc))
    t.truthy(found, `${JSON.stringify(body)}: ${JSON.stringify(detail)}`)
    t.is(found?.type, item.type, JSON.stringify(body))
    t.true('input' in found && typeof found.msg === 'string')
  }
  // like search, job insights ignores fields it does not know
  t.is((await app.post('/v2/jobs/insights', { company_slug: slug, locations: [{ city: 'Nowhere' }] }, { 'x-api-key': key })).status, 200)
  t.is(await insightUnits(app, accountId), 1, 'only the last call was charged')
})

test('401 without a key is the sign-in variant, on both routes', async (t) => {
  const { app } = t.context
  for (const route of ['/v2/jobs/insights', '/v2/platform/companies/any/insights']) {
    const res = await app.post(route, {}, {})
    t.is(res.status, 401, route)
    t.is(res.headers.get('x-billing-code'), 'auth_required')
    t.deepEqual(await res.json(), { detail: 'Sign in to access this endpoint' })
  }
})

test('block mode: the free plan\'s 25 insights spent, both routes answer the quota 429 with usage headers', async (t) => {
  const { app } = t.context
  const { slug } = await company(app, [{}])
  const { accountId, key } = await createAccountWithKey(app.db.sql, 'free')
  await spend(app.db.sql, accountId, 'm_insights_calls', 24)
  const last = await app.post('/v2/jobs/insights', {}, { 'x-api-key': key })
  t.is(last.status, 200, 'the 25th call')
  t.like(usage(last), { 'included-limit': '25', 'included-used': '25', 'included-remaining': '0', 'overage-mode': 'block' })
  for (const route of ['/v2/jobs/insights', `/v2/platform/companies/${slug}/insights`]) {
    const res = await app.post(route, {}, { 'x-api-key': key })
    t.is(res.status, 429, route)
    t.is(res.headers.get('x-billing-code'), 'limit_exceeded')
    t.is(res.headers.get('retry-after'), null)
    t.like(usage(res), { meter: 'm_insights_calls', 'included-limit': '25', 'included-remaining': '0' })
    t.regex((await res.json()).detail, /Usage limit reached for m_insights_calls: your plan includes 25 calls per period and 0 remain/)
  }
  t.is(await insightUnits(app, accountId), 25)
})
