/**
 * keyed() remembers a key's account, and forgets every key when billing_epoch moves:
 * revocation and account changes apply at the app's next tick (or sync), a new key
 * works at once, and an unknown key is never remembered.
 */
import anyTest, { type TestFn } from 'ava'
import type { Context } from 'koa'
import { TICK_MS } from '../../api/middleware/admission.ts'
import { KeyCache } from '../../api/middleware/auth.ts'
import { createKey, revokeKey } from '../../sql/accounts.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { accountOn, meterRow, periodOf, seedCompany, usage } from './fixtures.ts'

type Ctx = TestApp & { company: Awaited<ReturnType<typeof seedCompany>> }
const test = anyTest as TestFn<Ctx>
const roomy = { key: { limit: 100_000, windowSeconds: 60 }, search: { limit: 100_000, windowSeconds: 1 }, anonymous: { limit: 100_000, windowSeconds: 60 } }

test.before(async (t) => {
  const app = await startTestApp({ config: { rateLimits: roomy } })
  Object.assign(t.context, app, { company: await seedCompany(app.db.sql, 2) })
})
test.after.always(async (t) => {
  await t.context?.close?.()
})

const as = (key: string) => ({ 'x-api-key': key })

test('a revoked key is refused once the app syncs, and that request is not charged', async (t) => {
  const { db, company, get, sync } = t.context
  const { accountId, key } = await accountOn(db.sql, 'free')
  const period = await periodOf(db.sql, accountId)
  t.is((await get(`/v2/jobs/${company.jobIds[0]}`, as(key))).status, 200)
  t.is((await get(`/v2/jobs/${company.jobIds[0]}`, as(key))).status, 200, 'served from the cache')
  t.true(await revokeKey(db.sql, key))
  await sync()
  t.is((await get(`/v2/jobs/${company.jobIds[0]}`, as(key))).status, 401)
  t.deepEqual(await meterRow(db.sql, t.context.admission, accountId, 'm_jobs_api_calls', period), { used: 2, inFlight: 0 })
})

test('the tick applies a revocation on its own, within a few ticks', async (t) => {
  const { db, company, get } = t.context
  const { key } = await accountOn(db.sql, 'free')
  t.is((await get(`/v2/jobs/${company.jobIds[0]}`, as(key))).status, 200)
  t.true(await revokeKey(db.sql, key))
  const started = Date.now()
  let status = 200
  while (status === 200 && Date.now() - started < 40 * TICK_MS) {
    await new Promise((r) => setTimeout(r, TICK_MS / 5))
    status = (await get(`/v2/jobs/${company.jobIds[0]}`, as(key))).status
  }
  t.is(status, 401)
})

/**
 * The database, counting key lookups: the tagged-template calls one lookup makes
 * (a query and its fragments) are measured once, with a key of its own.
 */
async function counted<T extends object>(sql: T, accountOf: () => Promise<{ key: string }>) {
  let calls = 0
  const proxy = new Proxy(sql, { apply: (target, self, args) => (calls++, Reflect.apply(target as never, self, args)) })
  await new KeyCache(proxy as never).authenticate(requestWith((await accountOf()).key), {})
  const perLookup = calls
  calls = 0
  return { sql: proxy, lookups: () => calls / perLookup }
}
const requestWith = (key: string) => ({ req: { headers: { 'x-api-key': key } } }) as unknown as Context

test('a busy new key is looked up once, however many requests ask at once', async (t) => {
  const { db } = t.context
  const { accountId, key } = await accountOn(db.sql, 'free')
  const { sql, lookups } = await counted(db.sql, () => accountOn(db.sql, 'free'))
  const cache = new KeyCache(sql)
  const accounts = await Promise.all(Array.from({ length: 100 }, () => cache.authenticate(requestWith(key), {})))
  t.true(accounts.every((a) => a.id === accountId))
  t.is(lookups(), 1)
  await cache.authenticate(requestWith(key), {})
  t.is(lookups(), 1, 'then from memory')
})

test('a lookup under way when the cache is cleared answers its requests but is not kept', async (t) => {
  const { db } = t.context
  const { key } = await accountOn(db.sql, 'free')
  const { sql, lookups } = await counted(db.sql, () => accountOn(db.sql, 'free'))
  const cache = new KeyCache(sql)
  const before = cache.authenticate(requestWith(key), {})
  cache.clear()
  const after = cache.authenticate(requestWith(key), {})
  t.not(before, after, 'a request after the change does not share the lookup from before it')
  await before
  await after
  t.is(lookups(), 2)
  await cache.authenticate(requestWith(key), {})
  t.is(lookups(), 2, 'the lookup made after the change is kept')

  const { key: other } = await accountOn(db.sql, 'free')
  const read = cache.authenticate(requestWith(other), {})
  cache.clear()
  await read
  t.is(lookups(), 3)
  await cache.authenticate(requestWith(other), {})
  t.is(lookups(), 4, 'read before the change, so looked up again')
})

test('a new key works at once, and an unknown key is not remembered', async (t) => {
  const { db, company, get } = t.context
  const { accountId } = await accountOn(db.sql, 'free')
  t.is((await get(`/v2/jobs/${company.jobIds[0]}`, as('jds_not_a_key'))).status, 401)
  const key = await createKey(db.sql, accountId)
  t.is((await get(`/v2/jobs/${company.jobIds[0]}`, as(key))).status, 200)
})

test('an account change applies once the app syncs: plan, allowance and headers', async (t) => {
  const { db, company, get } = t.context
  const { accountId, key } = await accountOn(db.sql, 'free')
  const before = await get(`/v2/jobs/${company.jobIds[0]}`, as(key))
  t.like(usage(before), { 'included-limit': '500', 'total-used': '1' })
  await db.sql`update accounts set plan = 'starter' where id = ${accountId}`
  await t.context.sync()
  const after = await get(`/v2/jobs/${company.jobIds[0]}`, as(key))
  t.is(after.status, 200)
  t.like(usage(after), { 'included-limit': '25000', 'total-used': '2' })
  await db.sql`update accounts set plan = 'legacy' where id = ${accountId}`
  await t.context.sync()
  const legacy = await get(`/v2/jobs/${company.jobIds[0]}`, as(key))
  t.is(legacy.status, 200)
  t.deepEqual(usage(legacy), {}, 'legacy: no usage headers')
})
