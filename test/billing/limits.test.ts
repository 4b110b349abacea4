/**
 * Rate limits (lowered through config), their headers and 429s, the shared Postgres
 * counter, CORS exposure, and the usage summary with API keys and JWTs.
 */
import anyTest, { type TestFn } from 'ava'
import Router from '@koa/router'
import pino from 'pino'
import type { AddressInfo } from 'node:net'
import { buildApp } from '../../api/app.ts'
import { loadConfig } from '../../sql/config.ts'
import { keyed } from '../../api/middleware/keyed.ts'
import { loadJwtSecret, signToken } from '../../api/middleware/jwt.ts'
import { RESERVATION_SECONDS } from '../../sql/meters.ts'
import { billingPeriod, type PeriodFields } from '../../sql/periods.ts'
import { rollPeriods, updatePeriod } from '../../sql/billing.ts'
import { findBillingAccount } from '../../sql/accounts.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { accountOn, serveRouter, spend } from './fixtures.ts'

const test = anyTest as TestFn<TestApp>
// hour-long windows, so no test straddles a window's end and sees its count start over
const limits = { key: { limit: 3, windowSeconds: 3600 }, search: { limit: 2, windowSeconds: 1 }, anonymous: { limit: 2, windowSeconds: 3600 } }

test.before(async (t) => {
  Object.assign(t.context, await startTestApp({ config: { rateLimits: limits } }))
})
test.after.always(async (t) => {
  await t.context?.close?.()
})

const as = (key: string) => ({ 'x-api-key': key })

test('per-key limit: headers on every response, then 429 with Retry-After and no X-Billing-Code', async (t) => {
  const { db, get } = t.context
  const { key } = await accountOn(db.sql, 'free')
  const seen = []
  for (let i = 0; i < 3; i++) {
    const res = await get('/v2/jobs/999999999', as(key)) // a 404 still counts and still carries the headers
    t.is(res.status, 404)
    seen.push([res.headers.get('x-ratelimit-limit'), res.headers.get('x-ratelimit-remaining')])
    const reset = Number(res.headers.get('x-ratelimit-reset'))
    t.true(reset >= 1 && reset <= 3600, String(reset))
  }
  t.deepEqual(seen, [['3', '2'], ['3', '1'], ['3', '0']])
  const over = await get('/v2/jobs/999999999', as(key))
  t.is(over.status, 429)
  t.is(over.headers.get('x-billing-code'), null)
  const retry = Number(over.headers.get('retry-after'))
  t.true(retry >= 1 && retry <= 3600)
  t.is(over.headers.get('x-ratelimit-remaining'), '0')
  t.regex((await over.json()).detail, /Rate limit exceeded: 3 requests per 3600 seconds/)

  const other = await accountOn(db.sql, 'free')
  t.is((await get('/v2/jobs/999999999', as(other.key))).status, 404, 'limits are per key')
})

test('the limit lives in Postgres: two API processes (apps) on one database share it', async (t) => {
  const { db, get } = t.context
  const second = buildApp({ sql: db.sql, config: { ...loadConfig(), rateLimits: limits }, log: pino({ level: 'silent' }) })
  const server = second.listen(0, '127.0.0.1')
  await new Promise((r) => server.once('listening', r))
  t.teardown(() => (server.closeAllConnections(), server.close()))
  const base2 = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const { key } = await accountOn(db.sql, 'free')
  t.is((await get('/v2/jobs/999999999', as(key))).status, 404)
  t.is((await fetch(`${base2}/v2/jobs/999999999`, { headers: as(key) })).status, 404)
  t.is((await get('/v2/jobs/999999999', as(key))).status, 404)
  t.is((await fetch(`${base2}/v2/jobs/999999999`, { headers: as(key) })).status, 429)
  t.is((await get('/v2/jobs/999999999', as(key))).status, 429)
})

test('anonymous requests to data endpoints are 401 before any rate limiting; reference endpoints have the per-IP limit', async (t) => {
  const { get } = t.context
  for (let i = 0; i < 5; i++) {
    const res = await get('/v2/tasks/00000000-0000-0000-0000-000000000000', {})
    t.is(res.status, 401)
    t.is(res.headers.get('x-ratelimit-limit'), null)
  }
  // this file's only anonymous reference calls: the IP's two are used here
  const first = await get('/v2/jobs/data/categories', {})
  t.is(first.status, 200)
  t.is(first.headers.get('x-ratelimit-limit'), '2')
  t.is((await get('/v2/jobs/data/industries', {})).status, 200)
  const over = await get('/v2/jobs/data/subindustries', {})
  t.is(over.status, 429)
  t.truthy(over.headers.get('retry-after'))
  t.is(over.headers.get('x-billing-code'), null)
  for (const path of ['/healthz', '/v2/openapi.json']) {
    const res = await get(path, {})
    t.is(res.status, 200, path)
    t.is(res.headers.get('x-ratelimit-limit'), null, `${path} is not limited`)
  }
})

