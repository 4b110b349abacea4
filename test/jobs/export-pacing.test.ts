/**
 * An export gives way to load, not to activity (jobs/pace.ts), wired as the service
 * runs it: with the API idle it never rests, on a server and on the embedded database;
 * while the API answers a search, or (on a server) an API statement has been at work
 * for a while, it rests after every batch. Each decision is read from the
 * task's `pacing` (GET /v2/tasks/{id}) and from the 'export paced' log line, which name
 * the signal that caused the rests.
 */
import anyTest, { type TestFn } from 'ava'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { ingest } from '../../ingest/pipeline.ts'
import { loadConfig } from '../../sql/config.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { rawPosting } from '../helpers/factories.ts'

const test = anyTest as TestFn<{ app: TestApp; dir: string }>

test.before(async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'jds-pacing-'))
  const base = loadConfig()
  const app = await startTestApp({
    tasks: true,
    embedder: null,
    config: { dataDir: dir, downloadsDir: path.join(dir, 'downloads'), tasks: { ...base.tasks, maintenanceSeconds: 1, exportDutyCycle: 0.5 } },
  })
  await app.db.sql`update accounts set plan = 'scale' where id = ${app.accountId}`
  await app.sync()
  await ingest(app.db.sql, Array.from({ length: 12 }, (_, i) => ({ line: i + 1, raw: rawPosting({ source_id: `pacing-${i}` }, i) as never })), { source: 'pacing-test' })
  t.context = { app, dir }
})

test.after.always(async (t) => {
  await t.context.app?.close()
  if (t.context.dir) await rm(t.context.dir, { recursive: true, force: true })
})

type Paced = { task_id: string; resting: boolean; load: string | null; steps: number; steps_rested: number; rested_ms: number }

/**
 * Creates an export and waits for its 'export paced' line in the app's log, without a
 * request to the API while the export runs, then for the task to show finished; returns
 * that line and the task's `pacing` as GET /v2/tasks/{id} shows it.
 */
async function pacedExport(app: TestApp): Promise<{ paced: Paced; pacing: Omit<Paced, 'task_id'> }> {
  const res = await app.post('/v2/jobs/export', { search: { limit: 12 }, format: 'json' })
  if (res.status !== 200) throw new Error(`export: ${res.status} ${await res.text()}`)
  const { id } = (await res.json()) as { id: string }
  for (const until = Date.now() + 60_000; Date.now() < until; ) {
    const paced = app.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'export paced' && l.task_id === id)
    if (paced) {
      // the line is written just before the task's finish commits
      const task = (await (await app.get(`/v2/tasks/${id}`)).json()) as { state: string; pacing: Omit<Paced, 'task_id'> }
      if (task.state === 'finished') return { paced, pacing: task.pacing }
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`task ${id}: not finished with an 'export paced' line within 60 s`)
}

test.serial('an export with the API idle never rests, on either database', async (t) => {
  const { paced, pacing } = await pacedExport(t.context.app)
  t.true(paced.steps >= 1)
  t.is(paced.steps_rested, 0, 'nothing waits on the service: no rest')
  t.like(pacing, { resting: false, load: null, steps: paced.steps, steps_rested: 0, rested_ms: 0 }, 'the task shows it')
})

test.serial('an export while the API answers a search rests after every batch, and its task says so', async (t) => {
  const { app } = t.context
  // what countSearches (api/middleware/searches.ts) counts while a search is answered
  app.searches.inFlight++
  try {
    const { paced, pacing } = await pacedExport(app)
    t.true(paced.steps >= 1)
    t.is(paced.steps_rested, paced.steps)
    t.true(paced.rested_ms > 0)
    t.like(pacing, { resting: true, load: 'searches in flight', steps: paced.steps, steps_rested: paced.steps })
  } finally {
    app.searches.inFlight--
  }
})

// on the embedded database a statement waiting on a lock would hold its only session; the API's queues are the signal there (above)
const onServer = process.env.TEST_DATABASE_URL ? test.serial : test.serial.skip

onServer('an export while an API statement is at work in another process rests after every batch', async (t) => {
  const { app } = t.context
  const holder = await app.db.sql.reserve()
  const waiter = await app.db.sql.reserve()
  try {
    await holder`select pg_advisory_lock(7)`
    const waiting = waiter`select pg_advisory_lock(7), pg_advisory_unlock(7)`.execute()
    const { paced } = await pacedExport(app)
    await holder`select pg_advisory_unlock(7)`
    await waiting
    t.true(paced.steps >= 1)
    t.is(paced.steps_rested, paced.steps)
    t.is(paced.load, 'API statements running')
  } finally {
    holder.release()
    waiter.release()
  }
})
