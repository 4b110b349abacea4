/**
 * GET/POST/DELETE /v2/keys and the usage summary's `daily` list, over HTTP on a real
 * database: keys are scoped to the calling key's account, shown once in full and stored
 * as their SHA-256 only, the key in use cannot revoke itself, a revoked key is refused
 * by the next request; `daily` sums the ledger per UTC day and adds up to `used`.
 */
import anyTest, { type TestFn } from 'ava'
import { hashKey } from '../../sql/accounts.ts'
import { MAX_LIVE_KEYS } from '../../sql/keys.ts'
import { loadJwtSecret, signToken } from '../../api/middleware/jwt.ts'
import { startTestApp, type TestApp, ROOMY_LIMITS } from '../helpers/app.ts'
import { createAccountWithKey } from '../helpers/factories.ts'
import { eventually } from '../helpers/eventually.ts'
import { periodOf, seedCompany, spend } from '../billing/fixtures.ts'

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
type KeyRow = { id: string; prefix: string; name: string | null; created_at: string; last_used_at: string | null }

async function call(t: { context: Ctx }, method: string, path: string, key: string, body?: unknown) {
  const res = await fetch(t.context.base + path, {
    method, headers: { ...as(key), ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers }
}
const listKeys = async (t: { context: Ctx }, key: string) => (await call(t, 'GET', '/v2/keys', key)).body.keys as KeyRow[]

test('GET /v2/keys lists the account\'s live keys with prefix and name, never another account\'s nor a key itself', async (t) => {
  const { db } = t.context
  const mine = await createAccountWithKey(db.sql)
  const other = await createAccountWithKey(db.sql)
  const res = await call(t, 'GET', '/v2/keys', mine.key)
  t.is(res.status, 200)
  t.is(res.headers.get('platform-usage-total-used'), null, 'not metered')
  t.is(res.body.keys.length, 1)
  const [row] = res.body.keys as KeyRow[]
  t.deepEqual(Object.keys(row).sort(), ['created_at', 'id', 'last_used_at', 'name', 'prefix'])
  t.is(row.prefix, mine.key.slice(0, 8))
  t.is(row.name, null, 'made by the admin path: no name')
  t.false(JSON.stringify(res.body).includes(mine.key))
  t.false((await listKeys(t, other.key)).some((k) => k.id === row.id))
})

test('POST /v2/keys creates a named key, shown once in full, stored only as its SHA-256, working at once', async (t) => {
  const { db, company } = t.context
  const mine = await createAccountWithKey(db.sql)
  const res = await call(t, 'POST', '/v2/keys', mine.key, { name: '  CI pipeline ' })
  t.is(res.status, 201)
  t.regex(res.body.api_key, /^jds_[A-Za-z0-9_-]{32}$/)
  t.like(res.body, { name: 'CI pipeline', prefix: res.body.api_key.slice(0, 8), last_used_at: null })
  const [stored] = await db.sql`select * from api_keys where id = ${res.body.id}`
  t.is(stored.key_hash, hashKey(res.body.api_key))
  t.false(JSON.stringify(stored).includes(res.body.api_key), 'the key itself is nowhere in its row')
  const listed = await listKeys(t, mine.key)
  t.deepEqual(listed.map((k) => k.name).sort(), ['CI pipeline', null].sort())
  t.false(JSON.stringify(listed).includes(res.body.api_key), 'never shown again')
  t.is((await call(t, 'GET', `/v2/jobs/${company.jobIds[0]}`, res.body.api_key)).status, 200)
  // the call marks it used, off the request's path
  const used = await eventually('last_used_at to be set', async () => (await listKeys(t, mine.key)).find((k) => k.id === res.body.id && k.last_used_at))
  t.true(Date.now() - Date.parse(used.last_used_at!) < 120_000)
})

test('POST /v2/keys refuses a missing, blank or long name with a 422 in the spec\'s envelope', async (t) => {
  const { db } = t.context
  const mine = await createAccountWithKey(db.sql)
  for (const [body, type] of [[{}, 'missing'], [{ name: '   ' }, 'value_error'], [{ name: 'x'.repeat(101) }, 'string_too_long'], [{ name: 5 }, 'string_type'], [{ name: 'a\u0000b' }, null]] as const) {
    const res = await call(t, 'POST', '/v2/keys', mine.key, body)
    t.is(res.status, 422, JSON.stringify(body))
    t.true(Array.isArray(res.body.detail), JSON.stringify(body))
    t.deepEqual(res.body.detail[0].loc, ['body', 'name'], JSON.stringify(body))
    if (type) t.is(res.body.detail[0].type, type, JSON.stringify(body))
  }
  t.is((await listKeys(t, mine.key)).length, 1, 'none created')
})

test('DELETE /v2/keys/{id}: 204, then the key is refused; the key in use is a 409; another account\'s, unknown or revoked ones are 404s', async (t) => {
  const { db, company } = t.context
  const mine = await createAccountWithKey(db.sql)
  const other = await createAccountWithKey(db.sql)
  const created = (await call(t, 'POST', '/v2/keys', mine.key, { name: 'to revoke' })).body
  const [inUse] = (await listKeys(t, mine.key)).filter((k) => k.id !== created.id)
  const [otherKey] = await listKeys(t, other.key)

  const self = await call(t, 'DELETE', `/v2/keys/${inUse.id}`, mine.key)
  t.is(self.status, 409)
  t.is(typeof self.body.detail, 'string')
  const foreign = await call(t, 'DELETE', `/v2/keys/${otherKey.id}`, mine.key)
  t.deepEqual([foreign.status, foreign.body], [404, { detail: 'Key not found' }])
  t.is((await call(t, 'GET', `/v2/jobs/${company.jobIds[0]}`, other.key)).status, 200, 'the other account\'s key still works')
  for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', '1']) t.is((await call(t, 'DELETE', `/v2/keys/${id}`, mine.key)).status, 404, id)
  t.is((await call(t, 'DELETE', '/v2/keys/a%00b', mine.key)).status, 422)

  const revoked = await call(t, 'DELETE', `/v2/keys/${created.id}`, mine.key)
  t.is(revoked.status, 204)
  t.is(revoked.body, null)
  const refused = await call(t, 'GET', `/v2/jobs/${company.jobIds[0]}`, created.api_key)
  t.deepEqual([refused.status, refused.body], [401, { detail: 'Invalid or revoked API key' }])
  t.is((await call(t, 'DELETE', `/v2/keys/${created.id}`, mine.key)).status, 404, 'already revoked')
  t.deepEqual((await listKeys(t, mine.key)).map((k) => k.id), [inUse.id])
  // the revoked key may revoke nothing, and the one in use can now be revoked by a new one
  const second = (await call(t, 'POST', '/v2/keys', mine.key, { name: 'second' })).body
  t.is((await call(t, 'DELETE', `/v2/keys/${inUse.id}`, second.api_key)).status, 204)
  t.is((await call(t, 'GET', '/v2/keys', mine.key)).status, 401)
})

test('the key routes need a key: none is a 401, and a usage-summary JWT is not one', async (t) => {
  const { db, accountId } = t.context
  const token = (await signToken(await loadJwtSecret(db.sql, null), accountId, 60)).token
  for (const headers of [{}, { authorization: `Bearer ${token}` }] as Record<string, string>[]) {
    const res = await fetch(`${t.context.base}/v2/keys`, { headers })
    t.is(res.status, 401)
    t.deepEqual(await res.json(), { detail: 'Missing authorization header' })
  }
})

test(`an account holds at most ${MAX_LIVE_KEYS} live keys`, async (t) => {
  const { db } = t.context
  const mine = await createAccountWithKey(db.sql)
  await db.sql`
    insert into api_keys (account_id, key_hash, prefix, name)
    select ${mine.accountId}, md5(random()::text) || n, 'jds_test', 'bulk' from generate_series(1, ${MAX_LIVE_KEYS - 2}) n`
  t.is((await call(t, 'POST', '/v2/keys', mine.key, { name: 'last' })).status, 201)
  const full = await call(t, 'POST', '/v2/keys', mine.key, { name: 'one too many' })
  t.is(full.status, 409)
  t.regex(full.body.detail, new RegExp(`${MAX_LIVE_KEYS} live keys`))
})

// --- daily usage ------------------------------------------------------------------

test('usage summary with daily=true: every day of the period to today, per meter, from the ledger, adding up to used', async (t) => {
  const { db, company } = t.context
  const mine = await createAccountWithKey(db.sql)
  for (const id of company.jobIds) t.is((await call(t, 'GET', `/v2/jobs/${id}`, mine.key)).status, 200)
  await spend(db.sql, mine.accountId, 'm_company_api_calls', 7)
  // 3 units on the period's first day, recorded in one ledger row with two requests
  const period = await periodOf(db.sql, mine.accountId)
  const firstDayMs = period.start.getTime() + 3_600_000
  await db.sql`
    update usage_meters set used = used + 3 where account_id = ${mine.accountId} and meter = 'm_company_api_calls' and period_start = ${period.start}`
  await db.sql`
    insert into usage_ledger (account_id, meter, period_start, units, kind, endpoint, requests, request_ids, request_units, request_at_ms)
    values (${mine.accountId}, 'm_company_api_calls', ${period.start}, 3, 'charge', 'test setup', 2, '{a,b}', '{1,2}', array[${firstDayMs}, ${firstDayMs + 1}]::bigint[])`
  await t.context.sync()

  const plain = await call(t, 'GET', '/v2/billing/usage/summary', mine.key)
  t.false('daily' in plain.body.meters[0], 'only when asked for')
  t.false('daily' in (await call(t, 'GET', '/v2/billing/usage/summary?daily=false', mine.key)).body.meters[0])
  const res = await call(t, 'GET', '/v2/billing/usage/summary?daily=true', mine.key)
  t.is(res.status, 200)
  const today = new Date().toISOString().slice(0, 10)
  const first = period.start.toISOString().slice(0, 10)
  const days = Math.round((Date.parse(today) - Date.parse(first)) / 86_400_000) + 1
  for (const m of res.body.meters as { event_name: string; used: number; daily: { date: string; used: number }[] }[]) {
    t.is(m.daily.length, days, m.event_name)
    t.is(m.daily[0].date, first)
    t.is(m.daily.at(-1)!.date, today)
    t.deepEqual(m.daily.map((d) => d.date), [...m.daily.map((d) => d.date)].sort(), 'oldest first')
    t.is(m.daily.reduce((s, d) => s + d.used, 0), m.used, `${m.event_name}: the days add up to used`)
  }
  const byName = Object.fromEntries(res.body.meters.map((m: { event_name: string }) => [m.event_name, m]))
  t.is(byName.m_jobs_api_calls.daily.at(-1).used, 2, 'two lookups today')
  t.is(byName.m_company_api_calls.used, 10)
  const company7 = byName.m_company_api_calls.daily
  if (first === today) t.is(company7[0].used, 10)
  else t.deepEqual([company7[0].used, company7.at(-1).used], [3, 7])
})

test('daily works with a usage-summary JWT too; a daily that is not true or false is a 422', async (t) => {
  const { db, accountId } = t.context
  const token = (await signToken(await loadJwtSecret(db.sql, null), accountId, 60)).token
  const res = await fetch(`${t.context.base}/v2/billing/usage/summary?daily=true`, { headers: { authorization: `Bearer ${token}` } })
  t.is(res.status, 200)
  t.true(((await res.json()).meters as { daily?: unknown[] }[]).every((m) => Array.isArray(m.daily)))
  for (const q of ['daily=yes', 'daily=1', 'daily=true&daily=true']) {
    const bad = await call(t, 'GET', `/v2/billing/usage/summary?${q}`, t.context.key)
    t.is(bad.status, 422, q)
    t.deepEqual(bad.body.detail[0].loc, ['query', 'daily'], q)
  }
})

test('the document lists the key routes and the daily list', async (t) => {
  const doc = await (await fetch(`${t.context.base}/v2/openapi.json`)).json()
  t.truthy(doc.paths['/v2/keys'].get)
  t.truthy(doc.paths['/v2/keys'].post.responses['201'])
  t.truthy(doc.paths['/v2/keys/{key_id}'].delete.responses['409'])
  t.true(doc.paths['/v2/billing/usage/summary'].get.parameters.some((p: { name: string }) => p.name === 'daily'))
  t.truthy(doc.components.schemas.UsageMeter.properties.daily)
})
