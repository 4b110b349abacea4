/**
 * The export benchmark: POST /v2/jobs/export over generated postings on the machine's
 * Postgres (BENCH_DATABASE_URL), with the task run by `npm run worker` (bin/worker.ts)
 * in a child process, as a deployment runs it beside the API. docs/performance.md has
 * what it measures and the figures.
 *
 * 1. Exports of 10,000, 50,000 and 100,000 jobs (BENCH_EXPORT_SIZES) in json and csv,
 *    BENCH_EXPORT_REPS (3) times each, each by a fresh worker: the wall time from the
 *    task's creation to its finish, rows/s, the file's size, the worker's CPU, and the
 *    worker's peak RSS during the export (VmHWM, reset just before the task is created,
 *    and VmRSS sampled every 100 ms), so that memory can be seen not to grow with rows.
 * 2. Search latency while an export runs: BENCH_ROUNDS (4) rounds, each BENCH_PASSES (15)
 *    passes of search.ts's mix of 20 searches over HTTP with no export running, then
 *    passes of the same mix for as long as a 100,000-job export runs in the worker. Only
 *    whole passes count, so both phases weigh the queries alike.
 *
 * The corpus is search.ts's (the same generator, seed and database name for the same
 * size), built once and kept, at BENCH_EXPORT_POSTINGS (130,000) postings: exports read
 * live jobs only, and 100,000 postings hold about 78,000 live ones. BENCH_BUILD_ONLY=1
 * builds it and stops. BENCH_WORKER_ARGS adds node options to the worker's (a profile:
 * "--cpu-prof --cpu-prof-dir=/tmp/prof"), BENCH_WORKER_NICE its nice value.
 *
 * Cold exports: BENCH_COLD_CMD, a shell command run before each export of part 1, once
 * its worker is ready, makes the export read pages nothing has read since, e.g. a
 * Postgres restart and the OS's page cache dropped (as root, Postgres on this machine):
 *   BENCH_COLD_CMD='pg_ctlcluster 15 main restart && sync && echo 3 > /proc/sys/vm/drop_caches'
 * The bench then waits until the database answers again. BENCH_ROUNDS=0 skips part 2.
 *
 *   node --max-semi-space-size=64 --import tsx test/bench/export.ts
 */
import { execSync, spawn, type ChildProcess } from 'node:child_process'
import { corpusName, keepAlivePost, queries, searchCorpus } from './search-mix.ts'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { readdir, rm } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import pino from 'pino'
import { buildApp } from '../../api/app.ts'
import { createBoss } from '../../jobs/boss.ts'
import { startWorkers } from '../../jobs/index.ts'
import { createAccount, createKey } from '../../sql/accounts.ts'
import { loadConfig, type Config } from '../../sql/config.ts'
import { connectAdmission } from '../../sql/db.ts'

const POSTINGS = Number(process.env.BENCH_EXPORT_POSTINGS ?? 130_000)
const SIZES = (process.env.BENCH_EXPORT_SIZES ?? '10000,50000,100000').split(',').map(Number)
const REPS = Number(process.env.BENCH_EXPORT_REPS ?? 3)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4)
const PASSES = Number(process.env.BENCH_PASSES ?? 15)
/** the export run while searches are timed, and the size of the targets */
const BIG = 100_000
const BUILD_ONLY = process.env.BENCH_BUILD_ONLY === '1'
/** run before each export of part 1 to make it cold (see above) */
const COLD_CMD = process.env.BENCH_COLD_CMD ?? ''
/** node options added to the worker's, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" */
const WORKER_ARGS = (process.env.BENCH_WORKER_ARGS ?? '').split(' ').filter(Boolean)
/** the worker's CPU priority (nice), 0 as `npm run worker` starts */
const WORKER_NICE = Number(process.env.BENCH_WORKER_NICE ?? 0)
const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
// search.ts's name for a corpus of this size: either bench reuses the other's
const name = corpusName(POSTINGS)
const dbUrl = Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString()
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')


const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]
}
const median = (xs: number[]) => pct(xs, 50)
const range = (xs: number[], d = 1) => (Math.min(...xs) === Math.max(...xs) ? Math.min(...xs).toFixed(d) : `${Math.min(...xs).toFixed(d)}–${Math.max(...xs).toFixed(d)}`)
const mb = (kb: number) => kb / 1024
const load = () => os.loadavg()[0]
const clock = () => new Date().toISOString().slice(11, 19)
const log = (msg: string) => console.error(`[${clock()}] ${msg}`)

