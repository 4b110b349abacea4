/**
 * The embedded default's memory, as a new user meets it: `npm start` (bin/server.ts) on
 * an empty DATA_DIR (migrations, the demo load of DEMO_JOBS postings with their shipped
 * vectors, the HNSW build), idle, an ingest of the NHS Jobs file through the running
 * server's socket, the background embedding of what it queued, a restart on the same
 * data, then a few timed searches. PGlite runs inside the server process and its
 * WebAssembly heap never shrinks, so the server's RSS after each phase is what it keeps.
 *
 * RSS is VmRSS from /proc/<pid>/status at a phase's end; its peak is VmHWM, reset
 * (clear_refs 5) at its start. Target: under 800 MB after each phase.
 *
 *   node --import tsx test/bench/embedded-memory.ts
 *
 * BENCH_NHS_FILE (../shared/datasets/nhs-jobs-2020.jsonl.gz), BENCH_IDLE_SECONDS (15),
 * BENCH_VECTORS=0 skips waiting for the background embedding (EMBEDDING_PROVIDER and the
 * rest of the server's environment pass through).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createAccount, createKey } from '../../sql/accounts.ts'
import { connect, type Sql } from '../../sql/db.ts'
import { runningEmbedded } from '../../sql/embedded.ts'
import { RETIRE_MS } from '../../ingest/embed/use.ts'
import { keepAlivePost, queries } from './search-mix.ts'
import { freePort } from '../helpers/free-port.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const NHS = path.resolve(process.env.BENCH_NHS_FILE ?? path.join(ROOT, '../shared/datasets/nhs-jobs-2020.jsonl.gz'))
const IDLE_MS = Number(process.env.BENCH_IDLE_SECONDS ?? 15) * 1000
const WAIT_FOR_VECTORS = process.env.BENCH_VECTORS !== '0'
const TARGET_MB = 800
// as `npm start` runs node (package.json: MALLOC_ARENA_MAX=2, V8's default heap sizes); BENCH_NODE_ARGS adds options
const NODE = [process.execPath, ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean), '--import', 'tsx']


const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))
const mb = (kb: number) => Math.round(kb / 1024)

function status(pid: number) {
  const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0)
  return { rss: field('VmRSS'), hwm: field('VmHWM') }
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'jds-embedded-memory-'))
const env: NodeJS.ProcessEnv = {
  ...process.env,
  DATA_DIR: dataDir,
  PORT: String(await freePort()),
  EMBEDDED_PG_PORT: String(await freePort()),
  DATABASE_URL: '',
  MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2',
  LOG_LEVEL: 'info',
  // the searches below are timed, not rate limited
  RATE_LIMIT_PER_MINUTE: '1000000',
  SEARCH_RATE_LIMIT_PER_SECOND: '1000000',
}
const base = `http://127.0.0.1:${env.PORT}`
const logFile = path.join(dataDir, 'server.log')

type Row = { phase: string; seconds: number; peak: number; after: number; note?: string }
const rows: Row[] = []

let server = null as { child: ChildProcess; exited: Promise<number | null> } | null

let logOffset = 0

function startServer() {
  logOffset = fs.existsSync(logFile) ? fs.statSync(logFile).size : 0
  const out = fs.openSync(logFile, 'a')
  const child = spawn(NODE[0], [...NODE.slice(1), 'bin/server.ts'], { cwd: ROOT, env, stdio: ['ignore', out, out] })
  fs.closeSync(out)
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  server = { child, exited }
  return child.pid!
}

/** Runs `work` as a phase: the server's peak RSS during it and its RSS after. */
async function phase(name: string, work: () => Promise<string | void>) {
  const pid = server!.child.pid!
  fs.writeFileSync(`/proc/${pid}/clear_refs`, '5') // resets VmHWM to the current RSS
  const started = performance.now()
  const note = await work()
  const seconds = (performance.now() - started) / 1000
  const s = status(pid)
  rows.push({ phase: name, seconds, peak: mb(s.hwm), after: mb(s.rss), note: note ?? undefined })
  console.error(`${name}: ${seconds.toFixed(1)} s, peak ${mb(s.hwm)} MB, after ${mb(s.rss)} MB${note ? `, ${note}` : ''}`)
}

