/**
 * Saved searches end to end: the routes over HTTP, matching on a real ingest and expiry,
 * and deliveries to a real receiver (node:http) that checks every signature with the
 * standardwebhooks package. The app runs its workers in process, with a short retry
 * table (WEBHOOK_RETRY_SCHEDULE's setting) and loopback endpoints allowed.
 */
import anyTest, { type TestFn } from 'ava'
import { randomBytes } from 'node:crypto'
import { readdir, readFile, rm, mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { ingest } from '../../ingest/pipeline.ts'
import { upsertAllowance } from '../../sql/billing.ts'
import { loadConfig } from '../../sql/config.ts'
import { expireJobs } from '../../sql/expiry.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { eventually } from '../helpers/eventually.ts'
import { createAccountWithKey, rawPosting, readItems } from '../helpers/factories.ts'
import { startReceiver, type Answer } from '../helpers/receiver.ts'

const test = anyTest as TestFn<TestApp & { dataDir: string }>

test.before(async (t) => {
  const base = loadConfig()
  const dataDir = await mkdtemp(path.join(tmpdir(), 'jds-webhooks-'))
  const generous = { limit: 1_000_000, windowSeconds: 60 }
  const app = await startTestApp({
    tasks: true,
    embedder: null,
    config: {
      dataDir,
      rateLimits: { key: generous, search: generous, anonymous: generous },
      webhooks: { ...base.webhooks, allowHttp: true, allowPrivate: true, retrySchedule: [0.2, 0.2, 0.2], pollMs: 50, heldRecheckSeconds: 0.3 },
    },
  })
  Object.assign(t.context, app, { dataDir })
})
test.after.always(async (t) => {
  await t.context?.close?.()
  if (t.context?.dataDir) await rm(t.context.dataDir, { recursive: true, force: true })
})

type Ctx = TestApp & { dataDir: string }

/** A fresh account (its own meter and searches) and its request helpers. */
async function account(t: { context: Ctx }, plan: 'free' | 'scale' = 'scale') {
  const { accountId, key } = await createAccountWithKey(t.context.db.sql, plan)
  const call = (method: string, p: string, body?: unknown) =>
    fetch(t.context.base + p, { method, headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
  return { accountId, key, call }
}

/** A word no other test uses, so each test's search matches only its own postings. */
const word = () => `Zq${randomBytes(4).toString('hex')}`

/** Postings titled with `w`, from one board, ingested now. */
async function ingestTitled(t: { context: Ctx }, w: string, n: number, overrides: Record<string, unknown> = {}, board = `Board${w}`, from = 0) {
  const rows = Array.from({ length: n }, (_, k) => k + from).map((i) => rawPosting({ job_title: `${w} Engineer ${i}`, job_board: board, source_id: `${w}-${i}`, description: `<p>Role ${w} number ${i} with TypeScript.</p>`, ...overrides }, i))
  return ingest(t.context.db.sql, readItems(rows), { source: `test-${w}` })
}

async function createSearch(call: (m: string, p: string, b?: unknown) => Promise<Response>, w: string, url: string, extra: Record<string, unknown> = {}) {
  const res = await call('POST', '/v2/saved-searches', { name: `search ${w}`, kind: 'search', filters: { job_titles: [w] }, events: ['job.new'], webhook: { url }, ...extra })
  const body = await res.json()
  if (res.status !== 201) throw new Error(`${res.status} ${JSON.stringify(body)}`)
  return body as { id: string; webhook: { url: string; secret: string }; status: string }
}

async function events(call: (m: string, p: string) => Promise<Response>, searchId: string) {
  const res = await call('GET', `/v2/events?saved_search_id=${searchId}&limit=100`)
  return ((await res.json()) as { events: { id: string; status: string; job_count: number; attempts: { status_code: number | null; error: string | null }[] }[] }).events
}

test('a saved search: created with its secret once, read, listed, patched and deleted by its owner only', async (t) => {
  const a = await account(t)
  const b = await account(t)
  const w = word()
  const created = await createSearch(a.call, w, 'http://127.0.0.1:9/hook')
  t.regex(created.webhook.secret, /^whsec_[A-Za-z0-9+/]+=*$/)
  t.is(created.status, 'active')
  const read = await (await a.call('GET', `/v2/saved-searches/${created.id}`)).json()
  t.is(read.webhook.url, 'http://127.0.0.1:9/hook')
  t.is(read.webhook.secret, undefined, 'the secret is shown at creation only')
  t.deepEqual(read.filters, { job_titles: [w] })
  t.deepEqual(read.events, ['job.new'])
  t.is(read.failing_since, null)
  const list = await (await a.call('GET', '/v2/saved-searches')).json()
  t.deepEqual(list.saved_searches.map((s: { id: string }) => s.id), [created.id])
  t.is(list.total_count, 1)

  for (const [method, p] of [['GET', ''], ['PATCH', ''], ['DELETE', ''], ['POST', '/rotate-secret']]) {
    const res = await b.call(method, `/v2/saved-searches/${created.id}${p}`, method === 'PATCH' ? { name: 'x' } : undefined)
    t.is(res.status, 404, `${method} of another account's search`)
    t.deepEqual(await res.json(), { detail: 'Saved search not found' })
  }
  t.is((await b.call('GET', '/v2/saved-searches/not-a-uuid')).status, 404)

  const patched = await (await a.call('PATCH', `/v2/saved-searches/${created.id}`, { name: 'renamed', status: 'paused', events: ['job.new', 'job.expired'] })).json()
  t.like(patched, { name: 'renamed', status: 'paused', events: ['job.new', 'job.expired'] })
  t.is((await a.call('DELETE', `/v2/saved-searches/${created.id}`)).status, 204)
  t.is((await a.call('GET', `/v2/saved-searches/${created.id}`)).status, 404)
})

test('bodies are validated like the search they wrap: 422 items in filters, never a 500', async (t) => {
  const a = await account(t)
  const post = (body: unknown) => a.call('POST', '/v2/saved-searches', body)
  const url = 'http://127.0.0.1:9/hook'
  let res = await post({ name: 'x', kind: 'search', filters: { job_titles: 'engineer' }, webhook: { url } })
  t.is(res.status, 422)
  const items = (await res.json()).detail as { loc: unknown[]; type: string }[]
  t.deepEqual(items[0].loc, ['body', 'filters', 'job_titles'])
  res = await post({ name: 'x', kind: 'search', filters: { salary: { min: 10, max: 5 } }, webhook: { url } })
  t.is(res.status, 422)
  res = await post({ name: 'x', kind: 'radar', filters: {}, webhook: { url } })
  t.deepEqual((await res.json()).detail[0].loc, ['body', 'kind'])
  res = await post({ name: 'x', kind: 'search', filters: {}, events: ['job.deleted'], webhook: { url } })
  t.deepEqual((await res.json()).detail[0].loc, ['body', 'events', 0])
  res = await post({ name: 'x', kind: 'search', filters: {}, webhook: { url: 'ftp://example.com/x' } })
  t.deepEqual((await res.json()).detail[0].loc, ['body', 'webhook', 'url'])
  res = await post({ name: 'x', kind: 'vsearch', filters: { min_similarity: 2 }, webhook: { url } })
  t.is(res.status, 422)
  const locs = ((await res.json()).detail as { loc: unknown[] }[]).map((i) => i.loc.join('.'))
  t.true(locs.includes('body.filters.query') && locs.includes('body.filters.min_similarity'), locs.join(' '))
  res = await post({ name: 'x', kind: 'search', filters: {}, webhook: { url } })
  t.is(res.status, 201, 'no filters: every new job')
})

test('a plan caps the saved searches of an account: 403 past it', async (t) => {
  const a = await account(t, 'free')
  for (let i = 0; i < 3; i++) await createSearch(a.call, word(), 'http://127.0.0.1:9/hook')
  const res = await a.call('POST', '/v2/saved-searches', { name: 'fourth', kind: 'search', filters: {}, webhook: { url: 'http://127.0.0.1:9/hook' } })
  t.is(res.status, 403)
  t.is(res.headers.get('x-billing-code'), 'saved_search_limit')
  t.regex((await res.json()).detail, /allows 3 saved searches/)
})

test('new matching jobs are delivered signed, 100 an event, charged 1 unit a job; a re-ingest and another board add nothing', async (t) => {
  const a = await account(t)
  const rx = await startReceiver()
  t.teardown(rx.close)
  const w = word()
  const s = await createSearch(a.call, w, rx.url)
  rx.verifyWith([s.webhook.secret])
  const summary = await ingestTitled(t, w, 150)
  t.is(summary.inserted, 150)
  await eventually('two deliveries', () => rx.received.length >= 2 && rx.received)
  const [first, second] = rx.received
  t.deepEqual(first.verifiedBy, [s.webhook.secret])
  t.is(first.body.type, 'job.new')
  t.is(first.body.data.saved_search_id, s.id)
  t.is(first.body.data.jobs.length, 100)
  t.is(second.body.data.jobs.length, 50)
  const ids = [...first.body.data.jobs, ...second.body.data.jobs].map((j) => Number(j._id))
  t.deepEqual(ids, [...ids].sort((x, y) => x - y), 'in the order the jobs were written')
  t.true(first.body.data.jobs.every((j) => j.job_title.startsWith(w)))
  t.true(Number(first.id.slice(4)) < Number(second.id.slice(4)), 'in event order')
  t.true(second.at >= first.at)

  await eventually('the charge', async () => {
    const [m] = await t.context.db.sql<{ used: number }[]>`select used::int from usage_meters where account_id = ${a.accountId} and meter = 'm_jobs_api_calls'`
    return m?.used === 150
  })
  const listed = await events(a.call, s.id)
  t.deepEqual(listed.map((e) => [e.status, e.job_count]), [['delivered', 50], ['delivered', 100]])

  // the same feed again, and the same postings from another board: no job is new
  const again = await ingestTitled(t, w, 150)
  t.is(again.unchanged, 150)
  const other = await ingestTitled(t, w, 3, {}, `Other${w}`)
  t.is(other.inserted, 0)
  // the matcher has nothing queued for them: the inbox holds no row once it has run
  await eventually('the inbox to drain', async () => (await t.context.db.sql`select 1 from saved_search_inbox`).length === 0)
  t.is((await events(a.call, s.id)).length, 2)
  t.is(rx.received.length, 2)
})

test('a receiver that fails 3 times then succeeds gets the event on the 4th attempt; the attempts are listed', async (t) => {
  const a = await account(t)
  const rx = await startReceiver((_r, n) => (n <= 3 ? 500 : 200))
  t.teardown(rx.close)
  const w = word()
  const s = await createSearch(a.call, w, rx.url)
  rx.verifyWith([s.webhook.secret])
  await ingestTitled(t, w, 2)
  await eventually('4 attempts', () => rx.received.length >= 4)
  t.is(new Set(rx.received.map((r) => r.id)).size, 1, 'one event, one webhook-id')
  t.true(rx.received.every((r) => r.verifiedBy.length === 1))
  const [e] = await eventually('delivered', async () => {
    const list = await events(a.call, s.id)
    return list[0]?.status === 'delivered' && list
  })
  t.deepEqual(e.attempts.map((x) => x.status_code), [500, 500, 500, 200])
  t.is(e.attempts[0].error, 'HTTP 500')
  const after = await (await a.call('GET', `/v2/saved-searches/${s.id}`)).json()
  t.is(after.failing_since, null)
  t.truthy(after.last_delivery_at)
})

test('an event whose retries run out fails, and the next one is delivered; a replay delivers it again', async (t) => {
  const a = await account(t)
  let failing = true
  const rx = await startReceiver(() => (failing ? 503 : 200))
  t.teardown(rx.close)
  const w = word()
  const s = await createSearch(a.call, w, rx.url)
  await ingestTitled(t, w, 1)
  const [failed] = await eventually('the event to fail', async () => {
    const list = await events(a.call, s.id)
    return list[0]?.status === 'failed' && list
  })
  t.is(failed.attempts.length, 4, 'the first attempt and the table of 3 retries')
  const mid = await (await a.call('GET', `/v2/saved-searches/${s.id}`)).json()
  t.truthy(mid.failing_since, 'failing_since shows the failure')
  t.is(mid.status, 'active')
  failing = false
  const replay = await a.call('POST', `/v2/events/${failed.id}/replay`)
  t.is(replay.status, 202)
  await eventually('the replay delivered', async () => (await events(a.call, s.id))[0]?.status === 'delivered')
  t.is(rx.received.at(-1)!.id, `evt_${failed.id}`)
  const b = await account(t)
  t.is((await b.call('POST', `/v2/events/${failed.id}/replay`)).status, 404, "another account's event")
  t.is((await b.call('POST', '/v2/events/abc/replay')).status, 404)
})

test('410 Gone disables the search at once; it stays visible, and its owner can enable it again', async (t) => {
  const a = await account(t)
  let answer: Answer = 410
  const rx = await startReceiver(() => answer)
  t.teardown(rx.close)
  const w = word()
  const s = await createSearch(a.call, w, rx.url)
  await ingestTitled(t, w, 1)
  const disabled = await eventually('disabled', async () => {
    const r = await (await a.call('GET', `/v2/saved-searches/${s.id}`)).json()
    return r.status === 'disabled' && r
  })
  t.regex(disabled.disabled_reason, /410/)
  t.is(rx.received.length, 1, 'no retry after 410')
  // a disabled search matches nothing new
  await ingestTitled(t, w, 1, {}, `Board${w}`, 1)
  answer = 200
  await a.call('PATCH', `/v2/saved-searches/${s.id}`, { status: 'active' })
  const list = await events(a.call, s.id)
  t.is(list.length, 1)
  t.is(list[0].status, 'failed')
})

test('a search failing for 3 days is disabled and its owner emailed', async (t) => {
  const a = await account(t)
  const rx = await startReceiver(() => 500)
  t.teardown(rx.close)
  const w = word()
  const s = await createSearch(a.call, w, rx.url)
  // as if the endpoint had failed since 3 days ago
  await t.context.db.sql`update saved_searches set failing_since = now() - interval '3 days 1 minute' where id = ${s.id}`
  await ingestTitled(t, w, 1)
  await eventually('disabled', async () => (await (await a.call('GET', `/v2/saved-searches/${s.id}`)).json()).status === 'disabled')
  const mail = await eventually('the mail', async () => {
    const files = await readdir(path.join(t.context.dataDir, 'outbox')).catch(() => [] as string[])
    // the mailer writes a hidden temporary file and renames it into place
    for (const f of files.filter((f) => f.endsWith('.eml') && !f.startsWith('.'))) {
      const text = await readFile(path.join(t.context.dataDir, 'outbox', f), 'utf8')
      if (text.includes(s.id)) return text
    }
    return null
  })
  t.regex(mail, /stopped: The endpoint has failed since/)
})

test('a rotation: for its window, deliveries carry signatures under the old and the new secret', async (t) => {
  const a = await account(t)
  const rx = await startReceiver()
  t.teardown(rx.close)
  const w = word()
  const s = await createSearch(a.call, w, rx.url)
  const res = await a.call('POST', `/v2/saved-searches/${s.id}/rotate-secret`)
  t.is(res.status, 200)
  const rotated = await res.json()
  t.not(rotated.secret, s.webhook.secret)
  t.true(new Date(rotated.previous_secret_expires_at).getTime() > Date.now() + 23 * 3600_000)
  rx.verifyWith([s.webhook.secret, rotated.secret])
  await ingestTitled(t, w, 1)
  const [r] = await eventually('a delivery', () => rx.received.length > 0 && rx.received)
  t.is(r.signatures.length, 2)
  t.deepEqual(r.verifiedBy.sort(), [s.webhook.secret, rotated.secret].sort(), 'each secret verifies on its own')
  // the window over, the new secret alone signs
  await t.context.db.sql`update saved_searches set previous_secret_until = now() - interval '1 second' where id = ${s.id}`
  await ingestTitled(t, w, 1, {}, `Board${w}`, 1)
  const second = await eventually('a second delivery', () => rx.received.length > 1 && rx.received[1])
  t.deepEqual(second.verifiedBy, [rotated.secret])
  t.is(second.signatures.length, 1)
})

test('an account out of units has its events held, then delivered once the allowance grows', async (t) => {
  const a = await account(t)
  await upsertAllowance(t.context.db.sql, a.accountId, { meter: 'm_jobs_api_calls', included: 1, overage_mode: 'block', overage_cents_per_unit: null })
  const rx = await startReceiver()
  t.teardown(rx.close)
  const w = word()
  const s = await createSearch(a.call, w, rx.url)
  await ingestTitled(t, w, 3)
  await eventually('held', async () => (await events(a.call, s.id))[0]?.status === 'held_quota')
  const held = await (await a.call('GET', `/v2/events?status=held_quota`)).json()
  t.is(held.events.length, 1)
  t.is(rx.received.length, 0)
  await upsertAllowance(t.context.db.sql, a.accountId, { meter: 'm_jobs_api_calls', included: 10, overage_mode: 'block', overage_cents_per_unit: null })
  await eventually('delivered', async () => (await events(a.call, s.id))[0]?.status === 'delivered')
  t.is(rx.received.length, 1)
  const [m] = await t.context.db.sql<{ used: number }[]>`select used::int from usage_meters where account_id = ${a.accountId} and meter = 'm_jobs_api_calls'`
  t.is(m.used, 3)
})

test('make expire produces job.expired for the searches that ask for it', async (t) => {
  const a = await account(t)
  const rx = await startReceiver()
  t.teardown(rx.close)
  const w = word()
  const s = await createSearch(a.call, w, rx.url, { events: ['job.expired'] })
  const seen = new Date()
  await ingestTitled(t, w, 2, { valid_through: new Date(seen.getTime() + 86_400_000).toISOString() })
  await expireJobs(t.context.db.sql, { afterDays: 30, now: new Date(seen.getTime() + 2 * 86_400_000) })
  const r = await eventually('a delivery', () => rx.received[0])
  t.is(r.body.type, 'job.expired')
  t.is(r.body.data.saved_search_id, s.id)
  t.is(r.body.data.jobs.length, 2)
  t.true(r.body.data.jobs.every((j) => (j as unknown as { expired: boolean }).expired))
})

test('GET /v2/events filters by search, status and time, and validates its parameters', async (t) => {
  const a = await account(t)
  let res = await a.call('GET', '/v2/events?status=lost')
  t.is(res.status, 422)
  t.deepEqual((await res.json()).detail[0].loc, ['query', 'status'])
  res = await a.call('GET', '/v2/events?since=yesterday')
  t.is(res.status, 422)
  res = await a.call('GET', `/v2/events?since=${encodeURIComponent(new Date(Date.now() + 3600_000).toISOString())}`)
  t.deepEqual((await res.json()).events, [])
  res = await a.call('GET', '/v2/events?saved_search_id=nope')
  t.is(res.status, 200)
  t.deepEqual((await res.json()).events, [])
})
