/**
 * POST /v2/jobs/salary-benchmark end to end: validation (every field, unknown fields,
 * the window extension), public_url resolution, the charge and its refund, the task's
 * result (percentiles, groups, outliers, currency, proposed range, confidence), a sample
 * too small for percentiles, the quota 429 and the notification.
 */
import anyTest, { type TestFn } from 'ava'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { ingest } from '../../ingest/pipeline.ts'
import { loadConfig } from '../../sql/config.ts'
import { USD_PER_UNIT } from '../../sql/scores.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { createAccountWithKey, rawPosting, readItems } from '../helpers/factories.ts'
import { waitForTask, type Task } from '../helpers/tasks.ts'
import { spend, usage } from '../billing/fixtures.ts'
import { marketSchemas } from '../../api/openapi/market.ts'
import type { Embedder } from '../../ingest/embed/embedder.ts'
import { modelId } from '../../sql/embeddings.ts'
import { axis, planar, setJobVectors } from '../search/vector-fixtures.ts'

type Ctx = { app: TestApp; dir: string }
const test = anyTest as TestFn<Ctx>

function taskConfig(dir: string, overrides: Partial<ReturnType<typeof loadConfig>['tasks']> = {}) {
  const base = loadConfig()
  return {
    dataDir: dir,
    downloadsDir: path.join(dir, 'downloads'),
    mail: { smtpUrl: null, from: 'Reports <reports@example.test>' },
    tasks: { ...base.tasks, retryLimit: 1, retryDelay: 0, maintenanceSeconds: 1, ...overrides },
    rateLimits: { key: { limit: 100_000, windowSeconds: 60 }, search: { limit: 100_000, windowSeconds: 1 }, anonymous: { limit: 100_000, windowSeconds: 60 } },
  }
}

test.before(async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'jds-benchmark-'))
  const app = await startTestApp({ tasks: true, embedder: null, config: taskConfig(dir) })
  await app.db.sql`update accounts set plan = 'scale' where id = ${app.accountId}`
  await app.sync()
  t.context = { app, dir }
})

test.after.always(async (t) => {
  await t.context.app?.close()
  await rm(t.context.dir, { recursive: true, force: true })
})

/** How long a task or its email may take on a machine busy with other work: a deadline, not a wait. */
const DEADLINE_MS = 120_000
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10)
/** A word no other test's titles have, so each test's sample is its own. */
const word = () => `Zy${randomBytes(4).toString('hex')}`

type Posting = { title: string; pay: number; currency?: string; period?: string; level?: string; type?: string; place?: string; posted?: string; expiredOn?: string; link?: string }

let n = 0
async function seed(app: TestApp, postings: Posting[]) {
  const rows = postings.map((p) =>
    rawPosting(
      {
        source_id: `bench-${++n}-${randomBytes(3).toString('hex')}`,
        job_title: p.title,
        salary_range: { min: p.pay, max: p.pay, currency: p.currency ?? 'EUR', period: p.period ?? 'yearly' },
        experience_level: p.level ?? 'Mid',
        location_type: p.type ?? 'Hybrid',
        location_raw: p.place ?? 'Berlin, Germany',
        date_posted: p.posted ?? daysAgo(10),
        ...(p.expiredOn ? { valid_through: `${p.expiredOn}T00:00:00Z` } : {}),
        ...(p.link ? { application_link: p.link } : {}),
        description: `<p>Posting ${n} of ${p.title}.</p>`,
      },
      n,
    ),
  )
  const summary = await ingest(app.db.sql, readItems(rows), { source: 'benchmark-test' })
  if (summary.rejected) throw new Error(JSON.stringify(summary.reject_reasons))
}

/** percentile_cont as Postgres computes it. */
function percentile(xs: number[], p: number) {
  const s = [...xs].sort((a, b) => a - b)
  const pos = p * (s.length - 1)
  const lo = Math.floor(pos)
  return s[lo] + (pos - lo) * ((s[Math.min(lo + 1, s.length - 1)] ?? s[lo]) - s[lo])
}

