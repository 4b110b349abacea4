/**
 * `make bench` (market data part): POST /v2/jobs/insights over a mix of filter shapes,
 * and POST /v2/jobs/salary-benchmark from creation to finish, over HTTP on the search
 * bench's corpus (100,000 generated postings, about 77,000 of them live; built once by
 * search-mix.ts on BENCH_DATABASE_URL). The benchmark's task runs in this process's
 * workers, as `npm start` runs them. Prints tables; the targets are, for insights, a
 * median of at most 200 ms and a p95 of at most 500 ms over all shapes, and for the
 * salary benchmark a median of at most 2 s from creation to finish.
 *
 *   node --max-semi-space-size=64 --import tsx test/bench/insights.ts
 */
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import pino from 'pino'
import { buildApp } from '../../api/app.ts'
import { jobInsightsBody } from '../../api/schemas/insights.ts'
import { toSearch } from '../../api/search-filters.ts'
import { createBoss } from '../../jobs/boss.ts'
import { startWorkers } from '../../jobs/index.ts'
import { createAccount, createKey } from '../../sql/accounts.ts'
import { loadConfig } from '../../sql/config.ts'
import { connectAdmission } from '../../sql/db.ts'
import { whereClause } from '../../sql/search.ts'
import { corpusName, keepAlivePost, searchCorpus } from './search-mix.ts'

const JOBS = Number(process.env.BENCH_SEARCH_JOBS ?? 100_000)
const REPS = Number(process.env.BENCH_REPS ?? 15)
const BENCHMARKS = Number(process.env.BENCH_BENCHMARKS ?? 5)
const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const dbUrl = Object.assign(new URL(serverUrl), { pathname: `/${corpusName(JOBS)}` }).toString()
const TARGET = { median: 200, p95: 500, benchmarkMedian: 2000 }

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]
}

const sql = await searchCorpus(serverUrl, JOBS, (m) => console.error(m))
// the insights' covering index (0018) is read by index-only scans, which need the visibility map
await sql`vacuum analyze jobs`

export const insightShapes: [string, Record<string, unknown>][] = [
  ['no filter', {}],
  ['title', { job_titles: ['engineer'] }],
  ['remote software', { location_types: ['Remote'], job_category: ['Software Engineer Jobs'] }],
  ['country', { geo_locations: [{ country: 'United States' }] }],
  ['city 25 mi + EUR', { geo_locations: [{ city: 'Berlin', country: 'Germany' }], currency: 'EUR' }],
  ['keywords', { keywords: ['python'] }],
  ['experience + job type + 30 days', { experience: ['Senior'], job_types: ['Full Time'], days_ago: 30 }],
  ['industry + size', { industry: ['Healthcare'], company_types: ['1001-5000', '5001-10000', '10000+'] }],
  ['salary floor', { salary: { min: 100000 } }],
  ['title phrase + country', { job_titles: ['"data analyst"'], geo_locations: [{ country: 'United Kingdom' }] }],
]

const benchmarkBodies: Record<string, unknown>[] = [
  { job_title: 'Software Engineer', geo_locations: [{ country: 'United States' }] },
  { job_title: 'Registered Nurse', days_ago: 365 },
  { job_title: 'Data Analyst', geo_locations: [{ country: 'United Kingdom' }], salary_range: { min: 40000, max: 50000, currency: 'GBP' } },
  { job_title: 'Sales Manager', experience_levels: ['Senior'], days_ago: 180 },
  { job_title: 'Accountant', job_titles: ['Bookkeeper'], geo_locations: [{ country: 'Canada' }] },
]

const config = { ...loadConfig(), rateLimits: { key: { limit: 1_000_000, windowSeconds: 60 }, search: { limit: 1_000_000, windowSeconds: 1 }, anonymous: { limit: 1_000_000, windowSeconds: 60 } } }
const log = pino({ level: 'silent' })
const boss = createBoss(dbUrl, log)
await boss.start()
const workers = await startWorkers(boss, sql, log, config, { tasks: true, embedder: null })
const admissionSql = connectAdmission(dbUrl)
const app = buildApp({ sql, config, log, admissionSql, boss })
const server = app.listen(0, '127.0.0.1')
await new Promise((r) => server.once('listening', r))
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
const key = await createKey(sql, await createAccount(sql, `bench-insights-${Date.now()}@example.test`, 'scale'))
const { post, close: closeClient } = keepAlivePost(base, key)

/** The indexes (or sequential scans) the matches are read with. */
async function planOf(body: Record<string, unknown>) {
  const { currency: _, ...search } = jobInsightsBody.cast(await jobInsightsBody.validate(body, { strict: true }))
  const where = whereClause(sql, toSearch(search).filters)
  const plan = (await sql<{ 'QUERY PLAN': string }[]>`explain select j.id from jobs j join companies c on c.id = j.company_id where ${where}`).map((r) => r['QUERY PLAN']).join('\n')
  const used = [...new Set([...plan.matchAll(/(?:Index|Bitmap Index) (?:Only )?Scan(?: Backward)? (?:using|on) (\w+)/g)].map((m) => m[1]))]
  const seq = [...new Set([...plan.matchAll(/Seq Scan on (\w+)/g)].map((m) => `seq scan of ${m[1]}`))]
  return [...seq, ...used].filter((p) => !/companies/.test(p)).join(', ')
}

