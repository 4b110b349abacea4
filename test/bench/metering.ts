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
const perRound = Number(process.env.BENCH_REQUESTS ?? 20000)
const rounds = Number(process.env.BENCH_ROUNDS ?? 5)
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
  // the same work as GET /v2/jobs/:job_id, without keyed(); and again with the twelve
  // response headers keyed() sends on this route (three rate-limit, nine usage), fixed
  // values of the same length, to tell what the headers cost from what keyed() does
  const sameHeaders = [
    ['X-RateLimit-Limit', '1000000'], ['X-RateLimit-Remaining', '999000'], ['X-RateLimit-Reset', '42'],
    ['Platform-Usage-Feature', 'jobs_api'], ['Platform-Usage-Meter', 'm_jobs_api_calls'], ['Platform-Usage-Unit', 'jobs'],
    ['Platform-Usage-Included-Limit', '2000000'], ['Platform-Usage-Included-Used', '12345'], ['Platform-Usage-Included-Remaining', '1987655'],
    ['Platform-Usage-Overage-Used', '0'], ['Platform-Usage-Overage-Mode', 'meter'], ['Platform-Usage-Total-Used', '12345'],
  ]
  const bare = new Router()
  bare.get('/bare/jobs/:job_id', async (ctx) => {
    const { return_raw_description } = await validate(jobQuery, ctx.query, 'query')
    const job = await findJob(sql, ctx.params.job_id, { raw: return_raw_description === 'true' })
    if (!job) throw errors.notFound('Job')
    ctx.body = job
    if (ctx.query.headers) for (const [name, value] of sameHeaders) ctx.res.setHeader(name, value)
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

  const variants = {
    bare: company.jobIds.map((id) => `/bare/jobs/${id}`),
    headers: company.jobIds.map((id) => `/bare/jobs/${id}?headers=1`),
    metered: company.jobIds.map((id) => `/v2/jobs/${id}`),
  }
  const labels = { bare: 'GET job, bare handler', headers: 'bare + the same 12 headers', metered: 'GET job, keyed + metered' }
  for (const paths of Object.values(variants)) await load(paths, 1000) // warm up connections and JIT
  // rounds rotate which variant goes first, and each overhead is the median of the
  // rounds' differences: this machine drifts by more than the 2 ms being measured
  type Name = keyof typeof variants
  const names = Object.keys(variants) as Name[]
  const results = Object.fromEntries(names.map((n) => [n, { median: [], p95: [], rps: [], nodeUs: [], pgUs: [] }])) as unknown as Record<Name, Record<'median' | 'p95' | 'rps' | 'nodeUs' | 'pgUs', number[]>>
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + r) % names.length]
      const m = await load(variants[name], perRound)
      results[name].median.push(m.median)
      results[name].p95.push(m.p95)
      results[name].rps.push(m.rps)
      results[name].nodeUs.push(m.nodeUs)
      results[name].pgUs.push(m.pgUs)
    }
  }
  const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const rows = names.map((name) => {
    const r = results[name]
    return {
      route: labels[name],
      'median ms': mid(r.median).toFixed(2),
      'p95 ms': mid(r.p95).toFixed(2),
      'req/s': Math.round(mid(r.rps)),
      // Little's law: what the throughput says the mean latency is
      'mean ms': ((concurrency / mid(r.rps)) * 1000).toFixed(2),
      'server µs/req': mid(r.nodeUs).toFixed(1),
      'Postgres µs/req': mid(r.pgUs).toFixed(1),
    }
  })
  const added = (than: Name) => results.metered.median.map((m, r) => m - results[than].median[r])
  console.log(`\nmetering overhead: ${concurrency} concurrent, ${keysCount} keys, pool ${sql.options.max}, ${perRound} requests x ${rounds} rounds (medians of rounds), Postgres ${url.host}`)
  console.table(rows)
  for (const than of ['bare', 'headers'] as const) {
    console.log(`keyed + metered minus ${labels[than]}, per round: ${added(than).map((a) => a.toFixed(1)).join(', ')} ms; median ${mid(added(than)).toFixed(2)} ms`)
  }
  console.log(`added to the median: ${mid(added('bare')).toFixed(2)} ms (target: at most 2 ms)\n`)
  server.closeAllConnections()
  server.close()
} finally {
  await loadGenerator.terminate()
  await sql.end({ timeout: 5 })
  await admin`drop database if exists ${admin(dbName)} with (force)`
  await admin.end()
}
