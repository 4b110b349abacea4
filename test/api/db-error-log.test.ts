/**
 * A Postgres error that errorHandler maps to a status (23505 → 409, 22P02 → 400) is
 * answered as before and logged at warn under the request id, with what Postgres said
 * but not its detail (the duplicated values). The queries run on a real database.
 */
import anyTest, { type TestFn } from 'ava'
import Koa from 'koa'
import Router from '@koa/router'
import pino from 'pino'
import { randomUUID } from 'node:crypto'
import { Writable } from 'node:stream'
import type { AddressInfo } from 'node:net'
import { errorHandler, logErrors } from '../../api/errors.ts'
import { requestLog } from '../../api/middleware/request-log.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'

type Ctx = { db: TestDb; base: string; logs: string[]; close: () => void }
const test = anyTest as TestFn<Ctx>

test.before(async (t) => {
  const db = await testDatabase()
  const logs: string[] = []
  const log = pino({ level: 'info' }, new Writable({ write: (c, _e, cb) => (logs.push(String(c)), cb()) }))
  // as buildApp wires it: errors first, the request log inside, logErrors on the app
  const app = new Koa()
  logErrors(app, log)
  app.use(errorHandler)
  app.use(requestLog(log))
  const router = new Router()
  router.get('/duplicate/:name', async (ctx) => {
    const row = { name: ctx.params.name, value: 'private-value-of-the-row' }
    await db.sql`insert into service_secrets ${db.sql(row, 'name', 'value')}`
    await db.sql`insert into service_secrets ${db.sql(row, 'name', 'value')}`
    ctx.body = {}
  })
  router.get('/uuid/:value', async (ctx) => {
    ctx.body = await db.sql`select ${ctx.params.value}::uuid as id`
  })
  app.use(router.routes())
  const server = app.listen(0, '127.0.0.1')
  await new Promise((r) => server.once('listening', r))
  t.context = { db, logs, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => (server.closeAllConnections(), server.close()) }
})
test.after.always(async (t) => {
  t.context.close?.()
  await t.context.db?.close()
})

/** The warn line logged for the response's request. */
function warned(logs: string[], res: Response) {
  const id = res.headers.get('x-request-id')
  return logs.map((l) => JSON.parse(l)).filter((l) => l.req_id === id && l.level === 40)
}

test('a unique violation is still a 409, and the log has it at warn with the request id, without the values', async (t) => {
  const res = await fetch(`${t.context.base}/duplicate/${randomUUID()}`)
  t.is(res.status, 409)
  t.deepEqual(await res.json(), { detail: 'Conflict: the resource already exists' })
  const [line, ...more] = warned(t.context.logs, res)
  t.is(more.length, 0)
  t.like(line, { route: '/duplicate/:name', status: 409, msg: 'database error answered with its mapped status' })
  t.like(line.err, { code: '23505', constraint_name: 'service_secrets_pkey', table_name: 'service_secrets' })
  t.regex(line.err.message, /duplicate key value violates unique constraint "service_secrets_pkey"/)
  t.false(t.context.logs.join('').includes('private-value-of-the-row'), 'the detail, with the row\'s values, is not logged')
})

test('invalid text for a type is still a 400, and is logged at warn', async (t) => {
  const res = await fetch(`${t.context.base}/uuid/not-a-uuid`)
  t.is(res.status, 400)
  t.deepEqual(await res.json(), { detail: 'Invalid input syntax' })
  const [line] = warned(t.context.logs, res)
  t.like(line, { route: '/uuid/:value', status: 400 })
  t.like(line?.err, { code: '22P02' })
  t.regex(line?.err.message ?? '', /invalid input syntax for type uuid/)

  const ok = await fetch(`${t.context.base}/uuid/${randomUUID()}`)
  t.is(ok.status, 200)
  t.deepEqual(warned(t.context.logs, ok), [], 'nothing is logged at warn for a request that worked')
})