type Row = { name: string; total: number; sampled: number; http: number[]; plan: string }
const rows: Row[] = []
for (const [label, body] of insightShapes) {
  const row: Row = { name: label, total: 0, sampled: 0, http: [], plan: await planOf(body) }
  for (let i = 0; i < REPS + 2; i++) {
    const t = performance.now()
    const res = await post('/v2/jobs/insights', body)
    const ms = performance.now() - t
    if (res.status !== 200) throw new Error(`${label}: ${res.status} ${res.body}`)
    const json = JSON.parse(res.body)
    row.total = json.total_count
    row.sampled = json.sample.postings
    if (i >= 2) row.http.push(ms)
  }
  rows.push(row)
}

/** Created → finished, polling the task every 20 ms. */
async function timeBenchmark(body: Record<string, unknown>) {
  const t = performance.now()
  const res = await post('/v2/jobs/salary-benchmark', body)
  if (res.status !== 200) throw new Error(`benchmark: ${res.status} ${res.body}`)
  const { id } = JSON.parse(res.body)
  for (;;) {
    const task = await (await fetch(`${base}/v2/tasks/${id}`, { headers: { 'x-api-key': key } })).json()
    if (task.state === 'finished') return { ms: performance.now() - t, result: task.result }
    if (task.state === 'failed') throw new Error(`benchmark failed: ${task.error}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

type BenchRow = { body: Record<string, unknown>; ms: number[]; postings: number; salaries: number; p50: number | null; currency: string; grade: string }
const benchRows: BenchRow[] = []
for (const body of benchmarkBodies) {
  const row: BenchRow = { body, ms: [], postings: 0, salaries: 0, p50: null, currency: '', grade: '' }
  for (let i = 0; i < BENCHMARKS + 1; i++) {
    const { ms, result } = await timeBenchmark(body)
    if (i >= 1) row.ms.push(ms)
    Object.assign(row, { postings: result.sample.postings, salaries: result.market.salary.count, p50: result.market.salary.p50, currency: result.market.salary.currency, grade: result.confidence.grade })
  }
  benchRows.push(row)
}

closeClient()
server.close()
await workers.stop()
await boss.stop({ graceful: false, wait: true, timeout: 5000 }).catch(() => {})
await app.context.admission!.close()
await admissionSql.end()
const [{ live }] = await sql<{ live: number }[]>`select count(*)::int as live from jobs where not expired`
await sql.end()

const all = rows.flatMap((r) => r.http)
const median = pct(all, 50)
const p95 = pct(all, 95)
const load = os.loadavg()[0].toFixed(1)
console.log(`\nInsights, ${live.toLocaleString('en-US')} live of ${JOBS.toLocaleString('en-US')} postings on ${new URL(serverUrl).host}, ${REPS} runs each over HTTP, ${os.cpus().length} cores (load ${load}), ${new Date().toISOString().slice(0, 10)}\n`)
console.log('| filters | matches | sampled | HTTP median ms | HTTP p95 ms | matches read with |')
console.log('|---|---:|---:|---:|---:|---|')
for (const r of rows) console.log(`| ${r.name} | ${r.total} | ${r.sampled} | ${pct(r.http, 50).toFixed(1)} | ${pct(r.http, 95).toFixed(1)} | ${r.plan} |`)
console.log(`| **all ${rows.length} shapes** | | | **${median.toFixed(1)}** | **${p95.toFixed(1)}** | |`)
console.log(`\ntargets: median ≤ ${TARGET.median} ms (${median <= TARGET.median ? 'met' : 'MISSED'}), p95 ≤ ${TARGET.p95} ms (${p95 <= TARGET.p95 ? 'met' : 'MISSED'})`)

const allBench = benchRows.flatMap((r) => r.ms)
const benchMedian = pct(allBench, 50)
console.log(`\nSalary benchmark, created → finished (the worker polls every second), ${BENCHMARKS} runs each\n`)
console.log('| request | postings | salaries | p50 | grade | median ms | max ms |')
console.log('|---|---:|---:|---:|---|---:|---:|')
for (const r of benchRows) {
  console.log(`| \`${JSON.stringify(r.body)}\` | ${r.postings} | ${r.salaries} | ${r.p50 ?? '–'} ${r.currency} | ${r.grade} | ${pct(r.ms, 50).toFixed(0)} | ${Math.max(...r.ms).toFixed(0)} |`)
}
console.log(`| **all** | | | | | **${benchMedian.toFixed(0)}** | **${Math.max(...allBench).toFixed(0)}** |`)
console.log(`\ntarget: median ≤ ${TARGET.benchmarkMedian} ms (${benchMedian <= TARGET.benchmarkMedian ? 'met' : 'MISSED'})`)
