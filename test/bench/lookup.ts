/**
 * GET /v2/jobs/{id} through real servers of several checkouts, side by side in one run
 * (docs/performance.md, "Metering, admission and GET /v2/jobs/{id}"):
 *
 *   BENCH_BASELINE=/work/wt-f0a4835 node --import tsx test/bench/lookup.ts [CHECKOUT ...]
 *
 * The checkouts compared: BENCH_BASELINE's (comma-separated; the first is the baseline),
 * then the arguments (default: this checkout). For each one, a database on
 * BENCH_DATABASE_URL's server (default: the machine's Postgres) named
 * bench_lookup_<commit> (<commit>_wip for a checkout with uncommitted changes), built
 * once with that checkout's own `npm run migrate` and `npm run ingest` from the same
 * BENCH_LOOKUP_JOBS (100,000) postings generated once by this checkout's `npm run seed`
 * (seed 42, --now 2026-11-20), and kept: a rerun finds the database's comment and skips
 * the build (BENCH_REBUILD=1 builds again). Then each checkout's own server, started as
 * its package.json's start script runs it (node flags and environment prefix included;
 * BENCH_NODE_FLAGS="..." runs every server as `node <flags> --import tsx bin/server.ts`
 * instead), with rate limits raised, no embedding model and no demo data; an enterprise
 * account with a block-mode allowance of 10^9 lookups made by that checkout's admin CLI
 * (BENCH_KEYS accounts, default 1); and BENCH_IDS (1,000) postings picked by slug from
 * the baseline's database and looked up by their id in each, each checked to answer 200.
 *
 * Both servers run for the whole run, and only one receives load at a time: restarting
 * them every round would measure a cold JIT and new pool connections, which the warm-up
 * is there to leave out. BENCH_ROUNDS (5) rounds take the checkouts in turn, in an order
 * reversed every round (A B, B A, …) so that drift of the machine falls on both alike;
 * per round and checkout: a warm-up (every id once at 50 in flight, then 200 one at a
 * time; each (account, job) view is recorded once, so the measured requests all find
 * their view row), then BENCH_SEQUENTIAL (1,000) requests one at a time, then
 * BENCH_REQUESTS (10,000) with BENCH_CONCURRENCY (50) in flight. The load generator is
 * http-load.ts in a child process: latencies are its median and p97.5, and requests/s is
 * the responses over the wall time of a batch. Each batch also records the CPU a request
 * cost the server process, its database's Postgres backends and the load generator, and
 * how many cores everything else on the machine kept busy meanwhile. Prints a table per
 * measure with each round's figure, their range and the median of rounds; the ratios of
 * each checkout to the baseline, round by round; and the non-2xx count.
 */
import { spawn } from 'node:child_process'
import { existsSync, readFileSync, renameSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import postgres from 'postgres'
import type { LoadJob, LoadResult } from './http-load.ts'
import { checkout as baseCheckout, npm as npmIn, startServer as startIn, stopServer, type Checkout as Base } from './checkouts.ts'

const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const POSTINGS = Number(process.env.BENCH_LOOKUP_JOBS ?? 100_000)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 1000)
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 10_000)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50)
const IDS = Number(process.env.BENCH_IDS ?? 1000)
const KEYS = Number(process.env.BENCH_KEYS ?? 1)
const SEED = 42
const NOW = '2026-11-20'
/** The comment a finished build leaves on its database: what it holds, and whose it is. */
const markerOf = (c: { dir: string }) => `bench_lookup: ${POSTINGS} postings, seed ${SEED}, now ${NOW}; ${c.dir}`

const here = fileURLToPath(new URL('../..', import.meta.url))
const baselines = (process.env.BENCH_BASELINE ?? '').split(',').filter(Boolean)
const positional = process.argv.slice(2)
const log = (m: string) => console.error(`[lookup] ${m}`)

type Checkout = Base & {
  db: string
  url: string
  keys?: string[]
  ids?: string[]
}

