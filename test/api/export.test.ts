/**
 * POST /v2/jobs/export end to end: the task is created and charged at once, a worker in
 * the app's process writes the file, the signed link serves it, and the notification
 * reaches a real SMTP server. Also: validation, the quota 429, owner-only tasks, and a
 * failing export that refunds its charge exactly once.
 */
import anyTest, { type TestFn } from 'ava'
import { parse } from 'csv-parse/sync'
import { simpleParser } from 'mailparser'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { SMTPServer } from 'smtp-server'
import { ingest } from '../../ingest/pipeline.ts'
import { loadConfig } from '../../sql/config.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { download, waitForTask, type Task } from '../helpers/tasks.ts'
import { createAccountWithKey, rawPosting } from '../helpers/factories.ts'
import { seedCompany, usage } from '../billing/fixtures.ts'

type Ctx = { app: TestApp; dir: string; smtp: SMTPServer; mail: string[] }
const test = anyTest as TestFn<Ctx>

const EXPORT_FIELDS = [
  '_id', 'application_link', 'company_data', 'company_link', 'company_logo', 'company_name', 'company_slug', 'date_posted', 'description',
  'education_level', 'job_board', 'job_board_link', 'job_categories', 'job_slug', 'job_title', 'job_type', 'language', 'location_raw',
  'location_type', 'locations', 'meta', 'meta_completeness', 'recruiter_agency', 'requirements_summary', 'score', 'skills', 'technologies',
  'visa_sponsored', 'yoe_range',
]

/** Fast retries and a prompt pg-boss, files under a temp DATA_DIR. */
function taskConfig(dir: string, overrides: Partial<ReturnType<typeof loadConfig>['tasks']> = {}) {
  const base = loadConfig()
  return {
    dataDir: dir,
    downloadsDir: path.join(dir, 'downloads'),
    tasks: { ...base.tasks, retryLimit: 1, retryDelay: 0, maintenanceSeconds: 1, ...overrides },
    rateLimits: { key: { limit: 100_000, windowSeconds: 60 }, search: { limit: 100_000, windowSeconds: 1 }, anonymous: { limit: 100_000, windowSeconds: 60 } },
  }
}

test.before(async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'jds-export-'))
  const mail: string[] = []
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, _session, done) {
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('end', () => (mail.push(Buffer.concat(chunks).toString()), done()))
    },
  })
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve))
  const port = (smtp.server.address() as AddressInfo).port
  const app = await startTestApp({
    tasks: true,
    embedder: null,
    config: { ...taskConfig(dir), mail: { smtpUrl: `smtp://127.0.0.1:${port}`, from: 'Exports <exports@example.test>' } },
  })
  await app.db.sql`update accounts set plan = 'scale' where id = ${app.accountId}`
  await app.sync()
  await ingest(
    app.db.sql,
    Array.from({ length: 25 }, (_, i) => ({
      line: i + 1,
      raw: rawPosting({ source_id: `export-${i}`, job_title: `Export Engineer ${i}`, date_posted: `2026-10-${String(i + 1).padStart(2, '0')}`, description: `<p>Posting <b>${i}</b>, "quoted", with a comma.</p>` }, i) as never,
    })),
    { source: 'export-test' },
  )
  t.context = { app, dir, smtp, mail }
})

test.after.always(async (t) => {
  await t.context.app?.close()
  await new Promise<void>((resolve) => (t.context.smtp ? t.context.smtp.close(() => resolve()) : resolve()))
  await rm(t.context.dir, { recursive: true, force: true })
})




/** Settled usage: the app's search charges are flushed first (export charges are written at once). */
const usedUnits = async (app: TestApp, accountId = app.accountId) => {
  await app.sync()
  const [row] = await app.db.sql<{ used: number }[]>`select coalesce(sum(used), 0)::int as used from usage_meters where account_id = ${accountId} and meter = 'm_jobs_api_calls'`
  return row.used
}

