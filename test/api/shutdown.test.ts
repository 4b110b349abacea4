/**
 * SIGTERM to `npm start` while a request is in flight and an export runs in it
 * (bin/server.ts, jobs/tasks.ts). The request is a search whose body the client is still
 * sending when the signal arrives: the listener closes at once (a new connection is
 * refused), the request completes, and it is charged once. The export cannot finish
 * within SHUTDOWN_GRACE_SECONDS: with EXPORT_DUTY_CYCLE=0.05 it rests 95 % of the time
 * while a search is in flight (jobs/pace.ts), and the search is kept in flight until
 * shortly before the grace ends. At the grace's end the server releases the export,
 * exits 0, and a worker started afterwards finishes it: one charge, every job once.
 * /readyz answers 200 once the server is ready.
 */
import test from 'ava'
import { spawn, type ChildProcess } from 'node:child_process'
import http from 'node:http'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { eventually } from '../helpers/eventually.ts'
import { testDatabase } from '../helpers/db.ts'
import { connect, type Sql } from '../../sql/db.ts'
import { createAccountWithKey } from '../helpers/factories.ts'
import { freePort } from '../helpers/free-port.ts'
import { logLines } from '../helpers/processes.ts'
import { seedCompany } from '../billing/fixtures.ts'

/**
 * The server's Postgres exports several thousand jobs a second; the embedded database,
 * which runs in this test's process, is slower and holds this process's timers up. The
 * export must outlast the grace, and the search must finish within it: on a quiet
 * machine the embedded database exported 40,000 jobs within the grace.
 */
const SIZES = { server: { jobs: 60_000, graceSeconds: 5, answerMs: 1000 }, embedded: { jobs: 120_000, graceSeconds: 5, answerMs: 2500 } }

/** The exit code, once the process's output is read too ('close' comes after the last of it, 'exit' may come before). */
const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => (child.exitCode !== null && child.stdout?.readableEnded !== false ? resolve(child.exitCode) : child.once('close', (code) => resolve(code))))