async function checkout(dir: string): Promise<Checkout> {
  const c = await baseCheckout(dir)
  const db = `bench_lookup_${c.label}`
  return { ...c, db, url: Object.assign(new URL(serverUrl), { pathname: `/${db}` }).toString() }
}

const npm = (c: Checkout, script: string, args: string[]) => npmIn('lookup', c, c.url, script, args)

/** The generated postings, made once by this checkout's generator. */
async function postingsFile(self: Checkout) {
  const file = path.join(os.tmpdir(), `bench-lookup-${POSTINGS}-seed${SEED}-${NOW}.jsonl`)
  if (existsSync(file)) return file
  log(`generating ${POSTINGS} postings into ${file} (once)`)
  await npm(self, 'seed', ['--jobs', String(POSTINGS), '--seed', String(SEED), '--now', NOW, '--out', `${file}.part`])
  renameSync(`${file}.part`, file)
  return file
}

/** The checkout's database, built with its own migrate and ingest unless a finished build is there. */
async function prepare(c: Checkout, self: Checkout, admin: postgres.Sql) {
  const marker = markerOf(c)
  const [found] = await admin<{ note: string | null }[]>`
    select shobj_description(oid, 'pg_database') as note from pg_database where datname = ${c.db}`
  if (found && found.note === marker && !process.env.BENCH_REBUILD) {
    log(`${c.db}: built already (${marker})`)
  } else {
    if (found) await admin`drop database ${admin(c.db)} with (force)`
    // one database a checkout: the one its earlier commit built goes
    const others = await admin<{ datname: string; note: string | null }[]>`
      select datname, shobj_description(oid, 'pg_database') as note from pg_database
      where datname like 'bench\_lookup\_%' and datname <> ${c.db}`
    for (const { datname } of others.filter((o) => o.note?.endsWith(`; ${c.dir}`))) {
      log(`dropping ${datname}, built for an earlier commit of ${c.dir}`)
      await admin`drop database ${admin(datname)} with (force)`
    }
    await admin`create database ${admin(c.db)}`
    const file = await postingsFile(self)
    await npm(c, 'migrate', [])
    log(`${c.db}: ingesting with ${c.dir}'s npm run ingest …`)
    const t = performance.now()
    const out = await npm(c, 'ingest', [file])
    log(`${c.db}: ingested in ${((performance.now() - t) / 1000).toFixed(0)} s; ${out.trim().split('\n').slice(0, 3).join(' | ')}`)
    const sql = postgres(c.url, { max: 1, onnotice: () => {} })
    await sql`vacuum analyze`
    await sql.end()
    await admin.unsafe(`comment on database "${c.db}" is '${marker.replaceAll("'", "''")}'`)
  }
  // what has gone stale since the build is archived now, not by the server's first task
  log(`${c.db}: npm run expire: ${(await npm(c, 'expire', [])).trim()}`)
}


const startServer = (c: Checkout) => startIn('lookup', c, c.url, log)

/** KEYS enterprise accounts, each with a key and a block-mode allowance no run reaches, by the checkout's admin CLI. */
async function makeKeys(c: Checkout) {
  c.keys = []
  for (let i = 0; i < KEYS; i++) {
    const created = JSON.parse((await npm(c, 'admin', ['accounts:create', '--email', `bench-lookup-${Date.now()}-${i}@example.test`, '--plan', 'enterprise'])).trim().split('\n').pop()!)
    await npm(c, 'admin', ['allowances:set', '--account', String(created.account_id), '--meter', 'm_jobs_api_calls', '--included', '1000000000', '--mode', 'block'])
    c.keys.push(created.api_key)
  }
}

