/**
 * Background work beside the API's searches, through real servers of several checkouts
 * side by side in one run (docs/performance.md, "Background work beside searches"):
 *
 *   BENCH_BASELINE=/tmp/wt-old node --import tsx test/bench/yield.ts [CHECKOUT]
 *
 * The checkouts: BENCH_BASELINE's, then the argument (default: this checkout). Each gets
 * a database on BENCH_DATABASE_URL's server (default: the machine's Postgres),
 * jds_yield_<commit>, copied from BENCH_TEMPLATE (e.g. lookup.ts's bench_lookup_<commit>:
 * 100,000 generated postings, about 75,000 live, without vectors), and its
 * own server started as `npm start` starts it: task workers in the API process, no demo
 * data, rate limits raised, and an enterprise account whose allowance no run reaches.
 * Each server runs only while it is measured.
 *
 * BENCH_MODE=export (the default), BENCH_ROUNDS (2) rounds, the checkouts in turn in an
 * order reversed every round, each measuring:
 *   1. an export of every live job as CSV with nobody calling the API: the time from the
 *      task's creation to its finish, as the tasks row says (the bench reads it on a
 *      session of its own, which the service does not count as the API);
 *   2. the same while a client polls GET /v2/tasks/{id} twice a second (1 and 2 in
 *      turns: 2 first in even rounds);
 *   3. BENCH_PASSES (5) passes of search-mix.ts's 20 searches with nothing else running,
 *      then passes of the mix for as long as a third export runs: each search's time,
 *      median and p95 of each phase. Only whole passes count.
 *
 * BENCH_MODE=embed, BENCH_ROUNDS rounds as above: the server without a model,
 * BENCH_PASSES passes of the mix on it idle; then, its vectors and the model's cache
 * dropped, with the default model (EMBEDDING_PROVIDER=use), which queues every live job
 * for the background embedding when it starts: BENCH_EMBED_SECONDS (60) of vectors
 * written with nothing else running (the rate), then BENCH_PASSES passes of the mix
 * while it embeds, with the steps of the embedding that rested in each phase (as its
 * batches' outputs keep them).
 *
 * BENCH_MODE=embedded: exports 1 and 2 above on the embedded database, each checkout's
 * server owning a copy of BENCH_EMBEDDED_DIR (a DATA_DIR that `npm run ingest` filled,
 * e.g. with lookup.ts's 100,000 postings: DATA_DIR=/tmp/jds-yield-embedded npm run ingest
 * -- /tmp/bench-lookup-100000-seed42-2026-11-20.jsonl), on EMBEDDED_PG_PORT 54391.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { openSync, readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import postgres from 'postgres'
import { keepAlivePost, queries } from './search-mix.ts'
import { freePort } from '../helpers/free-port.ts'
import { serverScript } from './checkouts.ts'

const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
/** a database holding the corpus, e.g. one lookup.ts built (bench_lookup_<commit>); copied, never written */
const TEMPLATE = process.env.BENCH_TEMPLATE ?? ''
const MODE = process.env.BENCH_MODE ?? 'export'
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)
const PASSES = Number(process.env.BENCH_PASSES ?? 5)
const EMBED_SECONDS = Number(process.env.BENCH_EMBED_SECONDS ?? 60)
const here = fileURLToPath(new URL('../..', import.meta.url))
const run = promisify(execFile)
const log = (m: string) => console.error(`[${new Date().toISOString().slice(11, 19)} yield] ${m}`)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]

type Checkout = { dir: string; label: string; url: string; key?: string; server?: ChildProcess; port?: number; logFile?: string }

async function checkout(dir: string): Promise<Checkout> {
  dir = path.resolve(dir)
  const { stdout } = await run('git', ['-C', dir, 'rev-parse', '--short=7', 'HEAD'])
  const label = stdout.trim()
  return { dir, label, url: Object.assign(new URL(serverUrl), { pathname: `/jds_yield_${label}` }).toString() }
}

const EMBEDDED = MODE === 'embedded'
const EMBEDDED_PORT = '54391'
const baseEnv = (c: Checkout) =>
  EMBEDDED
    ? { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'warn', DATA_DIR: path.join(os.tmpdir(), `jds-yield-embedded-${c.label}`), EMBEDDED_PG_PORT: EMBEDDED_PORT }
    : { ...process.env, DATABASE_URL: c.url, LOG_LEVEL: 'warn', DATA_DIR: path.join(os.tmpdir(), `jds-yield-data-${c.label}`) }

