/**
 * countForegroundStatements (sql/foreground.ts), on the machine's Postgres: the API's and
 * the admission pool's sessions count while they run a statement (past its first
 * LONG_MS), and not once it has ended; the workers' never. The embedded database serves every connection in one
 * session and lists no other, so the workers there read the API's queues instead
 * (jobs/index.ts).
 */
import anyTest, { type TestFn } from 'ava'
import { ADMISSION_APPLICATION, APPLICATION, connect, WORKER_APPLICATION, type Sql } from '../../sql/db.ts'
import { countForegroundStatements, LONG_MS } from '../../sql/foreground.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'

const test = anyTest as TestFn<{ db: TestDb; pools: Sql[] }>
const onServer = process.env.TEST_DATABASE_URL ? test.serial : test.serial.skip

test.before(async (t) => {
  if (!process.env.TEST_DATABASE_URL) return
  const db = await testDatabase()
  t.context = { db, pools: [] }
})

test.after.always(async (t) => {
  for (const pool of t.context.pools ?? []) await pool.end({ timeout: 5 })
  await t.context.db?.close()
})

const pool = (t: { context: { db: TestDb; pools: Sql[] } }, name: string) => {
  const p = connect(t.context.db.url, 2, name)
  t.context.pools.push(p)
  return p
}

/** Runs `f` while a session of `name` waits on an advisory lock another session holds: a statement at work for as long as `f` takes. */
async function whileWaiting<T>(t: { context: { db: TestDb; pools: Sql[] } }, name: string, key: number, f: () => Promise<T>) {
  const holder = await t.context.db.sql.reserve()
  await holder`select pg_advisory_lock(${key})`
  const waiter = pool(t, name)
  const waiting = waiter`select pg_advisory_lock(${key}), pg_advisory_unlock(${key})`.execute()
  const observer = pool(t, WORKER_APPLICATION)
  for (const until = Date.now() + 10_000; ; ) {
    const [row] = await observer<{ waits: boolean }[]>`select exists (select from pg_stat_activity where application_name = ${name} and wait_event_type = 'Lock') as waits`
    if (row.waits) break
    if (Date.now() > until) throw new Error(`the ${name} session never waited`)
  }
  // a statement counts once it has run LONG_MS: poll until the snapshot says it has
  for (const until = Date.now() + 10_000; ; ) {
    const [row] = await observer<{ long: boolean }[]>`select exists (select from pg_stat_activity where application_name = ${name} and wait_event_type = 'Lock' and query_start < clock_timestamp() - make_interval(secs => ${LONG_MS / 1000})) as long`
    if (row.long) break
    if (Date.now() > until) throw new Error(`the ${name} session's statement never ran ${LONG_MS} ms`)
  }
  try {
    return await f()
  } finally {
    await holder`select pg_advisory_unlock(${key})`
    holder.release()
    await waiting
  }
}

onServer('a statement of the API at work counts', async (t) => {
  const workers = pool(t, WORKER_APPLICATION)
  t.is(await whileWaiting(t, APPLICATION, 1, () => countForegroundStatements(workers)), 1)
  t.is(await whileWaiting(t, ADMISSION_APPLICATION, 2, () => countForegroundStatements(workers)), 1)
})

onServer('a worker at work does not count, nor the asking session itself', async (t) => {
  const workers = pool(t, WORKER_APPLICATION)
  t.is(await whileWaiting(t, WORKER_APPLICATION, 3, () => countForegroundStatements(workers)), 0)
})

onServer('an API statement that has ended does not count, however recent', async (t) => {
  const api = pool(t, APPLICATION)
  const workers = pool(t, WORKER_APPLICATION)
  await api`select 1`
  // the fixture's own pool is named as the API's too, and idle: nothing of either runs
  t.is(await countForegroundStatements(workers), 0, 'asked right after the statement returned')
})
