/**
 * POST /v2/jobs/historical/export end to end: the task is created at once and costs
 * nothing, a worker in the app's process writes the archive's records (NDJSON or CSV,
 * most recently posted first, max_records), the result carries the quote of what was
 * written, the notification reaches a real SMTP server, `admin usage:show` lists the
 * quotes, and the task belongs to its account. Also: the sign-in 401 and every 422.
 */
import anyTest, { type TestFn } from 'ava'
import { parse } from 'csv-parse/sync'
import { simpleParser } from 'mailparser'
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { SMTPServer } from 'smtp-server'
import { loadConfig } from '../../sql/config.ts'
import { EXPORT_TIERS_TEXT, exportQuote, HISTORICAL_EXPORT_FIELDS } from '../../sql/historical.ts'
import { placeKeys } from '../../seeds/places/place-keys.ts'
import type { Sql } from '../../sql/db.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { download, waitForTask, type Task } from '../helpers/tasks.ts'
import { createAccountWithKey } from '../helpers/factories.ts'
import { usage } from '../billing/fixtures.ts'

type Ctx = { app: TestApp; dir: string; smtp: SMTPServer; mail: string[]; co: string; ids: string[] }
const test = anyTest as TestFn<Ctx>
const run = promisify(execFile)

function taskConfig(dir: string) {
  const base = loadConfig()
  return {
    dataDir: dir,
    downloadsDir: path.join(dir, 'downloads'),
    tasks: { ...base.tasks, retryLimit: 1, retryDelay: 0, maintenanceSeconds: 1 },
    rateLimits: { key: { limit: 100_000, windowSeconds: 60 }, search: { limit: 100_000, windowSeconds: 1 }, anonymous: { limit: 100_000, windowSeconds: 60 } },
  }
}

// far above any id ingest gives a job
let nextId = 9_100_000_000_000 + Math.floor(Math.random() * 1e6) * 10_000

/** `n` archived postings of company `co`, posted a day apart from 2025-01-01 (so the last is the newest); every third keeps a description. */
async function archive(sql: Sql, co: string, n: number) {
  const locations = [{ city: 'Berlin', region: 'State of Berlin', country: 'Germany', coordinates: { lat: 52.52437, lng: 13.41053 } }]
  const rows = Array.from({ length: n }, (_, i) => ({
    job_id: String(nextId++),
    job_title: `Archivist ${i}`,
    company_name: co,
    company_slug: co.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
    locations: sql.json(locations),
    countries: ['Germany'],
    place_keys: placeKeys(locations),
    date_posted: new Date(Date.UTC(2025, 0, 1 + i)).toISOString().slice(0, 10),
    date_expired: new Date(Date.UTC(2025, 1, 1 + i)).toISOString().slice(0, 10),
    skills: ['cataloguing'],
    technologies: ['PostgreSQL', 'Python'],
    benefits: [],
    description_kept: i % 3 === 0,
    description: i % 3 === 0 ? `<p>Posting ${i}, "quoted", with a comma.</p>` : null,
  }))
  await sql`insert into job_archive ${sql(rows, 'job_id', 'job_title', 'company_name', 'company_slug', 'locations', 'countries', 'place_keys', 'date_posted', 'date_expired', 'skills', 'technologies', 'benefits', 'description_kept', 'description')}`
  return rows.map((r) => r.job_id)
}

test.before(async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'jds-historical-export-'))
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
  const co = `Hist Export ${randomBytes(4).toString('hex')}`
  const ids = await archive(app.db.sql, co, 25)
  t.context = { app, dir, smtp, mail, co, ids }
})

test.after.always(async (t) => {
  await t.context.app?.close()
  await new Promise<void>((resolve) => (t.context.smtp ? t.context.smtp.close(() => resolve()) : resolve()))
  await rm(t.context.dir, { recursive: true, force: true })
})