// --- the corpus, as search.ts builds it ---------------------------------------------------


const sql = await searchCorpus(serverUrl, POSTINGS, log)
const [{ live }] = await sql<{ live: number }[]>`select count(*)::int as live from jobs where not expired`
log(`${name}: ${live} live jobs`)
if (BUILD_ONLY) {
  await sql.end()
  process.exit(0)
}

// --- the API in this process, with no task workers -------------------------------------------

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'jds-bench-export-'))
const downloadsDir = path.join(dataDir, 'downloads')
const base = loadConfig()
// the bench measures exports and search, not the limiter: a roomy rate limit, and a plan
// whose jobs meter meters rather than blocks (scale: 2,000,000 included, then overage)
const roomy = { limit: 1_000_000, windowSeconds: 60 }
const config: Config = {
  ...base,
  dataDir,
  downloadsDir,
  rateLimits: { key: roomy, search: roomy, anonymous: roomy },
  tasks: { ...base.tasks, inProcess: false },
  files: { ...base.files, s3: null },
}
const quiet = pino({ level: 'silent' })
const boss = createBoss(dbUrl, quiet, { maintenanceSeconds: config.tasks.maintenanceSeconds })
await boss.start()
// creates the task queues and the scheduled queues; config.tasks.inProcess is false, so no task workers
const workers = await startWorkers(boss, sql, quiet, config)
const admissionSql = connectAdmission(dbUrl)
const app = buildApp({ sql, config, log: quiet, admissionSql, boss })
const server = app.listen(0, '127.0.0.1')
await once(server, 'listening')
const api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
const account = await createAccount(sql, `bench-export-${Date.now()}@example.test`, 'scale')
const key = await createKey(sql, account)

// one kept-alive socket for the timed searches, as search.ts times them; exports are created on a socket of their own
const searchClient = keepAlivePost(api, key)
const controlClient = keepAlivePost(api, key)

/** One pass of the mix; each request's time, from sending it to the last byte of the response. */
async function pass() {
  const times: number[] = []
  for (const [label, body] of queries) {
    const t = performance.now()
    const res = await searchClient.post('/v2/jobs/search', body)
    times.push(performance.now() - t)
    if (res.status !== 200) throw new Error(`${label}: ${res.status} ${res.body}`)
  }
  return times
}

// --- the worker: `npm run worker` as a child process --------------------------------------------

type TaskEvent = { msg: string; task_id?: string }
type Worker = {
  child: ChildProcess
  pid: number
  /** resolves with the worker's log line `msg` for the task */
  next: (msg: string, taskId: string | null) => Promise<TaskEvent>
  stop: () => Promise<void>
}

// a bench that stops on an error leaves no worker and no files behind
const children = new Set<ChildProcess>()
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL')
  rmSync(dataDir, { recursive: true, force: true })
})

async function startWorker(): Promise<Worker> {
  // no embedding model: the corpus has no vectors, and a worker with a model would spend
  // the export's time embedding all of them in the background (docs/embeddings.md)
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: dbUrl, TASK_CONCURRENCY: '1', DATA_DIR: dataDir, DOWNLOADS_DIR: downloadsDir, LOG_LEVEL: 'info', EMBEDDING_PROVIDER: 'none' }
  delete env.S3_BUCKET
  const node = [process.execPath, '--max-semi-space-size=64', ...WORKER_ARGS, '--import', 'tsx', 'bin/worker.ts']
  // nice(1) execs node in its own process, so the pid is the worker's and every thread inherits the priority
  const [cmd, ...args] = WORKER_NICE ? ['nice', '-n', String(WORKER_NICE), ...node] : node
  const child = spawn(cmd, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] })
  children.add(child)
  child.once('exit', () => children.delete(child))
  const waiting: { msg: string; taskId: string | null; resolve: (e: TaskEvent) => void }[] = []
  const seen: TaskEvent[] = []
  createInterface({ input: child.stdout! }).on('line', (line) => {
    let e: TaskEvent
    try {
      e = JSON.parse(line)
    } catch {
      return
    }
    if (e.msg === 'task attempt failed' || e.msg === 'pg-boss error') console.error(`worker: ${line}`)
    const i = waiting.findIndex((w) => (w.msg === e.msg || e.msg === 'task attempt failed') && (w.taskId === null || w.taskId === e.task_id))
    if (i >= 0) waiting.splice(i, 1)[0].resolve(e)
    else seen.push(e)
  })
  const next = (msg: string, taskId: string | null) =>
    new Promise<TaskEvent>((resolve) => {
      const i = seen.findIndex((e) => e.msg === msg && (taskId === null || e.task_id === taskId))
      if (i >= 0) resolve(seen.splice(i, 1)[0])
      else waiting.push({ msg, taskId, resolve })
    })
  const exited = once(child, 'exit')
  const ready = await Promise.race([next('task worker ready', null), exited.then(() => null)])
  if (!ready) throw new Error('the worker exited before it was ready')
  return {
    child,
    pid: child.pid!,
    next,
    stop: async () => {
      child.kill('SIGTERM')
      await exited
    },
  }
}

