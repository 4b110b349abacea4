/**
 * setKnownHeaders writes into the table Node's setHeader fills: what it sets must read
 * back, be written on the wire, and replace or be replaced like any header.
 */
import test from 'ava'
import { createServer, get, IncomingMessage, ServerResponse, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Socket } from 'node:net'
import { headerName, setKnownHeaders, type HeaderName } from '../../api/response-headers.ts'
import type { ServerResponse as Res } from 'node:http'

const setKnownHeader = (res: Res, h: HeaderName, value: string) => setKnownHeaders(res, [h], [value])

const usedHeader = headerName('Platform-Usage-Included-Used')
const limitHeader = headerName('X-RateLimit-Limit')
const response = () => new ServerResponse(new IncomingMessage(new Socket()))

test('a name is checked once, as setHeader would check it', (t) => {
  t.throws(() => headerName('Bad Name'), { code: 'ERR_INVALID_HTTP_TOKEN' })
  t.deepEqual(headerName('X-RateLimit-Reset'), { name: 'X-RateLimit-Reset', lower: 'x-ratelimit-reset' })
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

test('on the wire, with the name as given', async (t) => {
  const server: Server = createServer((_req, res) => {
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
