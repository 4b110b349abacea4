/**
 * setKnownHeaders: on a plain response it writes into the table Node's setHeader fills;
 * on an ApiResponse the headers wait beside it and go out after the status line. Either
 * way what it sets must read back, be written on the wire, and replace or be replaced
 * like any header: a property test runs random sequences of header calls on both
 * kinds of response and on one that only ever used setHeader.
 */
import test from 'ava'
import fc from 'fast-check'
import { createServer, get, IncomingMessage, ServerResponse, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Socket } from 'node:net'
import { ApiResponse, headerName, setKnownHeaders, type HeaderName } from '../../api/response-headers.ts'
import type { ServerResponse as Res } from 'node:http'

const setKnownHeader = (res: Res, h: HeaderName, value: string) => setKnownHeaders(res, [h], [value])

const usedHeader = headerName('Platform-Usage-Included-Used')
const limitHeader = headerName('X-RateLimit-Limit')
const response = () => new ServerResponse(new IncomingMessage(new Socket()))

test('a name is checked once, as setHeader would check it', (t) => {
  t.throws(() => headerName('Bad Name'), { code: 'ERR_INVALID_HTTP_TOKEN' })
  t.deepEqual(headerName('X-RateLimit-Reset'), { name: 'X-RateLimit-Reset', lower: 'x-ratelimit-reset', line: '\r\nX-RateLimit-Reset: ' })
})

test('with no header set yet, and after one: both read back like setHeader', (t) => {
  const res = response()
  setKnownHeader(res, limitHeader, '100')
  res.setHeader('Content-Type', 'application/json')
  setKnownHeader(res, usedHeader, '42')
  t.is(res.getHeader('x-ratelimit-limit'), '100')
  t.is(res.getHeader('platform-usage-included-used'), '42')
  t.deepEqual(res.getHeaderNames(), ['x-ratelimit-limit', 'content-type', 'platform-usage-included-used'])
  setKnownHeader(res, usedHeader, '43')
  t.is(res.getHeader('Platform-Usage-Included-Used'), '43', 'set again, replaced')
  res.removeHeader('platform-usage-included-used')
  t.false(res.hasHeader('platform-usage-included-used'))
})

test('tests check the value: one setHeader would refuse is refused', (t) => {
  const res = response()
  res.setHeader('Content-Type', 'application/json')
  t.throws(() => setKnownHeader(res, usedHeader, '1\r\nX-Injected: yes'), { code: 'ERR_INVALID_CHAR' })
})

for (const kind of ['a plain response', 'an ApiResponse'] as const)
test(`on the wire, with the name as given: ${kind}`, async (t) => {
  const server: Server = createServer({ ServerResponse: kind === 'an ApiResponse' ? ApiResponse : ServerResponse }, (_req, res) => {
    res.setHeader('Content-Type', 'text/plain')
    setKnownHeaders(res, [limitHeader, usedHeader], ['100', '7'])
    res.end('ok')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => server.close())
  const raw = await new Promise<string[]>((resolve, reject) =>
    get(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, (res) => {
      res.resume()
      res.on('end', () => resolve(res.rawHeaders))
    }).on('error', reject),
  )
  const pairs = Object.fromEntries(raw.flatMap((v, i) => (i % 2 === 0 ? [[v, raw[i + 1]]] : [])))
  t.is(pairs['X-RateLimit-Limit'], '100')
  t.is(pairs['Platform-Usage-Included-Used'], '7')
})

// the property test: the same calls on a response that only uses setHeader (the
// reference), a plain response and an ApiResponse given the known headers through
// setKnownHeaders; every answer and the head written must agree (header order
// aside: an ApiResponse writes its waiting headers first, and HTTP gives no meaning to
// the order of different names)
const rateLimit = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'].map(headerName)
const usage = ['Platform-Usage-Feature', 'Platform-Usage-Included-Used', 'Platform-Usage-Total-Used'].map(headerName)
const groups = [rateLimit, usage]
const pool = [...rateLimit, ...usage].map((h) => h.name).concat('Content-Type', 'Content-Length', 'X-Request-Id', 'Access-Control-Expose-Headers')
const anyCase = (name: string) => fc.array(fc.boolean(), { minLength: name.length, maxLength: name.length }).map((up) => [...name].map((c, i) => (up[i] ? c.toUpperCase() : c.toLowerCase())).join(''))
const aName = fc.constantFrom(...pool).chain(anyCase)
const aValue = fc.stringMatching(/^[0-9a-z_]{1,8}$/)

type Op =
  | { op: 'known'; group: number; values: string[] }
  | { op: 'set' | 'append'; name: string; value: string }
  | { op: 'get' | 'has' | 'remove'; name: string }
  | { op: 'names' | 'headers' }
const anOp: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('known' as const), group: fc.integer({ min: 0, max: 1 }) }).chain(({ group }) =>
    fc.array(aValue, { minLength: 1, maxLength: groups[group].length }).map((values) => ({ op: 'known' as const, group, values })),
  ),
  fc.record({ op: fc.constantFrom('set' as const, 'append' as const), name: aName, value: aValue }),
  fc.record({ op: fc.constantFrom('get' as const, 'has' as const, 'remove' as const), name: aName }),
  fc.record({ op: fc.constantFrom('names' as const, 'headers' as const) }),
)

