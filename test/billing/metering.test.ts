/**
 * Metering against the spec's cap rules, one by one: block refuses before the handler
 * runs and lowering limit succeeds, reservations are atomic, meter mode counts overage,
 * zero-cost endpoints work at the cap; plus meter independence, legacy accounts,
 * feature gates, the three 401s and period roll-over without the monthly job.
 */
import anyTest, { type TestFn } from 'ava'
import Router from '@koa/router'
import { keyed } from '../../api/middleware/keyed.ts'
import { costOfLimit, perResult, limitFromQuery } from '../../api/middleware/metering.ts'
import { grantFeature, updatePeriod, upsertAllowance } from '../../sql/billing.ts'
import { refundUsage } from '../../sql/meters.ts'
import { startTestApp, type TestApp, ROOMY_LIMITS } from '../helpers/app.ts'
import { accountOn, ledgerSum, meterRow, periodOf, seedCompany, serveRouter, spend, usage } from './fixtures.ts'

type Ctx = TestApp & { company: Awaited<ReturnType<typeof seedCompany>>; small: Awaited<ReturnType<typeof seedCompany>> }
const test = anyTest as TestFn<Ctx>

// high rate limits: these tests are about quotas, and the concurrency test sends 200 at once

test.before(async (t) => {
  const app = await startTestApp({ config: { rateLimits: ROOMY_LIMITS } })
  Object.assign(t.context, app, { company: await seedCompany(app.db.sql, 15), small: await seedCompany(app.db.sql, 3) })
})
test.after.always(async (t) => {
  await t.context?.close?.()
})

const as = (key: string) => ({ 'x-api-key': key })

test('cap rule 1: block mode refuses a request whose largest cost exceeds what remains; lowering limit to the remaining count succeeds', async (t) => {
  const { db, company, get } = t.context
  const { accountId, key } = await accountOn(db.sql, 'free')
  await spend(db.sql, accountId, 'm_jobs_api_calls', 495)
  const period = await periodOf(db.sql, accountId)

  const refused = await get(`/v2/platform/companies/${company.slug}/jobs?limit=10`, as(key))
  t.is(refused.status, 429)
  t.is(refused.headers.get('x-billing-code'), 'limit_exceeded')
  t.is(refused.headers.get('retry-after'), null, 'a quota 429 is not a rate limit')
  const { detail } = await refused.json()
  t.regex(detail, /includes 500 jobs per period/)
  t.regex(detail, /5 remain/)
  t.regex(detail, /Lower limit to 5/)
  t.regex(detail, /\/v2\/billing\/portal/)
  t.like(usage(refused), {
    meter: 'm_jobs_api_calls', feature: 'jobs_api', unit: 'jobs', 'included-limit': '500', 'included-used': '495',
    'included-remaining': '5', 'overage-used': '0', 'overage-mode': 'block', 'total-used': '495',
  })
  t.is(refused.headers.get('platform-usage-period-start'), null, 'free tier: no period headers')
  t.deepEqual(await meterRow(db.sql, t.context.admission, accountId, 'm_jobs_api_calls', period), { used: 495, inFlight: 0 }, 'nothing charged or held')

  const fits = await get(`/v2/platform/companies/${company.slug}/jobs?limit=5`, as(key))
  t.is(fits.status, 200)
  t.is((await fits.json()).jobs.length, 5)
  t.like(usage(fits), { 'included-used': '500', 'included-remaining': '0', 'total-used': '500' })

  const fixed = await get(`/v2/jobs/${company.jobIds[0]}`, as(key))
  t.is(fixed.status, 429, 'a fixed-cost endpoint at the cap')
  t.regex((await fixed.json()).detail, /0 remain.*resets at/)
})

