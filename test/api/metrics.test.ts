/**
 * GET /metrics (METRICS=1): the bearer token, and the series read with a Prometheus text
 * parser against the requests the test made: the duration histogram's counts by route
 * and status, admissions by outcome, the request queues, and the series read from the
 * database (a queued task, its pg-boss job, the embedding backlog).
 */
import anyTest, { type TestFn } from 'ava'
import parse, { type Family, type Sample } from 'parse-prometheus-text-format'
import { loadConfig } from '../../sql/config.ts'
import { admissionOutcome } from '../../api/metrics.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { accountOn, seedCompany, spend } from '../billing/fixtures.ts'

const TOKEN = 'metrics-token-for-tests'
type Ctx = TestApp & { company: Awaited<ReturnType<typeof seedCompany>> }
const test = anyTest as TestFn<Ctx>

test.before(async (t) => {
  const base = loadConfig()
  const app = await startTestApp({
    // pg-boss runs (the task queue exists) but no task worker: the export stays queued
    tasks: true,
    config: {
      metrics: { enabled: true, token: TOKEN, refreshSeconds: 1 },
      rateLimits: { ...base.rateLimits, key: { limit: 5, windowSeconds: 600 } },
      tasks: { ...base.tasks, inProcess: false },
    },
  })
  Object.assign(t.context, app, { company: await seedCompany(app.db.sql, 3) })
})
test.after.always(async (t) => {
  await t.context?.close?.()
})

