import anyTest, { type TestFn } from 'ava'
import Router from '@koa/router'
import categories from '../../seeds/categories.json' with { type: 'json' }
import industries from '../../seeds/industries.json' with { type: 'json' }
import { revokeKey } from '../../sql/accounts.ts'
import { insertTask } from '../../sql/tasks.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { createAccountWithKey } from '../helpers/factories.ts'

const test = anyTest as TestFn<TestApp>

test.before(async (t) => {
  t.context = await startTestApp()
})
test.after.always(async (t) => {
  await t.context?.close()
})

test('reference lists need no key and list every value', async (t) => {
  const cats = await t.context.get('/v2/jobs/data/categories', {})
  t.is(cats.status, 200)
  const body = await cats.json()
  t.deepEqual(body.categories, [...categories, 'Other'])

  const inds = await (await t.context.get('/v2/jobs/data/industries', {})).json()
  const byIndustry = (list: { name: string; subindustries: string[] }[]) => Object.fromEntries(list.map((i) => [i.name, [...i.subindustries].sort()]))
  const expected = Object.fromEntries(Object.entries(industries as Record<string, string[]>).map(([name, subs]) => [name, [...subs].sort()]))
  t.deepEqual(byIndustry(inds.industries), expected)
  const manufacturing = inds.industries.find((i: { name: string }) => i.name === 'Manufacturing')
  t.true(manufacturing.subindustries.includes('Aerospace Manufacturing'))
  t.true(manufacturing.subindustries.includes('Shipbuilding & Repair'))

  const subs = await (await t.context.get('/v2/jobs/data/subindustries', {})).json()
  const retech = subs.subindustries.find((s: { name: string }) => s.name === 'Real Estate Technology')
  t.deepEqual(retech.industries.sort(), ['Real Estate', 'Tech, Software & IT Services'])
  const legal = await (await t.context.get('/v2/jobs/data/subindustries?industry=Legal', {})).json()
  t.deepEqual(legal.subindustries.map((s: { name: string }) => s.name).sort(), [...(industries as Record<string, string[]>).Legal].sort())
})

test('an unknown industry filter on subindustries is a 422 naming the field', async (t) => {
  const res = await t.context.get('/v2/jobs/data/subindustries?industry=Basket%20Weaving', {})
  t.is(res.status, 422)
  const { detail } = await res.json()
  t.deepEqual(detail[0].loc, ['query', 'industry'])
  t.is(detail[0].type, 'value_error')
  t.is(detail[0].input, 'Basket Weaving')
})

test('data endpoints without a key: 401 Missing authorization header', async (t) => {
  for (const path of ['/v2/jobs/1', '/v2/platform/companies/acme', '/v2/platform/companies/acme/jobs', '/v2/tasks/x']) {
    const res = await t.context.get(path, {})
    t.is(res.status, 401, path)
    t.deepEqual(await res.json(), { detail: 'Missing authorization header' })
    t.is(res.headers.get('x-billing-code'), null)
  }
})

test('an invalid or revoked key is a 401 "Invalid or revoked API key"', async (t) => {
  const bad = await t.context.get('/v2/jobs/1', { 'x-api-key': 'jds_not-a-real-key' })
  t.is(bad.status, 401)
  t.deepEqual(await bad.json(), { detail: 'Invalid or revoked API key' })

  const { key } = await createAccountWithKey(t.context.db.sql)
  t.is((await t.context.get('/v2/jobs/999999', { 'x-api-key': key })).status, 404)
  t.true(await revokeKey(t.context.db.sql, key))
  await t.context.sync()
  const revoked = await t.context.get('/v2/jobs/999999', { 'x-api-key': key })
  t.is(revoked.status, 401)
  t.deepEqual(await revoked.json(), { detail: 'Invalid or revoked API key' })
})

test('the key never reaches the log', async (t) => {
  const res = await t.context.get('/v2/jobs/123')
  const id = res.headers.get('x-request-id')!
  // the request's line is written once its response is done: wait for it, then look at every line so far
  const until = Date.now() + 10_000
  let found: string | undefined
  while (!(found = t.context.logs.find((l) => l.includes(`"req_id":"${id}"`))) && Date.now() < until) await new Promise((r) => setTimeout(r, 10))
  const line = JSON.parse(found ?? '{}')
  t.like(line, { req_id: id, route: '/v2/jobs/:job_id', status: 404 })
  t.is(typeof line.ms, 'number')
  t.false(t.context.logs.some((l) => l.includes(t.context.key)))
})

