/** The error envelope on routes built for the purpose: malformed JSON, yup types, a crash. */
import test from 'ava'
import Koa from 'koa'
import Router from '@koa/router'
import pino from 'pino'
import { Writable } from 'node:stream'
import type { AddressInfo } from 'node:net'
import { array, number, object, string } from 'yup'
import { clip, errorHandler, errors } from '../../api/errors.ts'
import { jsonBody } from '../../api/middleware/body.ts'
import { requestLog } from '../../api/middleware/request-log.ts'
import { validate } from '../../api/validate.ts'

async function serve() {
  const logs: string[] = []
  const app = new Koa()
  const log = pino({}, new Writable({ write: (c, _e, cb) => (logs.push(String(c)), cb()) }))
  app.on('error', (err: Error) => log.error({ err: { message: err.message, stack: err.stack } }))
  // in app.ts's order: the request log runs inside errorHandler
  app.use(errorHandler)
  app.use(requestLog(log))
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
  t.is(detail.length, 1)
  // ctx.error is the parser's own message
  t.deepEqual({ ...detail[0], ctx: undefined }, { type: 'json_invalid', loc: ['body', 0], msg: 'JSON decode error', input: {}, ctx: undefined })
  t.regex(detail[0].ctx.error, /JSON/)
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
  t.deepEqual(await res.json(), { detail: 'Request body too large' })
})

/** The request log's line for a response, once the response is done. */
async function logged(logs: string[], res: Response) {
  const id = res.headers.get('x-request-id')
  for (let i = 0; i < 100; i++) {
    const line = logs.find((l) => l.includes(`"req_id":"${id}"`) && l.includes('"status"'))
    if (line) return JSON.parse(line)
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error(`no request log line for ${id}`)
}

test('the request log records the status errorHandler sent, though it runs inside it', async (t) => {
  const s = await serve()
  t.teardown(s.close)
  const boom = await fetch(`${s.base}/boom`)
  t.is(boom.status, 500)
  t.like(await logged(s.logs, boom), { status: 500, route: '/boom', method: 'GET' })
  const invalid = await post(s.base, '{"name": 1}')
  t.is(invalid.status, 422)
  t.is((await logged(s.logs, invalid)).status, 422)
  const missing = await fetch(`${s.base}/nope`)
  t.is((await logged(s.logs, missing)).status, 404)
})

test('clip bounds what a 422 echoes', (t) => {
  t.is(clip('short'), 'short')
  t.is(clip('s'.repeat(101)), `${'s'.repeat(100)}… (101 characters)`)
  t.deepEqual(clip(Array.from({ length: 12 }, (_, i) => i)), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, '… 2 more items'])
  t.deepEqual(clip(Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, i]))), {
    ...Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, i])),
    '…': '1 more keys',
  })
  t.deepEqual(clip([[[[1]]]]), [[['[list of 1 items]']]])
  t.deepEqual(clip({ a: { b: { c: {} } } }), { a: { b: { c: '{object with 0 keys}' } } })
  t.is(clip(Infinity), 'Infinity')
  t.is(clip(Number.NaN), 'NaN')
  t.is(clip(undefined), null)
  for (const v of [null, true, 0, -1.5]) t.is(clip(v), v)
  // however wide, at most 50 values come back
  const wide = Array.from({ length: 10 }, () => Array.from({ length: 10 }, () => Array.from({ length: 10 }, () => 'x'.repeat(1000))))
  t.true(JSON.stringify(clip(wide)).length < 10_000)
  // and the factory applies it to every item, sorted fields before their elements, with the overflow counted
  const made = errors.validation([
    ...Array.from({ length: 30 }, (_, i) => ({ type: 'string_type', loc: ['body', 'tags', i], msg: 'Input should be a valid string', input: 'y'.repeat(200) })),
    { type: 'too_long', loc: ['body', 'tags'], msg: 'm'.repeat(1000), input: [] },
  ])
  const items = made.detail as { type: string; msg: string; input: unknown }[]
  t.is(items.length, 21)
  t.is(items[0].type, 'too_long')
  t.is(items[0].msg, `${'m'.repeat(500)}… (1000 characters)`)
  t.is(items[1].input, `${'y'.repeat(100)}… (200 characters)`)
  t.deepEqual(items[20], { type: 'too_many_errors', loc: ['body'], msg: '11 more errors not shown', input: null })
})