test('per-result endpoints reserve the limit and settle to the count returned', async (t) => {
  const { db, small, get } = t.context
  const { accountId, key } = await accountOn(db.sql, 'free')
  const res = await get(`/v2/platform/companies/${small.slug}/jobs?limit=50`, as(key))
  t.is(res.status, 200)
  t.is((await res.json()).jobs.length, 3)
  t.like(usage(res), { 'total-used': '3', 'included-remaining': '497' })
  const period = await periodOf(db.sql, accountId)
  t.deepEqual(await meterRow(db.sql, t.context.admission, accountId, 'm_jobs_api_calls', period), { used: 3, inFlight: 0 })
  t.is(await ledgerSum(db.sql, t.context.admission, accountId, 'm_jobs_api_calls', period), 3)

  // limit above the page maximum reserves the maximum, and validation (422) releases it
  const invalid = await get(`/v2/platform/companies/${small.slug}/jobs?limit=1000`, as(key))
  t.is(invalid.status, 422)
  t.deepEqual(await meterRow(db.sql, t.context.admission, accountId, 'm_jobs_api_calls', period), { used: 3, inFlight: 0 })
  t.is(costOfLimit(1000, 100), 100)
  t.is(costOfLimit(7, 100), 7)
})

test('a failed handler (404) releases the whole reservation and charges nothing', async (t) => {
  const { db, get } = t.context
  const { accountId, key } = await accountOn(db.sql, 'free')
  const res = await get('/v2/jobs/999999999', as(key))
  t.is(res.status, 404)
  t.deepEqual(usage(res), {}, 'usage headers only on success and quota 429s')
  t.truthy(res.headers.get('x-ratelimit-limit'), 'rate-limit headers survive on error responses')
  const period = await periodOf(db.sql, accountId)
  t.deepEqual(await meterRow(db.sql, t.context.admission, accountId, 'm_jobs_api_calls', period), { used: 0, inFlight: 0 })
  t.is(await ledgerSum(db.sql, t.context.admission, accountId, 'm_jobs_api_calls', period), 0)
})

test('a handler that fails (500) gives back its whole reservation and charges nothing', async (t) => {
  const { db } = t.context
  const { accountId, key } = await accountOn(db.sql, 'free')
  const router = new Router()
  router.get('/broken', keyed({ meter: 'm_jobs_api_calls', cost: perResult(limitFromQuery(10), 100) }), () => {
    throw new Error('the handler broke')
  })
  const s = await serveRouter(db.sql, router, { rateLimits: ROOMY_LIMITS })
  t.teardown(s.close)
  const res = await fetch(`${s.base}/broken?limit=40`, { headers: as(key) })
  t.is(res.status, 500)
  t.deepEqual(usage(res), {})
  const period = await periodOf(db.sql, accountId)
  t.deepEqual(await meterRow(db.sql, t.context.admission, accountId, 'm_jobs_api_calls', period), { used: 0, inFlight: 0 })
  t.is(await ledgerSum(db.sql, t.context.admission, accountId, 'm_jobs_api_calls', period), 0)
})

test('cap rule 2: 200 parallel requests against 50 remaining units overshoot by exactly zero, and the ledger agrees', async (t) => {
  const { db, company, get } = t.context
  const { accountId, key } = await accountOn(db.sql, 'free')
  await spend(db.sql, accountId, 'm_jobs_api_calls', 450)
  const responses = await Promise.all(Array.from({ length: 200 }, (_, i) => get(`/v2/jobs/${company.jobIds[i % company.jobIds.length]}`, as(key))))
  const statuses = responses.map((r) => r.status)
  t.is(statuses.filter((s) => s === 200).length, 50)
  t.is(statuses.filter((s) => s === 429).length, 150)
  t.true(responses.filter((r) => r.status === 429).every((r) => r.headers.get('x-billing-code') === 'limit_exceeded'))
  const period = await periodOf(db.sql, accountId)
  t.deepEqual(await meterRow(db.sql, t.context.admission, accountId, 'm_jobs_api_calls', period), { used: 500, inFlight: 0 })
  t.is(await ledgerSum(db.sql, t.context.admission, accountId, 'm_jobs_api_calls', period), 500)
  const [{ charges }] = await db.sql<{ charges: number }[]>`
    select count(*)::int as charges from usage_ledger_charges
    where account_id = ${accountId} and kind = 'charge' and endpoint = 'GET /v2/jobs/:job_id'`
  t.is(charges, 50, 'one ledger row per settled request')
})

