/**
 * Exports read from a read replica (jobs/export-file.ts, sql/replicas.ts) against a real
 * streaming replica of the machine's Postgres (test/helpers/replica.ts): the export's
 * reads run on it (the replica's own statistics and the worker's read count), the task's
 * progress and finish stay on the primary, and the file is the one a primary-only export
 * writes, byte for byte, also when the replica is stopped, or cancels a statement for a
 * conflict with recovery, part-way through the export.
 *
 * The part-way cases run the export task's handler directly, with the worker's deps and a
 * progress callback that acts after the first batch; the first case runs the whole way,
 * from POST /v2/jobs/export to the download, with DATABASE_REPLICA_URLS configured.
 *
 * The embedded database has no replicas: there the file is one skipped test that says so.
 */
import { randomUUID } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import anyTest, { type TestFn } from 'ava'
import pino from 'pino'
import postgres from 'postgres'
import { exportBody } from '../../api/schemas/export.ts'
import { toSearch } from '../../api/search-filters.ts'
import { ingest } from '../../ingest/pipeline.ts'
import type { ExportDeps } from '../../jobs/export-file.ts'
import { exportJobData, type ExportParams } from '../../jobs/export-job-data.ts'
import { createFileStore } from '../../jobs/files/store.ts'
import { startWorkers } from '../../jobs/index.ts'
import { loadConfig, type Config } from '../../sql/config.ts'
import { connectWorkers, type Sql } from '../../sql/db.ts'
import { FETCH_ROWS } from '../../sql/export.ts'
import { primaryReads, Replicas, type Reads } from '../../sql/replicas.ts'
import { ROOMY_LIMITS, startTestApp, type TestApp } from '../helpers/app.ts'
import { eventually } from '../helpers/eventually.ts'
import { rawPosting } from '../helpers/factories.ts'
import { startReplica, type TestReplica } from '../helpers/replica.ts'
import { download, waitForTask } from '../helpers/tasks.ts'

type Ctx = { app: TestApp; replica: TestReplica; replicaUrl: string; direct: Sql; workerSql: Sql; dir: string; config: Config }
const test = anyTest as TestFn<Ctx>

const serverUrl = process.env.TEST_DATABASE_URL
/** three batches and a half: the export reads, renders and reports progress more than once */
const JOBS = 3 * FETCH_ROWS + 500
const quiet = pino({ level: 'silent' })