async function benchmark(app: TestApp, body: unknown, key = app.key) {
  const res = await app.post('/v2/jobs/salary-benchmark', body, { 'x-api-key': key })
  t_assert(res.status === 200, `${res.status} ${await res.clone().text()}`)
  const task = (await res.json()) as Task
  return { res, task, done: await waitForTask(app, task.id, key, DEADLINE_MS) }
}

function t_assert(ok: boolean, msg: string) {
  if (!ok) throw new Error(msg)
}

/**
 * The email about this task in DATA_DIR/outbox, polled to the deadline; '' if none came.
 * The mailer writes a dotfile and renames it to .eml, so only .eml files are whole.
 */
async function outboxMail(dir: string, taskId: string) {
  const outbox = path.join(dir, 'outbox')
  const until = Date.now() + DEADLINE_MS
  while (Date.now() < until) {
    for (const f of await readdir(outbox).catch(() => [] as string[])) {
      if (f.startsWith('.') || !f.endsWith('.eml')) continue
      const text = await readFile(path.join(outbox, f), 'utf8')
      if (text.includes(taskId)) return text
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  return ''
}

const units = async (app: TestApp, accountId: string) => {
  await app.sync()
  const [row] = await app.db.sql<{ used: number }[]>`
    select coalesce(sum(used), 0)::int as used from usage_meters where account_id = ${accountId} and meter = 'm_salary_benchmarks'`
  return row.used
}

test('the sample\'s percentiles in the location\'s currency, groups of at least 5, outliers removed, the window and expired postings', async (t) => {
  const { app } = t.context
  const w = word()
  const title = `${w} Analyst`
  const salaries = [50_000, 52_000, 55_000, 58_000, 60_000, 61_000, 63_000, 65_000, 70_000, 72_000, 75_000, 80_000]
  await seed(app, [
    // 7 Senior (a group), 5 Junior remote (a group), then 2 Executive (too few for a group)
    ...salaries.slice(0, 7).map((pay) => ({ title, pay, level: 'Senior' })),
    ...salaries.slice(7, 12).map((pay) => ({ title, pay, level: 'Junior', type: 'Remote', place: 'Remote - Germany' })),
    { title, pay: 66_000, level: 'Executive', expiredOn: daysAgo(5), posted: daysAgo(40) },
    { title, pay: 67_000, level: 'Executive' },
    // a year's pay with a zero too many: an outlier
    { title, pay: 640_000, level: 'Senior' },
    // outside the 90-day window, and another title
    { title, pay: 10_000_000 / 100, posted: daysAgo(120) },
    { title: `${w} Plumber`, pay: 30_000 },
  ])
  const { accountId, key } = await createAccountWithKey(app.db.sql, 'scale')
  const { res, task, done } = await benchmark(app, { job_title: title, geo_locations: [{ country: 'Germany' }] }, key)
  t.like(task, { type: 'salary_benchmark', state: 'queued', progress: 0, notify: false, result: null })
  t.deepEqual(task.input, { job_title: title, geo_locations: [{ country: 'Germany' }], notify: false, days_ago: 90 })
  t.like(usage(res), { meter: 'm_salary_benchmarks', unit: 'requests', 'total-used': '1' })
  t.is(await units(app, accountId), 1, 'charged at creation')

  t.is(done.state, 'finished', done.error ?? '')
  const r = done.result!
  const documented = marketSchemas.SalaryBenchmarkResult.properties!
  t.deepEqual(Object.keys(r).sort(), Object.keys(documented).sort())
  t.deepEqual(Object.keys(r.sample).sort(), Object.keys(documented.sample.properties!).filter((k) => k !== 'posting_id').sort())
  t.deepEqual(Object.keys(r.market.salary).sort(), Object.keys(marketSchemas.SalaryStats.properties!).sort())
  const kept = [...salaries, 66_000, 67_000]
  t.is(r.sample.postings, 15, '14 kept, the outlier, none outside the window or of another title')
  t.is(r.sample.salaries, 15)
  t.is(r.sample.outliers_removed, 1)
  t.is(r.sample.currency, 'EUR', 'Germany\'s currency')
  t.is(r.sample.date_posted_from, daysAgo(90))
  t.is(r.sample.date_posted_to, daysAgo(0))
  t.false(r.sample.similar_titles_searched, 'no embedding model')
  const s = r.market.salary
  t.like(s, { count: 14, currency: 'EUR', period: 'yearly', min: 50_000, max: 80_000 })
  for (const [name, p] of [['p10', 0.1], ['p25', 0.25], ['p50', 0.5], ['p75', 0.75], ['p90', 0.9]] as const) t.is(s[name], Math.round(percentile(kept, p)), name)
  t.is(s.mean, Math.round(kept.reduce((a, b) => a + b) / kept.length))
  t.deepEqual(Object.keys(r.market.by_experience_level).sort(), ['Junior', 'Senior'], 'Executive has 2: below 5')
  t.is(r.market.by_experience_level.Senior.count, 7)
  t.is(r.market.by_experience_level.Senior.p50, 58_000)
  t.is(r.market.by_experience_level.Junior.p50, 72_000)
  t.deepEqual(Object.keys(r.market.by_location_type).sort(), ['Hybrid', 'Remote'])
  t.is(r.market.by_location_type.Remote.count, 5)
  t.is(r.proposed, null)
  t.deepEqual(r.matched_titles, [{ title, count: 15, match: 'exact' }])
  t.regex(r.confidence.grade, /^[A-F]$/)
  t.true(r.confidence.score > 0 && r.confidence.score <= 1)
  t.true(r.confidence.reasons.some((x: string) => /14 salaries in the sample after 1 outlier removed/.test(x)), r.confidence.reasons.join('; '))
  t.true(r.confidence.reasons.some((x: string) => /100% of the salaries come from postings with exactly the requested title/.test(x)))
})

test('salary_range: its currency is the report\'s, and the range is placed as a percentile of annual pay', async (t) => {
  const { app } = t.context
  const title = `${word()} Designer`
  const pays = [40_000, 45_000, 50_000, 55_000, 60_000, 65_000, 70_000, 75_000, 80_000, 85_000]
  await seed(app, pays.map((pay) => ({ title, pay })))
  // 30/hour USD = 62,400 a year = 57,778 EUR
  const { done } = await benchmark(app, { job_title: title, salary_range: { min: 30, max: 30, currency: 'usd', period: 'hourly' } })
  t.is(done.state, 'finished', done.error ?? '')
  const r = done.result!
  const rate = USD_PER_UNIT.EUR / USD_PER_UNIT.USD
  t.is(r.sample.currency, 'USD')
  t.is(r.market.salary.currency, 'USD')
  t.is(r.market.salary.p50, Math.round(percentile(pays, 0.5) * rate), 'EUR salaries converted to USD')
  t.is(r.market.salary.min, Math.round(40_000 * rate))
  t.deepEqual(r.proposed, { min: 62_400, max: 62_400, percentile: 40 }, '4 of the 10 salaries are below it')

  const open = await benchmark(app, { job_title: title, salary_range: { min: 85_000, currency: 'EUR' } })
  t.deepEqual(open.done.result!.proposed, { min: 85_000, max: null, percentile: 95 }, 'an open range: its one bound, 9.5 of 10 below or equal')
})

test('fewer than 5 salaries: the task finishes with the small count, null percentiles and grade F', async (t) => {
  const { app } = t.context
  const title = `${word()} Curator`
  await seed(app, [{ title, pay: 41_000 }, { title, pay: 43_000 }, { title, pay: 47_000 }])
  const { done } = await benchmark(app, { job_title: title, geo_locations: [{ country: 'Germany' }], salary_range: { min: 45_000, max: 50_000 } })
  t.is(done.state, 'finished', done.error ?? '')
  const r = done.result!
  t.like(r.market.salary, { count: 3, p10: null, p25: null, p50: null, p75: null, p90: null, mean: null, min: 41_000, max: 47_000 })
  t.deepEqual(r.market.by_experience_level, {})
  t.is(r.confidence.grade, 'F')
  t.true(r.confidence.reasons.some((x: string) => /fewer than 5 salaries/.test(x)))
  t.deepEqual(r.proposed, { min: 45_000, max: 50_000, percentile: null })

  const none = await benchmark(app, { job_title: `${word()} Nobody` })
  t.is(none.done.state, 'finished')
  t.like(none.done.result!.market.salary, { count: 0, p50: null, min: null, currency: 'USD' })
  t.is(none.done.result!.confidence.grade, 'F')
  t.deepEqual(none.done.result!.matched_titles, [])
})

test('a date window reaches postings older than 365 days (expired ones included); days_ago 365 does not', async (t) => {
  const { app } = t.context
  const title = `${word()} Staff Nurse`
  await seed(
    app,
    [24_000, 25_000, 26_000, 27_000, 28_000, 29_000].map((pay, i) => ({
      title, pay, currency: 'GBP', place: 'London, United Kingdom', posted: `2020-0${i + 1}-15`, expiredOn: `2020-0${i + 2}-15`,
    })),
  )
  const year = await benchmark(app, { job_title: title, geo_locations: [{ country: 'UK' }], days_ago: 365 })
  t.is(year.done.result!.market.salary.count, 0)
  t.is(year.done.result!.sample.currency, 'GBP', 'UK resolves to the United Kingdom, paid in GBP')

  const window = await benchmark(app, { job_title: title, geo_locations: [{ country: 'United Kingdom' }], date_posted_from: '2020-01-01', date_posted_to: '2020-12-31' })
  const r = window.done.result!
  t.like(r.market.salary, { count: 6, currency: 'GBP', p50: 26_500 })
  t.like(r.sample, { date_posted_from: '2020-01-01', date_posted_to: '2020-12-31' })
  t.deepEqual(window.task.input, { job_title: title, geo_locations: [{ country: 'United Kingdom' }], date_posted_from: '2020-01-01', date_posted_to: '2020-12-31', notify: false })

  const partial = await benchmark(app, { job_title: title, date_posted_to: '2020-03-31' })
  t.like(partial.done.result!.sample, { date_posted_from: '2019-04-02', date_posted_to: '2020-03-31' }, 'a year ending at date_posted_to')
  t.is(partial.done.result!.market.salary.count, 3)
})

test('public_url: the posting it names gives the title, the country and its own pay as the range placed; it is left out of its sample', async (t) => {
  const { app } = t.context
  const title = `${word()} Surveyor`
  const link = `https://ats.example.test/jobs/${randomBytes(4).toString('hex')}`
  await seed(app, [
    ...[30_000, 32_000, 34_000, 36_000, 38_000, 40_000].map((pay) => ({ title, pay, currency: 'GBP', place: 'Leeds, United Kingdom', level: 'Senior' })),
    { title, pay: 35_000, currency: 'GBP', place: 'Leeds, United Kingdom', link, level: 'Senior' },
    // the same title elsewhere, and at another level: the posting's country and level narrow the sample
    { title, pay: 90_000, place: 'Berlin, Germany', level: 'Senior' },
    { title, pay: 20_000, currency: 'GBP', place: 'Leeds, United Kingdom', level: 'Junior' },
  ])
  const { done, task } = await benchmark(app, { public_url: `${link}/`, job_title: 'Ignored Title', experience_levels: ['Junior'] })
  t.is(task.input.public_url, `${link}/`)
  const r = done.result!
  t.is(done.state, 'finished', done.error ?? '')
  t.like(r.sample, { postings: 6, currency: 'GBP' })
  t.true(typeof r.sample.posting_id === 'string')
  t.deepEqual(r.matched_titles.map((m: { title: string }) => m.title), [title])
  t.like(r.market.salary, { count: 6, p50: 35_000 })
  t.deepEqual(r.proposed, { min: 35_000, max: 35_000, percentile: 50 }, 'the posting\'s own pay')
})

test('a public_url that names no posting is a 422 saying so; nothing is charged or queued', async (t) => {
  const { app } = t.context
  const { accountId, key } = await createAccountWithKey(app.db.sql, 'scale')
  const res = await app.post('/v2/jobs/salary-benchmark', { public_url: 'https://nowhere.example.test/job/1' }, { 'x-api-key': key })
  t.is(res.status, 422)
  t.deepEqual(await res.json(), {
    detail: [{ type: 'value_error', loc: ['body', 'public_url'], msg: 'No posting in the database has this application or job board link', input: 'https://nowhere.example.test/job/1' }],
  })
  t.is(await units(app, accountId), 0)
  const [{ tasks }] = await app.db.sql<{ tasks: number }[]>`select count(*)::int as tasks from tasks where account_id = ${accountId}`
  t.is(tasks, 0)
})

test('validation: 422 items for unknown fields, missing or blank titles, ranges, enumerations, the window; nothing charged', async (t) => {
  const { app } = t.context
  const { accountId, key } = await createAccountWithKey(app.db.sql, 'scale')
  const cases: [unknown, { type: string; loc: (string | number)[]; input?: unknown }][] = [
    [{}, { type: 'missing', loc: ['body', 'job_title'], input: null }],
    [{ job_titles: ['nurse'] }, { type: 'missing', loc: ['body', 'job_title'] }],
    [{ job_title: '  ' }, { type: 'value_error', loc: ['body', 'job_title'] }],
    [{ job_title: '-senior' }, { type: 'value_error', loc: ['body', 'job_title'] }],
    [{ job_title: 7 }, { type: 'string_type', loc: ['body', 'job_title'] }],
    [{ job_title: 'Nurse', currency: 'GBP' }, { type: 'extra_forbidden', loc: ['body', 'currency'], input: 'GBP' }],
    [{ job_title: 'Nurse', salary_range: { min: 1, period: 'yearly', bonus: 5 } }, { type: 'extra_forbidden', loc: ['body', 'salary_range', 'bonus'], input: 5 }],
    [{ job_title: 'Nurse', days_ago: 0 }, { type: 'greater_than_equal', loc: ['body', 'days_ago'] }],
    [{ job_title: 'Nurse', days_ago: 366 }, { type: 'less_than_equal', loc: ['body', 'days_ago'] }],
    [{ job_title: 'Nurse', days_ago: 1.5 }, { type: 'int_type', loc: ['body', 'days_ago'] }],
    [{ job_title: 'Nurse', days_ago: '30' }, { type: 'float_type', loc: ['body', 'days_ago'] }],
    [{ job_title: 'Nurse', experience_levels: ['Guru'] }, { type: 'enum', loc: ['body', 'experience_levels', 0] }],
    [{ job_title: 'Nurse', location_types: ['Moon'] }, { type: 'enum', loc: ['body', 'location_types', 0] }],
    [{ job_title: 'Nurse', industry: ['Nope'] }, { type: 'value_error', loc: ['body', 'industry'] }],
    [{ job_title: 'Nurse', salary_range: { min: 9, max: 1 } }, { type: 'value_error', loc: ['body', 'salary_range'] }],
    [{ job_title: 'Nurse', salary_range: { min: -1 } }, { type: 'greater_than_equal', loc: ['body', 'salary_range', 'min'] }],
    [{ job_title: 'Nurse', salary_range: { min: 1, currency: 'XYZ' } }, { type: 'value_error', loc: ['body', 'salary_range', 'currency'] }],
    [{ job_title: 'Nurse', salary_range: { min: 1, period: 'fortnightly' } }, { type: 'enum', loc: ['body', 'salary_range', 'period'] }],
    [{ job_title: 'Nurse', yoe_range: { min: 5, max: 2 } }, { type: 'value_error', loc: ['body', 'yoe_range'] }],
    [{ job_title: 'Nurse', yoe_range: { min: 1 }, yoe: { min: 1 } }, { type: 'value_error', loc: ['body', 'yoe'] }],
    [{ job_title: 'Nurse', geo_locations: [{}] }, { type: 'value_error', loc: ['body', 'geo_locations', 0] }],
    [{ job_title: 'Nurse', notify: 'yes' }, { type: 'bool_type', loc: ['body', 'notify'] }],
    [{ job_title: 'Nurse', public_url: 'ftp://x.example.test/1' }, { type: 'value_error', loc: ['body', 'public_url'] }],
    [{ job_title: 'Nurse', date_posted_from: '2020-02-30' }, { type: 'date_parsing', loc: ['body', 'date_posted_from'] }],
    [{ job_title: 'Nurse', date_posted_from: '2020-05-01', date_posted_to: '2020-01-01' }, { type: 'value_error', loc: ['body', 'date_posted_from'] }],
    [{ job_title: 'Nurse', days_ago: 30, date_posted_from: '2020-01-01' }, { type: 'value_error', loc: ['body', 'days_ago'] }],
  ]
  for (const [body, item] of cases) {
    const res = await app.post('/v2/jobs/salary-benchmark', body, { 'x-api-key': key })
    t.is(res.status, 422, JSON.stringify(body))
    const { detail } = await res.json()
    const found = detail.find((d: { loc: unknown[] }) => JSON.stringify(d.loc) === JSON.stringify(item.loc))
    t.truthy(found, `${JSON.stringify(body)}: ${JSON.stringify(detail)}`)
    t.is(found?.type, item.type, JSON.stringify(body))
    t.is(typeof found?.msg, 'string')
    if ('input' in item) t.deepEqual(found.input, item.input, JSON.stringify(body))
  }
  t.is(await units(app, accountId), 0)
  const [{ tasks }] = await app.db.sql<{ tasks: number }[]>`select count(*)::int as tasks from tasks where account_id = ${accountId}`
  t.is(tasks, 0)
})

test('401 without a key or with a wrong one', async (t) => {
  const { app } = t.context
  const none = await app.post('/v2/jobs/salary-benchmark', { job_title: 'Nurse' }, {})
  t.is(none.status, 401)
  t.deepEqual(await none.json(), { detail: 'Missing authorization header' })
  const wrong = await app.post('/v2/jobs/salary-benchmark', { job_title: 'Nurse' }, { 'x-api-key': 'jds_wrong' })
  t.is(wrong.status, 401)
  t.deepEqual(await wrong.json(), { detail: 'Invalid or revoked API key' })
})

test('block mode: the free plan\'s 3 benchmarks spent, the next is a quota 429 with usage headers, and no task', async (t) => {
  const { app } = t.context
  const { accountId, key } = await createAccountWithKey(app.db.sql, 'free')
  await spend(app.db.sql, accountId, 'm_salary_benchmarks', 3)
  const res = await app.post('/v2/jobs/salary-benchmark', { job_title: 'Nurse' }, { 'x-api-key': key })
  t.is(res.status, 429, await res.clone().text())
  t.is(res.headers.get('x-billing-code'), 'limit_exceeded')
  t.is(res.headers.get('retry-after'), null)
  t.like(usage(res), { meter: 'm_salary_benchmarks', 'included-limit': '3', 'included-remaining': '0', 'overage-mode': 'block' })
  t.regex((await res.json()).detail, /Usage limit reached for m_salary_benchmarks: your plan includes 3 requests per period and 0 remain/)
  const [{ tasks }] = await app.db.sql<{ tasks: number }[]>`select count(*)::int as tasks from tasks where account_id = ${accountId}`
  t.is(tasks, 0)
  t.is(await units(app, accountId), 3)
})

test('notify: the finished benchmark emails its median and the task\'s address', async (t) => {
  const { app, dir } = t.context
  const title = `${word()} Welder`
  await seed(app, [51_000, 52_000, 53_000, 54_000, 55_000].map((pay) => ({ title, pay })))
  const { task, done } = await benchmark(app, { job_title: title, geo_locations: [{ country: 'Germany' }], notify: true })
  t.true(task.notify)
  t.is(done.state, 'finished')
  const mail = await outboxMail(dir, task.id)
  t.regex(mail, /Subject: Your salary benchmark report is ready/)
  t.regex(mail, /Median salary \(p50\): 53,000 EUR/)
  t.regex(mail, /Salaries sampled: 5/)
})

test('a benchmark that keeps failing ends failed after its retries, its unit refunded once, and the failure emailed', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'jds-benchmark-fail-'))
  const app = await startTestApp({ tasks: true, embedder: null, config: taskConfig(dir, { retryLimit: 1 }) })
  t.teardown(async () => {
    await app.close()
    await rm(dir, { recursive: true, force: true })
  })
  // the worker's query reads salary_annual_min: without it every attempt fails
  await app.db.sql`alter table jobs rename column salary_annual_min to salary_annual_min_gone`
  const res = await app.post('/v2/jobs/salary-benchmark', { job_title: 'Nurse', notify: true })
  t.is(res.status, 200, await res.clone().text())
  const task = (await res.json()) as Task
  t.is(await units(app, app.accountId), 1)
  const done = await waitForTask(app, task.id, app.key, DEADLINE_MS)
  t.is(done.state, 'failed')
  // the client is told a reference, not the column; Postgres's error is in the log under it
  const ref = /^The task failed because of an error on the server \(reference ([0-9a-f]{12})\)\.$/.exec(done.error ?? '')?.[1]
  t.truthy(ref, done.error ?? '')
  const logged = app.logs.map((l) => JSON.parse(l)).find((l) => l.error_ref === ref)
  t.regex(logged?.err?.message ?? '', /salary_annual_min/)
  t.is(done.result, null)
  t.is(await units(app, app.accountId), 0, 'refunded')
  const ledger = await app.db.sql<{ kind: string; units: number }[]>`
    select kind, units::int from usage_ledger_charges where account_id = ${app.accountId} and meter = 'm_salary_benchmarks' order by ledger_id`
  t.deepEqual([...ledger], [{ kind: 'charge', units: 1 }, { kind: 'refund', units: -1 }], 'one charge, one refund')
  const mail = await outboxMail(dir, task.id)
  t.regex(mail, /Subject: Your salary benchmark failed/)
  t.regex(mail, /The 1 unit charged for this benchmark has been refunded\./)
})