test('cap rule 3: meter mode keeps answering 200 past the allowance and overage counts up', async (t) => {
  const { db, company, get } = t.context
  const { accountId, key } = await accountOn(db.sql, 'growth')
  await spend(db.sql, accountId, 'm_jobs_api_calls', 249_999)
  const first = await get(`/v2/jobs/${company.jobIds[0]}`, as(key))
  t.is(first.status, 200)
  t.like(usage(first), { 'overage-mode': 'meter', 'included-limit': '250000', 'included-used': '250000', 'overage-used': '0', 'total-used': '250000' })
  const res = await get(`/v2/platform/companies/${company.slug}/jobs?limit=15`, as(key))
  t.is(res.status, 200)
  t.like(usage(res), { 'included-used': '250000', 'included-remaining': '0', 'overage-used': '15', 'total-used': '250015' })

  const summary = await (await get('/v2/billing/usage/summary', as(key))).json()
  const jobs = summary.meters.find((m: { event_name: string }) => m.event_name === 'm_jobs_api_calls')
  t.like(jobs, { used: 250_015, included: 250_000, remaining: 0, overage_used: 15, overage_mode: 'meter', overage_cents_per_unit: 0.15 })
  t.is(jobs.estimated_overage_cents, 3, '15 × 0.15 = 2.25 cents, rounded up')
})

test('cap rule 4: zero-cost endpoints keep working at the cap', async (t) => {
  const { db, get } = t.context
  const { accountId, key } = await accountOn(db.sql, 'free')
  await spend(db.sql, accountId, 'm_jobs_api_calls', 500)
  const router = new Router()
  router.post('/estimate', keyed({ meter: 'm_jobs_api_calls', cost: 0 }), (ctx) => {
    ctx.body = { total_count: 42 }
  })
  const s = await serveRouter(db.sql, router, { rateLimits: ROOMY_LIMITS })
  t.teardown(s.close)
  const estimate = await fetch(`${s.base}/estimate`, { method: 'POST', headers: as(key) })
  t.is(estimate.status, 200)
  t.like(usage(estimate), { 'included-remaining': '0', 'total-used': '500' }, 'still reports usage')
  const summary = await get('/v2/billing/usage/summary', as(key))
  t.is(summary.status, 200)
  t.deepEqual(usage(summary), {}, 'billing endpoints are not metered')
  const task = await get('/v2/tasks/00000000-0000-0000-0000-000000000000', as(key))
  t.is(task.status, 404, 'tasks answer (404 here), not 429')
  t.is((await get('/v2/jobs/data/categories', {})).status, 200)
  const period = await periodOf(db.sql, accountId)
  t.deepEqual(await meterRow(db.sql, t.context.admission, accountId, 'm_jobs_api_calls', period), { used: 500, inFlight: 0 })
})

test('meters are independent: an exhausted jobs meter does not block company lookups', async (t) => {
  const { db, company, get } = t.context
  const { accountId, key } = await accountOn(db.sql, 'free')
  await spend(db.sql, accountId, 'm_jobs_api_calls', 500)
  t.is((await get(`/v2/jobs/${company.jobIds[0]}`, as(key))).status, 429)
  const profile = await get(`/v2/platform/companies/${company.slug}`, as(key))
  t.is(profile.status, 200)
  t.like(usage(profile), { meter: 'm_company_api_calls', feature: 'company_api', unit: 'companies', 'included-limit': '50', 'total-used': '1' })
})

