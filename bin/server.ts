/**
 * `make run`: opens the database (DATABASE_URL, or the embedded one it owns),
 * listens at once so /healthz can say 503 while it starts, applies migrations,
 * starts pg-boss and the schedules, loads demo data (embedded with the configured
 * model) into an empty embedded database, then reports ready. The embedding model
 * loads on first use, in worker threads for the default one.
 */
import type { Server, ServerResponse } from 'node:http'
import net from 'node:net'
import { startWorkers } from '../jobs/index.ts'
import { queue as expireQueue } from '../jobs/jobs-expire.ts'
import { createBoss } from '../jobs/boss.ts'
import { connectWorkers, openAdmission, openDatabase } from '../sql/db.ts'
import { Replicas } from '../sql/replicas.ts'
import { migrate } from '../sql/migrate.ts'
import { restoreIndexes } from '../sql/deferred-indexes.ts'
import { buildApp } from '../api/app.ts'
import { loadConfig } from '../sql/config.ts'
import { loadDemoData } from '../ingest/demo-data.ts'
import { createEmbedder } from '../ingest/embed/create.ts'
import { createLogger } from '../api/log.ts'
import type { Readiness } from '../api/routes/health.ts'
import { closeResumeReaders } from '../ingest/resume/read.ts'

const config = loadConfig()
const log = createLogger(config.logLevel)
const readiness: Readiness = { ready: false, stage: 'database' }

const db = await openDatabase({ ...config, own: true })
log.info({ embedded: db.embedded ? db.embedded.url : null }, db.embedded ? 'embedded database open' : 'database connected')

const embedder = createEmbedder(config.embedding)
if (embedder) log.info(embedder.info, 'embedding model')
else log.warn('EMBEDDING_PROVIDER is none: postings are stored without vectors, and queries cannot be embedded')
// created now so routes can enqueue tasks; started below, before requests are let in
const boss = createBoss(db.url, log, { maintenanceSeconds: config.tasks.maintenanceSeconds })
const admission = openAdmission(db)
// read replicas (DATABASE_REPLICA_URLS): reads go to the primary until the first check finds one usable
const replicas = config.replicas.urls.length
  ? new Replicas(db.sql, config.replicas.urls, {
      maxLagSeconds: config.replicas.maxLagSeconds,
      max: db.poolSize,
      onChange: (r, was) => log[r.state === 'up' ? 'info' : 'warn']({ replica: r.name, was, state: r.state, lag_seconds: r.lagSeconds }, `read replica ${r.state}`),
    })
  : null
void replicas?.start()
const app = buildApp({ sql: db.sql, admissionSql: admission.sql, poolSize: db.poolSize, config, log, readiness, embedder: embedder ?? undefined, boss, reads: replicas ?? undefined })
const server: Server = await new Promise((resolve, reject) => {
  const s = app.listen(config.port, () => resolve(s)).on('error', reject)
})
log.info({ port: config.port }, 'listening')

readiness.stage = 'migrations'
const applied = await migrate(db.sql)
if (applied.length) log.info({ applied }, 'migrations applied')
// an index a bulk load dropped and did not live to build again (the demo load's)
const rebuilt = await restoreIndexes(db.sql)
if (rebuilt.length) log.info({ rebuilt }, 'deferred indexes built')

readiness.stage = 'queues'
await boss.start()
// the workers' own pool, named apart so that an export can tell the API's statements from theirs (jobs/pace.ts)
const workerSql = connectWorkers(db.url, db.poolSize)
// exports and the background embedding in this process rest while its requests wait (jobs/pace.ts)
const workers = await startWorkers(boss, workerSql, log, config, { embedder, api: { ...app.context.queues, searches: app.context.searches } })

if (db.embedded && config.demoJobs > 0) {
  readiness.stage = 'demo data'
  const summary = await loadDemoData(db.sql, config.demoJobs, {
    embedder,
    embedBatch: config.embedding.batch,
    onEmbedError: (message) => log.warn({ err: { message } }, 'demo postings not embedded; make embed embeds them once the model works'),
  })
  if (summary) log.info(summary, 'demo data loaded')
}
// archive what the demo (or an ingest while we were down) brought in already expired
await boss.send(expireQueue, {})
readiness.ready = true
readiness.stage = undefined
log.info('ready')

/**
 * SIGTERM (or SIGINT): /readyz answers 503 and the listener closes, so no new connection
 * is accepted; requests in flight finish and settle, their connections closing after
 * their responses (Connection: close), idle ones at their keep-alive timeout. The task workers stop
 * taking tasks and let the running ones finish. SHUTDOWN_GRACE_SECONDS after the signal,
 * tasks still running are released to another process (jobs/tasks.ts) and connections
 * still open are closed. Then pg-boss stops, the pools close, and the process exits 0.
 */
const inFlight = new Set<ServerResponse>()
server.on('request', (_req, res) => {
  inFlight.add(res)
  res.once('close', () => inFlight.delete(res))
  if (readiness.stopping && !res.headersSent) res.setHeader('Connection', 'close')
})

async function shutdown(signal: string) {
  if (readiness.stopping) return
  readiness.stopping = true
  const graceMs = config.shutdownGraceSeconds * 1000
  const deadline = Date.now() + graceMs
  log.info({ signal, grace_seconds: config.shutdownGraceSeconds, requests_in_flight: inFlight.size }, 'shutting down')
  // each request settles what it charged before it is answered; its connection closes after that answer
  for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close')
  // net.Server's close stops listening and leaves the open connections be; http.Server's
  // would also close the idle keep-alive ones at once, and a request a client sent on one
  // at that moment would be lost. Left open, a request that comes on one is answered
  // (with Connection: close), and one that stays idle closes at its keep-alive timeout,
  // as it would while the server runs.
  const closed = new Promise((resolve) => net.Server.prototype.close.call(server, resolve))
  const idle = setTimeout(() => server.closeIdleConnections(), Math.min(graceMs, server.keepAliveTimeout + 1000))
  const cutOff = setTimeout(() => {
    log.warn({ requests_in_flight: inFlight.size }, 'grace over: closing the connections still open')
    server.closeAllConnections()
  }, graceMs)
  await Promise.all([
    closed.then(() => {
      clearTimeout(cutOff)
      log.info('requests finished')
    }),
    workers.stop(deadline),
  ])
  clearTimeout(idle)
  clearTimeout(cutOff)
  await boss.stop({ graceful: true, wait: true, timeout: Math.max(1000, deadline - Date.now()) }).catch(() => {})
  await embedder?.close()
  await closeResumeReaders()
  await workerSql.end({ timeout: 5 })
  await admission.close()
  await replicas?.close()
  await db.close()
  log.info('stopped')
  process.exit(0)
}
process.on('SIGINT', () => void shutdown('SIGINT'))
process.on('SIGTERM', () => void shutdown('SIGTERM'))
