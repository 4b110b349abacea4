/**
 * keyed() reuses a key's account for up to KEY_CACHE_TTL_MS, but every admission
 * compares it with the database: revocation and account changes apply on the very next
 * request, a new key works at once, and an unknown key is never remembered.
 */
import anyTest, { type TestFn } from 'ava'
import { KEY_CACHE_TTL_MS } from '../../api/middleware/auth.ts'
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

test('the cache lasts at most 2 s', (t) => {
  t.true(KEY_CACHE_TTL_MS <= 2000)
})

test('a revoked key is refused on the next request, and that request is not charged', async (t) => {
  const { db, company, get } = t.context
  const { accountId, key } = await accountOn(db.sql, 'free')
  const period = await periodOf(db.sql, accountId)
  t.is((await get(`/v2/jobs/${company.jobIds[0]}`, as(key))).status, 200)
  t.is((await get(`/v2/jobs/${company.jobIds[0]}`, as(key))).status, 200, 'served from the cache')
  t.true(await revokeKey(db.sql, key))
  const started = Date.now()
  const refused = await get(`/v2/jobs/${company.jobIds[0]}`, as(key))
  t.is(refused.status, 401)
  t.true(Date.now() - started < KEY_CACHE_TTL_MS, 'well within the cache lifetime')
  t.deepEqual(await meterRow(db.sql, accountId, 'm_jobs_api_calls', period), { used: 2, reserved: 0 })
  t.is((await get(`/v2/jobs/${company.jobIds[0]}`, as(key))).status, 401)
})

test('a new key works at once, and an unknown key is not remembered', async (t) => {
  const { db, company, get } = t.context
  const { accountId } = await accountOn(db.sql, 'free')
  t.is((await get(`/v2/jobs/${company.jobIds[0]}`, as('jds_not_a_key'))).status, 401)
  const key = await createKey(db.sql, accountId)
  t.is((await get(`/v2/jobs/${company.jobIds[0]}`, as(key))).status, 200)
})

test('an account change applies on the next request, cache or not', async (t) => {
  const { db, company, get } = t.context
  const { accountId, key } = await accountOn(db.sql, 'free')
  const before = await get(`/v2/jobs/${company.jobIds[0]}`, as(key))
  t.like(usage(before), { 'included-limit': '500', 'total-used': '1' })
  await db.sql`update accounts set plan = 'starter' where id = ${accountId}`
  const after = await get(`/v2/jobs/${company.jobIds[0]}`, as(key))
  t.is(after.status, 200)
  t.like(usage(after), { 'included-limit': '25000', 'total-used': '2' })
  await db.sql`update accounts set plan = 'legacy' where id = ${accountId}`
  const legacy = await get(`/v2/jobs/${company.jobIds[0]}`, as(key))
  t.is(legacy.status, 200)
  t.deepEqual(usage(legacy), {}, 'legacy: no usage headers')
})
