/**
 * GET /readyz (api/routes/health.ts) against /healthz: 200 only when the process is
 * ready and not stopping, the database answers and every migration is applied.
 */
import anyTest, { type TestFn } from 'ava'
import { startTestApp, type TestApp } from '../helpers/app.ts'

const test = anyTest as TestFn<TestApp>

test.before(async (t) => {
  t.context = await startTestApp({ embedder: null })
})
test.after.always(async (t) => {
  await t.context?.close?.()
})

const probe = async (app: TestApp, path: string) => {
  const res = await app.get(path, {})
  return { status: res.status, body: await res.json() }
}

test.serial('ready: 200; starting or stopping: 503 with the reason, while /healthz stays liveness', async (t) => {
  const app = t.context
  t.deepEqual(await probe(app, '/readyz'), { status: 200, body: { status: 'ready' } })

  app.readiness.ready = false
  app.readiness.stage = 'demo data'
  t.deepEqual(await probe(app, '/readyz'), { status: 503, body: { status: 'not ready', reason: 'starting (demo data)' } })
  t.is((await probe(app, '/healthz')).status, 503)
  app.readiness.ready = true
  app.readiness.stage = undefined

  app.readiness.stopping = true
  t.deepEqual(await probe(app, '/readyz'), { status: 503, body: { status: 'not ready', reason: 'stopping' } })
  t.is((await probe(app, '/healthz')).status, 200, 'a stopping process is alive')
  app.readiness.stopping = false
})

test.serial('a migration this build ships that the database lacks: 503 naming it', async (t) => {
  const app = t.context
  const [last] = await app.db.sql<{ version: string; name: string; applied_at: Date }[]>`select version, name, applied_at from schema_migrations order by version desc limit 1`
  await app.db.sql`delete from schema_migrations where version = ${last.version}`
  try {
    t.deepEqual(await probe(app, '/readyz'), { status: 503, body: { status: 'not ready', reason: `migrations pending: ${last.name}` } })
  } finally {
    await app.db.sql`insert into schema_migrations ${app.db.sql(last)}`
  }
  t.is((await probe(app, '/readyz')).status, 200)
})

test.serial('a database that does not answer: 503', async (t) => {
  const app = t.context
  // the database holds the probe's statement: it answers neither within the probe's time nor at all
  const lock = await app.db.sql.reserve()
  await lock`begin`
  await lock`lock table schema_migrations in access exclusive mode`
  try {
    const { status, body } = await probe(app, '/readyz')
    t.is(status, 503)
    t.regex(body.reason, /^the database did not answer within \d+ ms$/)
  } finally {
    await lock`rollback`
    lock.release()
  }
})