/** What the server's log says this start did: migrations applied, demo data, deferred indexes built. */
function startNotes() {
  const notes: string[] = []
  for (const line of fs.readFileSync(logFile, 'utf8').slice(logOffset).split('\n')) {
    if (!line.includes('"msg":"migrations applied"') && !line.includes('"msg":"demo data loaded"') && !line.includes('"msg":"deferred indexes built"')) continue
    const entry = JSON.parse(line) as { msg: string; applied?: string[]; seconds?: number; rebuilt?: string[] }
    if (entry.applied) notes.push(`${entry.applied.length} migrations`)
    if (entry.seconds !== undefined) notes.push(`demo data ${entry.seconds.toFixed(1)} s`)
    if (entry.rebuilt) notes.push(`rebuilt ${entry.rebuilt.join(', ')}`)
  }
  return notes.join(', ')
}

async function untilReady(deadlineMs = 15 * 60_000) {
  const deadline = Date.now() + deadlineMs
  while (Date.now() < deadline) {
    if (server!.child.exitCode !== null) throw new Error(`the server exited (${server!.child.exitCode}); see ${logFile}`)
    const ok = await fetch(`${base}/healthz`).then((r) => r.status === 200, () => false)
    if (ok) return
    await sleep(250)
  }
  throw new Error(`the server was not ready in ${deadlineMs / 1000} s; see ${logFile}`)
}