function play(res: ServerResponse, ops: Op[], end: { status: number; headers: Record<string, string> | null }, reference: boolean) {
  res.sendDate = false
  const answers: unknown[] = []
  for (const o of ops) {
    if (o.op === 'known') {
      if (reference) o.values.forEach((v, i) => res.setHeader(groups[o.group][i].name, v))
      else setKnownHeaders(res, groups[o.group], o.values)
    } else if (o.op === 'set') res.setHeader(o.name, o.value)
    else if (o.op === 'append') res.appendHeader(o.name, o.value)
    else if (o.op === 'remove') res.removeHeader(o.name)
    else if (o.op === 'get') answers.push(res.getHeader(o.name))
    else if (o.op === 'has') answers.push(res.hasHeader(o.name))
    else if (o.op === 'names') answers.push([...res.getHeaderNames()].sort())
    else answers.push({ ...res.getHeaders() })
  }
  if (end.headers) res.writeHead(end.status, end.headers)
  else res.writeHead(end.status)
  // the head Node wrote: its lines, order aside
  const head = (res as unknown as { _header: string })._header.split('\r\n')
  return { answers, status: head[0], lines: head.slice(1).sort() }
}

test('any sequence of header calls: an ApiResponse and a plain response answer and write what setHeader alone would', (t) => {
  fc.assert(
    fc.property(
      fc.array(anOp, { maxLength: 25 }),
      fc.record({ status: fc.constantFrom(200, 404, 429), headers: fc.option(fc.dictionary(aName, aValue, { maxKeys: 3 }), { nil: null }) }),
      (ops, end) => {
        const reference = play(response(), ops, end, true)
        t.deepEqual(play(response(), ops, end, false), reference)
        t.deepEqual(play(new ApiResponse(new IncomingMessage(new Socket())), ops, end, false), reference)
      },
    ),
    { numRuns: 500 },
  )
})

test('an ApiResponse writes waiting headers right after the status line; once the head is written, none can be set', (t) => {
  const res = new ApiResponse(new IncomingMessage(new Socket()))
  res.sendDate = false
  res.setHeader('Content-Type', 'application/json')
  setKnownHeaders(res, rateLimit, ['100', '99', '60'])
  setKnownHeaders(res, usage, ['jobs_api', '7', '7'])
  res.writeHead(200)
  const head = (res as unknown as { _header: string })._header
  t.is(
    head,
    'HTTP/1.1 200 OK\r\nX-RateLimit-Limit: 100\r\nX-RateLimit-Remaining: 99\r\nX-RateLimit-Reset: 60\r\n' +
      'Platform-Usage-Feature: jobs_api\r\nPlatform-Usage-Included-Used: 7\r\nPlatform-Usage-Total-Used: 7\r\n' +
      'Content-Type: application/json\r\nConnection: close\r\n\r\n',
  )
  t.throws(() => setKnownHeaders(res, rateLimit, ['1']), { code: 'ERR_HTTP_HEADERS_SENT' })
})
