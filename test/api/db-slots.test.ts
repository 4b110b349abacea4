/**
 * The app's database slots (api/middleware/db-slots.ts): at most poolSize keyed requests
 * run at once; the others wait, and all are answered. A route of the test's
 * own, behind keyed(), holds each request until the test lets it go.
 */
import type { AddressInfo } from 'node:net'
import Router from '@koa/router'
import test from 'ava'
import pino from 'pino'
import { buildApp } from '../../api/app.ts'
import { keyed } from '../../api/middleware/keyed.ts'
import { loadConfig } from '../../sql/config.ts'
import { testDatabase } from '../helpers/db.ts'
import { createAccountWithKey } from '../helpers/factories.ts'

async function until(check: () => boolean, what: string, ms = 30_000) {
  for (const end = Date.now() + ms; !check(); ) {
    if (Date.now() > end) throw new Error(`still waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

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
    await until(() => entered.length === n, `request ${n} inside`)
  }
  for (let n = 3; n <= 5; n++) answers.push(fetch(`${base}/held/${n}`, { headers: { 'x-api-key': key } }))
  const slots = app.context.dbSlots!
  await until(() => slots.pendingCount === 3, 'three requests waiting for a slot')
  t.is(inside, 2, 'the pool of 2 holds two requests; the other three wait')
  // let them out one at a time: each frees a slot for a waiting one
  for (let released = 0; released < 5; released++) {
    await until(() => releases.length > released, `request ${released + 1} inside`)
    releases[released]()
  }
  const bodies = await Promise.all(answers.map(async (a) => ((await a).status === 200 ? ((await (await a).json()) as { n: number }).n : (await a).status)))
  t.deepEqual(bodies, [1, 2, 3, 4, 5])
  t.is(most, 2, 'never more than the pool inside')
  t.deepEqual(entered.slice(0, 2), [1, 2])
  t.deepEqual([...entered.slice(2)].sort(), [3, 4, 5])
})