test('the per-second search limit applies on top of the per-key one', async (t) => {
  const { db } = t.context
  const router = new Router()
  router.post('/search', keyed({ search: true }), (ctx) => {
    ctx.body = { jobs: [] }
  })
  const s = await serveRouter(db.sql, router, { rateLimits: { ...limits, key: { limit: 100, windowSeconds: 3600 } } })
  t.teardown(s.close)
  // three requests in one window: each try starts a second, with a key of its own, and a
  // try a slow machine spread over two seconds is taken again
  let statuses: number[] = []
  for (let tries = 0; tries < 10; tries++) {
    const { key } = await accountOn(db.sql, 'free')
    await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 20))
    const started = Date.now()
    statuses = []
    for (let i = 0; i < 3; i++) statuses.push((await fetch(`${s.base}/search`, { method: 'POST', headers: as(key) })).status)
    if (Math.floor(Date.now() / 1000) === Math.floor(started / 1000)) break
  }
  t.deepEqual(statuses, [200, 200, 429])
})

test('CORS lets browsers read the billing and rate-limit headers', async (t) => {
  const { db, get } = t.context
  const { key } = await accountOn(db.sql, 'free')
  const res = await get('/v2/jobs/999999999', { ...as(key), origin: 'https://app.example.test' })
  const exposed = (res.headers.get('access-control-expose-headers') ?? '').split(/,\s*/)
  for (const h of ['X-Billing-Code', 'Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Platform-Usage-Total-Used', 'Platform-Usage-Period-End']) {
    t.true(exposed.includes(h), h)
  }
})

test('usage summary: every field, meters sorted, remaining = max(0, included - used)', async (t) => {
  const { db, get } = t.context
  const { accountId, key } = await accountOn(db.sql, 'pro')
  await spend(db.sql, accountId, 'm_company_api_calls', 2_500)
  await spend(db.sql, accountId, 'm_salary_benchmarks', 510)
  const res = await get('/v2/billing/usage/summary', as(key))
  t.is(res.status, 200)
  const body = await res.json()
  t.deepEqual(Object.keys(body).sort(), ['billing_source', 'meters', 'payments_customer_id', 'period_end', 'period_start', 'plan_lookup_keys', 'subscription_status'])
  t.like(body, { billing_source: 'payments_v2', payments_customer_id: null, plan_lookup_keys: ['plan_pro'], subscription_status: null, period_start: null, period_end: null })
  t.deepEqual(body.meters.map((m: { event_name: string }) => m.event_name), ['m_company_api_calls', 'm_hiring_manager_contacts', 'm_insights_calls', 'm_jobs_api_calls', 'm_salary_benchmarks'])
  const by = Object.fromEntries(body.meters.map((m: { event_name: string }) => [m.event_name, m]))
  t.deepEqual(by.m_company_api_calls, {
    event_name: 'm_company_api_calls', display_name: 'Company API calls', used: 2500, included: 2000, remaining: 0, overage_used: 500,
    period: 'calendar_month', overage_mode: 'block', overage_cents_per_unit: null, estimated_overage_cents: 0, overage_currency: 'usd',
  })
  t.like(by.m_salary_benchmarks, { used: 510, included: 500, remaining: 0, overage_used: 10, overage_mode: 'meter', overage_cents_per_unit: 5, estimated_overage_cents: 50 })
  t.like(by.m_jobs_api_calls, { used: 0, included: 10000, remaining: 10000, overage_cents_per_unit: 0.1 })
})

