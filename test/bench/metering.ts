/**
 * `make bench` (metering part): what authentication + rate limiting + metering add to
 * a request. GET /v2/jobs/:job_id (keyed, metered) against the same handler mounted
 * bare (with the same validation and query), at 200 concurrent requests spread over 50
 * keys from a load generator in a worker thread, on a scratch database on
 * BENCH_DATABASE_URL's server (default: the machine's Postgres), with the server's pool
 * size. Prints a table. BENCH_LOG=error shows the app's errors.
 */
import Router from '@koa/router'
import pino from 'pino'
import postgres from 'postgres'
import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { readdirSync, readFileSync } from 'node:fs'
import { performance as perfHooks } from 'node:perf_hooks'
import { Worker } from 'node:worker_threads'
import { buildApp } from '../../api/app.ts'
import { loadConfig } from '../../api/config.ts'
import { errors } from '../../api/errors.ts'
import { connect } from '../../sql/db.ts'
import { findJob } from '../../sql/jobs.ts'
import { validate } from '../../api/validate.ts'
import { jobQuery } from '../../api/schemas/jobs.ts'
import { migrate } from '../../sql/migrate.ts'
import { createAccountWithKey } from '../helpers/factories.ts'
import { seedCompany } from '../billing/fixtures.ts'

const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 200)
const keysCount = Number(process.env.BENCH_KEYS ?? 50)
const perRound = Number(process.env.BENCH_REQUESTS ?? 4000)
const rounds = Number(process.env.BENCH_ROUNDS ?? 9)
const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

/**
 * The load generator runs in a worker thread, so parsing responses does not share the
 * server's event loop: `run` sends n GETs with `concurrency` in flight, the i-th to
 * paths[i % paths.length] with keys[i % keys.length], and answers with the latencies.
 */
/** CPU time (user + system) of every Postgres process on this machine so far, in ms; 0 where /proc is missing. */
function postgresCpuMs() {
  let ticks = 0
  try {
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
        if (!stat.includes('(postgres)')) continue
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
        ticks += Number(fields[11]) + Number(fields[12])
      } catch {
        // the process ended meanwhile
      }
    }
  } catch {
    return 0
  }
  return ticks * 10 // USER_HZ is 100 on Linux
}

const loadGenerator = new Worker(
  `
  const { parentPort } = require('node:worker_threads')
  const http = require('node:http')
  parentPort.on('message', async ({ base, paths, keys, n, concurrency }) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency })
    const get = (target, key) => new Promise((resolve, reject) => {
      http.get(target, { agent, headers: { 'x-api-key': key } }, (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode))
      }).on('error', reject)
    })
    const latencies = []
    let next = 0, failure = null
    const t0 = performance.now()
    await Promise.all(Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < n && !failure; i = next++) {
        const started = performance.now()
        const status = await get(base + paths[i % paths.length], keys[i % keys.length])
        if (status !== 200) failure = paths[i % paths.length] + ': ' + status
        latencies.push(performance.now() - started)
      }
    }))
    agent.destroy()
    parentPort.postMessage({ latencies, seconds: (performance.now() - t0) / 1000, failure })
  })
  `,
  { eval: true },
)

function runLoad(job: { base: string; paths: string[]; keys: string[]; n: number; concurrency: number }) {
  return new Promise<{ latencies: number[]; seconds: number; failure: string | null }>((resolve) => {
    loadGenerator.once('message', resolve)
    loadGenerator.postMessage(job)
  })
}

const admin = postgres(serverUrl, { max: 1, onnotice: () => {} })
const dbName = `jds_bench_${randomBytes(4).toString('hex')}`
await admin`create database ${admin(dbName)}`
const url = new URL(serverUrl)
url.pathname = `/${dbName}`
// the pool the server gets: openDatabase() passes no max with DATABASE_URL, so connect()'s default
const sql = connect(url.toString())