if (!serverUrl) {
  test.skip('exports read from replicas only on a Postgres server (TEST_DATABASE_URL): the embedded database has no streaming replicas', () => {})
} else {
  test.before(async (t) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'jds-export-replica-'))
    const replica = await startReplica(serverUrl)
    const base = loadConfig()
    // task workers are started by the tests, with the replica configured
    const config: Partial<Config> = { dataDir: dir, downloadsDir: path.join(dir, 'downloads'), rateLimits: ROOMY_LIMITS, tasks: { ...base.tasks, inProcess: false } }
    let app: TestApp
    try {
      app = await startTestApp({ embedder: null, tasks: true, config })
    } catch (e) {
      await replica.remove()
      throw e
    }
    await app.db.sql`update accounts set plan = 'scale' where id = ${app.accountId}`
    await app.sync()
    await ingest(app.db.sql, Array.from({ length: JOBS }, (_, i) => ({ line: i + 1, raw: rawPosting({ source_id: `export-replica-${i}` }, i) as never })), { source: 'export-replica-test' })
    const replicaUrl = replica.urlOf(app.db.url)
    const direct = postgres(replicaUrl, { max: 1, onnotice: () => {} })
    const workerSql = connectWorkers(app.db.url, 4)
    t.context = { app, replica, replicaUrl, direct, workerSql, dir, config: { ...loadConfig(), ...config, databaseUrl: app.db.url } }
    await eventually('the jobs on the replica', async () => {
      const [{ n }] = await direct<{ n: number }[]>`select count(*)::int as n from jobs`.catch(() => [{ n: 0 }])
      return n >= JOBS
    }, { ms: 60_000 })
  })

  test.after.always(async (t) => {
    await t.context.direct?.end({ timeout: 5 })
    await t.context.workerSql?.end({ timeout: 5 })
    await t.context.app?.close()
    await t.context.replica?.remove()
    if (t.context.dir) await rm(t.context.dir, { recursive: true, force: true })
  })

  /** Rows of `jobs` the replica has read for its own sessions (its statistics, flushed within a second or so of a statement). */
  const jobRowsReadOnReplica = async (t: { context: Ctx }) => {
    const [{ n }] = await t.context.direct<{ n: string }[]>`
      select coalesce(sum(coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0)), 0)::text as n
      from pg_stat_user_tables where relname = 'jobs'`
    return Number(n)
  }

  const replicasOf = async (t: { context: Ctx }) => {
    const replicas = new Replicas(t.context.workerSql, [t.context.replicaUrl], { maxLagSeconds: 5, checkMs: 200, max: 4 })
    await replicas.start()
    await eventually('the replica usable', () => replicas.status()[0].state === 'up', { ms: 30_000 })
    return replicas
  }

  /** The worker's export deps with `reads`, as jobs/index.ts builds them, never resting. */
  const depsOf = (t: { context: Ctx }, reads: Reads): ExportDeps => ({
    sql: t.context.workerSql,
    reads,
    store: createFileStore(t.context.config),
    signingKey: async () => 'export-replica-test',
    publicUrl: t.context.config.publicUrl,
    dataDir: t.context.dir,
    ttlDays: 1,
    dutyCycle: 1,
    underLoad: async () => null,
  })

  /** Runs the export task `id`'s attempt `attempt` (every live job, as CSV) with `reads`; `onProgress` is awaited at each progress. Returns the file's text. */
  async function runExport(t: { context: Ctx }, reads: Reads, id: string, attempt: number, onProgress: (fraction: number) => Promise<void> = async () => {}, log = quiet) {
    const search = await exportBody.validate({ search: { limit: JOBS + 100 }, format: 'csv' })
    const { filters, page } = toSearch(search.search as never)
    const params: ExportParams = { filters, page, rows: JOBS + 100 }
    const finish = await exportJobData(depsOf(t, reads)).run({
      task: { id, type: 'export_job_data', account_id: t.context.app.accountId, input: { format: 'csv' }, notify: false, attempt, charged_units: params.rows },
      params,
      progress: onProgress,
      log,
    })
    return readFile(path.join(t.context.config.downloadsDir, finish.file!.key), 'utf8')
  }

  const lines = (text: string) => text.split('\n').filter(Boolean).length

  test.serial('with DATABASE_REPLICA_URLS, an export reads from the replica; its task is on the primary, and its file is the primary-only export\'s', async (t) => {
    const { app, replicaUrl } = t.context
    const workers = await startWorkers(app.boss!, t.context.workerSql, quiet, { ...t.context.config, replicas: { urls: [replicaUrl], maxLagSeconds: 5 } }, { tasks: true })
    try {
      const replicas = workers.reads as Replicas
      t.true(replicas instanceof Replicas, 'the workers read through the configured replicas')
      await eventually('the workers\' replica usable', () => replicas.status()[0].state === 'up', { ms: 30_000 })
      const rowsBefore = await jobRowsReadOnReplica(t)
      const res = await app.post('/v2/jobs/export', { search: { limit: JOBS + 100 }, format: 'csv' })
      t.is(res.status, 200)
      const { id } = (await res.json()) as { id: string }
      const task = await waitForTask(app, id)
      t.is(task.state, 'finished', task.error ?? '')
      t.is(task.result!.record_count, JOBS)
      t.true(replicas.status()[0].reads >= 1, 'the export\'s reads ran on the replica')
      t.is(replicas.primaryReads, 0, 'none on the primary')
      // the task's row, written by the worker, is on the primary (and replicated)
      const [row] = await app.db.sql<{ state: string; progress: number }[]>`select state, progress from tasks where id = ${id}`
      t.like(row, { state: 'finished', progress: 1 })
      const rowsRead = await eventually('the replica\'s statistics to show the export', async () => {
        const n = (await jobRowsReadOnReplica(t)) - rowsBefore
        return n >= JOBS && n
      })
      t.true(rowsRead >= JOBS, `the replica read ${rowsRead} rows of jobs`)

      const file = await (await download(app, task.result!.download_url)).text()
      t.is(lines(file), JOBS + 1, 'a header and a row a job')
      // the same task (its id is in each record's meta) exported again from the primary alone
      const primaryOnly = await runExport(t, primaryReads(t.context.workerSql), id, 9)
      t.is(file, primaryOnly, 'byte for byte the primary-only export')
    } finally {
      await workers.stop()
    }
  })

  test.serial('a replica stopped part-way through an export is skipped: the export is read again on the primary, its file complete and identical', async (t) => {
    const { replica } = t.context
    const id = randomUUID()
    const primaryOnly = await runExport(t, primaryReads(t.context.workerSql), id, 1)
    t.is(lines(primaryOnly), JOBS + 1)

    const replicas = await replicasOf(t)
    try {
      let stopped = false
      const progress: number[] = []
      const file = await runExport(t, replicas, id, 2, async (fraction) => {
        progress.push(fraction)
        if (!stopped) {
          // the first batch is written from the replica; the next statements find it gone
          stopped = true
          t.is(replicas.status()[0].reads, 1)
          await replica.stop()
        }
      })
      t.true(stopped)
      t.is(replicas.status()[0].state, 'down', 'the replica is skipped from then on')
      t.is(replicas.primaryReads, 1, 'the export was read again on the primary')
      t.true(progress.length > 2, 'progress went on after the replica stopped')
      t.is(file, primaryOnly, 'the file is complete and byte for byte the primary-only export')
    } finally {
      await replica.start()
      await replicas.close()
    }
  })

  test.serial('a statement the standby cancels for a conflict with recovery does not fail the export: it is read again on the primary, identical', async (t) => {
    const { app, direct } = t.context
    const id = randomUUID()
    const primaryOnly = await runExport(t, primaryReads(t.context.workerSql), id, 1)
    const replicas = await replicasOf(t)
    const locker = postgres(app.db.url, { max: 2, onnotice: () => {} })
    const [companiesLock, jobsLock] = [await locker.reserve(), await locker.reserve()]
    const waitingOnReplica = (relation: string) =>
      eventually(`a session of the replica waiting for ${relation}`, async () =>
        (await direct`select 1 from pg_locks where not granted and relation = ${relation}::regclass`).length > 0, { ms: 30_000 })
    let conflict: Promise<void> | null = null
    const logs: string[] = []
    const log = pino({ level: 'warn' }, new Writable({ write: (chunk, _enc, cb) => (logs.push(String(chunk)), cb()) }))
    try {
      const file = await runExport(t, replicas, id, 2, async () => {
        if (conflict) return
        // Replay holds what the primary locks. With companies locked on the primary, the
        // export's next statement on the replica takes its lock on jobs and waits for
        // companies; the primary then locks jobs, and replay waiting for the export while
        // the export waits for replay is a deadlock the standby breaks by cancelling the
        // export's statement (40P01), as it cancels one that holds up replay longer than
        // max_standby_streaming_delay (40001).
        await companiesLock`begin`
        await companiesLock`lock table companies in access exclusive mode`
        await eventually('the replica to replay the lock', async () =>
          (await direct`select 1 from pg_locks where granted and mode = 'AccessExclusiveLock' and relation = 'companies'::regclass`).length > 0, { ms: 30_000 })
        conflict = (async () => {
          await waitingOnReplica('companies')
          await jobsLock`begin`
          await jobsLock`lock table jobs in access exclusive mode`
          await eventually('the standby to cancel the waiting statement', async () => (await direct`select 1 from pg_locks where not granted and relation = 'companies'::regclass`).length === 0, { ms: 60_000 })
          // the primary's read of the export waits for these
          await jobsLock`rollback`
          await companiesLock`rollback`
        })()
      }, log)
      await conflict
      t.is(replicas.status()[0].state, 'up', 'a cancelled statement does not make the replica unusable')
      t.is(replicas.primaryReads, 1, 'the export was read again on the primary')
      t.true(logs.some((l) => l.includes('export read again on the primary')), 'and says so')
      t.is(file, primaryOnly, 'the file is complete and byte for byte the primary-only export')
    } finally {
      await jobsLock`rollback`.catch(() => {})
      await companiesLock`rollback`.catch(() => {})
      jobsLock.release()
      companiesLock.release()
      await locker.end({ timeout: 5 })
      await replicas.close()
    }
  })
}