/** Embeds every text as axis 700: a job's similarity to any query is what its vector says. */
const fixedEmbedder: Embedder = {
  info: { provider: 'openai', model_name: 'benchmark-fixed', model_version: '1' },
  embed: async (texts) => texts.map(() => axis(700)),
  close: async () => {},
}

test('with a model and vectors, titles similar by meaning join the sample; exact titles count towards confidence', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'jds-benchmark-similar-'))
  const app = await startTestApp({ tasks: true, embedder: fixedEmbedder, config: taskConfig(dir) })
  t.teardown(async () => {
    await app.close()
    await rm(dir, { recursive: true, force: true })
  })
  const w = word()
  const [exact, similar, other] = [`${w} Nurse Practitioner`, `${w} Clinical Specialist`, `${w} Accountant`]
  await seed(app, [
    ...[50_000, 51_000, 52_000, 53_000, 54_000].map((pay) => ({ title: exact, pay })),
    ...[55_000, 56_000, 57_000, 58_000, 59_000].map((pay) => ({ title: similar, pay })),
    ...[90_000, 91_000, 92_000, 93_000, 94_000].map((pay) => ({ title: other, pay })),
  ])
  const jobs = await app.db.sql<{ id: string; job_title: string }[]>`select id::text, job_title from jobs`
  const near = { [exact]: 0.95, [similar]: 0.9, [other]: 0.5 }
  const model = await modelId(app.db.sql, fixedEmbedder.info)
  await setJobVectors(app.db.sql, jobs.map((j, i) => [j.id, planar(near[j.job_title], 700, 701 + i)]), model)

  const { done } = await benchmark(app, { job_title: exact, geo_locations: [{ country: 'Germany' }] })
  t.is(done.state, 'finished', done.error ?? '')
  const r = done.result!
  t.true(r.sample.similar_titles_searched)
  t.deepEqual(r.sample.similar_titles, [{ title: similar, similarity: 0.9 }], "the accountant is too far (0.5)")
  t.like(r.sample, { postings: 10, salaries: 10, exact_title_salaries: 5 })
  t.deepEqual(r.matched_titles, [{ title: exact, count: 5, match: 'exact' }, { title: similar, count: 5, match: 'similar' }].sort((a, b) => a.title.localeCompare(b.title)))
  t.like(r.market.salary, { count: 10, min: 50_000, max: 59_000 })
  t.true(r.confidence.reasons.includes('50% of the salaries come from postings with exactly the requested title'), r.confidence.reasons.join('; '))
})