async function prepare(c: Checkout, admin: postgres.Sql) {
  if (EMBEDDED) {
    c.url = `postgres://postgres@127.0.0.1:${EMBEDDED_PORT}/postgres`
    const dir = baseEnv(c).DATA_DIR
    await run('rm', ['-rf', dir])
    await run('cp', ['-a', process.env.BENCH_EMBEDDED_DIR ?? path.join(os.tmpdir(), 'jds-yield-embedded'), dir])
    return
  }
  const [found] = await admin`select 1 from pg_database where datname = ${`jds_yield_${c.label}`}`
  if (!found) {
    if (!TEMPLATE) throw new Error('BENCH_TEMPLATE: name a database that holds the corpus (e.g. lookup.ts\'s bench_lookup_<commit>)')
    log(`jds_yield_${c.label}: copying ${TEMPLATE}`)
    await admin`create database ${admin(`jds_yield_${c.label}`)} template ${admin(TEMPLATE)}`
  }
  await run('npm', ['run', '-s', 'migrate'], { cwd: c.dir, env: baseEnv(c) })
  await makeKey(c)
}


/** An enterprise account with an allowance no run reaches, made by the checkout's admin CLI against its running server's database. */
async function makeKey(c: Checkout) {
  const out = await run('npm', ['run', '-s', 'admin', '--', 'accounts:create', '--email', `bench-yield-${Date.now()}@example.test`, '--plan', 'enterprise'], { cwd: c.dir, env: baseEnv(c) })
  const created = JSON.parse(out.stdout.trim().split('\n').pop()!)
  await run('npm', ['run', '-s', 'admin', '--', 'allowances:set', '--account', String(created.account_id), '--meter', 'm_jobs_api_calls', '--included', '1000000000', '--mode', 'block'], { cwd: c.dir, env: baseEnv(c) })
  c.key = created.api_key
}

async function startServer(c: Checkout, env: Record<string, string>) {
  c.port = await freePort()
  c.logFile = path.join(os.tmpdir(), `jds-yield-server-${c.label}.log`)
  const out = openSync(c.logFile, 'a')
  const raised = '100000000'
  c.server = spawn(process.execPath, ['--import', 'tsx', serverScript(c.dir)], {
    cwd: c.dir,
    stdio: ['ignore', out, out],
    env: {
      ...baseEnv(c), MALLOC_ARENA_MAX: '2', PORT: String(c.port), DEMO_JOBS: '0', EMBEDDING_PROVIDER: 'none',
      RATE_LIMIT_PER_MINUTE: raised, SEARCH_RATE_LIMIT_PER_SECOND: raised, ANON_RATE_LIMIT_PER_MINUTE: raised, LOG_LEVEL: 'info', ...env,
    },
  })
  for (const deadline = Date.now() + 180_000; ; await sleep(250)) {
    if (c.server.exitCode !== null) throw new Error(`${c.label}: the server exited:\n${readFileSync(c.logFile, 'utf8').slice(-3000)}`)
    if ((await fetch(`http://127.0.0.1:${c.port}/healthz`).then((r) => r.status, () => 0)) === 200) break
    if (Date.now() > deadline) throw new Error(`${c.label}: not ready after 180 s`)
  }
}

async function stopServer(c: Checkout) {
  const s = c.server
  if (!s || s.exitCode !== null) return
  const gone = new Promise((r) => s.once('exit', r))
  s.kill('SIGTERM')
  const timer = setTimeout(() => s.kill('SIGKILL'), 20_000)
  await gone
  clearTimeout(timer)
}

/** One pass of the mix: each search's time, from sending it to the last byte of the response. */
async function pass(client: ReturnType<typeof keepAlivePost>) {
  const times: number[] = []
  for (const [label, body] of queries) {
    const t = performance.now()
    const res = await client.post('/v2/jobs/search', body)
    times.push(performance.now() - t)
    if (res.status !== 200) throw new Error(`${label}: ${res.status} ${res.body.slice(0, 200)}`)
  }
  return times
}

/** Passes of the mix: `n` of them, or as many whole ones as start before `until` settles. */
async function passes(client: ReturnType<typeof keepAlivePost>, n: number, until?: Promise<unknown>) {
  let over = false
  void until?.then(() => (over = true))
  const times: number[] = []
  for (let i = 0; until ? !over : i < n; i++) {
    const t = await pass(client)
    if (!until || !over) times.push(...t)
  }
  return times
}