const usedUnits = async (app: TestApp, accountId: string) => {
  await app.sync()
  const [row] = await app.db.sql<{ used: number }[]>`select coalesce(sum(used), 0)::int as used from usage_meters where account_id = ${accountId}`
  return row.used
}

test('json: queued at once for nothing, then NDJSON of the archive\'s fields, newest first, with the quote of what was written', async (t) => {
  const { app, co, ids } = t.context
  const { accountId, key } = await createAccountWithKey(app.db.sql, 'free')
  const res = await app.post('/v2/jobs/historical/export', { company_names: [co], format: 'json' }, { 'x-api-key': key })
  t.is(res.status, 200, await res.clone().text())
  t.like(usage(res), { meter: 'm_jobs_api_calls', 'total-used': '0' })
  const queued = (await res.json()) as Task
  t.like(queued, { type: 'export_historical_jobs', state: 'queued', progress: 0, notify: false, result: null })
  t.deepEqual(queued.input, { filters: { company_names: [co] }, format: 'json', max_records: null, notify: false })

  const done = await waitForTask(app, queued.id, key)
  t.is(done.state, 'finished', done.error ?? '')
  t.is(done.progress, 1)
  t.deepEqual(Object.keys(done.result!).sort(), ['download_url', 'expiry_time', 'file_size', 'quote', 'record_count'])
  t.is(done.result!.record_count, 25)
  t.deepEqual(done.result!.quote, { record_count: 25, price_usd: 3, tiers: EXPORT_TIERS_TEXT })
  t.true(Math.abs(new Date(done.result!.expiry_time).getTime() - (Date.now() + 30 * 86_400_000)) < 5 * 60_000, 'expires 30 days after completion')

  const file = await download(app, done.result!.download_url)
  t.is(file.status, 200)
  t.regex(file.headers.get('content-type') ?? '', /ndjson/)
  const text = await file.text()
  t.is(Buffer.byteLength(text), done.result!.file_size)
  const lines = text.trimEnd().split('\n').map((l) => JSON.parse(l))
  t.is(lines.length, 25)
  for (const line of lines) t.deepEqual(Object.keys(line), [...HISTORICAL_EXPORT_FIELDS])
  t.deepEqual(lines.map((l) => l._id), [...ids].reverse(), 'most recently posted first')
  t.deepEqual(lines[0], {
    _id: ids[24],
    job_title: 'Archivist 24',
    company_name: co,
    company_slug: co.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
    date_posted: '2025-01-25',
    date_expired: '2025-02-25',
    locations: [{ city: 'Berlin', region: 'State of Berlin', country: 'Germany', coordinates: { lat: 52.52437, lng: 13.41053 } }],
    countries: ['Germany'],
    skills: ['cataloguing'],
    technologies: ['PostgreSQL', 'Python'],
    benefits: [],
    description: '<p>Posting 24, "quoted", with a comma.</p>',
  })
  t.is(lines.find((l) => l.job_title === 'Archivist 23').description, null, 'null where the archive kept no text')
  t.is(await usedUnits(app, accountId), 0, 'no meter is charged')
})

test('csv with max_records and a filter: a header, the newest rows, lists as JSON text; the quote counts the rows written', async (t) => {
  const { app, co, ids } = t.context
  const res = await app.post('/v2/jobs/historical/export', { company_names: [co], keywords: ['python'], date_posted_to: '2025-01-20', format: 'csv', max_records: 4 })
  t.is(res.status, 200)
  const task = (await res.json()) as Task
  t.deepEqual(task.input, { filters: { company_names: [co], keywords: ['python'], date_posted_to: '2025-01-20' }, format: 'csv', max_records: 4, notify: false })
  const done = await waitForTask(app, task.id)
  t.is(done.state, 'finished', done.error ?? '')
  t.is(done.result!.record_count, 4)
  t.deepEqual(done.result!.quote, exportQuote(4))
  t.is(done.result!.quote.price_usd, 0.5, 'the minimum')
  const csv = await (await download(app, done.result!.download_url)).text()
  t.is(csv.split('\n')[0], HISTORICAL_EXPORT_FIELDS.join(','))
  const rows = parse(csv, { columns: true }) as Record<string, string>[]
  t.deepEqual(rows.map((r) => r._id), [ids[19], ids[18], ids[17], ids[16]], 'posted on or before 2025-01-20, newest first')
  t.deepEqual(JSON.parse(rows[0].technologies), ['PostgreSQL', 'Python'])
  t.deepEqual(JSON.parse(rows[0].locations)[0].city, 'Berlin')
  t.is(rows[0].description, '', 'no description: an empty field')
  t.is(rows.find((r) => r.job_title === 'Archivist 18')!.description, '<p>Posting 18, "quoted", with a comma.</p>', 'quotes and commas survive')
})