test('legacy accounts are counted but capped by nothing, and get no usage headers', async (t) => {
  const { db, company, get } = t.context
  const { accountId, key } = await accountOn(db.sql, 'legacy')
  await spend(db.sql, accountId, 'm_jobs_api_calls', 10_000_000)
  const res = await get(`/v2/jobs/${company.jobIds[0]}`, as(key))
  t.is(res.status, 200)
  t.deepEqual(usage(res), {})
  const summary = await (await get('/v2/billing/usage/summary', as(key))).json()
  t.is(summary.billing_source, 'legacy')
  t.deepEqual(summary.plan_lookup_keys, [])
  const jobs = summary.meters.find((m: { event_name: string }) => m.event_name === 'm_jobs_api_calls')
  t.like(jobs, { used: 10_000_001, included: null, remaining: null, overage_mode: null, overage_cents_per_unit: null, estimated_overage_cents: 0 })
})

test('enterprise allowances are per account', async (t) => {
  const { db, company, get } = t.context
  const { accountId, key } = await accountOn(db.sql, 'enterprise')
  t.is((await get(`/v2/jobs/${company.jobIds[0]}`, as(key))).status, 429, 'nothing negotiated yet: closed')
  await upsertAllowance(db.sql, accountId, { meter: 'm_jobs_api_calls', included: 2, overage_mode: 'meter', overage_cents_per_unit: '0.123456' })
  await t.context.sync()
  for (let i = 0; i < 3; i++) t.is((await get(`/v2/jobs/${company.jobIds[0]}`, as(key))).status, 200)
  const summary = await (await get('/v2/billing/usage/summary', as(key))).json()
  const jobs = summary.meters.find((m: { event_name: string }) => m.event_name === 'm_jobs_api_calls')
  t.like(jobs, { used: 3, included: 2, overage_used: 1, overage_cents_per_unit: 0.123456, estimated_overage_cents: 1 })
})

test('the three 401s; an anonymous request never reaches the meter', async (t) => {
  const { db, company, get } = t.context
  const missing = await get(`/v2/jobs/${company.jobIds[0]}`, {})
  t.is(missing.status, 401)
  t.deepEqual(await missing.json(), { detail: 'Missing authorization header' })
  t.is(missing.headers.get('x-billing-code'), null)
  t.is(missing.headers.get('x-ratelimit-limit'), null, 'rejected before any rate limiting')

  const invalid = await get(`/v2/jobs/${company.jobIds[0]}`, as('jds_revoked-or-never-issued'))
  t.is(invalid.status, 401)
  t.is(typeof (await invalid.json()).detail, 'string')

  // the expired-jobs, export and insights endpoints' variant, on a route built for it
  const router = new Router()
  router.post('/v2/jobs/insights', keyed({ signIn: true, meter: 'm_insights_calls', cost: 1 }), (ctx) => {
    ctx.body = { ok: true }
  })
  const s = await serveRouter(db.sql, router, { rateLimits: ROOMY_LIMITS })
  t.teardown(s.close)
  const signIn = await fetch(`${s.base}/v2/jobs/insights`, { method: 'POST' })
  t.is(signIn.status, 401)
  t.is(signIn.headers.get('x-billing-code'), 'auth_required')
  t.deepEqual(await signIn.json(), { detail: 'Sign in to access this endpoint' })
  const { key } = await accountOn(db.sql, 'free')
  const ok = await fetch(`${s.base}/v2/jobs/insights`, { method: 'POST', headers: as(key) })
  t.is(ok.status, 200)
  t.like(usage(ok), { meter: 'm_insights_calls', unit: 'calls', feature: 'insights', 'included-limit': '25', 'total-used': '1' })
})