test('SIGTERM: the request in flight completes and is charged once; the running export is released and finishes in another process', async (t) => {
  const kind = process.env.TEST_DATABASE_URL ? 'server' : 'embedded'
  const { jobs: JOBS, graceSeconds: GRACE_SECONDS, answerMs } = SIZES[kind]
  const dir = await mkdtemp(path.join(tmpdir(), 'jds-shutdown-'))
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const env: NodeJS.ProcessEnv = {
    ...process.env, PORT: String(port), DATA_DIR: dir, LOG_LEVEL: 'info', EMBEDDING_PROVIDER: 'none', DEMO_JOBS: '0',
    TASK_WORKERS_IN_API: '1', TASK_CONCURRENCY: '1', TASK_RETRY_DELAY_SECONDS: '0', EXPORT_DUTY_CYCLE: '0.05', SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS),
  }
  let sql: Sql
  let closeDb: () => Promise<void>
  if (kind === 'server') {
    const db = await testDatabase()
    env.DATABASE_URL = db.url
    sql = db.sql
    closeDb = db.close
  } else {
    delete env.DATABASE_URL
    env.EMBEDDED_PG_PORT = String(await freePort())
    // reconnects on its own to the restarted server's database
    sql = connect(`postgres://postgres@127.0.0.1:${env.EMBEDDED_PG_PORT}/postgres`, 2)
    closeDb = () => sql.end({ timeout: 5 })
  }
  const children: ChildProcess[] = []
  t.teardown(async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL')
    await closeDb()
    await rm(dir, { recursive: true, force: true })
  })
  const startServer = () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/server.ts'], { env, stdio: ['ignore', 'pipe', 'inherit'] })
    children.push(child)
    return child
  }
  const ready = () => eventually('/readyz', () => fetch(`${base}/readyz`).then((r) => r.status === 200, () => false), { ms: 90_000, every: 25 })

  const server = startServer()
  const serverLog = logLines(server)
  await ready()
  // the seeded jobs have no source rows, which the expiry run the server starts with would expire
  await eventually('the start-up expiry run', () => serverLog.some((l) => l.msg === 'expiry run'), { ms: 60_000, every: 25 })
  for (let n = 0; n < JOBS; n += 1000) await seedCompany(sql, 1000)
  const { accountId, key } = await createAccountWithKey(sql, 'scale')
  // what the export will find
  const [{ live }] = await sql<{ live: number }[]>`select count(*)::int as live from jobs where not expired`

  // the export starts in the server
  const created = await fetch(`${base}/v2/jobs/export`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ search: { limit: JOBS }, format: 'json' }),
  })
  t.is(created.status, 200)
  const { id: taskId } = (await created.json()) as { id: string }
  await eventually('the export under way', async () => {
    const [row] = await sql<{ state: string; progress: number }[]>`select state, progress from tasks where id = ${taskId}`
    return row.state === 'processing' && row.progress > 0
  }, { ms: 60_000, every: 25 })

  // the slow request: its headers are in (the server answered 100 Continue), half its body is sent
  // a phrase few jobs match (each seeded company has one 'Engineer 123'): a search that is quick on either database
  const body = JSON.stringify({ job_titles: ['"engineer 123"'], limit: 5 })
  const req = http.request(`${base}/v2/jobs/search`, {
    method: 'POST', agent: false,
    headers: { 'x-api-key': key, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' },
  })
  const response = new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = ''
      res.on('data', (d) => (text += d))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }))
    })
    req.on('error', reject)
  })
  await new Promise((resolve) => req.once('continue', resolve))
  req.write(body.slice(0, 10))

  server.kill('SIGTERM')
  const signalled = Date.now()
  // the listener is closed: a new connection is refused
  await eventually('the listener closed', () => fetch(`${base}/healthz`).then(() => false, () => true), { ms: 10_000, every: 25 })
  // the search stays in flight (and the export slow) until answerMs before the grace ends
  await new Promise((r) => setTimeout(r, Math.max(0, signalled + GRACE_SECONDS * 1000 - answerMs - Date.now())))
  req.end(body.slice(10))
  const answered = await response
  t.is(answered.status, 200, answered.text)
  t.is(JSON.parse(answered.text).jobs.length, 5)
  t.is(answered.headers.connection, 'close', 'its connection closes after the answer')

  // the grace ends with the export under way: the server releases it
  t.is(await exited(server), 0)
  t.true(serverLog.some((l) => l.msg?.startsWith('tasks released')))
  t.true(serverLog.some((l) => l.msg === 'task released by a stopping process; another attempt will run it'))
  t.true(serverLog.some((l) => l.msg === 'stopped'))

  // another process finishes it: a worker beside the database server, the restarted server on the embedded database
  const next = kind === 'server'
    ? spawn(process.execPath, ['--import', 'tsx', 'bin/worker.ts'], { env: { ...env, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'inherit'] })
    : startServer()
  children.push(next)
  const done = await eventually('the export finished', async () => {
    const [row] = await sql<{ state: string; attempt: number; worker_id: string; result: { record_count: number } | null; error: string | null }[]>`
      select state, attempt, worker_id, result, error from tasks where id = ${taskId}`.catch(() => [undefined])
    return row && (row.state === 'finished' || row.state === 'failed') ? row : false
    // the embedded database's export of 120,000 jobs took 2.5 min beside the rest of the suite: a deadline, not a bound
  }, { ms: 600_000, every: 25 })
  t.is(done.state, 'finished', done.error ?? '')
  t.is(done.attempt, 2)
  t.regex(done.worker_id, new RegExp(`:${next.pid}$`), 'the next process finished it')
  t.is(done.result!.record_count, live)

  // charged once each: the export's jobs and the search's five, no refund
  const charges = await sql<{ kind: string; units: number; request_id: string | null }[]>`
    select kind, units::int, request_id::text from usage_ledger_charges where account_id = ${accountId} order by ledger_id, position`
  t.deepEqual(charges.map((c) => [c.kind, c.units]).sort((a, b) => Number(a[1]) - Number(b[1])), [['charge', 5], ['charge', live]])
  t.is(charges.filter((c) => c.request_id === answered.headers['x-request-id']).length, 1, 'the search is in the ledger once')
  next.kill('SIGTERM')
  t.is(await exited(next), 0)
})
