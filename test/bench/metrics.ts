/**
 * GET /metrics under load: the time a scrape takes, from a scraper in a process of its
 * own (metrics-scraper.ts, as Prometheus scrapes), while a closed-loop load generator
 * (http-load.ts, another process) sends job lookups at 0, 10 and 50 in flight. The
 * server runs in this process, as in the tests, on the embedded database or
 * TEST_DATABASE_URL's server. Beside the scraper's times the table gives the server's
 * own time for a scrape (jds_http_request_duration_seconds of /metrics: arrival to
 * response) and the server's event-loop delay (perf_hooks), which is what a scrape
 * waits for: a scrape reads memory only (the database series are read on a timer,
 * api/metrics.ts). Prints a table; the target is ≤ 50 ms.
 *
 *   nice -n 10 node --import tsx test/bench/metrics.ts
 *   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test nice -n 10 node --import tsx test/bench/metrics.ts
 *
 * BENCH_REQUESTS (default 20000) lookups a level; scrapes every BENCH_SCRAPE_MS (100).
 */
import { spawn } from 'node:child_process'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { loadConfig } from '../../sql/config.ts'
import { startTestApp } from '../helpers/app.ts'
import { createAccountWithKey } from '../helpers/factories.ts'
import { seedCompany } from '../billing/fixtures.ts'
import type { LoadJob, LoadResult } from './http-load.ts'
import type { ScrapeResult } from './metrics-scraper.ts'

const N = Number(process.env.BENCH_REQUESTS ?? 20_000)
const SCRAPE_MS = Number(process.env.BENCH_SCRAPE_MS ?? 100)
const LEVELS = [0, 10, 50]

const base = loadConfig()
const app = await startTestApp({
  embedder: null,
  config: {
    metrics: { enabled: true, token: 'bench', refreshSeconds: 5 },
    rateLimits: { ...base.rateLimits, key: { limit: 10_000_000, windowSeconds: 60 } },
  },
})
const child = (file: string) => spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL(file, import.meta.url))], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
const loadGenerator = child('./http-load.ts')
const scraper = child('./metrics-scraper.ts')
const runLoad = (job: LoadJob) =>
  new Promise<LoadResult>((resolve) => {
    loadGenerator.once('message', (m) => resolve(m as LoadResult))
    loadGenerator.send(job)
  })
const scraped = () => new Promise<ScrapeResult>((resolve) => scraper.once('message', (m) => resolve(m as ScrapeResult)))

/** The server's own time for the /metrics scrapes so far: their count and summed seconds, from the histogram's lines. */
function serverScrapes(text: string) {
  const of = (name: 'sum' | 'count') =>
    [...text.matchAll(new RegExp(`^jds_http_request_duration_seconds_${name}\\{[^}]*route="/metrics"[^}]*\\} (\\S+)$`, 'gm'))].reduce((n, m) => n + Number(m[1]), 0)
  return { count: of('count'), seconds: of('sum') }
}

const pct = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]

try {
  const company = await seedCompany(app.db.sql, 50)
  // scale plan: no lookup meets a cap
  const keys = await Promise.all(Array.from({ length: 20 }, () => createAccountWithKey(app.db.sql, 'scale')))
  const requests = keys.flatMap(({ key }, i) => company.jobIds.slice(0, 10).map((id, j) => ({ path: `/v2/jobs/${company.jobIds[(i + j) % company.jobIds.length] ?? id}`, key })))
  const port = Number(new URL(app.base).port)

  const rows: string[][] = []
  const url = `${app.base}/metrics`
  // a first scrape: what loads once (the scraper's fetch, the first render) is no level's
  await fetch(url, { headers: { authorization: 'Bearer bench' } }).then((r) => r.text())
  let before = serverScrapes(await (await fetch(url, { headers: { authorization: 'Bearer bench' } })).text())
  const delay = monitorEventLoopDelay({ resolution: 5 })
  for (const concurrency of LEVELS) {
    const done = scraped()
    scraper.send({ url, token: 'bench', everyMs: SCRAPE_MS })
    delay.reset()
    delay.enable()
    const started = performance.now()
    let load: LoadResult | null = null
    if (concurrency > 0) load = await runLoad({ host: '127.0.0.1', port, requests, n: N, concurrency })
    else await new Promise((r) => setTimeout(r, 5000))
    const seconds = (performance.now() - started) / 1000
    delay.disable()
    scraper.send('stop')
    const { times, bytes, samples, last } = await done
    if (load?.failure) throw new Error(load.failure)
    const after = serverScrapes(last)
    const serverMs = after.count > before.count ? ((after.seconds - before.seconds) / (after.count - before.count)) * 1000 : NaN
    before = after
    const sorted = times.sort((a, b) => a - b)
    rows.push([
      String(concurrency),
      load ? (N / seconds).toFixed(0) : '-',
      load ? load.median.toFixed(1) : '-',
      load ? String(load.non2xx) : '-',
      String(sorted.length),
      pct(sorted, 0.5).toFixed(1),
      pct(sorted, 0.95).toFixed(1),
      sorted[sorted.length - 1].toFixed(1),
      serverMs.toFixed(2),
      `${(delay.percentile(50) / 1e6).toFixed(0)} / ${(delay.percentile(99) / 1e6).toFixed(0)} / ${(delay.max / 1e6).toFixed(0)}`,
      String(samples),
      String(bytes),
    ])
  }
  const head = ['in flight', 'lookups/s', 'lookup median ms', 'non-2xx', 'scrapes', 'scrape median ms', 'scrape p95 ms', 'scrape max ms', 'server mean ms', 'event-loop delay p50 / p99 / max ms', 'samples', 'bytes']
  console.log(`GET /metrics while GET /v2/jobs/{id} runs closed-loop (${N} a level), ${app.db.kind} database, ${new Date().toISOString().slice(0, 10)}`)
  console.log(`| ${head.join(' | ')} |`)
  console.log(`|${head.map(() => '---').join('|')}|`)
  for (const r of rows) console.log(`| ${r.join(' | ')} |`)
} finally {
  loadGenerator.kill()
  scraper.kill()
  await app.close()
}