function run(args: string[]) {
  return new Promise<string>((resolve, reject) => {
    // as `npm run ingest` runs node
    const child = spawn(process.execPath, ['--max-semi-space-size=64', '--import', 'tsx', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (out += d))
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${args.join(' ')} exited ${code}:\n${out.slice(-2000)}`))))
  })
}

async function stopServer() {
  server!.child.kill('SIGTERM')
  await server!.exited
}

const embeddedSql = () => {
  const running = runningEmbedded(dataDir)
  if (!running) throw new Error('no embedded server runs on the data directory')
  return connect(`postgres://postgres@127.0.0.1:${running.port}/postgres`, 2, 'bench embedded-memory')
}

async function pendingVectorBatches(sql: Sql) {
  const [{ n }] = await sql<{ n: number }[]>`select count(*)::int as n from pgboss.job where name = 'jobs.embed' and state < 'completed'`
  return n
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]
}

try {
  console.error(`DATA_DIR ${dataDir}, server log ${logFile}`)
  const t0 = performance.now()
  startServer()
  // the first phase starts with the process: its peak is VmHWM from birth
  await untilReady()
  {
    const s = status(server!.child.pid!)
    rows.push({ phase: 'first start (to /healthz ok)', seconds: (performance.now() - t0) / 1000, peak: mb(s.hwm), after: mb(s.rss), note: startNotes() })
    console.error(`first start: ${rows[0].seconds.toFixed(1)} s, peak ${mb(s.hwm)} MB, after ${mb(s.rss)} MB`)
  }
  await phase(`idle ${IDLE_MS / 1000} s`, () => sleep(IDLE_MS))

  let ingestSummary = ''
  await phase('ingest of the NHS file (CLI, through the server)', async () => {
    const out = await run(['bin/ingest.ts', NHS])
    ingestSummary = out.split('\n').find((l) => l.startsWith('read ')) ?? ''
    return ingestSummary.replace(/, rejected.*?(?=, \d+\.\d s)/, '')
  })

  if (WAIT_FOR_VECTORS) {
    const sql = embeddedSql()
    await phase('background vectors of the ingest', async () => {
      while ((await pendingVectorBatches(sql)) > 0) await sleep(1000)
      const [{ n }] = await sql<{ n: number }[]>`select count(*)::int as n from jobs where embedding is not null`
      return `${n} jobs with a vector`
    })
    await sql.end()
  }
  // long enough for the model's second thread to end (RETIRE_MS without work)
  const settle = Math.max(IDLE_MS, RETIRE_MS + 10_000)
  await phase(`idle ${settle / 1000} s`, () => sleep(settle))

  const t1 = performance.now()
  await stopServer()
  const stopSeconds = (performance.now() - t1) / 1000
  const t2 = performance.now()
  startServer()
  await untilReady()
  {
    const s = status(server!.child.pid!)
    rows.push({ phase: 'restart (to /healthz ok)', seconds: (performance.now() - t2) / 1000, peak: mb(s.hwm), after: mb(s.rss), note: [startNotes(), `stop took ${stopSeconds.toFixed(1)} s`].filter(Boolean).join(', ') })
    console.error(`restart: ${rows.at(-1)!.seconds.toFixed(1)} s, peak ${mb(s.hwm)} MB, after ${mb(s.rss)} MB`)
  }
  await phase(`idle ${IDLE_MS / 1000} s`, () => sleep(IDLE_MS))

  // searches on the restarted server: the lexical mix, and vsearch from a job's own vector (no query to embed)
  const sql = embeddedSql()
  const key = await createKey(sql, await createAccount(sql, `bench-embedded-memory-${Date.now()}@example.test`, 'scale'))
  const ids = (await sql<{ id: string }[]>`select id::text from jobs where embedding is not null and not expired order by id limit 20`).map((r) => r.id)
  const [{ jobs }] = await sql<{ jobs: number }[]>`select count(*)::int as jobs from jobs`
  await sql.end()
  const { post, close } = keepAlivePost(base, key)
  const timed = async (route: string, bodies: Record<string, unknown>[], reps: number) => {
    const ms: number[] = []
    for (const body of bodies) await post(route, body) // warm-up
    for (let r = 0; r < reps; r++) {
      for (const body of bodies) {
        const t = performance.now()
        const res = await post(route, body)
        ms.push(performance.now() - t)
        if (res.status !== 200) throw new Error(`${route}: ${res.status} ${res.body}`)
      }
    }
    return ms
  }
  const searches: { name: string; ms: number[] }[] = []
  await phase('searches', async () => {
    searches.push({ name: `lexical mix (${queries.length} queries × 5)`, ms: await timed('/v2/jobs/search', queries.map(([, b]) => b), 5) })
    if (ids.length === 0) return 'no vectors: no vector searches'
    searches.push({ name: `vsearch by job (${ids.length} jobs × 5)`, ms: await timed('/v2/jobs/vsearch', ids.map((id) => ({ search_type: 'job', job_id: id })), 5) })
    const keywords = ['nurse', 'manager', 'engineer', 'sales', 'care']
    searches.push({
      name: `neural-search, job_ids + keywords (${ids.length} jobs × 5)`,
      ms: await timed('/v2/jobs/neural-search', ids.map((id, i) => ({ vector: { job_ids: [id] }, lexical: { keywords: [keywords[i % keywords.length]] } })), 5),
    })
  })
  close()
  await stopServer()
  server = null

  console.log(`\nThe embedded default's memory (${os.availableParallelism()} cores, load average ${os.loadavg()[0].toFixed(1)}; DEMO_JOBS ${process.env.DEMO_JOBS ?? 2000}, EMBEDDING_PROVIDER ${env.EMBEDDING_PROVIDER || 'use'})`)
  console.log(`${ingestSummary}`)
  console.log('| phase | time | peak RSS MB | RSS after MB | |')
  console.log('|---|---|---|---|---|')
  for (const r of rows) {
    const flag = r.after >= TARGET_MB ? ` over ${TARGET_MB}` : ''
    console.log(`| ${r.phase} | ${r.seconds.toFixed(1)} s | ${r.peak} | ${r.after}${flag} | ${r.note ?? ''} |`)
  }
  console.log(`\nSearches over HTTP on the restarted server (${jobs} jobs):`)
  console.log('| searches | median ms | p95 ms |')
  console.log('|---|---|---|')
  for (const s of searches) console.log(`| ${s.name} | ${pct(s.ms, 50).toFixed(1)} | ${pct(s.ms, 95).toFixed(1)} |`)
  const worst = Math.max(...rows.map((r) => r.after))
  console.log(`\nlargest RSS after a phase: ${worst} MB (target < ${TARGET_MB} MB): ${worst < TARGET_MB ? 'met' : 'NOT met'}`)
  fs.rmSync(dataDir, { recursive: true, force: true })
} catch (e) {
  console.error(e)
  if (server) {
    server.child.kill('SIGTERM')
    await Promise.race([server.exited, sleep(15_000)])
    server.child.kill('SIGKILL')
  }
  console.error(`kept ${dataDir} (server log: ${logFile})`)
  process.exitCode = 1
}
