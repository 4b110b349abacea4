/** The error envelope on routes built for the purpose: malformed JSON, yup types, a crash. */
import test from 'ava'
import Koa from 'koa'
import Router from '@koa/router'
import pino from 'pino'
import { Writable } from 'node:stream'
import type { AddressInfo } from 'node:net'
import { array, number, object, string } from 'yup'
import { errorHandler } from '../../api/errors.ts'
import { jsonBody } from '../../api/middleware/body.ts'
import { validate } from '../../api/validate.ts'

async function serve() {
  const logs: string[] = []
  const app = new Koa()
  const log = pino({}, new Writable({ write: (c, _e, cb) => (logs.push(String(c)), cb()) }))
  app.on('error', (err: Error) => log.error({ err: { message: err.message, stack: err.stack } }))
  app.use(errorHandler)
  const schema = object({ name: string().required(), tags: array(string().required()), count: number().integer(), flag: string().oneOf(['true', 'false']) })
  const router = new Router()
  router.post('/echo', jsonBody(), async (ctx) => {
    ctx.body = await validate(schema, ctx.request.body)
  })
  router.get('/boom', () => {
    throw new Error('secret internals at /srv/app.ts:42')
  })
  app.use(router.routes()).use(router.allowedMethods())
  const server = app.listen(0)
  await new Promise((r) => server.once('listening', r))
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, logs, close: () => (server.close(), server.closeAllConnections()) }
}

const post = (base: string, body: string) => fetch(`${base}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })

test('malformed JSON is 422 json_invalid', async (t) => {
  const s = await serve()
  t.teardown(s.close)
  const res = await post(s.base, '{"name": ')
  t.is(res.status, 422)
  const { detail } = await res.json()
  t.is(detail[0].type, 'json_invalid')
  t.is(detail[0].loc[0], 'body')
  t.truthy(detail[0].msg)
})

test('wrong types and missing fields are 422 items with type, loc, msg, input', async (t) => {
  const s = await serve()
  t.teardown(s.close)
  const res = await post(s.base, JSON.stringify({ tags: 'x', count: 1.5, flag: true }))
  t.is(res.status, 422)
  const { detail } = await res.json()
  const by = Object.fromEntries(detail.map((d: { loc: (string | number)[] }) => [d.loc.slice(1).join('.'), d]))
  t.deepEqual(by.name, { type: 'missing', loc: ['body', 'name'], msg: 'Field required', input: null })
  t.is(by.tags.type, 'list_type')
  t.is(by.tags.input, 'x')
  t.is(by.count.type, 'int_type')
  t.is(by.flag.type, 'string_type')
  t.is(by.flag.input, true)

  const nested = await (await post(s.base, JSON.stringify({ name: 'a', tags: ['ok', 5] }))).json()
  t.deepEqual(nested.detail[0].loc, ['body', 'tags', 1])
  t.is(nested.detail[0].type, 'string_type')

  const ok = await post(s.base, JSON.stringify({ name: 'a', tags: ['b'], flag: 'true' }))
  t.is(ok.status, 200)
})

test('an unexpected failure is a bare 500; the stack goes only to the log', async (t) => {
  const s = await serve()
  t.teardown(s.close)
  const res = await fetch(`${s.base}/boom`)
  t.is(res.status, 500)
  const text = await res.text()
  t.is(text, '{"detail":"Internal Server Error"}')
  t.true(s.logs.some((l) => l.includes('secret internals') && l.includes('stack')))
})

test('a body over the limit is refused while it streams', async (t) => {
  const s = await serve()
  t.teardown(s.close)
  const res = await post(s.base, JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }))
  t.is(res.status, 413)
  t.is(typeof (await res.json()).detail, 'string')
})