test('usage summary accepts a JWT: valid, expired, bad signature, wrong algorithm', async (t) => {
  const { db, get } = t.context
  const { accountId } = await accountOn(db.sql, 'starter')
  // the app's secret: JWT_SECRET, else the one it generated in the database
  const secret = await loadJwtSecret(db.sql, loadConfig().jwtSecret)
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

  const { token } = await signToken(secret, accountId, 60)
  const ok = await get('/v2/billing/usage/summary', bearer(token))
  t.is(ok.status, 200)
  t.deepEqual((await ok.json()).plan_lookup_keys, ['plan_starter'])

  const expired = await signToken(secret, accountId, -10)
  const late = await get('/v2/billing/usage/summary', bearer(expired.token))
  t.is(late.status, 401)
  t.deepEqual(await late.json(), { detail: 'Invalid or expired token' })

  const forged = await signToken('another-secret', accountId, 60)
  t.is((await get('/v2/billing/usage/summary', bearer(forged.token))).status, 401)

  const [header, payload] = token.split('.')
  const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`
  t.is((await get('/v2/billing/usage/summary', bearer(none))).status, 401, 'alg none is refused')
  t.truthy(header)

  t.is((await get('/v2/billing/usage/summary', {})).status, 401)
  t.is((await get('/v2/tasks/00000000-0000-0000-0000-000000000000', bearer(token))).status, 401, 'only the summary takes a JWT')
})

test('the portal lists the plans with exact prices and the caller\'s plan', async (t) => {
  const { db, get } = t.context
  const { key } = await accountOn(db.sql, 'free')
  const res = await get('/v2/billing/portal', as(key))
  t.is(res.status, 200)
  const body = await res.json()
  t.like(body.current, { plan: 'free', billing_source: 'payments_v2', features: [] })
  t.deepEqual(body.plans.map((p: { plan: string }) => p.plan), ['free', 'starter', 'growth', 'scale', 'pro'])
  const growth = body.plans.find((p: { plan: string }) => p.plan === 'growth')
  t.like(growth, { monthly_price_cents: 24900, annual_price_cents: 239040 })
  t.like(growth.meters.find((m: { event_name: string }) => m.event_name === 'm_jobs_api_calls'), { included: 250000, overage_mode: 'meter', overage_cents_per_unit: 0.15 })
  t.regex(body.upgrade.how, /plan:set/)
})

test('periods: calendar month, trial window, subscription roll-forward by whole months; the job records it', async (t) => {
  const currentPeriod = (f: PeriodFields, at: Date) => billingPeriod(t.context.db.sql, f, at)
  const none = { period_start: null, period_end: null, trial_start: null, trial_end: null }
  const now = new Date('2026-03-15T12:00:00Z')
  t.deepEqual((await currentPeriod(none, now)), { start: new Date('2026-03-01T00:00:00Z'), end: new Date('2026-04-01T00:00:00Z'), kind: 'calendar_month' })
  const trial = { ...none, trial_start: new Date('2026-03-10T00:00:00Z'), trial_end: new Date('2026-03-24T00:00:00Z') }
  t.is((await currentPeriod(trial, now)).kind, 'trial')
  t.is((await currentPeriod(trial, new Date('2026-03-25T00:00:00Z'))).kind, 'calendar_month')
  const monthly = { ...none, period_start: new Date('2026-01-31T00:00:00Z'), period_end: new Date('2026-02-28T00:00:00Z') }
  t.deepEqual((await currentPeriod(monthly, now)), { start: new Date('2026-02-28T00:00:00Z'), end: new Date('2026-03-31T00:00:00Z'), kind: 'subscription' })
  t.deepEqual((await currentPeriod(monthly, new Date('2026-05-01T00:00:00Z'))).start, new Date('2026-04-30T00:00:00Z'))

  const { db } = t.context
  const { accountId } = await accountOn(db.sql, 'starter')
  await updatePeriod(db.sql, accountId, { start: new Date('2020-01-01T00:00:00Z'), end: new Date('2020-02-01T00:00:00Z'), status: 'active' })
  // a reservation left by an API process that died long ago, and a live one
  await spend(db.sql, accountId, 'm_jobs_api_calls', 1, { start: new Date('2026-03-01T00:00:00Z'), end: new Date('2026-04-01T00:00:00Z'), kind: 'subscription' })
  // (5 units taken two slots before the job runs, 7 in the slot before it)
  await db.sql`
    update usage_meters set reserved = 12, reserved_lapsing = 5,
      reserved_slot = floor(extract(epoch from timestamptz '2026-03-15T00:00:00Z') / ${RESERVATION_SECONDS})::bigint - 1
    where account_id = ${accountId}`
  const result = await rollPeriods(db.sql, new Date('2026-03-15T00:00:00Z'))
  t.true(result.rolled >= 1)
  t.true(result.released_reservations >= 1)
  t.deepEqual((await db.sql`select reserved_lapsing::int as units from usage_meters where account_id = ${accountId}`).map((r) => r.units), [7])
  t.deepEqual((await db.sql`select reserved::int from usage_meters where account_id = ${accountId}`).map((r) => r.reserved), [7], 'its units given back')
  const after = await findBillingAccount(db.sql, accountId)
  t.deepEqual([after!.period_start, after!.period_end], [new Date('2026-03-01T00:00:00Z'), new Date('2026-04-01T00:00:00Z')])
})