test('more records than one batch holds: every one, in order, and the quote past the first step', async (t) => {
  const { app } = t.context
  const co = `Hist Export Large ${randomBytes(4).toString('hex')}`
  const ids = await archive(app.db.sql, co, 1_005)
  const task = (await (await app.post('/v2/jobs/historical/export', { company_names: [co], format: 'json' })).json()) as Task
  const done = await waitForTask(app, task.id)
  t.is(done.state, 'finished', done.error ?? '')
  t.is(done.result!.record_count, 1_005)
  t.deepEqual(done.result!.quote, { record_count: 1_005, price_usd: 120.15, tiers: EXPORT_TIERS_TEXT })
  const lines = (await (await download(app, done.result!.download_url)).text()).trimEnd().split('\n').map((l) => JSON.parse(l))
  t.deepEqual(lines.map((l) => l._id), [...ids].reverse())
})

test('an export that matches nothing finishes with an empty file and a quote of 0', async (t) => {
  const { app } = t.context
  const task = (await (await app.post('/v2/jobs/historical/export', { company_names: [`Nobody ${randomBytes(3).toString('hex')}`], format: 'csv' })).json()) as Task
  const done = await waitForTask(app, task.id)
  t.is(done.state, 'finished', done.error ?? '')
  t.is(done.result!.record_count, 0)
  t.deepEqual(done.result!.quote, { record_count: 0, price_usd: 0, tiers: EXPORT_TIERS_TEXT })
  t.is((await (await download(app, done.result!.download_url)).text()).trim(), HISTORICAL_EXPORT_FIELDS.join(','))
})

test.serial('notify: the finished export emails its link and its quoted price to the account\'s address', async (t) => {
  const { app, mail, co } = t.context
  const sent = mail.length
  const task = (await (await app.post('/v2/jobs/historical/export', { company_names: [co], format: 'json', max_records: 2, notify: true })).json()) as Task
  t.true(task.notify)
  const done = await waitForTask(app, task.id)
  const until = Date.now() + 30_000
  while (mail.length === sent && Date.now() < until) await new Promise((r) => setTimeout(r, 100))
  t.is(mail.length, sent + 1)
  const message = await simpleParser(mail[sent])
  const [account] = await app.db.sql<{ email: string }[]>`select email from accounts where id = ${app.accountId}`
  t.is((message.to as { text: string }).text, account.email)
  t.is(message.subject, 'Your historical export is ready')
  const text = message.text ?? ''
  t.true(text.includes(done.result!.download_url))
  t.regex(text, /Quoted price: USD 0\.50 \(not charged\)/)
  t.regex(text, /Records: 2/)
})

test('another account\'s export task is a 404', async (t) => {
  const { app, co } = t.context
  const task = (await (await app.post('/v2/jobs/historical/export', { company_names: [co], format: 'csv', max_records: 1 })).json()) as Task
  const other = await createAccountWithKey(app.db.sql, 'scale')
  const res = await app.get(`/v2/tasks/${task.id}`, { 'x-api-key': other.key })
  t.is(res.status, 404)
  t.deepEqual(await res.json(), { detail: 'Task not found' })
  t.is((await app.get(`/v2/tasks/${task.id}`)).status, 200)
})

