/**
 * Every request reads its key and account from the database: a revoked key is refused
 * by the very next request, a new key works at once, an account change applies to the
 * next request, and a period change moves the charge to the new period's meter row
 * (the admission's period hint is checked by the statement, never trusted).
 */
import anyTest, { type TestFn } from 'ava'
import { createKey, revokeKey } from '../../sql/accounts.ts'
import { updatePeriod, updateTrial } from '../../sql/billing.ts'
import { startTestApp, type TestApp, ROOMY_LIMITS } from '../helpers/app.ts'
import { accountOn, meterRow, periodOf, seedCompany, usage } from './fixtures.ts'

type Ctx = TestApp & { company: Awaited<ReturnType<typeof seedCompany>> }
const test = anyTest as TestFn<Ctx>

test.before(async (t) => {
  const app = await startTestApp({ config: { rateLimits: ROOMY_LIMITS }, embedder: null })
  Object.assign(t.context, app, { company: await seedCompany(app.db.sql, 2) })
})
test.after.always(async (t) => {
  await t.context?.close?.()
})

const as = (key: string) => ({ 'x-api-key': key })

test('a revoked key is refused by the very next request, and that request is not charged', async (t) => {
  const { db, company, get } = t.context
  const { accountId, key } = await accountOn(db.sql, 'free')
  const period = await periodOf(db.sql, accountId)
  t.is((await get(`/v2/jobs/${company.jobIds[0]}`, as(key))).status, 200)
  t.is((await get(`/v2/jobs/${company.jobIds[0]}`, as(key))).status, 200)
  t.true(await revokeKey(db.sql, key))
  const refused = await get(`/v2/jobs/${company.jobIds[0]}`, as(key))
  t.is(refused.status, 401)
  t.deepEqual(await refused.json(), { detail: 'Invalid or revoked API key' })
  t.is(refused.headers.get('x-ratelimit-limit'), null, 'not counted against any window')
  t.deepEqual(await meterRow(db.sql, t.context.admission, accountId, 'm_jobs_api_calls', period), { used: 2, inFlight: 0 })
})

test('a key whose account is deleted is refused by the next request', async (t) => {
  const { db, company, get } = t.context
  const { accountId, key } = await accountOn(db.sql, 'free')
  t.is((await get(`/v2/jobs/${company.jobIds[0]}`, as(key))).status, 200)
  await db.sql`delete from accounts where id = ${accountId}`
  t.is((await get(`/v2/jobs/${company.jobIds[0]}`, as(key))).status, 401)
})

test('a new key works at once, and an unknown key is not remembered', async (t) => {
  const { db, company, get } = t.context
  const { accountId } = await accountOn(db.sql, 'free')
  t.is((await get(`/v2/jobs/${company.jobIds[0]}`, as('jds_not_a_key'))).status, 401)
  const key = await createKey(db.sql, accountId)
  t.is((await get(`/v2/jobs/${company.jobIds[0]}`, as(key))).status, 200)
})

test('a key longer than any issued is a 401 without a lookup', async (t) => {
  const { company, get } = t.context
  const res = await get(`/v2/jobs/${company.jobIds[0]}`, as(`jds_${'x'.repeat(300)}`))
  t.is(res.status, 401)
  t.deepEqual(await res.json(), { detail: 'Invalid or revoked API key' })
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

test('a period or trial set between two requests: the next one is charged on the new period\'s meter row', async (t) => {
  const { db, company, get } = t.context
  const { accountId, key } = await accountOn(db.sql, 'starter')
  const month = await periodOf(db.sql, accountId)
  t.is((await get(`/v2/jobs/${company.jobIds[0]}`, as(key))).status, 200)

  const start = new Date(Date.now() - 86_400_000)
  const end = new Date(Date.now() + 29 * 86_400_000)
  await updatePeriod(db.sql, accountId, { start, end, status: 'active' })
  const subscribed = await get(`/v2/jobs/${company.jobIds[0]}`, as(key))
  t.is(subscribed.status, 200)
  t.like(usage(subscribed), { 'total-used': '1', 'period-start': start.toISOString(), 'period-end': end.toISOString() })

  const trialStart = new Date(Date.now() - 3_600_000)
  const trialEnd = new Date(Date.now() + 3_600_000)
  await updateTrial(db.sql, accountId, { start: trialStart, end: trialEnd })
  const trial = await get(`/v2/jobs/${company.jobIds[0]}`, as(key))
  t.like(usage(trial), { 'total-used': '1', 'period-start': trialStart.toISOString() })

  const rows = await db.sql<{ period_start: Date; used: number }[]>`
    select period_start, used::int from usage_meters where account_id = ${accountId} order by period_start`
  t.deepEqual(
    rows.map((r) => [r.period_start.toISOString(), r.used]).sort(),
    [[month.start.toISOString(), 1], [start.toISOString(), 1], [trialStart.toISOString(), 1]].sort(),
  )
})

test('period fields stored with microseconds still match what the process read (to the millisecond)', async (t) => {
  const { db, company, get } = t.context
  const { accountId, key } = await accountOn(db.sql, 'starter')
  await db.sql`
    update accounts set period_start = now() - interval '1 day 0.123456 seconds', period_end = now() + interval '29 days 0.654321 seconds'
    where id = ${accountId}`
  for (let i = 1; i <= 3; i++) {
    const res = await get(`/v2/jobs/${company.jobIds[0]}`, as(key))
    t.is(res.status, 200)
    t.is(res.headers.get('platform-usage-total-used'), String(i))
  }
})