test.serial('json: the task is queued and charged at once, then the file holds the search\'s jobs in its order, one per line', async (t) => {
  const { app } = t.context
  const before = await usedUnits(app)
  const body = { search: { job_titles: ['export engineer'], sort_by: 'date_posted', limit: 20 }, format: 'json' }
  const res = await app.post('/v2/jobs/export', body)
  t.is(res.status, 200)
  const queued = (await res.json()) as Task
  t.like(queued, { type: 'export_job_data', state: 'queued', progress: 0, notify: false, result: null })
  t.deepEqual(queued.input.format, 'json')
  t.is(queued.input.search.limit, 20)
  t.is(usage(res)['total-used'], String(before + 20), 'charged min(limit, matches) = 20 when the task was created')
  t.is(await usedUnits(app), before + 20)

  const done = await waitForTask(app, queued.id)
  t.is(done.state, 'finished', done.error ?? '')
  t.is(done.progress, 1)
  t.is(done.result!.record_count, 20)
  const expiry = new Date(done.result!.expiry_time).getTime()
  t.true(Math.abs(expiry - (Date.now() + 30 * 86_400_000)) < 5 * 60_000, 'expires 30 days after completion')

  const file = await download(app, done.result!.download_url)
  t.is(file.status, 200)
  t.regex(file.headers.get('content-type') ?? '', /ndjson/)
  const text = await file.text()
  t.is(Buffer.byteLength(text), done.result!.file_size)
  const lines = text.trimEnd().split('\n').map((l) => JSON.parse(l))
  t.is(lines.length, 20)
  t.deepEqual(Object.keys(lines[0]).sort(), [...EXPORT_FIELDS].sort(), 'exactly the spec\'s export fields, no description_raw unless asked')
  t.deepEqual(lines.map((l) => l.meta.position), Array.from({ length: 20 }, (_, i) => i + 1))

  const search = await (await app.post('/v2/jobs/search', { ...body.search, limit: 20 })).json()
  t.deepEqual(lines.map((l) => l._id), search.jobs.map((j: { _id: string }) => j._id), 'the search\'s order')
  // the same values as the search's records, with the same JSON types (arrays, booleans, nested objects)
  const shared = EXPORT_FIELDS.filter((f) => f !== 'meta' && f !== 'score' && f in search.jobs[0])
  t.true(shared.length > 20, shared.join(', '))
  lines.forEach((line, i) => t.deepEqual(Object.fromEntries(shared.map((f) => [f, line[f]])), Object.fromEntries(shared.map((f) => [f, search.jobs[i][f]]))))
  t.true(lines.every((l) => Array.isArray(l.skills) && typeof l.recruiter_agency === 'boolean' && l.meta.task_id === queued.id))
  t.is(await usedUnits(app), before + 20 + 20, 'the export was charged once (the search above charged its own 20)')
})

test.serial('csv with return_raw_description: a header, one row per job, nested fields as JSON text; page selects the window', async (t) => {
  const { app } = t.context
  const before = await usedUnits(app)
  const res = await app.post('/v2/jobs/export', {
    search: { job_titles: ['export engineer'], sort_by: 'date_posted', sort_order: 'asc', return_raw_description: 'true', page: 3, limit: 10 },
    format: 'csv',
  })
  t.is(res.status, 200)
  const task = (await res.json()) as Task
  t.is(await usedUnits(app), before + 5, 'page 3 of 10 holds the 5 jobs past offset 20: 5 units')
  const done = await waitForTask(app, task.id)
  t.is(done.state, 'finished', done.error ?? '')
  t.is(done.result!.record_count, 5)
  const csv = await (await download(app, done.result!.download_url)).text()
  const rows = parse(csv, { columns: true }) as Record<string, string>[]
  t.is(rows.length, 5)
  t.true(Object.keys(rows[0]).includes('description_raw'))
  t.is(Object.keys(rows[0]).indexOf('description_raw'), Object.keys(rows[0]).indexOf('description') + 1)
  t.deepEqual(rows.map((r) => JSON.parse(r.meta).position), [21, 22, 23, 24, 25])
  t.is(typeof JSON.parse(rows[0].company_data), 'object')
  t.true(Array.isArray(JSON.parse(rows[0].locations)))
  t.regex(rows[0].description_raw, /"quoted", with a comma/, 'quotes and commas survive the CSV round trip')
  t.true(rows.every((r) => ['true', 'false'].includes(r.recruiter_agency) && ['true', 'false'].includes(r.meta_completeness)), 'booleans as true and false')
  t.true(rows.every((r) => Array.isArray(JSON.parse(r.skills)) && Array.isArray(JSON.parse(r.job_categories))), 'arrays as JSON text')
  t.true(rows.every((r) => JSON.parse(r.meta).task_id === task.id))
  t.deepEqual(rows.map((r) => r.date_posted), ['2026-10-21', '2026-10-22', '2026-10-23', '2026-10-24', '2026-10-25'])
})

test.serial('notify: the finished export emails its link to the account\'s address', async (t) => {
  const { app, mail } = t.context
  const sent = mail.length
  const res = await app.post('/v2/jobs/export', { search: { limit: 3 }, format: 'json', notify: true })
  const task = (await res.json()) as Task
  t.true(task.notify)
  const done = await waitForTask(app, task.id)
  const until = Date.now() + 30_000
  while (mail.length === sent && Date.now() < until) await new Promise((r) => setTimeout(r, 100))
  t.is(mail.length, sent + 1)
  const message = await simpleParser(mail[sent])
  const [account] = await app.db.sql<{ email: string }[]>`select email from accounts where id = ${app.accountId}`
  t.is((message.to as { text: string }).text, account.email)
  t.true((message.text ?? '').includes(done.result!.download_url))
})

