/**
 * `make bench` (metering part): what authentication + rate limiting + metering add to
 * a request. First under load: GET /v2/jobs/:job_id's handler (the same validation and
 * query) behind keyed(), as that route has it, against the same handler bare, and behind
 * keyed() with the admission on connections of its own as a server has it (`pooled`:
 * generic plans, sql/db.ts openAdmission), at 200
 * concurrent requests spread over 50 keys from a load generator in a child process
 * (http-load.ts, or autocannon with BENCH_CLIENT=autocannon), on a scratch database on
 * BENCH_DATABASE_URL's server (default: the machine's Postgres), with the server's pool
 * size; run it with the server's node flags (npm run bench does). Each round also
 * records the CPU a request costs the server (and its GC), the load generator and
 * Postgres. Then the server CPU keyed() costs a request, measured in process. Then the
 * cap and revocation checks, on this database and on an embedded one: 200 parallel
 * requests against 50 units left at a block-mode cap, and a key revoked with the admin
 * CLI while requests use it at 50 a second. Prints tables. BENCH_LOG=error shows the
 * app's errors; BENCH_ONLY=bare,metered (say) runs some variants of the load part and
 * skips the cap and revocation part; BENCH_PIN=1 pins the server and the load generator
 * to a core each.
 */
import Router from '@koa/router'
import pino from 'pino'
import postgres from 'postgres'
import { randomBytes } from 'node:crypto'
import { IncomingMessage, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Duplex } from 'node:stream'
import { PerformanceObserver } from 'node:perf_hooks'
import { execFile, execFileSync, spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { buildApp } from '../../api/app.ts'
import { loadConfig } from '../../sql/config.ts'
import { errors } from '../../api/errors.ts'
import { connect, connectAdmission, type Sql } from '../../sql/db.ts'
import { startEmbedded } from '../../sql/embedded.ts'
import { findJob } from '../../sql/jobs.ts'
import { validate } from '../../api/validate.ts'
import { keyed } from '../../api/middleware/keyed.ts'
import { jobQuery } from '../../api/schemas/jobs.ts'
import { migrate } from '../../sql/migrate.ts'
import { createAccountWithKey } from '../helpers/factories.ts'
import { periodOf, seedCompany, spend } from '../billing/fixtures.ts'
import type { LoadJob, LoadResult } from './http-load.ts'
import type { Context } from 'koa'
import { promisify } from 'node:util'

const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 200)
const keysCount = Number(process.env.BENCH_KEYS ?? 50)
// many short rounds: this machine's speed moves within seconds, and rounds run side by
// side drift together (rounds of 4,000 put the 95% interval of the added median at about
// 2.5 ms wide where 21 rounds of 10,000 left it 3.5 to 4 ms wide)
const perRound = Number(process.env.BENCH_REQUESTS ?? 4000)
const rounds = Number(process.env.BENCH_ROUNDS ?? 61)
const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

/**
 * CPU time (user + system) so far of every Postgres process on this machine, or of
 * those pids (any process with `anyProcess`), in ms; 0 where /proc is missing.
 */
function cpuMs(pids?: string[], anyProcess = false) {
  let ticks = 0
  try {
    for (const pid of pids ?? readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
        if (!anyProcess && !stat.includes('(postgres)')) continue
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

/** the server's garbage collection pauses so far, in ms */
let gcMs = 0
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcMs += e.duration
}).observe({ entryTypes: ['gc'] })

/**
 * The load generator runs in a child process, off the server's event loop. By default
 * it is http-load.ts, whose CPU a response does not grow with the response's headers;
 * BENCH_CLIENT=autocannon runs autocannon instead, as the runs before 2026-11-23's last
 * ones did (it parses each header in JavaScript, and its latencies are whole ms). Both
 * take the same job: n GETs over `concurrency` connections, cycling through (path,
 * key) pairs, and answer with latency percentiles (ms) and the non-2xx count.
 */
const clientName = process.env.BENCH_CLIENT === 'autocannon' ? 'autocannon' : 'http-load.ts'
const loadGenerator =
  clientName === 'autocannon'
    ? spawn(
        process.execPath,
        [
          '-e',
          `
    const autocannon = require('autocannon')
    process.on('message', ({ host, port, requests, n, concurrency }) => {
      requests = requests.map(({ path, key }) => ({ method: 'GET', path, headers: { 'x-api-key': key } }))
      autocannon({ url: 'http://' + host + ':' + port, connections: concurrency, amount: n, requests }, (err, r) => {
        if (err) return process.send({ failure: String(err) })
        process.send({ median: r.latency.p50, mean: r.latency.average, p975: r.latency.p97_5, non2xx: r.non2xx + r.errors, failure: null })
      })
    })
    `,
        ],
        { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
      )
    : spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./http-load.ts', import.meta.url))], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })

// BENCH_PIN=1: the server on core 0 and the load generator on core 1 (Postgres may use
// either), so what the client spends reading responses does not slow the server
if (process.env.BENCH_PIN) {
  execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' })
  execFileSync('taskset', ['-a', '-p', '-c', '1', String(loadGenerator.pid)], { stdio: 'ignore' })
}

/**
 * Runs each variant once a round, `rounds` times, in a new random order each round: a
 * rotation keeps one cyclic order, and with three variants that order alone moved two
 * copies of the same handler 2 ms apart.
 */
async function inRotation<N extends string>(names: N[], rounds: number, run: (name: N) => Promise<void>) {
  for (let r = 0; r < rounds; r++) {
    const order = [...names]
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1))
      ;[order[i], order[j]] = [order[j], order[i]]
    }
    for (const name of order) await run(name)
  }
}