/** kB, from /proc/<pid>/status */
const status = (pid: number, field: 'VmRSS' | 'VmHWM') => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1])
/** user + system CPU seconds of a process */
const cpuSeconds = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100 // utime, stime in clock ticks (USER_HZ 100)
}

type Export = {
  cold: boolean; format: 'json' | 'csv'; rows: number; createMs: number; records: number; fileMb: number
  /** created → completed, and the part before a worker picked it up */
  wallS: number; queuedS: number; cpuS: number
  idleMb: number; hwmMb: number; sampledMb: number; loadAvg: number
}

/**
 * Creates an export of `rows` jobs and waits for the worker to finish it; the worker's
 * peak RSS is reset just before. `during` runs while the worker is on the task.
 */
async function runExport(worker: Worker, format: 'json' | 'csv', rows: number, during?: (finished: Promise<unknown>) => Promise<void>, cold = false): Promise<Export> {
  const idle = status(worker.pid, 'VmRSS')
  writeFileSync(`/proc/${worker.pid}/clear_refs`, '5') // resets VmHWM to the current RSS
  let sampled = idle
  const sampler = setInterval(() => (sampled = Math.max(sampled, status(worker.pid, 'VmRSS'))), 100)
  const cpu0 = cpuSeconds(worker.pid)
  const t = performance.now()
  const res = await controlClient.post('/v2/jobs/export', { search: { limit: rows }, format })
  const createMs = performance.now() - t
  if (res.status !== 200) throw new Error(`export: ${res.status} ${res.body}`)
  const taskId: string = JSON.parse(res.body).id
  const finished = worker.next('task finished', taskId)
  if (during) {
    await worker.next('task started', taskId)
    await during(finished)
  }
  const end = await finished
  clearInterval(sampler)
  const hwm = status(worker.pid, 'VmHWM')
  sampled = Math.max(sampled, status(worker.pid, 'VmRSS'))
  const cpuS = cpuSeconds(worker.pid) - cpu0
  if (end.msg !== 'task finished') throw new Error(`task ${taskId}: ${end.msg}`)
  const [task] = await sql<{ result: { record_count: number; file_size: number }; wall: number; queued: number }[]>`
    select result, extract(epoch from completed_at - created_at)::float8 as wall, extract(epoch from started_at - created_at)::float8 as queued
    from tasks where id = ${taskId}`
  // the files are large (about 3 KB a job); nothing reads them after
  for (const f of await readdir(downloadsDir)) await rm(path.join(downloadsDir, f), { force: true })
  return {
    cold, format, rows, createMs, records: task.result.record_count, fileMb: task.result.file_size / 1e6,
    wallS: task.wall, queuedS: task.queued, cpuS,
    idleMb: mb(idle), hwmMb: mb(hwm), sampledMb: mb(sampled), loadAvg: load(),
  }
}

// --- 1. exports of growing size ---------------------------------------------------------------

/** Runs BENCH_COLD_CMD and waits until the database answers again (a restart drops every connection, which reconnect). */
async function makeCold() {
  execSync(COLD_CMD, { stdio: 'inherit', shell: '/bin/bash' })
  for (const until = Date.now() + 60_000; ; ) {
    try {
      await sql`select 1`
      return
    } catch (e) {
      if (Date.now() > until) throw e
      await new Promise((r) => setTimeout(r, 500))
    }
  }
}

