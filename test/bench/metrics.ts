/**
 * GET /metrics under load: the time a scrape takes, from the scraper's side, while a
 * closed-loop load generator (http-load.ts, in its own process) sends job lookups at
 * 0, 10 and 50 in flight. The server runs in this process, as in the tests, on the
 * embedded database or TEST_DATABASE_URL's server. A scrape reads memory only (the
 * database series are read on a timer, api/metrics.ts), so what it waits for is the
 * event loop the lookups keep busy. Prints a table; the target is ≤ 50 ms.
 *
 *   nice -n 10 node --import tsx test/bench/metrics.ts
 *   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test nice -n 10 node --import tsx test/bench/metrics.ts
 *
 * BENCH_REQUESTS (default 20000) lookups a level; scrapes every BENCH_SCRAPE_MS (100).
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { loadConfig } from '../../sql/config.ts'
import { startTestApp } from '../helpers/app.ts'
import { createAccountWithKey } from '../helpers/factories.ts'
import { seedCompany } from '../billing/fixtures.ts'
import type { LoadJob, LoadResult } from './http-load.ts'

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
const loadGenerator = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./http-load.ts', import.meta.url))], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
const runLoad = (job: LoadJob) =>
  new Promise<LoadResult>((resolve) => {
    loadGenerator.once('message', (m) => resolve(m as LoadResult))
    loadGenerator.send(job)
  })

const pct = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]

try {
  const company = await seedCompany(app.db.sql, 50)
  // scale plan: no lookup meets a cap
  const keys = await Promise.all(Array.from({ length: 20 }, () => createAccountWithKey(app.db.sql, 'scale')))
  const requests = keys.flatMap(({ key }, i) => company.jobIds.slice(0, 10).map((id, j) => ({ path: `/v2/jobs/${company.jobIds[(i + j) % company.jobIds.length] ?? id}`, key })))
  const port = Number(new URL(app.base).port)

  const rows: string[][] = []
  for (const concurrency of LEVELS) {
    const times: number[] = []
    let bytes = 0
    let series = 0
    let scraping = true
    const scraper = (async () => {
      while (scraping) {
        const t0 = performance.now()
        const res = await fetch(`${app.base}/metrics`, { headers: { authorization: 'Bearer bench' } })
        const text = await res.text()
        times.push(performance.now() - t0)
        bytes = text.length
        series = text.split('\n').filter((l) => l && !l.startsWith('#')).length
        await new Promise((r) => setTimeout(r, SCRAPE_MS))
      }
    })()
    const started = performance.now()
    let load: LoadResult | null = null
    if (concurrency > 0) load = await runLoad({ host: '127.0.0.1', port, requests, n: N, concurrency })
    else await new Promise((r) => setTimeout(r, 5000))
    const seconds = (performance.now() - started) / 1000
    scraping = false
    await scraper
    if (load?.failure) throw new Error(load.failure)
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
      String(series),
      String(bytes),
    ])
  }
  const head = ['in flight', 'lookups/s', 'lookup median ms', 'non-2xx', 'scrapes', 'scrape median ms', 'scrape p95 ms', 'scrape max ms', 'samples', 'bytes']
  console.log(`GET /metrics while GET /v2/jobs/{id} runs closed-loop (${N} a level), ${app.db.kind} database, ${new Date().toISOString().slice(0, 10)}`)
  console.log(`| ${head.join(' | ')} |`)
  console.log(`|${head.map(() => '---').join('|')}|`)
  for (const r of rows) console.log(`| ${r.join(' | ')} |`)
} finally {
  loadGenerator.kill()
  await app.close()
}
