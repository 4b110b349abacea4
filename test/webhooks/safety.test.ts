/**
 * Webhook safety: private addresses refused when saved and again at delivery (the app
 * here runs without WEBHOOK_ALLOW_PRIVATE), the address rules, redirects and Retry-After
 * as the sender reads them, signatures the standardwebhooks package verifies, and
 * WEBHOOK_RETRY_SCHEDULE.
 */
import anyTest, { type TestFn } from 'ava'
import { randomBytes } from 'node:crypto'
import { Webhook } from 'standardwebhooks'
import type { JobSearchBody } from '../../api/schemas/search.ts'
import { toSearch } from '../../api/search-filters.ts'
import { ingest } from '../../ingest/pipeline.ts'
import { isPublicAddress, namesPrivateHost, retryAfterSeconds, sendWebhook, signedHeaders } from '../../jobs/webhooks/send.ts'
import { loadConfig, WEBHOOK_RETRY_SCHEDULE } from '../../sql/config.ts'
import { newSecret } from '../../sql/saved-searches.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { eventually } from '../helpers/eventually.ts'
import { rawPosting, readItems } from '../helpers/factories.ts'
import { startReceiver, type Answer } from '../helpers/receiver.ts'

const test = anyTest as TestFn<TestApp>

test.before(async (t) => {
  const base = loadConfig()
  const app = await startTestApp({
    tasks: true,
    embedder: null,
    config: { webhooks: { ...base.webhooks, allowHttp: true, allowPrivate: false, retrySchedule: [], pollMs: 50 } },
  })
  Object.assign(t.context, app)
})
test.after.always(async (t) => {
  await t.context?.close?.()
})

test('a URL naming a private address is refused when saved', async (t) => {
  for (const url of ['http://127.0.0.1:8080/hook', 'http://localhost/hook', 'https://10.1.2.3/x', 'https://[::1]/x', 'https://169.254.169.254/latest', 'http://192.168.0.1/']) {
    const res = await t.context.post('/v2/saved-searches', { name: 'x', kind: 'search', filters: {}, webhook: { url } })
    t.is(res.status, 422, url)
    const [item] = (await res.json()).detail
    t.deepEqual(item.loc, ['body', 'webhook', 'url'], url)
  }
})

test('a name that resolves to a private address at delivery time is refused then: nothing reaches it', async (t) => {
  const rx = await startReceiver()
  t.teardown(rx.close)
  const w = `Zq${randomBytes(4).toString('hex')}`
  // saved while the name pointed elsewhere: now it resolves to loopback
  const url = rx.url.replace('127.0.0.1', 'localhost')
  const [s] = await t.context.db.sql<{ id: string }[]>`
    insert into saved_searches (account_id, name, kind, filters, compiled, events, webhook_url, secret)
    values (${t.context.accountId}, 'private', 'search', ${t.context.db.sql.json({ job_titles: [w] })},
      ${t.context.db.sql.json({ filters: toSearch({ job_titles: [w], page: 1, limit: 10 } as JobSearchBody).filters } as never)},
      '{job.new}', ${url}, ${newSecret()})
    returning id::text`
  await ingest(t.context.db.sql, readItems([rawPosting({ job_title: `${w} Analyst`, job_board: `B${w}`, source_id: w })]), { source: w })
  const res = await eventually('the refused attempt', async () => {
    const body = await (await t.context.get(`/v2/events?saved_search_id=${s.id}`)).json()
    return body.events[0]?.status === 'failed' && body.events[0]
  })
  t.is(res.attempts.length, 1)
  t.is(res.attempts[0].status_code, null)
  t.regex(res.attempts[0].error, /resolves to (127\.0\.0\.1|::1), not a public address/)
  t.is(rx.received.length, 0)
})

test('the address rules', (t) => {
  for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '100.63.255.255', '172.32.0.1']) t.true(isPublicAddress(a), a)
  for (const a of ['127.0.0.1', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '::1', '::', 'fc00::1', 'fd12::1', 'fe80::1', '::ffff:10.0.0.1', '::ffff:127.0.0.1', 'not-an-ip']) {
    t.false(isPublicAddress(a), a)
  }
  t.true(namesPrivateHost(new URL('http://LOCALHOST:1/')))
  t.true(namesPrivateHost(new URL('https://[fe80::1]/')))
  t.false(namesPrivateHost(new URL('https://hooks.example.com/')))
})

test('the signature header verifies with standardwebhooks under each secret; a tampered body does not', (t) => {
  const [a, b] = [newSecret(), newSecret()]
  const body = JSON.stringify({ type: 'job.new', data: { jobs: [] } })
  const headers = signedHeaders('evt_1', body, [a, b])
  t.is(headers['webhook-signature'].split(' ').length, 2)
  t.notThrows(() => new Webhook(a).verify(body, headers))
  t.notThrows(() => new Webhook(b).verify(body, headers))
  t.throws(() => new Webhook(newSecret()).verify(body, headers))
  t.throws(() => new Webhook(a).verify(body.replace('job.new', 'job.old'), headers))
})

test('a redirect is a failure; Retry-After is read on 429 and 503; 410 is gone', async (t) => {
  const answers: Answer[] = [{ status: 302, headers: { location: 'https://example.com/' } }, { status: 429, headers: { 'retry-after': '7' } }, 410, 204]
  const rx = await startReceiver((_r, n) => answers[n - 1])
  t.teardown(rx.close)
  const o = { timeoutMs: 5000, allowPrivate: true, allowHttp: true }
  const send = () => sendWebhook(rx.url, 'evt_9', '{}', [newSecret()], o)
  const redirect = await send()
  t.false(redirect.ok)
  t.regex((redirect as { error: string }).error, /redirect/)
  t.like(await send(), { ok: false, status: 429, retryAfterSeconds: 7 })
  t.like(await send(), { ok: false, status: 410, gone: true })
  t.like(await send(), { ok: true, status: 204 })
  t.like(await sendWebhook(rx.url.replace('http:', 'ftp:'), 'e', '{}', [newSecret()], o), { ok: false })
  t.like(await sendWebhook(rx.url, 'e', '{}', [newSecret()], { ...o, allowHttp: false }), { ok: false, error: 'http URLs are not allowed' })
  t.is(retryAfterSeconds(new Date(Date.now() + 10_000).toUTCString()) !== null, true)
  t.is(retryAfterSeconds('soon'), null)
})

test('a receiver that does not answer in time is a failure', async (t) => {
  const rx = await startReceiver(() => 'hang')
  t.teardown(rx.close)
  const r = await sendWebhook(rx.url, 'evt_1', '{}', [newSecret()], { timeoutMs: 300, allowPrivate: true, allowHttp: true })
  t.like(r, { ok: false, status: null, error: 'no answer within 0.3 s' })
})

test('WEBHOOK_RETRY_SCHEDULE replaces the retry table; a bad one stops the start', (t) => {
  t.deepEqual(loadConfig({}).webhooks.retrySchedule, WEBHOOK_RETRY_SCHEDULE)
  t.deepEqual(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '1, 2.5,60' }).webhooks.retrySchedule, [1, 2.5, 60])
  t.throws(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '1,,2' }), { message: /WEBHOOK_RETRY_SCHEDULE/ })
  t.throws(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '-1' }), { message: /WEBHOOK_RETRY_SCHEDULE/ })
  t.throws(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'yes' }), { message: /WEBHOOK_ALLOW_PRIVATE/ })
})