const exports: Export[] = []
for (let rep = 1; rep <= REPS; rep++) {
  for (const format of ['json', 'csv'] as const) {
    for (const rows of SIZES) {
      const worker = await startWorker()
      try {
        if (COLD_CMD) await makeCold()
        const e = await runExport(worker, format, rows, undefined, COLD_CMD !== '')
        exports.push(e)
        log(`export ${format} ${rows}: ${e.records} records in ${e.wallS.toFixed(1)} s, ${e.fileMb.toFixed(0)} MB, peak RSS ${e.hwmMb.toFixed(0)} MB (idle ${e.idleMb.toFixed(0)}), load ${e.loadAvg.toFixed(1)}`)
      } finally {
        await worker.stop()
      }
    }
  }
}

// --- 2. search latency, alternately with and without an export running -----------------------------

type Round = { base: number[]; during: number[]; basePasses: number; duringPasses: number; exp: Export; loadBase: number; loadDuring: number }
const rounds: Round[] = []
const worker = ROUNDS > 0 ? await startWorker() : null
if (worker) await pass() // warm-up: the app's caches, the socket, the pages Postgres reads
for (let r = 1; r <= ROUNDS; r++) {
  const base: number[] = []
  for (let i = 0; i < PASSES; i++) base.push(...(await pass()))
  const loadBase = load()
  const during: number[] = []
  let duringPasses = 0
  const format = r % 2 === 1 ? 'json' : 'csv'
  const exp = await runExport(worker!, format, BIG, async (finished) => {
    let done = false
    void finished.then(() => (done = true))
    for (;;) {
      const times = await pass()
      // a pass counts only if the export ran all through it
      if (done) break
      during.push(...times)
      duringPasses++
    }
  })
  rounds.push({ base, during, basePasses: PASSES, duringPasses, exp, loadBase, loadDuring: exp.loadAvg })
  log(`round ${r}: search median ${median(base).toFixed(1)} ms without an export, ${median(during).toFixed(1)} ms during one (${format}, ${exp.wallS.toFixed(1)} s)`)
}
await worker?.stop()

searchClient.close()
controlClient.close()
server.close()
await workers.stop()
await boss.stop({ graceful: false, wait: true, timeout: 5000 }).catch(() => {})
await app.context.admission!.close()
await admissionSql.end()
// a connection that a cold restart (BENCH_COLD_CMD) ended can keep end() waiting: 5 s, then it closes
await sql.end({ timeout: 5 })
await rm(dataDir, { recursive: true, force: true })

// --- tables ---------------------------------------------------------------------------------

