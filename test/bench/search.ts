/**
 * `make bench` (search part): a fixed mix of 20 realistic searches over 100,000
 * generated postings on the machine's Postgres (BENCH_DATABASE_URL), timed over HTTP
 * and as the same SQL called directly. The database is built once and kept
 * (jds_bench_search) so reruns skip the ingest. Prints a table.
 */
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import pino from 'pino'
import { buildApp } from '../../api/app.ts'
import { loadConfig } from '../../sql/config.ts'
import { jobSearchBody } from '../../api/schemas/search.ts'
import { toSearch } from '../../api/search-filters.ts'
import { createAccount, createKey } from '../../sql/accounts.ts'
import { connectAdmission } from '../../sql/db.ts'
import { explainSearch, searchJobs } from '../../sql/search.ts'

const JOBS = Number(process.env.BENCH_SEARCH_JOBS ?? 100_000)
const REPS = Number(process.env.BENCH_REPS ?? 15)
const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const name = corpusName(JOBS)

export { queries } from './search-mix.ts'
import { corpusName, queries, keepAlivePost, searchCorpus } from './search-mix.ts'

const dbUrl = Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString()


const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]
}

const sql = await searchCorpus(serverUrl, JOBS, (m) => console.error(m))
// the bench measures search, not the limiter: a roomy rate limit, and a metered (not blocking) plan
const roomy = { limit: 1_000_000, windowSeconds: 60 }
// as the server runs it: the admission on connections of its own
const admissionSql = connectAdmission(dbUrl)
const app = buildApp({ sql, config: { ...loadConfig(), rateLimits: { key: roomy, search: roomy, anonymous: roomy } }, log: pino({ level: 'silent' }), admissionSql })
const server = app.listen(0, '127.0.0.1')
await new Promise((r) => server.once('listening', r))
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
const account = await createAccount(sql, `bench-${Date.now()}@example.test`, 'scale')
const key = await createKey(sql, account)

const { post, close: closeClient } = keepAlivePost(base, key)

type Row = { name: string; total: number; http: number[]; direct: number[]; plan: string }
const rows: Row[] = []
for (const [label, body] of queries) {
  const { filters, page } = toSearch(await jobSearchBody.validate(body, { strict: true }).then(() => jobSearchBody.cast(body)))
  // which indexes the page query reads jobs through; a sequential scan of jobs is named as such
  const plan = await explainSearch(sql, filters, page)
  const used = [...new Set(plan.match(/(?:Index|Bitmap Index) (?:Only )?Scan(?: Backward)? using (\w+)|Bitmap Index Scan on (\w+)/g) ?? [])]
    .map((m) => m.split(/ using | on /)[1])
    .filter((name) => name.startsWith('jobs_') || name.startsWith('job_locations_'))
  const seq = /Seq Scan on jobs\b/.test(plan) ? ['seq scan of jobs'] : []
  const row: Row = { name: label, total: 0, http: [], direct: [], plan: [...new Set([...seq, ...used])].join(', ') }
  for (let i = 0; i < REPS + 2; i++) {
    let t = performance.now()
    // HTTP time: request sent to the last byte of the response; the client parses after
    const res = await post('/v2/jobs/search', body)
    const http = performance.now() - t
    const json = JSON.parse(res.body)
    if (res.status !== 200) throw new Error(`${label}: ${res.status} ${res.body}`)
    t = performance.now()
    await searchJobs(sql, filters, page)
    const direct = performance.now() - t
    row.total = json.total_count
    if (i >= 2) {
      row.http.push(http)
      row.direct.push(direct)
    }
  }
  rows.push(row)
}
closeClient()
server.close()
await app.context.admission!.close()
await admissionSql.end()
await sql.end()

const all = (k: 'http' | 'direct') => rows.flatMap((r) => r[k])
console.log(`\nJob search, ${JOBS.toLocaleString('en-US')} postings on ${new URL(serverUrl).host}, ${REPS} runs each, ${os.cpus().length} cores, ${new Date().toISOString().slice(0, 10)}\n`)
console.log('| query | matches | HTTP median ms | HTTP p95 ms | SQL median ms | HTTP / SQL | indexes |')
console.log('|---|---:|---:|---:|---:|---:|---|')
for (const r of rows) {
  console.log(`| ${r.name} | ${r.total} | ${pct(r.http, 50).toFixed(1)} | ${pct(r.http, 95).toFixed(1)} | ${pct(r.direct, 50).toFixed(1)} | ${(pct(r.http, 50) / pct(r.direct, 50)).toFixed(2)} | ${r.plan} |`)
}
console.log(`| **all ${rows.length} queries** | | **${pct(all('http'), 50).toFixed(1)}** | **${pct(all('http'), 95).toFixed(1)}** | **${pct(all('direct'), 50).toFixed(1)}** | **${(pct(all('http'), 50) / pct(all('direct'), 50)).toFixed(2)}** | |`)
