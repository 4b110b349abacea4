/**
 * keyed() remembers a key's account, and forgets every key when billing_epoch moves:
 * revocation and account changes apply at the app's next tick (or sync), a new key
 * works at once, and an unknown key is never remembered.
 */
import anyTest, { type TestFn } from 'ava'
import { TICK_MS } from '../../api/middleware/admission.ts'
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