function runLoad(job: LoadJob) {
  return new Promise<LoadResult>((resolve) => {
    loadGenerator.once('message', (m) => resolve(m as never))
    loadGenerator.send(job)
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
  // the work of GET /v2/jobs/:job_id, behind keyed() as that route has it, and without;
  // and again without, with the twelve response headers keyed() sends on this route
  // (three rate-limit, nine usage), fixed values of the same length, to tell what the
  // headers cost from what keyed() does
  const sameHeaders = [
    ['X-RateLimit-Limit', '1000000'], ['X-RateLimit-Remaining', '999000'], ['X-RateLimit-Reset', '42'],
    ['Platform-Usage-Feature', 'jobs_api'], ['Platform-Usage-Meter', 'm_jobs_api_calls'], ['Platform-Usage-Unit', 'jobs'],
    ['Platform-Usage-Included-Limit', '2000000'], ['Platform-Usage-Included-Used', '12345'], ['Platform-Usage-Included-Remaining', '1987655'],
    ['Platform-Usage-Overage-Used', '0'], ['Platform-Usage-Overage-Mode', 'meter'], ['Platform-Usage-Total-Used', '12345'],
  ]
  const sendSameHeaders = (ctx: { res: { setHeader: (name: string, value: string) => unknown } }) => {
    for (const [name, value] of sameHeaders) ctx.res.setHeader(name, value)
  }
  // every variant is a route of one router mounted after the app's, so each request
  // passes the same routers and is matched against the same routes
  const benchRouter = new Router({ prefix: '/bench' })
  const jobHandler = async (ctx: Context) => {
    const { return_raw_description } = await validate(jobQuery, ctx.query, 'query')
    const job = await findJob(sql, ctx.params.job_id, { raw: return_raw_description === 'true' })
    if (!job) throw errors.notFound('Job')
    ctx.body = job
    if (ctx.query.headers) sendSameHeaders(ctx)
  }
  benchRouter.get('/bare/:job_id', jobHandler)
  benchRouter.get('/keyed/:job_id', keyed({ meter: 'm_jobs_api_calls', cost: 1 }), jobHandler)
  // the in-process part: a handler with a fixed body (no query), bare, with the twelve
  // headers, and behind keyed() as GET /v2/jobs/:job_id has it
  const fixedBody = { id: 'x'.repeat(20), title: 'Senior engineer', company: { name: 'Acme', slug: 'acme' }, description: 'y'.repeat(2000) }
  benchRouter.get('/cpu/bare/:n', (ctx) => {
    ctx.body = fixedBody
  })
  benchRouter.get('/cpu/headers/:n', (ctx) => {
    ctx.body = fixedBody
    sendSameHeaders(ctx)
  })
  benchRouter.get('/cpu/keyed/:n', keyed({ meter: 'm_jobs_api_calls', cost: 1 }), (ctx) => {
    ctx.body = fixedBody
  })
  app.use(benchRouter.routes())
  const server = app.listen(0, '127.0.0.1')
  await new Promise((r) => server.once('listening', r))
  const { port } = server.address() as AddressInfo
  // the same routes with the admission on connections of its own, as a server runs it
  // (sql/db.ts openAdmission: generic plans), where `app` plans its statements each time
  // on the pool, as the embedded database does
  const admissionSql = connectAdmission(url.toString())
  const pooledApp = buildApp({ sql, admissionSql, config, log: pino({ level: process.env.BENCH_LOG ?? 'silent' }) })
  pooledApp.use(benchRouter.routes())
  const pooledServer = pooledApp.listen(0, '127.0.0.1')
  await new Promise((r) => pooledServer.once('listening', r))
  const pooledPort = (pooledServer.address() as AddressInfo).port

  async function load(paths: string[], n: number, at = port) {
    const client = [String(loadGenerator.pid)]
    const server = process.cpuUsage()
    const gcBefore = gcMs
    const pg = cpuMs()
    const clientCpu = cpuMs(client, true)
    const requests = keys.map((k, i) => ({ path: paths[i % paths.length], key: k.key }))
    const r = await runLoad({ host: '127.0.0.1', port: at, requests, n, concurrency })
    if (r.failure || r.non2xx) throw new Error(r.failure ?? `${r.non2xx} responses were not 2xx`)
    // CPU per request: the server process, the load generator, every Postgres process
    const serverCpu = process.cpuUsage(server)
    const perRequest = (ms: number) => (ms * 1000) / n
    return {
      median: r.median, mean: r.mean, p975: r.p975,
      nodeUs: (serverCpu.user + serverCpu.system) / n,
      systemUs: serverCpu.system / n,
      gcUs: perRequest(gcMs - gcBefore),
      clientUs: perRequest(cpuMs(client, true) - clientCpu),
      pgUs: perRequest(cpuMs() - pg),
    }
  }

  const variants = {
    bare: company.jobIds.map((id) => `/bench/bare/${id}`),
    headers: company.jobIds.map((id) => `/bench/bare/${id}?headers=1`),
    metered: company.jobIds.map((id) => `/bench/keyed/${id}`),
    pooled: [] as string[], // metered's paths, on the pooled app's port
  }
  variants.pooled = variants.metered
  const labels = {
    bare: 'GET job, bare handler', headers: 'bare + the same 12 headers', metered: 'GET job, keyed + metered',
    pooled: "keyed + metered, a server's admission connections",
  }
  const portOf = (name: string) => (name === 'pooled' ? pooledPort : port)
  type Name = keyof typeof variants
  const names = (process.env.BENCH_ONLY?.split(',') ?? Object.keys(variants)) as Name[]
  for (const name of names) await load(variants[name], 1000, portOf(name)) // warm up connections and JIT
  // rounds run the variants in a random order, and each overhead is the median of the
  // rounds' differences: this machine drifts by more than the 2 ms being measured
  type Metric = keyof Awaited<ReturnType<typeof load>>
  const results = Object.fromEntries(names.map((n) => [n, {}])) as Record<Name, Record<Metric, number[]>>
  await inRotation(names, rounds, async (name) => {
    const m = await load(variants[name], perRound, portOf(name))
    for (const k of Object.keys(m) as Metric[]) (results[name][k] ??= []).push(m[k])
  })
  const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * q)]
  const mid = (xs: number[]) => quantile(xs, 0.5)
  const rows = names.map((name) => {
    const r = results[name]
    return {
      route: labels[name],
      'median ms': mid(r.median).toFixed(2),
      'p97.5 ms': mid(r.p975).toFixed(2),
      'mean ms': mid(r.mean).toFixed(2),
      'server CPU µs/req': mid(r.nodeUs).toFixed(1),
      'of which GC': mid(r.gcUs).toFixed(1),
      'of which kernel': mid(r.systemUs).toFixed(1),
      'load generator µs/req': mid(r.clientUs).toFixed(1),
      'Postgres µs/req': mid(r.pgUs).toFixed(1),
    }
  })
  console.log(`\nmetering overhead: ${concurrency} concurrent, ${keysCount} keys, pool ${sql.options.max}, ${perRound} requests x ${rounds} rounds (medians of rounds), load generator ${clientName}, node ${process.execArgv.filter((a) => a.startsWith('--max')).join(' ') || 'with its default heap (not as npm start runs the server)'}, Postgres ${url.host}`)
  console.table(rows)
  const diff = (k: 'median' | 'mean', than: Name, of: Name = 'metered') => results[of][k].map((m, r) => m - results[than][k][r])
  if (names.includes('pooled') && names.includes('metered')) {
    for (const k of ['median', 'mean'] as const) {
      const d = diff(k, 'metered', 'pooled')
      console.log(`${labels.pooled} minus ${labels.metered}, ${k} per round: median of rounds ${mid(d).toFixed(2)} ms (quartiles ${quantile(d, 0.25).toFixed(1)} to ${quantile(d, 0.75).toFixed(1)})`)
    }
  }
  for (const than of ['bare', 'headers'] as const) {
    if (!names.includes(than) || !names.includes('metered')) continue
    for (const k of ['median', 'mean'] as const) {
      const d = diff(k, than)
      console.log(`keyed + metered minus ${labels[than]}, ${k} per round: ${d.map((a) => a.toFixed(1)).join(', ')} ms; median of rounds ${mid(d).toFixed(2)} ms (quartiles ${quantile(d, 0.25).toFixed(1)} to ${quantile(d, 0.75).toFixed(1)})`)
    }
  }
  if (names.includes('bare') && names.includes('metered')) {
    // where the added latency comes from: on two shared cores, CPU any of them adds per request
    const cpuDiff = (k: Metric) => mid(results.metered[k].map((m, r) => m - results.bare[k][r])).toFixed(1)
    console.log(`CPU keyed + metered adds a request (medians of the rounds' differences): server ${cpuDiff('nodeUs')} µs (GC ${cpuDiff('gcUs')}, kernel ${cpuDiff('systemUs')}), load generator ${cpuDiff('clientUs')} µs, Postgres ${cpuDiff('pgUs')} µs`)
    // how far the median of the rounds could be off: the rounds resampled with replacement
    const d = diff('median', 'bare')
    const resampled = Array.from({ length: 2000 }, () => mid(d.map(() => d[Math.floor(Math.random() * d.length)])))
    console.log(`added to the median: ${mid(d).toFixed(2)} ms (95% bootstrap interval ${quantile(resampled, 0.025).toFixed(1)} to ${quantile(resampled, 0.975).toFixed(1)} ms)\n`)
  }
  server.closeAllConnections()
  server.close()
  pooledServer.closeAllConnections()
  pooledServer.close()
  await admissionSql.end()

  /**
   * Server CPU per request without sockets, a load generator or queueing: the app's
   * handler called with Node's request and response over a socket that
   * drops what is written, one request at a time (the event loop gets a turn every 20
   * requests), CPU time from process.cpuUsage().
   * The median of paired rounds repeats within about 2 µs between runs, where the
   * latencies above swing by milliseconds.
   */
  class Sink extends Duplex {
    _write(_chunk: unknown, _enc: unknown, done: () => void) {
      done()
    }
    _read() {}
  }
  const sink = new Sink()
  sink.setMaxListeners(0)
  const handle = app.callback()
  async function inProcess(prefix: string, n: number) {
    const started = process.cpuUsage()
    for (let i = 0; i < n; i++) {
      if (i % 20 === 0) await new Promise((r) => setImmediate(r))
      const req = new IncomingMessage(sink as never)
      req.method = 'GET'
      req.url = `${prefix}${i}`
      req.headers = { host: 'bench', accept: '*/*', 'x-api-key': keys[i % keys.length].key }
      const res = new ServerResponse(req)
      res.assignSocket(sink as never)
      await handle(req, res)
      if (res.statusCode !== 200) throw new Error(`${prefix}: ${res.statusCode}`)
      res.detachSocket(sink as never)
    }
    const used = process.cpuUsage(started)
    return (used.user + used.system) / n
  }
  const cpuVariants = { bare: '/bench/cpu/bare/', headers: '/bench/cpu/headers/', keyed: '/bench/cpu/keyed/' } as const
  type CpuName = keyof typeof cpuVariants
  const cpuNames = Object.keys(cpuVariants) as CpuName[]
  for (const name of cpuNames) await inProcess(cpuVariants[name], 5000)
  const cpu = Object.fromEntries(cpuNames.map((n) => [n, [] as number[]])) as Record<CpuName, number[]>
  await inRotation(cpuNames, 15, async (name) => {
    cpu[name].push(await inProcess(cpuVariants[name], 5000))
  })
  const cpuDiff = (than: CpuName) => mid(cpu.keyed.map((m, r) => m - cpu[than][r]))
  console.log('server CPU per request, in process (fixed body, no query, no sockets), median of 15 rounds of 5,000')
  console.table([
    { handler: 'bare', 'µs/req': mid(cpu.bare).toFixed(1) },
    { handler: 'bare + the same 12 headers', 'µs/req': mid(cpu.headers).toFixed(1) },
    { handler: 'keyed + metered', 'µs/req': mid(cpu.keyed).toFixed(1) },
  ])
  console.log(`keyed() adds ${cpuDiff('bare').toFixed(1)} µs a request (${cpuDiff('headers').toFixed(1)} µs beyond the headers)\n`)

  if (!process.env.BENCH_ONLY) {
    const embedded = await startEmbedded({ dataDir: null, port: 0 })
    const embeddedSql = connect(embedded.url, 8)
    try {
      await migrate(embeddedSql)
      const rows = [await capAndRevocation(`Postgres ${url.host}`, sql, url.toString()), await capAndRevocation('embedded (PGlite)', embeddedSql, embedded.url)]
      console.log('a block-mode cap with 50 units left, 200 requests at once; a key revoked with `admin keys:revoke` while requests use it at 50 a second')
      console.table(rows)
    } finally {
      await embeddedSql.end({ timeout: 5 })
      await embedded.stop()
    }
  }
} finally {
  loadGenerator.kill()
  await sql.end({ timeout: 5 })
  await admin`drop database if exists ${admin(dbName)} with (force)`
  await admin.end()
}

