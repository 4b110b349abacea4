/**
 * docs/scaling.md's figures: search throughput and latency with one API process and with
 * two, each on the primary alone and with its reads on one streaming replica of it
 * (test/helpers/replica.ts), on this machine. Each server is `bin/server.ts` in its own
 * process (no task workers); each process gets its own closed-loop load generator
 * (http-load.ts, a process of its own) with half the connections, as two client pools
 * would. The requests are a fixed mix of GET /v2/jobs/search over the search bench's
 * corpus (search-mix.ts), with 20 keys on a metered plan, so every request is admitted,
 * run and settled as in production.
 *
 * Beside throughput, what each server did during a run, from pg_stat_database of the
 * corpus's database on the primary and on the replica: transactions, rows returned and
 * pages read (from shared buffers or the OS).
 *
 *   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test nice -n 10 node --import tsx test/bench/scaling.ts
 *
 * BENCH_SEARCH_JOBS (20000) postings; BENCH_REQUESTS (4000) searches a run; BENCH_CONCURRENCY (16) in flight.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import postgres from 'postgres'
import { createAccount, createKey } from '../../sql/accounts.ts'
import { eventually } from '../helpers/eventually.ts'
import { freePort } from '../helpers/free-port.ts'
import { startReplica } from '../helpers/replica.ts'
import type { LoadJob, LoadResult } from './http-load.ts'
import { corpusName, searchCorpus } from './search-mix.ts'

const serverUrl = process.env.TEST_DATABASE_URL
if (!serverUrl) throw new Error('TEST_DATABASE_URL names the server the bench runs on (and replicates)')
const JOBS = Number(process.env.BENCH_SEARCH_JOBS ?? 20_000)
const N = Number(process.env.BENCH_REQUESTS ?? 4000)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16)

const SEARCHES = [
  'job_titles=engineer',
  'keywords=python&location_types=Remote',
  'job_titles=nurse&job_titles=pharmacist&job_titles=physician',
  `geo_locations=${encodeURIComponent('London, United Kingdom')}`,
  'job_titles=manager&page=5',
  'industry=Healthcare',
  'job_titles=analyst&yoe_min=2&yoe_max=5',
  'company_keywords=logistics',
  'job_titles=designer&sort_by=company',
  `keywords=${encodeURIComponent('"machine learning"')}&days_ago=30`,
  '',
  'job_titles=engineer&job_titles=-senior&limit=20',
]

const corpus = await searchCorpus(serverUrl, JOBS, (m) => console.error(m))
const dbUrl = Object.assign(new URL(serverUrl), { pathname: `/${corpusName(JOBS)}` }).toString()
const keys = await Promise.all(Array.from({ length: 20 }, async (_, i) => createKey(corpus, await createAccount(corpus, `scaling-${Date.now()}-${i}@example.test`, 'scale'))))
const requests = keys.flatMap((key, i) => SEARCHES.map((_, j) => ({ path: `/v2/jobs/search?${SEARCHES[(i + j) % SEARCHES.length]}`, key })))
await corpus.end()

console.error('building the replica (pg_basebackup of the whole cluster) …')
const replica = await startReplica(dbUrl)
const replicaUrl = replica.urlOf(dbUrl)
const dir = await mkdtemp(path.join(os.tmpdir(), 'jds-scaling-'))
const primaryStats = postgres(dbUrl, { max: 1, onnotice: () => {} })
const replicaStats = postgres(replicaUrl, { max: 1, onnotice: () => {} })

const generators = [0, 1].map(() =>
  spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./http-load.ts', import.meta.url))], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
)
const runLoad = (g: ChildProcess, job: LoadJob) =>
  new Promise<LoadResult>((resolve) => {
    g.once('message', (m) => resolve(m as LoadResult))
    g.send(job)
  })

type Stats = { xacts: number; rows: number; pages: number }
const stats = async (sql: postgres.Sql): Promise<Stats> => {
  // pg_stat_database is read from a snapshot taken once per transaction: a fresh one each call
  await sql`select pg_stat_clear_snapshot()`
  const [s] = await sql<Stats[]>`
    select (xact_commit + xact_rollback)::float8 as xacts, tup_returned::float8 as rows, (blks_hit + blks_read)::float8 as pages
    from pg_stat_database where datname = current_database()`
  return s
}
const minus = (a: Stats, b: Stats): Stats => ({ xacts: a.xacts - b.xacts, rows: a.rows - b.rows, pages: a.pages - b.pages })

async function startServer(port: number, withReplica: boolean) {
  const env = {
    ...process.env, DATABASE_URL: dbUrl, PORT: String(port), DATA_DIR: dir, LOG_LEVEL: 'warn', EMBEDDING_PROVIDER: 'none',
    TASK_WORKERS_IN_API: '0', DEMO_JOBS: '0', RATE_LIMIT_PER_MINUTE: '100000000', SEARCH_RATE_LIMIT_PER_SECOND: '100000000',
    DATABASE_REPLICA_URLS: withReplica ? replicaUrl : '', REPLICA_MAX_LAG_SECONDS: '5',
  }
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/server.ts'], { env, stdio: ['ignore', 'ignore', 'inherit'] })
  await eventually(`the server on ${port} ready`, () => fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status === 200, () => false), { ms: 120_000, every: 100 })
  return child
}

async function run(processes: number, withReplica: boolean) {
  const ports = await Promise.all(Array.from({ length: processes }, () => freePort()))
  const servers = await Promise.all(ports.map((port) => startServer(port, withReplica)))
  try {
    const job = (port: number, n: number, concurrency: number): LoadJob => ({ host: '127.0.0.1', port, requests, n, concurrency })
    // warm-up: plans, caches, the replica checked
    await Promise.all(ports.map((port, i) => runLoad(generators[i], job(port, 200, 4))))
    const before = await Promise.all([stats(primaryStats), stats(replicaStats)])
    const started = performance.now()
    const results = await Promise.all(ports.map((port, i) => runLoad(generators[i], job(port, Math.floor(N / processes), Math.floor(CONCURRENCY / processes)))))
    const seconds = (performance.now() - started) / 1000
    const after = await Promise.all([stats(primaryStats), stats(replicaStats)])
    const failed = results.find((r) => r.failure)
    if (failed) throw new Error(failed.failure!)
    const n = Math.floor(N / processes) * processes
    const pct = (q: 'median' | 'p95') => Math.max(...results.map((r) => r[q]))
    return {
      processes, withReplica, rps: n / seconds, median: pct('median'), p95: pct('p95'), non2xx: results.reduce((s, r) => s + r.non2xx, 0),
      primary: minus(after[0], before[0]), replica: minus(after[1], before[1]), n,
    }
  } finally {
    for (const s of servers) s.kill('SIGTERM')
    await Promise.all(servers.map((s) => new Promise((r) => (s.exitCode !== null ? r(null) : s.once('exit', r)))))
  }
}

const rows = []
try {
  for (const [processes, withReplica] of [[1, false], [2, false], [1, true], [2, true]] as const) {
    console.error(`${processes} process${processes > 1 ? 'es' : ''}, ${withReplica ? 'reads on the replica' : 'primary only'} …`)
    rows.push(await run(processes, withReplica))
  }
} finally {
  for (const g of generators) g.kill()
  await primaryStats.end()
  await replicaStats.end()
  await replica.remove()
  await rm(dir, { recursive: true, force: true })
}

const f = (x: number, d = 1) => x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d })
const per = (x: number, n: number) => f(x / n, 1)
console.log(`\n${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; ${JOBS.toLocaleString('en-US')} postings, ${N} searches a run, ${CONCURRENCY} in flight\n`)
console.log('| API processes | reads on | searches/s | median | p95 | non-2xx | primary: xacts / rows / pages a search | replica: xacts / rows / pages a search |')
console.log('|---|---|---|---|---|---|---|---|')
for (const r of rows) {
  console.log(`| ${r.processes} | ${r.withReplica ? 'replica' : 'primary'} | ${f(r.rps, 0)} | ${f(r.median)} ms | ${f(r.p95)} ms | ${r.non2xx} | ${per(r.primary.xacts, r.n)} / ${per(r.primary.rows, r.n)} / ${per(r.primary.pages, r.n)} | ${per(r.replica.xacts, r.n)} / ${per(r.replica.rows, r.n)} / ${per(r.replica.pages, r.n)} |`)
}
process.exit(0)
