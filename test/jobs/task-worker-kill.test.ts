/**
 * A worker process killed in the middle of an export (SIGKILL: no cleanup runs). The
 * API runs no task workers here; `npm run worker` processes do the work. pg-boss fails
 * the dead attempt at its expiry and either retries it on another worker, which
 * finishes the task exactly once (one charge, no refund, every job once in the file),
 * or, with no retry left, dead-letters it, and the task fails with its charge refunded
 * exactly once.
 */
import anyTest, { type TestFn } from 'ava'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { failTask } from '../../sql/tasks.ts'
import { loadConfig } from '../../sql/config.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { seedCompany } from '../billing/fixtures.ts'

const test = anyTest as TestFn<{ dir: string }>
const JOBS = 8000
/** long enough for a live attempt to export JOBS jobs on a busy machine; a dead one is retried this long after it started */
const EXPIRE_SECONDS = 15

test.beforeEach(async (t) => {
  t.context = { dir: await mkdtemp(path.join(tmpdir(), 'jds-kill-')) }
})
test.afterEach.always(async (t) => {
  await rm(t.context.dir, { recursive: true, force: true })
})

async function exportApp(dir: string, retryLimit: number) {
  const base = loadConfig()
  const app = await startTestApp({
    tasks: true,
    embedder: null,
    config: {
      dataDir: dir,
      downloadsDir: path.join(dir, 'downloads'),
      tasks: { ...base.tasks, inProcess: false, retryLimit, retryDelay: 0, expireSeconds: EXPIRE_SECONDS, maintenanceSeconds: 1 },
    },
  })
  await app.db.sql`update accounts set plan = 'scale' where id = ${app.accountId}`
  await app.sync()
  // in companies of 1,000: one insert's parameters must stay under the protocol's 65,535
  for (let n = 0; n < JOBS; n += 1000) await seedCompany(app.db.sql, Math.min(1000, JOBS - n))
  return app
}

/** `npm run worker` on the test database. */
function startWorker(app: TestApp, dir: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/worker.ts'], {
    env: { ...process.env, DATABASE_URL: app.db.url, DATA_DIR: dir, TASK_CONCURRENCY: '1', LOG_LEVEL: 'warn', EMBEDDING_PROVIDER: 'none' },
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  return child
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
  })

type Row = { state: string; progress: number; attempt: number; worker_id: string | null; result: { record_count: number; download_url: string } | null; error: string | null; refunded_units: number | null }

async function waitFor(app: TestApp, id: string, done: (r: Row) => boolean, timeoutMs: number) {
  const until = Date.now() + timeoutMs
  for (;;) {
    const [row] = await app.db.sql<Row[]>`select state, progress, attempt, worker_id, result, error, refunded_units from tasks where id = ${id}`
    if (done(row)) return row
    if (Date.now() > until) throw new Error(`waited ${timeoutMs} ms; task is ${JSON.stringify(row)}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

/** Starts an export of every job and SIGKILLs the worker once it has written part of the file. */
async function exportAndKill(t: { context: { dir: string } }, app: TestApp) {
  const res = await app.post('/v2/jobs/export', { search: { limit: JOBS }, format: 'json' })
  if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`)
  const { id } = (await res.json()) as { id: string }
  const first = startWorker(app, t.context.dir)
  const mid = await waitFor(app, id, (r) => r.state === 'processing' && r.progress > 0, 120_000)
  first.kill('SIGKILL')
  await new Promise((resolve) => first.once('exit', resolve))
  return { id, mid }
}

const ledger = (app: TestApp) =>
  app.db.sql<{ kind: string; units: number }[]>`select kind, units::int from usage_ledger_charges where account_id = ${app.accountId} order by ledger_id, position`

test.serial('killed mid-export, the task is retried on another worker and finishes exactly once: one charge, every job once', async (t) => {
  const app = await exportApp(t.context.dir, 2)
  const workers: ChildProcess[] = []
  t.teardown(async () => {
    await Promise.all(workers.map(stop))
    await app.close()
  })
  const { id, mid } = await exportAndKill(t, app)
  t.is(mid.attempt, 1)
  const [afterKill] = await app.db.sql<Row[]>`select state, progress, attempt from tasks where id = ${id}`
  t.like(afterKill, { state: 'processing', attempt: 1 }, 'killed in the middle: not finished')
  t.true(afterKill.progress < 1)

  workers.push(startWorker(app, t.context.dir))
  const done = await waitFor(app, id, (r) => r.state === 'finished' || r.state === 'failed', 120_000)
  t.is(done.state, 'finished', done.error ?? '')
  t.is(done.attempt, 2, 'one retry')
  t.regex(done.worker_id ?? '', new RegExp(`:${workers[0].pid}$`), 'the second worker finished it')
  t.is(done.result!.record_count, JOBS)
  t.is(done.refunded_units, null)

  const file = await fetch(app.base + new URL(done.result!.download_url).pathname)
  const ids = (await file.text()).trimEnd().split('\n').map((l) => JSON.parse(l)._id as string)
  t.is(ids.length, JOBS)
  t.is(new Set(ids).size, JOBS, 'no job twice')
  t.deepEqual([...(await ledger(app))], [{ kind: 'charge', units: JOBS }], 'charged once, never refunded')
  t.deepEqual(await readdir(path.join(t.context.dir, 'tmp')), [], 'the dead attempt\'s partial file is gone')
})

test.serial('killed mid-export on its last attempt, the task fails and its charge is refunded exactly once', async (t) => {
  const app = await exportApp(t.context.dir, 0)
  const workers: ChildProcess[] = []
  t.teardown(async () => {
    await Promise.all(workers.map(stop))
    await app.close()
  })
  const { id } = await exportAndKill(t, app)
  // this worker runs the dead-letter queue that fails the task
  workers.push(startWorker(app, t.context.dir))
  const done = await waitFor(app, id, (r) => r.state === 'finished' || r.state === 'failed', 120_000)
  t.is(done.state, 'failed')
  t.regex(done.error ?? '', /^The task stopped before it finished \(reference [0-9a-f]{12}\)\.$/)
  t.is(done.attempt, 1, 'never retried')
  t.is(done.refunded_units, JOBS)
  t.deepEqual([...(await ledger(app))], [{ kind: 'charge', units: JOBS }, { kind: 'refund', units: -JOBS }])

  // failing it again (a second dead letter, say) changes nothing
  t.false(await app.db.sql.begin((tx) => failTask(tx, id, 'again')))
  t.deepEqual([...(await ledger(app))], [{ kind: 'charge', units: JOBS }, { kind: 'refund', units: -JOBS }], 'refunded once')
  const [{ used }] = await app.db.sql<{ used: number }[]>`select used::int from usage_meters where account_id = ${app.accountId} and meter = 'm_jobs_api_calls'`
  t.is(used, 0)
})