try {
  await migrate(sql)
  const company = await seedCompany(sql, 50)
  // scale plan: 2,000,000 jobs included, so no request meets the cap
  const keys = await Promise.all(Array.from({ length: keysCount }, () => createAccountWithKey(sql, 'scale')))
  const config = { ...loadConfig(), rateLimits: { ...loadConfig().rateLimits, key: { limit: 1_000_000, windowSeconds: 60 } } }
  const app = buildApp({ sql, config, log: pino({ level: process.env.BENCH_LOG ?? 'silent' }) })
  // the same work as GET /v2/jobs/:job_id, without keyed()
  const bare = new Router()
  bare.get('/bare/jobs/:job_id', async (ctx) => {
    const { return_raw_description } = await validate(jobQuery, ctx.query, 'query')
    const job = await findJob(sql, ctx.params.job_id, { raw: return_raw_description === 'true' })
    if (!job) throw errors.notFound('Job')
    ctx.body = job
  })
  app.use(bare.routes())
  const server = app.listen(0, '127.0.0.1')
  await new Promise((r) => server.once('listening', r))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  async function load(paths: string[], n: number) {
    const elu = perfHooks.eventLoopUtilization()
    const pg = postgresCpuMs()
    const { latencies, seconds, failure } = await runLoad({ base, paths, keys: keys.map((k) => k.key), n, concurrency })
    if (failure) throw new Error(failure)
    latencies.sort((a, b) => a - b)
    const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]
    // CPU per request: the server's event loop (busy time), and every Postgres process
    const busyMs = perfHooks.eventLoopUtilization(elu).active
    return { median: q(0.5), p95: q(0.95), rps: n / seconds, nodeUs: (busyMs * 1000) / n, pgUs: ((postgresCpuMs() - pg) * 1000) / n }
  }

  const variants = { bare: company.jobIds.map((id) => `/bare/jobs/${id}`), metered: company.jobIds.map((id) => `/v2/jobs/${id}`) }
  await load(variants.bare, 1000) // warm up connections and JIT
  await load(variants.metered, 1000)
  // rounds alternate which variant goes first, and the overhead is the median of each
  // round's difference: this machine drifts by more than the 2 ms being measured
  const results: Record<string, Record<'median' | 'p95' | 'rps' | 'nodeUs' | 'pgUs', number[]>> = {
    bare: { median: [], p95: [], rps: [], nodeUs: [], pgUs: [] },
    metered: { median: [], p95: [], rps: [], nodeUs: [], pgUs: [] },
  }
  const added: number[] = []
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? (['bare', 'metered'] as const) : (['metered', 'bare'] as const)
    for (const name of order) {
      const m = await load(variants[name], perRound)
      results[name].median.push(m.median)
      results[name].p95.push(m.p95)
      results[name].rps.push(m.rps)
      results[name].nodeUs.push(m.nodeUs)
      results[name].pgUs.push(m.pgUs)
    }
    added.push(results.metered.median[r] - results.bare.median[r])
  }
  const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const rows = Object.entries(results).map(([name, r]) => ({
    route: name === 'bare' ? 'GET job, bare handler' : 'GET job, keyed + metered',
    'median ms': mid(r.median).toFixed(2),
    'p95 ms': mid(r.p95).toFixed(2),
    'req/s': Math.round(mid(r.rps)),
    // Little's law: what the throughput says the mean latency is
    'mean ms': ((concurrency / mid(r.rps)) * 1000).toFixed(2),
    'server µs/req': mid(r.nodeUs).toFixed(1),
    'Postgres µs/req': mid(r.pgUs).toFixed(1),
  }))
  console.log(`\nmetering overhead: ${concurrency} concurrent, ${keysCount} keys, pool ${sql.options.max}, ${perRound} requests x ${rounds} rounds (medians of rounds), Postgres ${url.host}`)
  console.table(rows)
  console.log(`per round, metered minus bare median: ${added.map((a) => a.toFixed(1)).join(', ')} ms`)
  console.log(`added to the median: ${mid(added).toFixed(2)} ms (median of the rounds' differences; target: at most 2 ms)\n`)
  server.closeAllConnections()
  server.close()
} finally {
  await loadGenerator.terminate()
  await sql.end({ timeout: 5 })
  await admin`drop database if exists ${admin(dbName)} with (force)`
  await admin.end()
}