const scrape = (base: string, token = TOKEN) => fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` } })

/**
 * The scrape's families by name. parse-prometheus-text-format folds a histogram's series
 * into one sample and keeps only an unlabelled one's count, so a histogram's TYPE line
 * is rewritten to untyped first: its `_bucket`, `_sum` and `_count` series then parse as
 * families of their own, with their labels, which is how Prometheus stores them too.
 * The parser drops the text's last sample, which is why the scrape is given a comment line after it.
 */
async function families(base: string) {
  const res = await scrape(base)
  if (res.status !== 200) throw new Error(`GET /metrics: ${res.status}`)
  const text = await res.text()
  const histograms = [...text.matchAll(/^# TYPE (\S+) histogram$/gm)].map((m) => m[1])
  const parsed = parse(text.replace(/^# TYPE (\S+) histogram$/gm, '# TYPE $1 untyped') + '\n# end\n')
  // a histogram's series interleave (each label set's buckets, sum and count in turn), so one name parses as many families
  const byName = new Map<string, Family>()
  for (const f of parsed) {
    const seen = byName.get(f.name)
    if (seen) seen.metrics.push(...f.metrics)
    else byName.set(f.name, f)
  }
  return Object.assign(byName, { histograms })
}

const matches = (s: Sample, labels: Record<string, string>) => Object.entries(labels).every(([k, v]) => s.labels?.[k] === v)
/** A gauge's or counter's value for these labels; 0 when there is no such sample. */
const value = (f: Family | undefined, labels: Record<string, string> = {}) => Number(f?.metrics.find((s) => matches(s, labels))?.value ?? 0)
/** A histogram's count for these labels, from its `_count` series. */
const count = (m: Map<string, Family>, name: string, labels: Record<string, string>) => value(m.get(`${name}_count`), labels)

/** Scrapes until `done` holds (the series are taken when each response closes, or on the refresh timer), or throws at the deadline. */
async function scrapeUntil(base: string, done: (m: Awaited<ReturnType<typeof families>>) => boolean, ms = 10_000) {
  const until = Date.now() + ms
  for (;;) {
    const m = await families(base)
    if (done(m)) return m
    if (Date.now() > until) return m
    await new Promise((r) => setTimeout(r, 50))
  }
}

test.serial('the token is required; the histogram and the admissions count the requests made', async (t) => {
  const { base, get, post, db, company } = t.context
  t.is((await fetch(`${base}/metrics`)).status, 401)
  const wrong = await scrape(base, 'not-the-token')
  t.is(wrong.status, 401)
  t.is(wrong.headers.get('www-authenticate'), 'Bearer realm="metrics"')

  // the app's key: 4 lookups and a missing job are admitted, then the rate limit of 5 refuses 2
  for (const id of [company.jobIds[0], company.jobIds[1], company.jobIds[2], company.jobIds[0]]) t.is((await get(`/v2/jobs/${id}`)).status, 200)
  t.is((await get('/v2/jobs/999999999')).status, 404)
  for (let i = 0; i < 2; i++) t.is((await get(`/v2/jobs/${company.jobIds[0]}`)).status, 429)
  // over its quota: a free account that spent its 500 jobs
  const spent = await accountOn(db.sql, 'free')
  await spend(db.sql, spent.accountId, 'm_jobs_api_calls', 500)
  const quota = await get(`/v2/jobs/${company.jobIds[0]}`, { 'x-api-key': spent.key })
  t.is(quota.status, 429)
  t.is(quota.headers.get('x-billing-code'), 'limit_exceeded')
  // an add-on the plan lacks
  const plain = await accountOn(db.sql, 'free')
  const contacts = await post('/v2/jobs/contacts', { job_ids: [company.jobIds[0]] }, { 'x-api-key': plain.key })
  t.is(contacts.status, 403)
  // no key
  t.is((await get(`/v2/jobs/${company.jobIds[0]}`, {})).status, 401)
  for (let i = 0; i < 2; i++) t.is((await get('/healthz', {})).status, 200)

  const lookup = { method: 'GET', route: '/v2/jobs/:job_id' }
  const H = 'jds_http_request_duration_seconds'
  const m = await scrapeUntil(base, (m) => count(m, H, { route: '/healthz', status: '200' }) === 2)
  t.true(m.histograms.includes(H))
  const hist = (labels: Record<string, string>) => count(m, H, labels)
  t.is(hist({ ...lookup, status: '200' }), 4)
  t.is(hist({ ...lookup, status: '404' }), 1)
  t.is(hist({ ...lookup, status: '429' }), 3)
  t.is(hist({ ...lookup, status: '401' }), 1)
  t.is(hist({ method: 'POST', route: '/v2/jobs/contacts', status: '403' }), 1)
  t.is(hist({ method: 'GET', route: '/healthz', status: '200' }), 2)
  t.is(hist({ method: 'GET', route: '/metrics', status: '401' }), 2)
  // every observation of the lookups fell in some bucket, and +Inf holds them all
  t.is(value(m.get(`${H}_bucket`), { ...lookup, status: '200', le: '+Inf' }), 4)
  t.true(value(m.get(`${H}_sum`), { ...lookup, status: '200' }) > 0)

  const admissions = m.get('jds_admissions_total')
  t.is(value(admissions, { outcome: 'admitted' }), 5)
  t.is(value(admissions, { outcome: 'rate_limited' }), 2)
  t.is(value(admissions, { outcome: 'over_quota' }), 1)
  t.is(value(admissions, { outcome: 'feature_missing' }), 1)
  t.is(value(admissions, { outcome: 'unauthenticated' }), 1)

  t.is(value(m.get('jds_request_queue_concurrency'), { queue: 'db' }), db.sql.options.max)
  t.is(value(m.get('jds_request_queue_waiting'), { queue: 'db' }), 0)
  t.is(value(m.get('jds_db_pool_size')), db.sql.options.max)
  t.true(m.has('process_cpu_user_seconds_total'), 'the default process series')
})

test.serial('the database series: a queued export, its pg-boss job, the embedding backlog, the sessions', async (t) => {
  const { base, db, post } = t.context
  const scale = await accountOn(db.sql, 'scale')
  const res = await post('/v2/jobs/export', { search: { limit: 3 }, format: 'json' }, { 'x-api-key': scale.key })
  t.is(res.status, 200, await res.clone().text())
  const m = await scrapeUntil(base, (m) => value(m.get('jds_tasks'), { type: 'export_job_data', state: 'queued' }) === 1)
  t.is(value(m.get('jds_tasks'), { type: 'export_job_data', state: 'queued' }), 1)
  t.is(value(m.get('jds_boss_jobs'), { queue: 'tasks', state: 'created' }), 1)
  t.is(value(m.get('jds_embedding_backlog')), 3, 'the three seeded jobs have no vector')
  // the embedded database has one session behind every connection; a server lists the pools'
  const sessions = (m.get('jds_db_sessions')?.metrics ?? []).filter((s) => s.labels?.application === 'job-data-service')
  if (db.kind === 'server') t.true(sessions.reduce((n, s) => n + Number(s.value), 0) > 0, 'the API pool\'s sessions')
  t.true(value(m.get('jds_metrics_refresh_timestamp_seconds')) > Date.now() / 1000 - 60)
  t.is(value(m.get('jds_metrics_refresh_errors_total')), 0)
})

test('admission outcomes from the response', (t) => {
  t.is(admissionOutcome(200, undefined, true), 'admitted')
  t.is(admissionOutcome(500, undefined, true), 'admitted')
  t.is(admissionOutcome(429, undefined, true), 'rate_limited')
  t.is(admissionOutcome(429, undefined, false), 'rate_limited', 'the per-IP limit of the anonymous routes')
  t.is(admissionOutcome(429, 'limit_exceeded', true), 'over_quota')
  t.is(admissionOutcome(403, 'feature_missing', true), 'feature_missing')
  t.is(admissionOutcome(401, undefined, false), 'unauthenticated')
  t.is(admissionOutcome(200, undefined, false), null, 'anonymous')
  t.is(admissionOutcome(503, undefined, false), null, 'refused before admission')
})
