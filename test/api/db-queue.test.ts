/**
 * The app's database queue (api/middleware/queues.ts): at most poolSize keyed handlers
 * run at once; the others wait, and all are answered; a request that finds the queue
 * full is 503 with Retry-After before it is admitted, one that waits past the limit is
 * 503 and refunded, and one whose client has gone is not run and not charged. A route of the test's own, behind keyed(), holds each request until the
 * test lets it go.
 */
import type { AddressInfo } from 'node:net'
import Router from '@koa/router'
import test, { type ExecutionContext } from 'ava'
import pino from 'pino'
import { buildApp } from '../../api/app.ts'
import { keyed } from '../../api/middleware/keyed.ts'
import { loadConfig } from '../../sql/config.ts'
import { testDatabase } from '../helpers/db.ts'
import { eventually } from '../helpers/eventually.ts'
import { createAccountWithKey } from '../helpers/factories.ts'

test('keyed requests beyond the pool wait for a slot, and every one is answered', async (t) => {
  const db = await testDatabase()
  const roomy = { limit: 1_000, windowSeconds: 60 }
  const app = buildApp({ sql: db.sql, poolSize: 2, config: { ...loadConfig(), rateLimits: { key: roomy, search: roomy, anonymous: roomy } }, log: pino({ level: 'silent' }) })
  const entered: number[] = []
  const releases: (() => void)[] = []
  let inside = 0
  let most = 0
  const router = new Router()
  router.get('/held/:n', keyed(), async (ctx) => {
    inside++
    most = Math.max(most, inside)
    entered.push(Number(ctx.params.n))
    await new Promise<void>((resolve) => releases.push(resolve))
    inside--
    ctx.body = { n: Number(ctx.params.n) }
  })
  app.use(router.routes())
  const server = app.listen(0, '127.0.0.1')
  await new Promise((r) => server.once('listening', r))
  t.teardown(async () => {
    server.closeAllConnections()
    await new Promise((r) => server.close(r))
    await app.context.admission!.close()
    await db.close()
  })
  const { key } = await createAccountWithKey(db.sql)
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  const answers: Promise<Response>[] = []
  for (let n = 1; n <= 2; n++) {
    answers.push(fetch(`${base}/held/${n}`, { headers: { 'x-api-key': key } }))
    await eventually(`request ${n} inside`, () => entered.length === n)
  }
  for (let n = 3; n <= 5; n++) answers.push(fetch(`${base}/held/${n}`, { headers: { 'x-api-key': key } }))
  const slots = app.context.queues!.db
  await eventually('three requests waiting for a slot', () => slots.waiting === 3)
  t.is(inside, 2, 'the pool of 2 holds two requests; the other three wait')
  // let them out one at a time: each frees a slot for a waiting one
  for (let released = 0; released < 5; released++) {
    await eventually(`request ${released + 1} inside`, () => releases.length > released)
    releases[released]()
  }
  const bodies = await Promise.all(answers.map(async (a) => ((await a).status === 200 ? ((await (await a).json()) as { n: number }).n : (await a).status)))
  t.deepEqual(bodies, [1, 2, 3, 4, 5])
  t.is(most, 2, 'never more than the pool inside')
  t.deepEqual(entered.slice(0, 2), [1, 2])
  t.deepEqual([...entered.slice(2)].sort(), [3, 4, 5])
})

