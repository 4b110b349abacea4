/**
 * A closed-loop HTTP/1.1 load generator for the metering bench, run as a child process
 * (`node --import tsx test/bench/http-load.ts`, driven over IPC): `concurrency`
 * kept-alive connections, each sending its next GET as soon as the last response has
 * arrived, until n responses are in. It answers with exact latency percentiles in
 * milliseconds (from hrtime, not whole ms) and the count of non-2xx responses.
 *
 * Why not autocannon: on a 2-core machine the load generator shares the cores with the
 * server it measures, and autocannon parses every response header in JavaScript
 * (http-parser-js), which cost it about 6 µs more a response for the twelve headers a
 * metered response carries: CPU the server then lacks, counted as metering's latency.
 * This one finds the end of each response with Buffer.indexOf and reads only the
 * status and Content-Length, so what it spends does not grow with the headers. It
 * speaks just enough HTTP for the bench's own server: responses with Content-Length,
 * no chunked bodies, no pipelining.
 */
import { connect, type Socket } from 'node:net'
import { resolve as resolvePath } from 'node:path'
import { fileURLToPath } from 'node:url'

export type LoadJob = { host: string; port: number; requests: { path: string; key: string }[]; n: number; concurrency: number }
export type LoadResult = { median: number; mean: number; p95: number; p975: number; non2xx: number; failure: string | null }

const headEnd = Buffer.from('\r\n\r\n')
const lengthHeader = Buffer.from('\r\ncontent-length:')

/** The value of Content-Length in a response head, or -1. */
function contentLength(head: Buffer) {
  // header names are case-insensitive: find the name in a lower-cased copy of the head
  let at = head.indexOf('\r\nContent-Length:')
  if (at < 0) at = Buffer.from(head.toString('latin1').toLowerCase(), 'latin1').indexOf(lengthHeader)
  if (at < 0) return -1
  let n = 0
  let i = at + lengthHeader.length
  while (head[i] === 0x20) i++
  for (; head[i] >= 0x30 && head[i] <= 0x39; i++) n = n * 10 + (head[i] - 0x30)
  return n
}

export function runLoad(job: LoadJob): Promise<LoadResult> {
  const messages = job.requests.map((r) => Buffer.from(`GET ${r.path} HTTP/1.1\r\nHost: ${job.host}:${job.port}\r\nx-api-key: ${r.key}\r\n\r\n`, 'latin1'))
  const latencies = new Float64Array(job.n)
  let sent = 0
  let done = 0
  let non2xx = 0
  return new Promise((resolve) => {
    const sockets: Socket[] = []
    let finished = false
    const finish = (failure: string | null) => {
      if (finished) return
      finished = true
      for (const s of sockets) s.destroy()
      if (failure) return resolve({ median: NaN, mean: NaN, p95: NaN, p975: NaN, non2xx, failure })
      const sorted = latencies.sort()
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
      let sum = 0
      for (const l of sorted) sum += l
      resolve({ median: at(0.5), mean: sum / sorted.length, p95: at(0.95), p975: at(0.975), non2xx, failure: null })
    }
    for (let c = 0; c < Math.min(job.concurrency, job.n); c++) {
      const socket = connect({ host: job.host, port: job.port, noDelay: true })
      sockets.push(socket)
      let pending: Buffer | null = null
      let started = 0n
      const next = () => {
        if (sent >= job.n) return
        started = process.hrtime.bigint()
        socket.write(messages[sent++ % messages.length])
      }
      socket.once('connect', next)
      socket.on('error', (err) => finish(`connection ${c}: ${err.message}`))
      socket.on('data', (chunk: Buffer) => {
        pending = pending ? Buffer.concat([pending, chunk]) : chunk
        const end = pending.indexOf(headEnd)
        if (end < 0) return
        const length = contentLength(pending.subarray(0, end + 2))
        if (length < 0) return finish('a response without Content-Length')
        const total = end + headEnd.length + length
        if (pending.length < total) return
        if (pending.length > total) return finish('more bytes than one response: the server sent what was not asked for')
        const status = (pending[9] - 0x30) * 100 + (pending[10] - 0x30) * 10 + (pending[11] - 0x30)
        if (status < 200 || status > 299) non2xx++
        pending = null
        latencies[done++] = Number(process.hrtime.bigint() - started) / 1e6
        if (done === job.n) return finish(null)
        next()
      })
    }
  })
}

// run as the bench's child process: one job per IPC message, one result back (a test
// that imports this module runs under a parent of its own, which must not be answered)
if (process.send && process.argv[1] && resolvePath(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.on('message', (job: LoadJob) => {
    runLoad(job).then((result) => process.send!(result))
  })
}