/** The same postings in every database (by slug; ids may differ between builds), each answering 200. */
async function pickIds(all: Checkout[]) {
  const dbs = all.map((c) => postgres(c.url, { max: 1, onnotice: () => {} }))
  try {
    const slugs = (await dbs[0]<{ job_slug: string }[]>`select job_slug from jobs order by md5(job_slug) limit ${IDS}`).map((r) => r.job_slug)
    const maps = await Promise.all(dbs.map(async (sql) => new Map((await sql<{ id: string; job_slug: string }[]>`
      select id::text, job_slug from jobs where job_slug = any(${slugs})`).map((r) => [r.job_slug, r.id]))))
    const common = slugs.filter((s) => maps.every((m) => m.has(s)))
    if (common.length < slugs.length) log(`${slugs.length - common.length} of ${slugs.length} picked postings are missing from some database; using ${common.length}`)
    all.forEach((c, i) => (c.ids = common.map((s) => maps[i].get(s)!)))
  } finally {
    await Promise.all(dbs.map((sql) => sql.end()))
  }
  for (const c of all) {
    let usage = ''
    for (const [i, id] of c.ids!.entries()) {
      const res = await fetch(`http://127.0.0.1:${c.port}/v2/jobs/${id}`, { headers: { 'x-api-key': c.keys![i % c.keys!.length] } })
      const body = await res.text()
      if (res.status !== 200) throw new Error(`${c.label}: GET /v2/jobs/${id} answered ${res.status}: ${body.slice(0, 300)}`)
      if (i === 0) usage = ['included-limit', 'overage-mode'].map((h) => `${h} ${res.headers.get(`platform-usage-${h}`)}`).join(', ') + `; x-ratelimit-limit ${res.headers.get('x-ratelimit-limit')}`
    }
    log(`${c.label}: ${c.ids!.length} ids answer 200 (${usage})`)
  }
}

// the load generator: http-load.ts in a child process, one job at a time
const loadGenerator = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./http-load.ts', import.meta.url))], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
function runLoad(job: LoadJob) {
  return new Promise<LoadResult>((resolve) => {
    loadGenerator.once('message', (m) => resolve(m as LoadResult))
    loadGenerator.send(job)
  })
}

/** CPU time (user + system) so far of these processes, ms (0 for one that is gone). */
function cpuMs(pids: number[]) {
  let ticks = 0
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      ticks += Number(fields[11]) + Number(fields[12])
    } catch {
      // ended meanwhile, or no /proc
    }
  }
  return ticks * 10 // USER_HZ is 100 on Linux
}

/** CPU time every core spent busy so far, ms. */
function machineBusyMs() {
  try {
    // cpu  user nice system idle iowait irq softirq steal …, in ticks of all cores together
    const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number)
    return (user + nice + system + irq + softirq + steal) * 10
  } catch {
    return 0
  }
}

const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ')[0]

type Measure = { rps: number; median: number; p975: number; non2xx: number; serverUs: number; pgUs: number; clientUs: number; otherCores: number }

async function measure(c: Checkout, admin: postgres.Sql, n: number, concurrency: number): Promise<Measure> {
  const backends = (await admin<{ pid: number }[]>`select pid from pg_stat_activity where datname = ${c.db}`).map((r) => r.pid)
  const requests = c.ids!.map((id, i) => ({ path: `/v2/jobs/${id}`, key: c.keys![i % c.keys!.length] }))
  const pids = { server: [c.server!.pid!], pg: backends, client: [loadGenerator.pid!] }
  const before = { server: cpuMs(pids.server), pg: cpuMs(pids.pg), client: cpuMs(pids.client), machine: machineBusyMs() }
  const t = performance.now()
  const r = await runLoad({ host: '127.0.0.1', port: c.port!, requests, n, concurrency })
  const seconds = (performance.now() - t) / 1000
  if (r.failure) throw new Error(`${c.label}: ${r.failure}`)
  const us = (ms: number) => (ms * 1000) / n
  const server = cpuMs(pids.server) - before.server
  const pg = cpuMs(pids.pg) - before.pg
  const client = cpuMs(pids.client) - before.client
  const machine = machineBusyMs() - before.machine
  return { rps: n / seconds, median: r.median, p975: r.p975, non2xx: r.non2xx, serverUs: us(server), pgUs: us(pg), clientUs: us(client), otherCores: (machine - server - pg - client) / (seconds * 1000) }
}

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * q)]
const mid = (xs: number[]) => quantile(xs, 0.5)
const range = (xs: number[], f: (x: number) => string) => `${f(Math.min(...xs))}–${f(Math.max(...xs))}`
const ms = (x: number) => x.toFixed(2)
const rate = (x: number) => Math.round(x).toLocaleString('en-US')
const us = (x: number) => Math.round(x).toLocaleString('en-US')