/** An app whose database queue has one slot and room for `max` waiting, with a route that holds its slot until let go. */
async function heldApp(t: ExecutionContext, queue: { max: number; waitMs: number }) {
  const db = await testDatabase()
  const roomy = { limit: 1_000, windowSeconds: 60 }
  const base = loadConfig()
  const app = buildApp({ sql: db.sql, poolSize: 1, config: { ...base, rateLimits: { key: roomy, search: roomy, anonymous: roomy }, queues: { ...base.queues, db: queue } }, log: pino({ level: 'silent' }) })
  const releases: (() => void)[] = []
  let ran = 0
  const router = new Router()
  router.get('/held', keyed({ meter: 'm_jobs_api_calls', cost: 1 }), async (ctx) => {
    ran++
    await new Promise<void>((resolve) => releases.push(resolve))
    ctx.body = { ok: true }
  })
  app.use(router.routes())
  const server = app.listen(0, '127.0.0.1')
  await new Promise((r) => server.once('listening', r))
  t.teardown(async () => {
    for (const r of releases) r()
    server.closeAllConnections()
    await new Promise((r) => server.close(r))
    await db.close()
  })
  const { accountId, key } = await createAccountWithKey(db.sql)
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/held`
  const counted = async () => (await db.sql<{ hits: number }[]>`select coalesce(sum(hits), 0)::int as hits from rate_limits`)[0].hits
  const used = async () => (await db.sql<{ used: number }[]>`select coalesce(sum(used), 0)::int as used from usage_meters where account_id = ${accountId}`)[0].used
  return { app, url, key, releases, ran: () => ran, counted, used, queue: app.context.queues!.db }
}

test('a full database queue answers 503 with Retry-After before admission: nothing counted, nothing charged', async (t) => {
  const h = await heldApp(t, { max: 1, waitMs: 60_000 })
  const first = fetch(h.url, { headers: { 'x-api-key': h.key } })
  await eventually('the first request inside', () => h.ran() === 1)
  const second = fetch(h.url, { headers: { 'x-api-key': h.key } })
  await eventually('the second waiting', () => h.queue.waiting === 1)
  const third = await fetch(h.url, { headers: { 'x-api-key': h.key } })
  t.is(third.status, 503)
  t.is(third.headers.get('retry-after'), '60')
  t.regex(((await third.json()) as { detail: string }).detail, /^The server is busy \(1 requests wait for a database connection\); retry after 60 seconds$/)
  t.is(await h.counted(), 2, 'the first and the waiting one were admitted; the refused one was not')
  h.releases[0]()
  await eventually('the second inside', () => h.ran() === 2)
  h.releases[1]()
  t.deepEqual([(await first).status, (await second).status], [200, 200])
  t.is(await h.used(), 2, 'the two answered are charged, the refused one is not')
})

test('a request that waits past the limit is 503 with Retry-After, and never runs', async (t) => {
  const h = await heldApp(t, { max: 10, waitMs: 1_000 })
  const first = fetch(h.url, { headers: { 'x-api-key': h.key } })
  await eventually('the first request inside', () => h.ran() === 1)
  const late = await fetch(h.url, { headers: { 'x-api-key': h.key } })
  t.is(late.status, 503)
  t.is(late.headers.get('retry-after'), '1')
  t.regex(((await late.json()) as { detail: string }).detail, /waited 1 s for a database connection/)
  h.releases[0]()
  t.is((await first).status, 200)
  t.is(h.ran(), 1, 'the late request never ran')
  t.is(await h.used(), 1)
})

test('a request whose client has gone while it waited is not run and not charged', async (t) => {
  const h = await heldApp(t, { max: 10, waitMs: 60_000 })
  const first = fetch(h.url, { headers: { 'x-api-key': h.key } })
  await eventually('the first request inside', () => h.ran() === 1)
  const abort = new AbortController()
  const gone = fetch(h.url, { headers: { 'x-api-key': h.key }, signal: abort.signal }).catch((e: Error) => e.name)
  await eventually('the second waiting', () => h.queue.waiting === 1)
  abort.abort()
  t.is(await gone, 'AbortError')
  await eventually('the gone request out of the queue', () => h.queue.waiting === 0)
  h.releases[0]()
  t.is((await first).status, 200)
  // a third request runs next: the gone one never did
  const third = fetch(h.url, { headers: { 'x-api-key': h.key } })
  await eventually('the third inside', () => h.ran() === 2)
  h.releases[1]()
  t.is((await third).status, 200)
  // it was admitted before it waited (admission takes no slot), and its charge refunded
  t.is(await h.counted(), 3)
  t.is(await h.used(), 2, 'the gone request is not charged')
})