/** Exports every live job as CSV; the seconds from its creation to its finish. */
async function exportAll(c: Checkout, db: postgres.Sql, poll: boolean, during?: (done: Promise<unknown>) => Promise<unknown>) {
  const [{ live }] = await db<{ live: number }[]>`select count(*)::int as live from jobs where not expired`
  const base = `http://127.0.0.1:${c.port}`
  const res = await fetch(`${base}/v2/jobs/export`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': c.key! }, body: JSON.stringify({ search: { limit: live }, format: 'csv' }) })
  if (res.status !== 200) throw new Error(`export: ${res.status} ${await res.text()}`)
  const { id } = (await res.json()) as { id: string }
  let stop = false
  const done = (async () => {
    for (;;) {
      const [t] = await db<{ state: string; wall: number }[]>`select state, extract(epoch from completed_at - created_at)::float8 as wall from tasks where id = ${id}`
      if (t.state === 'finished') return t.wall
      if (t.state === 'failed') throw new Error(`export ${id} failed`)
      await sleep(250)
    }
  })()
  const poller = poll
    ? (async () => {
        while (!stop) {
          await (await fetch(`${base}/v2/tasks/${id}`, { headers: { 'x-api-key': c.key! } })).arrayBuffer()
          await sleep(500)
        }
      })()
    : null
  const extra = during ? await during(done) : null
  const wall = await done
  stop = true
  await poller
  const [{ pacing }] = await db<{ pacing: unknown }[]>`select to_jsonb(t) -> 'pacing' as pacing from tasks t where id = ${id}`
  return { wall, extra, pacing }
}

/**
 * The export with nobody calling and the export polled, in an order that alternates by
 * round: the second of two exports writes its file while the first's is still being
 * written back to the disk, which would otherwise be counted as the polling's cost.
 */
async function bothExports(c: Checkout, db: postgres.Sql, round: number) {
  if (round % 2) {
    const quiet = await exportAll(c, db, false)
    return { quiet, polled: await exportAll(c, db, true) }
  }
  const polled = await exportAll(c, db, true)
  return { quiet: await exportAll(c, db, false), polled }
}

const checkouts = await Promise.all([...(process.env.BENCH_BASELINE ?? '').split(',').filter(Boolean), process.argv[2] ?? here].map(checkout))
const admin = postgres(serverUrl, { max: 1, onnotice: () => {} })
for (const c of checkouts) await prepare(c, admin)
await admin.end()
log(`checkouts: ${checkouts.map((c) => `${c.label} (${c.dir})`).join(', ')}; ${os.cpus().length} cores; load ${os.loadavg()[0].toFixed(1)}`)
const rows: string[] = []
const ms = (xs: number[]) => `${pct(xs, 50).toFixed(1)} / ${pct(xs, 95).toFixed(1)}`

if (EMBEDDED) {
  rows.push('| round | checkout | export s, nobody calling | export s, polled twice a second | ratio | load average |')
  rows.push('|---|---|---:|---:|---:|---:|')
  for (let round = 1; round <= ROUNDS; round++) {
    for (const c of round % 2 ? checkouts : [...checkouts].reverse()) {
      await startServer(c, {})
      if (!c.key) await makeKey(c)
      const db = postgres(c.url, { max: 1, onnotice: () => {}, connection: { application_name: 'bench' } })
      const { quiet, polled } = await bothExports(c, db, round)
      log(`${c.label}: embedded export alone ${quiet.wall.toFixed(1)} s ${JSON.stringify(quiet.pacing)}; polled ${polled.wall.toFixed(1)} s ${JSON.stringify(polled.pacing)}`)
      rows.push(`| ${round} | ${c.label} | ${quiet.wall.toFixed(1)} | ${polled.wall.toFixed(1)} | ${(polled.wall / quiet.wall).toFixed(2)} | ${os.loadavg()[0].toFixed(1)} |`)
      await db.end()
      await stopServer(c)
    }
  }
} else if (MODE === 'export') {
  rows.push('| round | checkout | export s, nobody calling | export s, polled twice a second | ratio | mix alone median / p95 ms | mix during an export median / p95 ms | ratios | export s beside the mix | load average |')
  rows.push('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (let round = 1; round <= ROUNDS; round++) {
    for (const c of round % 2 ? checkouts : [...checkouts].reverse()) {
      const db = postgres(c.url, { max: 1, onnotice: () => {}, connection: { application_name: 'bench' } })
      await startServer(c, {})
      const client = keepAlivePost(`http://127.0.0.1:${c.port}`, c.key!)
      await passes(client, 1) // warm-up
      const { quiet, polled } = await bothExports(c, db, round)
      log(`${c.label}: export alone ${quiet.wall.toFixed(1)} s ${JSON.stringify(quiet.pacing)}; polled ${polled.wall.toFixed(1)} s ${JSON.stringify(polled.pacing)}`)
      const alone = await passes(client, PASSES)
      const beside = await exportAll(c, db, false, (done) => passes(client, 0, done))
      const during = beside.extra as number[]
      log(`${c.label}: mix alone ${ms(alone)}, during ${ms(during)}; export ${beside.wall.toFixed(1)} s ${JSON.stringify(beside.pacing)}`)
      rows.push(`| ${round} | ${c.label} | ${quiet.wall.toFixed(1)} | ${polled.wall.toFixed(1)} | ${(polled.wall / quiet.wall).toFixed(2)} | ${ms(alone)} | ${ms(during)} | ${(pct(during, 50) / pct(alone, 50)).toFixed(2)} / ${(pct(during, 95) / pct(alone, 95)).toFixed(2)} | ${beside.wall.toFixed(1)} | ${os.loadavg()[0].toFixed(1)} |`)
      client.close()
      await stopServer(c)
      await db.end()
    }
  }
} else {
  rows.push('| round | checkout | vectors/s, nothing else running | mix, no model median / p95 ms | mix while embedding median / p95 ms | ratios | vectors/s during the mix | batches rested alone; during the mix | load average |')
  rows.push('|---|---|---:|---:|---:|---:|---:|---|---:|')
  for (let round = 1; round <= ROUNDS; round++) {
    for (const c of round % 2 ? checkouts : [...checkouts].reverse()) {
      const db = postgres(c.url, { max: 1, onnotice: () => {}, connection: { application_name: 'bench' } })
      const written = async () => (await db<{ n: number }[]>`select count(*)::int as n from jobs where embedding is not null`)[0].n
      // the embedding's own account of its rests, where the checkout keeps one (jobs/embed-vectors.ts)
      const rested = async (from: Date) => {
        const [r] = await db<{ steps: number; rested: number; loads: string | null }[]>`
          select coalesce(sum((output->'pacing'->>'steps')::int), 0)::int as steps, coalesce(sum((output->'pacing'->>'steps_rested')::int), 0)::int as rested,
            string_agg(distinct output->'pacing'->>'load', ', ') as loads
          from pgboss.job where name = 'jobs.embed' and state = 'completed' and completed_on >= ${from}`
        return r.steps ? `${r.rested} of ${r.steps} steps${r.loads ? ` (${r.loads})` : ''}` : 'not kept'
      }
      // from none: each round and checkout embeds the same postings
      await db`update jobs set embedding = null, embedding_model = null where embedding is not null`
      await db`delete from embedding_cache`
      await startServer(c, {})
      let client = keepAlivePost(`http://127.0.0.1:${c.port}`, c.key!)
      await passes(client, 1)
      const alone = await passes(client, PASSES)
      client.close()
      await stopServer(c)
      await db`delete from pgboss.job where name = 'jobs.embed'`
      await startServer(c, { EMBEDDING_PROVIDER: 'use' })
      // the first vectors: the model has loaded and the backlog is queued
      for (const n = await written(); (await written()) === n; ) await sleep(500)
      const n0 = await written()
      const t0 = performance.now()
      const from0 = new Date()
      await sleep(EMBED_SECONDS * 1000)
      const rate = ((await written()) - n0) / ((performance.now() - t0) / 1000)
      const restedAlone = await rested(from0)
      client = keepAlivePost(`http://127.0.0.1:${c.port}`, c.key!)
      // the restarted server's first searches open its connections and plan its statements
      await passes(client, 1)
      const n1 = await written()
      const t1 = performance.now()
      const from1 = new Date()
      const during = await passes(client, PASSES)
      const rateDuring = ((await written()) - n1) / ((performance.now() - t1) / 1000)
      const restedDuring = await rested(from1)
      client.close()
      await stopServer(c)
      log(`${c.label}: ${rate.toFixed(1)} vectors/s alone (${restedAlone}); mix alone ${ms(alone)}, while embedding ${ms(during)} (${rateDuring.toFixed(1)} vectors/s, ${restedDuring})`)
      rows.push(`| ${round} | ${c.label} | ${rate.toFixed(1)} | ${ms(alone)} | ${ms(during)} | ${(pct(during, 50) / pct(alone, 50)).toFixed(2)} / ${(pct(during, 95) / pct(alone, 95)).toFixed(2)} | ${rateDuring.toFixed(1)} | ${restedAlone}; ${restedDuring} | ${os.loadavg()[0].toFixed(1)} |`)
      await db.end()
    }
  }
}
console.log(rows.join('\n'))