test('403 feature_missing for an add-on the plan lacks; granted to one account only', async (t) => {
  const { db } = t.context
  const router = new Router()
  router.post('/v2/jobs/contacts', keyed({ feature: 'hiring_manager_contacts', meter: 'm_hiring_manager_contacts', cost: perResult(limitFromQuery(5), 50) }), (ctx) => {
    ctx.body = { contacts: [{ name: 'A' }, { name: 'B' }] }
  })
  const s = await serveRouter(db.sql, router, { rateLimits: ROOMY_LIMITS })
  t.teardown(s.close)
  const without = await accountOn(db.sql, 'scale')
  const granted = await accountOn(db.sql, 'scale')
  await grantFeature(db.sql, granted.accountId, 'hiring_manager_contacts')
  await upsertAllowance(db.sql, granted.accountId, { meter: 'm_hiring_manager_contacts', included: 100, overage_mode: 'block', overage_cents_per_unit: null })

  const refused = await fetch(`${s.base}/v2/jobs/contacts`, { method: 'POST', headers: as(without.key) })
  t.is(refused.status, 403)
  t.is(refused.headers.get('x-billing-code'), 'feature_missing')
  t.regex((await refused.json()).detail, /hiring_manager_contacts.*\/v2\/billing\/portal/)

  const ok = await fetch(`${s.base}/v2/jobs/contacts`, { method: 'POST', headers: as(granted.key) })
  t.is(ok.status, 200)
  t.like(usage(ok), { unit: 'contacts', 'total-used': '2', 'included-remaining': '98' })
})

test('period roll-over: a new period starts from zero without the monthly job', async (t) => {
  const { db, company, get } = t.context
  // free tier: last month's meter row is full; this month's request does not see it
  const free = await accountOn(db.sql, 'free')
  const now = new Date()
  const lastMonth = { start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)), end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)), kind: 'calendar_month' as const }
  await spend(db.sql, free.accountId, 'm_jobs_api_calls', 500, lastMonth)
  const res = await get(`/v2/jobs/${company.jobIds[0]}`, as(free.key))
  t.is(res.status, 200)
  t.is(res.headers.get('platform-usage-total-used'), '1')

  // a subscription whose stored period ended: the next period (same length) applies
  const sub = await accountOn(db.sql, 'starter')
  const start = new Date(Date.now() - 40 * 86_400_000)
  const end = new Date(start.getTime() + 30 * 86_400_000)
  await updatePeriod(db.sql, sub.accountId, { start, end, status: 'active' })
  await spend(db.sql, sub.accountId, 'm_jobs_api_calls', 25_000, { start, end, kind: 'subscription' })
  const rolled = await get(`/v2/jobs/${company.jobIds[0]}`, as(sub.key))
  t.is(rolled.status, 200)
  t.like(usage(rolled), { 'total-used': '1', 'period-start': end.toISOString(), 'period-end': new Date(end.getTime() + 30 * 86_400_000).toISOString() })
  const summary = await (await get('/v2/billing/usage/summary', as(sub.key))).json()
  t.is(summary.period_start, end.toISOString())
  t.is(summary.subscription_status, 'active')
})

test('refunds go to the ledger and keep it equal to the meter row', async (t) => {
  const { db } = t.context
  const { accountId } = await accountOn(db.sql, 'free')
  await spend(db.sql, accountId, 'm_jobs_api_calls', 30)
  const period = await periodOf(db.sql, accountId)
  const key = { accountId, plan: 'free' as const, meter: 'm_jobs_api_calls' as const, period }
  t.is(await refundUsage(db.sql, key, 10, { requestId: 'task-1', endpoint: 'export failed' }), 10)
  t.is(await refundUsage(db.sql, key, 100, { requestId: 'task-2', endpoint: 'export failed' }), 20, 'never below zero')
  t.deepEqual(await meterRow(db.sql, t.context.admission, accountId, 'm_jobs_api_calls', period), { used: 0, inFlight: 0 })
  t.is(await ledgerSum(db.sql, t.context.admission, accountId, 'm_jobs_api_calls', period), 0)
  const refunds = await db.sql<{ request_id: string; units: number }[]>`
    select request_id, units::int from usage_ledger_charges where account_id = ${accountId} and kind = 'refund' order by ledger_id`
  t.deepEqual([...refunds], [{ request_id: 'task-1', units: -10 }, { request_id: 'task-2', units: -20 }])
  await t.throwsAsync(db.sql`update usage_ledger set units = 1 where account_id = ${accountId}`, { message: /append-only/ })
})
