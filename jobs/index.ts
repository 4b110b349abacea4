/** Registers every queue and worker, and the schedules that feed them. */
import type PgBoss from 'pg-boss'
import type { Logger } from 'pino'
import type { Config } from '../sql/config.ts'
import { connectReplica, WORKER_APPLICATION, type Sql } from '../sql/db.ts'
import { primaryReads, Replicas, type Reads } from '../sql/replicas.ts'
import * as rollPeriods from './billing-roll-periods.ts'
import { exportExpiredJobs } from './export-expired-jobs.ts'
import { exportHistorical } from './export-historical.ts'
import { exportJobData } from './export-job-data.ts'
import { salaryBenchmark } from './salary-benchmark.ts'
import type { ExportDeps } from './export-file.ts'
import * as filesCleanup from './files-cleanup.ts'
import { signingKeySource } from './files/signing.ts'
import { createFileStore } from './files/store.ts'
import * as expire from './jobs-expire.ts'
import { createMailer, notifyTask } from './notify.ts'
import { scheduleQueue } from './schedule.ts'
import { startTaskWorkers, TASK_QUEUES } from './tasks.ts'
import { createQueues } from './boss.ts'
import * as embedVectors from './embed-vectors.ts'
import * as resumesParse from './resumes-parse.ts'
import { startWebhookWorkers } from './webhooks.ts'
import type { Embedder } from '../ingest/embed/embedder.ts'
import { modelId } from '../sql/embeddings.ts'
import { countForegroundStatements } from '../sql/foreground.ts'
import { loadSignal, pacer, runQueue, type ApiLoad } from './pace.ts'

/**
 * `sql` is the workers' own pool, named WORKER_APPLICATION (sql/db.ts), so that their
 * statements do not count as the API's (sql/foreground.ts). `api`: the API's request
 * queues and searches in flight, when the API runs in this process, which background
 * work yields to (jobs/pace.ts).
 * `tasks`: run task workers and the background embedding in this process (the API's
 * TASK_WORKERS_IN_API, or `npm run worker`, which always does); the embedding needs an
 * `embedder`. Scheduled queues run in every process: each instant is enqueued once
 * whichever process claims it.
 * `reads`: where exports read. By default the read replicas of DATABASE_REPLICA_URLS,
 * with pools of their own beside `sql` (named WORKER_APPLICATION on the replicas too), or
 * `sql` without them.
 */
export async function startWorkers(
  boss: PgBoss, sql: Sql, log: Logger, config: Config,
  { tasks = config.tasks.inProcess, embedder = null, api, reads }: { tasks?: boolean; embedder?: Embedder | null; api?: ApiLoad; reads?: Reads } = {},
) {
  await createQueues(boss, sql, [
    { ...embedVectors.options, name: embedVectors.queue },
    { ...expire.options, name: expire.queue },
    { ...rollPeriods.options, name: rollPeriods.queue },
    { ...filesCleanup.options, name: filesCleanup.queue },
    resumesParse.options,
    ...TASK_QUEUES,
  ])
  const store = createFileStore(config)
  await boss.work(expire.queue, expire.handler(sql, log, config.expireAfterDays))
  await boss.work(rollPeriods.queue, rollPeriods.handler(sql, log))
  await boss.work(filesCleanup.queue, filesCleanup.handler(sql, store, log))

  const schedules = [
    scheduleQueue(boss, log, expire.queue, config.expireCron),
    scheduleQueue(boss, log, rollPeriods.queue, config.periodCron),
    scheduleQueue(boss, log, filesCleanup.queue, config.files.cleanupCron),
  ]
  // only a server tells the API's sessions from the workers' (sql/foreground.ts); a
  // process without the API reads the machine's run queue for what no statement shows
  const underLoad = loadSignal({
    api,
    statements: config.databaseUrl ? () => countForegroundStatements(sql) : undefined,
    runQueue: api ? null : runQueue(),
  })
  const mailer = createMailer(config.mail, config.dataDir, log)
  // the exports' replicas: checked by this process, as the API's are by the API (sql/replicas.ts)
  const replicas = !reads && tasks && config.databaseUrl && config.replicas.urls.length
    ? new Replicas(sql, config.replicas.urls, {
        maxLagSeconds: config.replicas.maxLagSeconds,
        max: sql.options.max,
        connect: (url, max) => connectReplica(url, max, WORKER_APPLICATION),
        onChange: (r, was) => log[r.state === 'up' ? 'info' : 'warn']({ replica: r.name, was, state: r.state, lag_seconds: r.lagSeconds, role: 'exports' }, `read replica ${r.state}`),
      })
    : null
  await replicas?.start()
  const exportDeps: ExportDeps = {
    sql,
    reads: reads ?? replicas ?? primaryReads(sql),
    store,
    signingKey: signingKeySource(sql, config.files.signingSecret),
    publicUrl: config.publicUrl,
    dataDir: config.dataDir,
    ttlDays: config.files.ttlDays,
    dutyCycle: config.tasks.exportDutyCycle,
    underLoad,
  }
  const workers = tasks
    ? await startTaskWorkers({
        boss,
        sql,
        log,
        config: config.tasks,
        types: [exportJobData(exportDeps), exportExpiredJobs(exportDeps), exportHistorical(exportDeps), salaryBenchmark({ sql, embedder })],
        notify: async (taskId) => void (await notifyTask(sql, mailer, taskId, { publicUrl: config.publicUrl })),
      })
    : null
  // stored resumes are parsed wherever tasks run; without a model they are parsed and left without a vector
  const resumeWorker = tasks
    ? await boss.work(
        resumesParse.queue,
        resumesParse.handler({ sql, store, log, analyze: { embedder, llm: config.resumes.llm, readTimeoutMs: config.resumes.readTimeoutMs, onLlmFailure: (e) => log.warn({ err: { message: (e as Error).message } }, 'resume LLM pass failed; the heuristic parse stands') } }),
      )
    : null
  // saved searches' matching and webhook deliveries run wherever tasks do (docs/webhooks.md)
  const webhooks = tasks ? startWebhookWorkers({ sql, log, config: config.webhooks, mailer, publicUrl: config.publicUrl }) : null
  let embedding: Awaited<ReturnType<typeof embedVectors.startEmbedWorkers>> | null = null
  if (tasks && embedder) {
    const queued = await embedVectors.queueBacklog(boss, sql, await modelId(sql, embedder.info), config.embedding)
    if (queued) log.info({ queued, model: embedder.info }, 'live jobs without a vector of the model queued for the background embedding')
    embedding = await embedVectors.startEmbedWorkers(boss, sql, embedder, log, config.embedding.batch, {
      pace: () => pacer(config.tasks.exportDutyCycle, underLoad),
    })
  }
  return {
    /** where the exports read (a Replicas when DATABASE_REPLICA_URLS names some) */
    reads: exportDeps.reads,
    /** Stops taking work; the tasks running get until `deadline` (ms since the epoch) to finish, then are released (jobs/tasks.ts). */
    stop: async (deadline?: number) => {
      await Promise.all(schedules.map((s) => s.stop()))
      await workers?.stop(deadline)
      if (resumeWorker) await boss.offWork({ id: resumeWorker })
      await embedding?.stop()
      await webhooks?.stop()
      mailer.close()
      await replicas?.close()
    },
  }
}
