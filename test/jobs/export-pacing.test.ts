/**
 * An export's rests follow the API's work (jobs/pace.ts, sql/foreground.ts), wired as
 * the service runs: on a server, an export while the API is idle never rests, and one
 * while an API statement is at work rests after every step; on the embedded database,
 * where the API's sessions cannot be told apart, every step rests. The task logs its
 * pacing ('export paced'), which is what this reads.
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

type Paced = { task_id: string; steps: number; steps_rested: number; rested_ms: number }

/**
 * Creates an export and waits for its 'export paced' line in the app's log, without a
 * request to the API while the export runs (a poll of the task would be the API at work).
 */
async function pacedExport(app: TestApp): Promise<Paced> {
  const res = await app.post('/v2/jobs/export', { search: { limit: 12 }, format: 'json' })
  if (res.status !== 200) throw new Error(`export: ${res.status} ${await res.text()}`)
  const { id } = (await res.json()) as { id: string }
  for (const until = Date.now() + 60_000; Date.now() < until; ) {
    const line = app.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'export paced' && l.task_id === id)
    if (line) return line
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`task ${id}: no 'export paced' line within 60 s`)
}

test.serial('an export with the API idle rests only on the embedded database', async (t) => {
  const paced = await pacedExport(t.context.app)
  t.true(paced.steps >= 1)
  if (t.context.app.db.kind === 'server') t.is(paced.steps_rested, 0, 'nobody else at work: no rest')
  else t.is(paced.steps_rested, paced.steps, 'the embedded database: every step rests')
})

// on the embedded database a statement waiting on a lock would hold its only session; every step rests there (above)
const onServer = process.env.TEST_DATABASE_URL ? test.serial : test.serial.skip

onServer('an export while an API statement is at work rests after every step', async (t) => {
  const { app } = t.context
  const holder = await app.db.sql.reserve()
  const waiter = await app.db.sql.reserve()
  try {
    await holder`select pg_advisory_lock(7)`
    const waiting = waiter`select pg_advisory_lock(7), pg_advisory_unlock(7)`.execute()
    const paced = await pacedExport(app)
    await holder`select pg_advisory_unlock(7)`
    await waiting
    t.true(paced.steps >= 1)
    t.is(paced.steps_rested, paced.steps)
    t.true(paced.rested_ms > 0)
  } finally {
    holder.release()
    waiter.release()
  }
})