function table(title: string, head: string[], rows: string[][]) {
  console.log(`\n${title}\n`)
  console.log(`| ${head.join(' | ')} |`)
  console.log(`|${head.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`)
  for (const r of rows) console.log(`| ${r.join(' | ')} |`)
}

const self = await checkout(here)
const all = await Promise.all([...baselines, ...(positional.length ? positional : [here])].map(checkout))
if (new Set(all.map((c) => c.db)).size < all.length) throw new Error('two checkouts at the same commit: nothing to compare')
const admin = postgres(serverUrl, { max: 1, onnotice: () => {} })
const startedAt = performance.now()
const loads: string[] = []
const results = new Map(all.map((c) => [c, { seq: [] as Measure[], par: [] as Measure[], warmUpNon2xx: 0 }]))
try {
  log(`load average at start: ${readFileSync('/proc/loadavg', 'utf8').trim()}`)
  for (const c of all) await prepare(c, self, admin)
  const built = performance.now()
  for (const c of all) {
    await startServer(c)
    await makeKeys(c)
  }
  await pickIds(all)
  log(`ready to measure after ${((performance.now() - startedAt) / 1000).toFixed(0)} s`)
  const measuredFrom = performance.now()
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? all : [...all].reverse()
    loads.push(loadAverage())
    for (const c of order) {
      // warm-up: every id once with requests in flight (each view row is then written), a few one at a time
      for (const [n, concurrency] of [[Math.max(c.ids!.length, 2000), CONCURRENCY], [200, 1]]) {
        results.get(c)!.warmUpNon2xx += (await measure(c, admin, n, concurrency)).non2xx
      }
      const seq = await measure(c, admin, SEQUENTIAL, 1)
      const par = await measure(c, admin, REQUESTS, CONCURRENCY)
      results.get(c)!.seq.push(seq)
      results.get(c)!.par.push(par)
      log(`round ${round + 1} ${c.label}: one at a time median ${ms(seq.median)} ms; ${CONCURRENCY} in flight ${rate(par.rps)}/s, median ${ms(par.median)} ms (load average ${loadAverage()})`)
    }
  }
  const measuring = (performance.now() - measuredFrom) / 1000
  loads.push(loadAverage())

  console.log(`\nGET /v2/jobs/{id}, ${POSTINGS.toLocaleString('en-US')} generated postings, ${all[0].ids!.length} ids, ${KEYS} key${KEYS > 1 ? 's' : ''}; ${ROUNDS} rounds of ${SEQUENTIAL} one at a time and ${REQUESTS} at ${CONCURRENCY} in flight, checkouts alternating; Postgres ${new URL(serverUrl).host}; ${os.cpus().length} cores; ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC; load average per round ${loads.join(', ')}`)
  console.log('\n| checkout | commit | database | server command |\n|---|---|---|---|')
  for (const c of all) console.log(`| ${c.dir} | ${c.commit}${c.wip ? ' + uncommitted changes' : ''} | ${c.db} | \`${c.start.shown}\` |`)
  const head = ['checkout', ...Array.from({ length: ROUNDS }, (_, i) => `round ${i + 1}`), 'range', 'median of rounds']
  const measures: [string, 'seq' | 'par', keyof Measure, (x: number) => string][] = [
    ['one at a time: median ms', 'seq', 'median', ms],
    ['one at a time: p97.5 ms', 'seq', 'p975', ms],
    [`${CONCURRENCY} in flight: requests/s`, 'par', 'rps', rate],
    [`${CONCURRENCY} in flight: median ms`, 'par', 'median', ms],
    [`${CONCURRENCY} in flight: p97.5 ms`, 'par', 'p975', ms],
  ]
  for (const [title, kind, key, f] of measures) {
    table(title, head, all.map((c) => {
      const xs = results.get(c)![kind].map((m) => m[key])
      return [c.label, ...xs.map(f), range(xs, f), f(mid(xs))]
    }))
  }
  table(`CPU a request at ${CONCURRENCY} in flight (median of rounds): the server process, its database's Postgres backends, the load generator; and how many cores everything else on the machine kept busy meanwhile (the other server idle, other people's work)`, ['checkout', 'server µs', 'Postgres µs', 'load generator µs', 'other work, cores (range)'], all.map((c) => {
    const par = results.get(c)!.par
    const m = (k: keyof Measure) => us(mid(par.map((x) => x[k])))
    return [c.label, m('serverUs'), m('pgUs'), m('clientUs'), range(par.map((x) => x.otherCores), (x) => x.toFixed(2))]
  }))
  table('non-2xx responses, all rounds', ['checkout', 'warm-ups', 'one at a time', `${CONCURRENCY} in flight`], all.map((c) => {
    const r = results.get(c)!
    const sum = (xs: Measure[]) => String(xs.reduce((a, m) => a + m.non2xx, 0))
    return [c.label, String(r.warmUpNon2xx), sum(r.seq), sum(r.par)]
  }))
  if (baselines.length) {
    const base = all[0]
    const b = results.get(base)!
    for (const c of all.slice(baselines.length)) {
      const r = results.get(c)!
      const ratio = r.par.map((m, i) => m.rps / b.par[i].rps)
      const seqDiff = r.seq.map((m, i) => m.median - b.seq[i].median)
      const parDiff = r.par.map((m, i) => m.median - b.par[i].median)
      const rows: [string, number[], (x: number) => string, string][] = [
        [`${CONCURRENCY} in flight: requests/s, ${c.label} / ${base.label}`, ratio, (x) => x.toFixed(2), mid(ratio) >= 0.9 ? 'met (≥ 0.90)' : 'not met (≥ 0.90)'],
        [`one at a time: median, ${c.label} − ${base.label}, ms`, seqDiff, (x) => (x >= 0 ? '+' : '') + x.toFixed(2), mid(seqDiff) <= 1 ? 'met (≤ +1 ms)' : 'not met (≤ +1 ms)'],
        [`${CONCURRENCY} in flight: median, ${c.label} − ${base.label}, ms`, parDiff, (x) => (x >= 0 ? '+' : '') + x.toFixed(1), ''],
      ]
      table(`${c.label} against ${base.label}, round by round`, ['', ...Array.from({ length: ROUNDS }, (_, i) => `round ${i + 1}`), 'range', 'median of rounds', 'target (issue 39)'],
        rows.map(([name, xs, f, target]) => [name, ...xs.map(f), range(xs, f), f(mid(xs)), target]))
    }
    const fig = (c: Checkout, kind: 'seq' | 'par', key: keyof Measure, f: (x: number) => string) => range(results.get(c)![kind].map((m) => m[key]), f)
    table('Summary (ranges over the rounds)', ['GET /v2/jobs/{id}', ...all.map((c) => c.label)], [
      ['one request at a time, median', ...all.map((c) => `${fig(c, 'seq', 'median', (x) => x.toFixed(1))} ms`)],
      [`${CONCURRENCY} in flight, requests/s`, ...all.map((c) => fig(c, 'par', 'rps', rate))],
      [`${CONCURRENCY} in flight, median`, ...all.map((c) => `${fig(c, 'par', 'median', (x) => x.toFixed(0))} ms`)],
    ])
  }
  console.log(`\nbuild and start ${((measuredFrom - startedAt) / 1000).toFixed(0)} s (databases ${((built - startedAt) / 1000).toFixed(0)} s), measuring ${measuring.toFixed(0)} s; servers' logs in ${all.map((c) => c.logFile).join(', ')}`)
} finally {
  loadGenerator.kill()
  await Promise.all(all.map(stopServer))
  await admin.end()
}
