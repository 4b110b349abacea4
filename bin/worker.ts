/**
 * `npm run worker`: a process that only works on tasks (exports) and the background
 * embedding of new postings (jobs/embed-vectors.ts), for scale-out beside
 * the API servers; any number may run. It works on DATABASE_URL, or on the embedded
 * database a running server owns in DATA_DIR. It runs the scheduled queues too, which
 * are enqueued once per instant whichever process claims them.
 */
import pino from 'pino'
import { createBoss } from '../jobs/boss.ts'
import { startWorkers } from '../jobs/index.ts'
import { lowerPriority } from '../jobs/pace.ts'
import { loadConfig } from '../sql/config.ts'
import { openDatabase, WORKER_APPLICATION } from '../sql/db.ts'
import { createEmbedder } from '../ingest/embed/create.ts'
import { migrate } from '../sql/migrate.ts'
import { closeResumeReaders } from '../ingest/resume/read.ts'

// a process of background work only: the kernel runs the API and Postgres first (jobs/pace.ts)
lowerPriority()
const config = loadConfig()
const log = pino({ level: config.logLevel, base: { service: 'job-data-service', role: 'worker' } })
const db = await openDatabase({ ...config, applicationName: WORKER_APPLICATION })
await migrate(db.sql)
const boss = createBoss(db.url, log, { maintenanceSeconds: config.tasks.maintenanceSeconds })
await boss.start()
const embedder = createEmbedder(config.embedding)
const workers = await startWorkers(boss, db.sql, log, config, { tasks: true, embedder })
log.info({ concurrency: config.tasks.concurrency, pid: process.pid }, 'task worker ready')

let stopping = false
/** As the server's (bin/server.ts): tasks running get SHUTDOWN_GRACE_SECONDS to finish, then are released to another worker. */
async function shutdown(signal: string) {
  if (stopping) return
  stopping = true
  const deadline = Date.now() + config.shutdownGraceSeconds * 1000
  log.info({ signal, grace_seconds: config.shutdownGraceSeconds }, 'worker stopping; tasks in progress finish first')
  await workers.stop(deadline)
  await boss.stop({ graceful: true, wait: true, timeout: Math.max(1000, deadline - Date.now()) }).catch(() => {})
  await embedder?.close()
  await closeResumeReaders()
  await db.close()
  log.info('worker stopped')
  process.exit(0)
}
process.on('SIGINT', () => void shutdown('SIGINT'))
process.on('SIGTERM', () => void shutdown('SIGTERM'))