test('unknown routes are 404 {"detail":"Not Found"}', async (t) => {
  for (const path of ['/v2/nope', '/', '/v3/jobs/1']) {
    const res = await t.context.get(path)
    t.is(res.status, 404)
    t.deepEqual(await res.json(), { detail: 'Not Found' })
  }
  const post = await t.context.post('/v2/nope', '{not json')
  t.is(post.status, 404)
})

test('unknown job and company are 404 with a detail', async (t) => {
  const cases: [string, string][] = [
    ['/v2/jobs/424242424', 'Job not found'],
    ['/v2/jobs/not-an-id', 'Job not found'],
    ['/v2/platform/companies/no-such-co', 'Company not found'],
    ['/v2/platform/companies/no-such-co/jobs', 'Company not found'],
    ['/v2/platform/companies/no-such-co/jobs/x', 'Company not found'],
  ]
  for (const [path, detail] of cases) {
    const res = await t.context.get(path)
    t.is(res.status, 404, path)
    t.deepEqual(await res.json(), { detail }, path)
  }
})

test('tasks are visible to their owner only', async (t) => {
  const task = await insertTask(t.context.db.sql, { account_id: t.context.accountId, type: 'export_job_data', input: { format: 'csv', search: {} } })
  const mine = await t.context.get(`/v2/tasks/${task.id}`)
  t.is(mine.status, 200)
  const body = await mine.json()
  t.is(body.id, task.id)
  t.is(body.state, 'queued')
  t.is(body.progress, 0)
  t.is(body.user_id, t.context.accountId)
  t.is(body.started_at, null)
  t.is(body.completed_at, null)
  t.is(body.result, null)
  t.deepEqual(body.input, { format: 'csv', search: {} })
  t.regex(body.created_at, /^\d{4}-\d\d-\d\dT/)

  const other = await createAccountWithKey(t.context.db.sql)
  const theirs = await t.context.get(`/v2/tasks/${task.id}`, { 'x-api-key': other.key })
  t.is(theirs.status, 404)
  t.is((await t.context.get('/v2/tasks/00000000-0000-0000-0000-000000000000')).status, 404)
  t.is((await t.context.get('/v2/tasks/garbage')).status, 404)
})

test('page parameters are validated: 422 with loc and type', async (t) => {
  const res = await t.context.get('/v2/platform/companies/acme/jobs?limit=abc&page=0')
  t.is(res.status, 422)
  const { detail } = await res.json()
  const byField = Object.fromEntries(detail.map((d: { loc: string[] }) => [d.loc[1], d]))
  t.deepEqual(byField.limit.loc, ['query', 'limit'])
  t.is(byField.limit.type, 'float_type')
  t.is(byField.page.type, 'greater_than_equal')
  t.is((await (await t.context.get('/v2/platform/companies/acme/jobs?limit=101')).json()).detail[0].type, 'less_than_equal')
})

test('CORS exposes the billing and rate-limit headers', async (t) => {
  const res = await t.context.get('/v2/jobs/data/categories', { origin: 'https://example.test' })
  const exposed = res.headers.get('access-control-expose-headers') ?? ''
  for (const h of ['X-Billing-Code', 'X-RateLimit-Remaining', 'Platform-Usage-Total-Used', 'Retry-After']) t.true(exposed.includes(h), h)
})

test.serial('healthz is 503 until ready, and so is everything else', async (t) => {
  t.context.readiness.ready = false
  t.context.readiness.stage = 'demo data'
  try {
    const h = await t.context.get('/healthz', {})
    t.is(h.status, 503)
    t.deepEqual(await h.json(), { status: 'starting', stage: 'demo data' })
    const other = await t.context.get('/v2/jobs/data/categories', {})
    t.is(other.status, 503)
    t.deepEqual(await other.json(), { detail: 'Service is starting (demo data); retry shortly' })
  } finally {
    t.context.readiness.ready = true
  }
  t.is((await t.context.get('/healthz', {})).status, 200)
})
