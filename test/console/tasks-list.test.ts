/** GET /v2/tasks: the calling account's tasks only, newest first, paged, optionally of one type. */
import anyTest, { type TestFn } from 'ava'
import { insertTask } from '../../sql/tasks.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { createAccountWithKey } from '../helpers/factories.ts'

const test = anyTest as TestFn<TestApp>

test.before(async (t) => {
  Object.assign(t.context, await startTestApp({ embedder: null }))
})
test.after.always(async (t) => {
  await t.context?.close?.()
})

const as = (key: string) => ({ 'x-api-key': key })

test('the account\'s tasks, newest first, paged, never another account\'s', async (t) => {
  const { db, get } = t.context
  const mine = await createAccountWithKey(db.sql)
  const other = await createAccountWithKey(db.sql)
  const ids: string[] = []
  for (const type of ['export_job_data', 'salary_benchmark', 'export_job_data']) {
    const task = await insertTask(db.sql, { account_id: mine.accountId, type, input: {} })
    await db.sql`update tasks set created_at = now() + ${ids.length} * interval '1 second' where id = ${task.id}`
    ids.push(task.id)
  }
  const foreign = await insertTask(db.sql, { account_id: other.accountId, type: 'export_job_data', input: {} })

  const res = await get('/v2/tasks', as(mine.key))
  t.is(res.status, 200)
  const body = await res.json()
  t.deepEqual(body.tasks.map((x: { id: string }) => x.id), [...ids].reverse())
  t.like(body, { total_count: 3, page: 1, limit: 20, total_pages: 1 })
  t.false(JSON.stringify(body).includes(foreign.id))
  t.is(body.tasks[0].user_id, mine.accountId)

  const second = await (await get('/v2/tasks?limit=2&page=2', as(mine.key))).json()
  t.deepEqual(second.tasks.map((x: { id: string }) => x.id), [ids[0]])
  t.like(second, { total_count: 3, page: 2, limit: 2, total_pages: 2 })
  const beyond = await (await get('/v2/tasks?limit=2&page=5', as(mine.key))).json()
  t.like(beyond, { tasks: [], total_count: 3 })

  const benchmarks = await (await get('/v2/tasks?type=salary_benchmark', as(mine.key))).json()
  t.deepEqual(benchmarks.tasks.map((x: { id: string }) => x.id), [ids[1]])
  t.is(benchmarks.total_count, 1)
})

test('bad queries are 422s, no key a 401', async (t) => {
  const { get, key } = t.context
  for (const q of ['limit=0', 'limit=101', 'page=0', 'type=nope', 'page=10000&limit=100', 'limit=x']) {
    const res = await get(`/v2/tasks?${q}`, as(key))
    t.is(res.status, 422, q)
    t.true(Array.isArray((await res.json()).detail), q)
  }
  const anon = await get('/v2/tasks', {})
  t.is(anon.status, 401)
  t.deepEqual(await anon.json(), { detail: 'Missing authorization header' })
})