test('validation: 422 for a missing or unknown format, a boolean flag, a bad geofilter mode or no search; nothing is charged or queued', async (t) => {
  const { app } = t.context
  const { accountId, key } = await createAccountWithKey(app.db.sql, 'scale')
  const cases: [unknown, string][] = [
    [{ search: {} }, 'format'],
    [{ search: {}, format: 'xml' }, 'format'],
    [{ format: 'csv' }, 'search'],
    [{ search: { hide_recruiting_agencies: true }, format: 'csv' }, 'hide_recruiting_agencies'],
    [{ search: { return_raw_description: true }, format: 'json' }, 'return_raw_description'],
    [{ search: { geofilter_params: { mode: 'nearby' }, geo_locations: [{ city: 'Berlin' }] }, format: 'csv' }, 'mode'],
    [{ search: { limit: 0 }, format: 'csv' }, 'limit'],
  ]
  for (const [body, field] of cases) {
    const res = await app.post('/v2/jobs/export', body, { 'x-api-key': key })
    t.is(res.status, 422, JSON.stringify(body))
    const { detail } = await res.json()
    t.true(Array.isArray(detail) && detail.some((d: { loc: string[] }) => d.loc.includes(field)), `${JSON.stringify(body)}: ${JSON.stringify(detail)}`)
  }
  t.is(await usedUnits(app, accountId), 0)
  const [{ n }] = await app.db.sql<{ n: number }[]>`select count(*)::int as n from tasks where account_id = ${accountId}`
  t.is(n, 0)
})

test('401 without a key is the sign-in variant', async (t) => {
  const res = await t.context.app.post('/v2/jobs/export', { search: {}, format: 'csv' }, {})
  t.is(res.status, 401)
  t.is(res.headers.get('x-billing-code'), 'auth_required')
  t.deepEqual(await res.json(), { detail: 'Sign in to access this endpoint' })
})

test('block mode: an export the allowance cannot cover is a quota 429, and no task is created', async (t) => {
  const { app } = t.context
  const { accountId, key } = await createAccountWithKey(app.db.sql, 'free')
  await seedCompany(app.db.sql, 0)
  const [{ included }] = await app.db.sql<{ included: number }[]>`select included::int from plan_meters where plan_key = 'free' and meter = 'm_jobs_api_calls'`
  const [{ live }] = await app.db.sql<{ live: number }[]>`select count(*)::int as live from jobs where not expired`
  t.true(live > 0)
  // spend all but one unit, then export two or more jobs
  await app.db.sql`insert into usage_meters (account_id, meter, period_start, period_end, used)
    select ${accountId}, 'm_jobs_api_calls', date_trunc('month', now() at time zone 'utc') at time zone 'utc', (date_trunc('month', now() at time zone 'utc') + interval '1 month') at time zone 'utc', ${included - 1}`
  const res = await app.post('/v2/jobs/export', { search: { limit: 2 }, format: 'csv' }, { 'x-api-key': key })
  t.is(res.status, 429, await res.clone().text())
  t.is(res.headers.get('x-billing-code'), 'limit_exceeded')
  t.regex((await res.json()).detail, /could use up to 2/)
  const [{ n }] = await app.db.sql<{ n: number }[]>`select count(*)::int as n from tasks where account_id = ${accountId}`
  t.is(n, 0)
  t.is(await usedUnits(app, accountId), included - 1)
})

test('another account\'s export task is a 404', async (t) => {
  const { app } = t.context
  const task = (await (await app.post('/v2/jobs/export', { search: { limit: 1 }, format: 'csv' })).json()) as Task
  const other = await createAccountWithKey(app.db.sql, 'scale')
  const res = await app.get(`/v2/tasks/${task.id}`, { 'x-api-key': other.key })
  t.is(res.status, 404)
  t.deepEqual(await res.json(), { detail: 'Task not found' })
  t.is((await app.get(`/v2/tasks/${task.id}`)).status, 200)
})