test('401 without a key is the sign-in variant', async (t) => {
  const res = await t.context.app.post('/v2/jobs/historical/export', { company_names: ['x'], format: 'csv' }, {})
  t.is(res.status, 401)
  t.is(res.headers.get('x-billing-code'), 'auth_required')
  t.deepEqual(await res.json(), { detail: 'Sign in to access this endpoint' })
})

test('422: format missing or unknown, max_records out of range, unknown keys, unsupported filters, no filter; no task is created', async (t) => {
  const { app } = t.context
  const { accountId, key } = await createAccountWithKey(app.db.sql, 'scale')
  const cases: [unknown, (string | number)[], string][] = [
    [{ company_names: ['x'] }, ['body', 'format'], 'missing'],
    [{ company_names: ['x'], format: 'xml' }, ['body', 'format'], 'enum'],
    [{ company_names: ['x'], format: 'json', max_records: 0 }, ['body', 'max_records'], 'greater_than_equal'],
    [{ company_names: ['x'], format: 'json', max_records: 10_000_001 }, ['body', 'max_records'], 'less_than_equal'],
    [{ company_names: ['x'], format: 'json', max_records: '10' }, ['body', 'max_records'], 'float_type'],
    [{ company_names: ['x'], format: 'json', notify: 'yes' }, ['body', 'notify'], 'bool_type'],
    [{ company_names: ['x'], format: 'json', sample_size: 5 }, ['body', 'sample_size'], 'extra_forbidden'],
    [{ company_names: ['x'], format: 'json', limit: 5 }, ['body', 'limit'], 'extra_forbidden'],
    [{ company_names: ['x'], format: 'json', salary: { min: 1 } }, ['body', 'salary'], 'value_error'],
    [{ format: 'json' }, ['body'], 'value_error'],
    [{ format: 'json', job_titles: [' '] }, ['body'], 'value_error'],
  ]
  for (const [body, loc, type] of cases) {
    const res = await app.post('/v2/jobs/historical/export', body, { 'x-api-key': key })
    t.is(res.status, 422, JSON.stringify(body))
    const { detail } = await res.json()
    t.true(detail.some((d: { loc: unknown[]; type: string }) => JSON.stringify(d.loc) === JSON.stringify(loc) && d.type === type), `${JSON.stringify(body)}: ${JSON.stringify(detail)}`)
  }
  const [{ n }] = await app.db.sql<{ n: number }[]>`select count(*)::int as n from tasks where account_id = ${accountId}`
  t.is(n, 0)
  t.is(await usedUnits(app, accountId), 0)
})

test.serial('admin usage:show lists the account\'s historical exports this period with their quotes', async (t) => {
  const { app, co } = t.context
  const { accountId, key } = await createAccountWithKey(app.db.sql, 'starter')
  const made: string[] = []
  for (const max of [3, 20]) {
    const task = (await (await app.post('/v2/jobs/historical/export', { company_names: [co], format: 'json', max_records: max }, { 'x-api-key': key })).json()) as Task
    t.is((await waitForTask(app, task.id, key)).state, 'finished')
    made.push(task.id)
  }
  const env = { ...process.env, DATABASE_URL: app.db.url }
  const { stdout } = await run('npx', ['tsx', 'bin/admin.ts', 'usage:show', '--account', accountId], { env })
  const out = JSON.parse(stdout)
  t.true(Array.isArray(out.meters), 'the usage summary as before')
  const h = out.historical_exports
  t.is(h.exports, 2)
  t.is(h.records, 23)
  // 3 records: the 0.50 minimum; 20 records: 2.40
  t.is(h.price_usd, 2.9)
  t.deepEqual(h.tasks.map((x: { task_id: string }) => x.task_id), made)
  t.like(h.tasks[0], { state: 'finished', record_count: 3, price_usd: 0.5 })
  t.like(h.tasks[1], { state: 'finished', record_count: 20, price_usd: 2.4 })
  t.true(new Date(h.since).getTime() <= Date.now())
})