const date = new Date().toISOString().slice(0, 10)
console.log(`\nExports, ${live.toLocaleString('en-US')} live jobs of ${POSTINGS.toLocaleString('en-US')} postings on ${new URL(serverUrl).host}, worker: npm run worker (TASK_CONCURRENCY=1, node --max-semi-space-size=64${WORKER_ARGS.map((a) => ` ${a}`).join('')}${WORKER_NICE ? `, nice ${WORKER_NICE}` : ''}), ${COLD_CMD ? `each export of part 1 cold (${COLD_CMD}), ` : ''}${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} at the end, ${date}\n`)
console.log('| # | cache | format | jobs | records | create ms | created → finished s | of which queued s | rows/s | file MB | worker CPU s | RSS idle MB | RSS peak MB (VmHWM) | peak sampled MB | peak − idle MB | load average |')
console.log('|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
exports.forEach((e, i) =>
  console.log(
    `| ${i + 1} | ${e.cold ? 'cold' : 'warm'} | ${e.format} | ${e.rows} | ${e.records} | ${e.createMs.toFixed(0)} | ${e.wallS.toFixed(1)} | ${e.queuedS.toFixed(1)} | ${(e.records / e.wallS).toFixed(0)} | ${e.fileMb.toFixed(1)} | ${e.cpuS.toFixed(1)} | ${e.idleMb.toFixed(0)} | ${e.hwmMb.toFixed(0)} | ${e.sampledMb.toFixed(0)} | ${(e.hwmMb - e.idleMb).toFixed(0)} | ${e.loadAvg.toFixed(1)} |`,
  ),
)

console.log(`\nThe same, over ${REPS} runs each (ranges):\n`)
console.log('| format | jobs | created → finished s | rows/s | file MB | worker CPU s | RSS peak MB | peak − idle MB |')
console.log('|---|---|---:|---:|---:|---:|---:|---:|')
for (const format of ['json', 'csv'] as const) {
  for (const rows of SIZES) {
    const es = exports.filter((e) => e.format === format && e.rows === rows)
    if (!es.length) continue
    console.log(
      `| ${format} | ${rows.toLocaleString('en-US')} | ${range(es.map((e) => e.wallS))} | ${range(es.map((e) => e.records / e.wallS), 0)} | ${range(es.map((e) => e.fileMb), 0)} | ${range(es.map((e) => e.cpuS))} | ${range(es.map((e) => e.hwmMb), 0)} | ${range(es.map((e) => e.hwmMb - e.idleMb), 0)} |`,
    )
  }
}

// BENCH_ROUNDS=0: no search rounds to report
let ratio = NaN
if (rounds.length) {
  console.log(`\nSearch over HTTP (the mix of 20 searches, whole passes) without an export running and while a ${BIG.toLocaleString('en-US')}-job export runs in the worker:\n`)
  console.log('| round | export | passes without | median ms | p90 ms | passes during | median ms | p90 ms | median ratio | p90 ratio | export s | load average without / during |')
  console.log('|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|')
  rounds.forEach((r, i) =>
    console.log(
      `| ${i + 1} | ${r.exp.format} | ${r.basePasses} | ${median(r.base).toFixed(1)} | ${pct(r.base, 90).toFixed(1)} | ${r.duringPasses} | ${median(r.during).toFixed(1)} | ${pct(r.during, 90).toFixed(1)} | ${(median(r.during) / median(r.base)).toFixed(2)} | ${(pct(r.during, 90) / pct(r.base, 90)).toFixed(2)} | ${r.exp.wallS.toFixed(1)} | ${r.loadBase.toFixed(1)} / ${r.loadDuring.toFixed(1)} |`,
    ),
  )
  const allBase = rounds.flatMap((r) => r.base)
  const allDuring = rounds.flatMap((r) => r.during)
  ratio = median(allDuring) / median(allBase)
  console.log(
    `| **all** | | ${rounds.reduce((a, r) => a + r.basePasses, 0)} | **${median(allBase).toFixed(1)}** | **${pct(allBase, 90).toFixed(1)}** | ${rounds.reduce((a, r) => a + r.duringPasses, 0)} | **${median(allDuring).toFixed(1)}** | **${pct(allDuring, 90).toFixed(1)}** | **${ratio.toFixed(2)}** | **${(pct(allDuring, 90) / pct(allBase, 90)).toFixed(2)}** | | |`,
  )
}

console.log('\nTargets:\n')
console.log('| measure | figure | target | |')
console.log('|---|---:|---:|---|')
const target = (label: string, figure: string, goal: string, met: boolean) => console.log(`| ${label} | ${figure} | ${goal} | ${met ? 'met' : 'MISSED'} |`)
for (const format of ['json', 'csv'] as const) {
  const es = exports.filter((e) => e.format === format && e.rows === BIG)
  if (es.length) target(`${BIG.toLocaleString('en-US')} jobs, ${format}: created → finished`, `${range(es.map((e) => e.wallS))} s`, '≤ 30 s', Math.max(...es.map((e) => e.wallS)) <= 30)
}
const small = exports.filter((e) => e.rows === Math.min(...SIZES))
const big = exports.filter((e) => e.rows === BIG)
if (small.length && big.length) {
  const grew = median(big.map((e) => e.hwmMb - e.idleMb)) - median(small.map((e) => e.hwmMb - e.idleMb))
  console.log(`| worker peak RSS, ${BIG.toLocaleString('en-US')} jobs minus ${Math.min(...SIZES).toLocaleString('en-US')} (medians of peak − idle) | ${grew.toFixed(0)} MB | flat | |`)
}
if (rounds.length) target('search median during an export / without', `${ratio.toFixed(2)} (rounds ${range(rounds.map((r) => median(r.during) / median(r.base)), 2)})`, '≤ 1.20', ratio <= 1.2)