test('a task that keeps failing ends failed after its retries, with its error, and its charge refunded exactly once', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'jds-export-fail-'))
  // DATA_DIR's tmp is a file: no attempt can write the export
  await writeFile(path.join(dir, 'tmp'), 'not a directory')
  const app = await startTestApp({ tasks: true, embedder: null, config: taskConfig(dir, { retryLimit: 2 }) })
  t.teardown(async () => {
    await app.close()
    await rm(dir, { recursive: true, force: true })
  })
  await app.db.sql`update accounts set plan = 'scale' where id = ${app.accountId}`
  await app.sync()
  await seedCompany(app.db.sql, 12)
  const res = await app.post('/v2/jobs/export', { search: { limit: 50 }, format: 'json' })
  t.is(res.status, 200)
  const task = (await res.json()) as Task
  t.is(await usedUnits(app), 12, 'min(limit 50, 12 matches)')

  const done = await waitForTask(app, task.id)
  t.is(done.state, 'failed')
  // the client is told a reference; the file system's error is in the log under it
  const ref = /^The task failed because of an error on the server \(reference ([0-9a-f]{12})\)\.$/.exec(done.error ?? '')?.[1]
  t.truthy(ref, done.error ?? '')
  const logged = app.logs.map((l) => JSON.parse(l)).find((l) => l.error_ref === ref)
  t.regex(logged?.err.message ?? '', /EEXIST|ENOTDIR|not a directory|file already exists/i)
  t.is(done.result, null)
  t.is(await usedUnits(app), 0, 'refunded')
  const [row] = await app.db.sql<{ attempt: number; refunded_units: number }[]>`select attempt, refunded_units from tasks where id = ${task.id}`
  t.is(row.attempt, 3, 'the first attempt and two retries')
  t.is(row.refunded_units, 12)
  const ledger = await app.db.sql<{ kind: string; units: number }[]>`
    select kind, units::int from usage_ledger_charges where account_id = ${app.accountId} order by ledger_id`
  t.deepEqual([...ledger], [{ kind: 'charge', units: 12 }, { kind: 'refund', units: -12 }], 'one charge, one refund')
})

test.serial('expired-jobs export: the whole window since a date as JSONL of exactly four fields, newest first, free', async (t) => {
  const { app } = t.context
  const { jobIds } = await seedCompany(app.db.sql, 30)
  // 20 expired inside the window (one a minute), 10 before it
  await app.db.sql`
    update jobs set expired = true, date_expired = '2026-03-01',
      expired_at = case when n <= 20 then '2026-03-01T12:00:00Z'::timestamptz + make_interval(mins => n) else '2025-12-31T23:59:59Z'::timestamptz end
    from (select id, row_number() over (order by id)::int as n from jobs where id = any(${jobIds}::bigint[])) o
    where jobs.id = o.id`
  // an account of its own: the other tests charge the app's account meanwhile
  const { accountId, key } = await createAccountWithKey(app.db.sql, 'scale')
  const res = await app.post('/v2/jobs/expired-jobs/export', { since: '2026-01-01T00:00:00' }, { 'x-api-key': key })
  t.is(res.status, 200, await res.clone().text())
  t.is(usage(res)['total-used'], '0', 'usage headers, nothing charged')
  const task = (await res.json()) as Task
  t.like(task, { type: 'export_expired_jobs', state: 'queued', progress: 0, notify: false })
  t.deepEqual(task.input, { since: '2026-01-01T00:00:00.000Z', format: 'jsonl' }, 'a naive since is UTC')

  const done = await waitForTask(app, task.id, key)
  t.is(done.state, 'finished', done.error ?? '')
  t.is(done.result!.record_count, 20)
  const file = await download(app, done.result!.download_url)
  const lines = (await file.text()).trimEnd().split('\n').map((l) => JSON.parse(l))
  t.is(lines.length, 20)
  for (const line of lines) t.deepEqual(Object.keys(line), ['_id', 'company_slug', 'job_slug', 'date_expired'])
  t.is(lines[0].date_expired, '2026-03-01')
  const [{ newest }] = await app.db.sql<{ newest: string }[]>`select id::text as newest from jobs where id = any(${jobIds}::bigint[]) order by expired_at desc, id desc limit 1`
  t.is(lines[0]._id, newest, 'newest first')
  t.is(await usedUnits(app, accountId), 0)
})

test('expired-jobs export: since missing is a 422, unparseable a 400, no key the sign-in 401', async (t) => {
  const { app } = t.context
  const missing = await app.post('/v2/jobs/expired-jobs/export', { notify: true })
  t.is(missing.status, 422)
  t.like((await missing.json()).detail[0], { type: 'missing', loc: ['body', 'since'] })
  for (const since of ['yesterday', '2026-02-31', '2026-13-01T00:00:00Z', '']) {
    const bad = await app.post('/v2/jobs/expired-jobs/export', { since })
    t.is(bad.status, 400, since)
    t.regex((await bad.json()).detail, /Invalid since/)
  }
  const anonymous = await app.post('/v2/jobs/expired-jobs/export', { since: '2026-01-01' }, {})
  t.is(anonymous.status, 401)
  t.is(anonymous.headers.get('x-billing-code'), 'auth_required')
})
