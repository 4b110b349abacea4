/**
 * `make bench` (metering part): what authentication + rate limiting + metering add to
 * a request. GET /v2/jobs/:job_id (keyed, metered) against the same handler mounted
 * bare, at 200 concurrent requests spread over 50 keys, on a scratch database on
 * BENCH_DATABASE_URL's server (default: the machine's Postgres), with the server's pool
 * size. Prints a table. BENCH_LOG=error shows the app's errors.
 */
import Router from '@koa/router'
import pino from 'pino'
import postgres from 'postgres'
import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import http from 'node:http'
import { buildApp } from '../../api/app.ts'
import { loadConfig } from '../../api/config.ts'
import { errors } from '../../api/errors.ts'
import { connect } from '../../sql/db.ts'
import { findJob } from '../../sql/jobs.ts'
import { migrate } from '../../sql/migrate.ts'
import { createAccountWithKey } from '../helpers/factories.ts'
import { seedCompany } from '../billing/fixtures.ts'

const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 200)
const keysCount = Number(process.env.BENCH_KEYS ?? 50)
const perRound = Number(process.env.BENCH_REQUESTS ?? 4000)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency })

/** A GET over a kept-alive socket; resolves with the status once the body is read. */
const get = (target: string, key: string) =>
  new Promise<number>((resolve, reject) => {
    http
      .get(target, { agent, headers: { 'x-api-key': key } }, (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
      })
      .on('error', reject)
  })

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
    const job = await findJob(sql, ctx.params.job_id, { raw: false })
    if (!job) throw errors.notFound('Job')
    ctx.body = job
  })
  app.use(bare.routes())
  const server = app.listen(0, '127.0.0.1')
  await new Promise((r) => server.once('listening', r))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  async function load(path: (i: number) => string, n: number) {
    const latencies: number[] = []
    let next = 0
    const t0 = performance.now()
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        for (let i = next++; i < n; i = next++) {
          const started = performance.now()
          const status = await get(base + path(i), keys[i % keys.length].key)
          if (status !== 200) throw new Error(`${path(i)}: ${status}`)
          latencies.push(performance.now() - started)
        }
      }),
    )
    const seconds = (performance.now() - t0) / 1000
    latencies.sort((a, b) => a - b)
    const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]
    return { median: q(0.5), p95: q(0.95), rps: n / seconds }
  }

  const job = (i: number) => company.jobIds[i % company.jobIds.length]
  const variants = { bare: (i: number) => `/bare/jobs/${job(i)}`, metered: (i: number) => `/v2/jobs/${job(i)}` }
  await load(variants.bare, 1000) // warm up connections and JIT
  await load(variants.metered, 1000)
  const results: Record<string, { median: number[]; p95: number[]; rps: number[] }> = { bare: { median: [], p95: [], rps: [] }, metered: { median: [], p95: [], rps: [] } }
  for (let r = 0; r < rounds; r++) {
    for (const [name, path] of Object.entries(variants)) {
      const m = await load(path, perRound)
      results[name].median.push(m.median)
      results[name].p95.push(m.p95)
      results[name].rps.push(m.rps)
    }
  }
  const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const rows = Object.entries(results).map(([name, r]) => ({
    route: name === 'bare' ? 'GET job, bare handler' : 'GET job, keyed + metered',
    'median ms': mid(r.median).toFixed(2),
    'p95 ms': mid(r.p95).toFixed(2),
    'req/s': Math.round(mid(r.rps)),
  }))
  console.log(`\nmetering overhead: ${concurrency} concurrent, ${keysCount} keys, pool ${sql.options.max}, ${perRound} requests x ${rounds} rounds (median of rounds), Postgres ${url.host}`)
  console.table(rows)
  console.log(`added to the median: ${(mid(results.metered.median) - mid(results.bare.median)).toFixed(2)} ms (target: at most 2 ms)\n`)
  server.closeAllConnections()
  server.close()
} finally {
  await sql.end({ timeout: 5 })
  await admin`drop database if exists ${admin(dbName)} with (force)`
  await admin.end()
}