/**
 * On one database, through an app of its own: 200 requests at once against a block-mode
 * meter with 50 units left (how many pass, and how far the meter goes past the cap),
 * and a key revoked with the admin CLI while requests use it at 50 a second (how many
 * were admitted among those sent after the command returned).
 */
async function capAndRevocation(label: string, db: Sql, dbUrl: string) {
  const roomy = { limit: 1_000_000, windowSeconds: 60 }
  const app = buildApp({ sql: db, poolSize: db.options.max, config: { ...loadConfig(), rateLimits: { key: roomy, search: roomy, anonymous: roomy } }, log: pino({ level: process.env.BENCH_LOG ?? 'silent' }) })
  const server = app.listen(0, '127.0.0.1')
  await new Promise((r) => server.once('listening', r))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  try {
    const company = await seedCompany(db, 5)
    const get = async (key: string, i: number) => {
      const res = await fetch(`${base}/v2/jobs/${company.jobIds[i % company.jobIds.length]}`, { headers: { 'x-api-key': key } })
      await res.arrayBuffer()
      return res.status
    }

    const capped = await createAccountWithKey(db, 'free')
    await spend(db, capped.accountId, 'm_jobs_api_calls', 450)
    const statuses = await Promise.all(Array.from({ length: 200 }, (_, i) => get(capped.key, i)))
    const period = await periodOf(db, capped.accountId)
    const [{ used }] = await db<{ used: number }[]>`
      select used::int from usage_meters where account_id = ${capped.accountId} and meter = 'm_jobs_api_calls' and period_start = ${period.start}`

    const busy = await createAccountWithKey(db, 'scale')
    const sent: { at: number; status: Promise<number> }[] = []
    let n = 0
    const pace = setInterval(() => sent.push({ at: performance.now(), status: get(busy.key, n++) }), 20)
    await new Promise((r) => setTimeout(r, 1000))
    await promisify(execFile)('npx', ['tsx', 'bin/admin.ts', 'keys:revoke', '--key', busy.key], { env: { ...process.env, DATABASE_URL: dbUrl } })
    const returned = performance.now()
    await new Promise((r) => setTimeout(r, 1000))
    clearInterval(pace)
    const all = await Promise.all(sent.map(async (s) => ({ at: s.at, status: await s.status })))
    const after = all.filter((s) => s.at > returned)
    return {
      database: label,
      'cap: 200 status': statuses.filter((s) => s === 200).length,
      'cap: 429 status': statuses.filter((s) => s === 429).length,
      'cap: used of 500': used,
      'cap: overshoot': Math.max(0, used - 500),
      'revoke: admitted before': all.filter((s) => s.at <= returned && s.status === 200).length,
      'revoke: sent after it returned': after.length,
      'revoke: admitted after': after.filter((s) => s.status === 200).length,
    }
  } finally {
    server.closeAllConnections()
    server.close()
  }
}
