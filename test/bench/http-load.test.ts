/** The metering bench's load generator counts what it was sent, and refuses what it cannot read. */
import test from 'ava'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { runLoad } from './http-load.ts'

async function serve(handler: Parameters<typeof createServer>[1]) {
  const server: Server = createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, port: (server.address() as AddressInfo).port }
}

test('every response is counted once, non-2xx apart, with each request sending its own key', async (t) => {
  const seen: string[] = []
  const { server, port } = await serve((req, res) => {
    seen.push(`${req.url} ${req.headers['x-api-key']}`)
    const body = req.url === '/missing' ? '{"detail":"Not Found"}' : JSON.stringify({ ok: true, pad: 'x'.repeat(20_000) })
    // one name as Koa writes it, one lower-cased: both are read
    res.statusCode = req.url === '/missing' ? 404 : 200
    res.setHeader(req.url === '/missing' ? 'content-length' : 'Content-Length', Buffer.byteLength(body))
    res.end(body)
  })
  t.teardown(() => server.close())
  const requests = [{ path: '/ok', key: 'k1' }, { path: '/missing', key: 'k2' }]
  const r = await runLoad({ host: '127.0.0.1', port, requests, n: 60, concurrency: 6 })
  t.is(r.failure, null)
  t.is(seen.length, 60, 'exactly n requests, none after the last response')
  t.is(r.non2xx, 30)
  t.is(seen.filter((s) => s === '/missing k2').length, 30)
  t.true(r.median > 0 && r.median <= r.p975 && r.mean > 0)
})

test('a response without Content-Length is a failure, not a hang', async (t) => {
  const { server, port } = await serve((_req, res) => {
    res.write('chunked')
    res.end()
  })
  t.teardown(() => server.close())
  const r = await runLoad({ host: '127.0.0.1', port, requests: [{ path: '/', key: 'k' }], n: 5, concurrency: 2 })
  t.is(r.failure, 'a response without Content-Length')
})

test('a refused connection is a failure', async (t) => {
  const { server, port } = await serve(() => {})
  await new Promise((resolve) => server.close(resolve))
  const r = await runLoad({ host: '127.0.0.1', port, requests: [{ path: '/', key: 'k' }], n: 5, concurrency: 2 })
  t.regex(r.failure ?? '', /ECONNREFUSED/)
})
