/**
 * buildApp returns the Koa app; it never listens. Middleware order matters: errors
 * first (so every failure, including a body that will not parse, gets the spec's
 * envelope), then the request log, CORS, readiness, and the routers. Routes that take a body parse it with jsonBody.
 * Authentication, rate limits, feature gates and metering are declared per route with
 * keyed() (middleware/keyed.ts); their state (admission.ts) and the JWT secret hang on
 * app.context, so each app keeps its own.
 */
import Koa from 'koa'
import type PgBoss from 'pg-boss'
import type { Logger } from 'pino'
import type { Config } from '../sql/config.ts'
import { POOL_SIZE, type Sql } from '../sql/db.ts'
import { primaryReads, Replicas, type Reads } from '../sql/replicas.ts'
import type { Embedder } from '../ingest/embed/embedder.ts'
import { errorHandler, logErrors } from './errors.ts'
import { Admission } from './middleware/admission.ts'
import { billingRoutes } from './routes/billing.ts'
import { cors } from './middleware/cors.ts'
import { RequestQueue } from './middleware/queues.ts'
import { countSearches } from './middleware/searches.ts'
import { jwtSecretSource } from './middleware/jwt.ts'
import { requestLog } from './middleware/request-log.ts'
import { recordKeyUse } from './middleware/key-use.ts'
import { keyRoutes } from './routes/keys.ts'
import { consoleRoutes } from './routes/console.ts'
import { companyRoutes } from './routes/companies.ts'
import { contactRoutes } from './routes/contacts.ts'
import { companySearchRoutes } from './routes/company-search.ts'
import { docsRoutes } from './routes/docs.ts'
import { signingKeySource } from '../jobs/files/signing.ts'
import { createFileStore, type FileStore } from '../jobs/files/store.ts'
import { downloadRoutes } from './routes/downloads.ts'
import { embedRoutes } from './routes/embed.ts'
import { expiredJobsRoutes } from './routes/expired-jobs.ts'
import { exportRoutes } from './routes/export.ts'
import { healthRoutes, readinessGate, type Readiness } from './routes/health.ts'
import { useMetrics } from './metrics.ts'
import { historicalRoutes } from './routes/historical.ts'
import { insightsRoutes } from './routes/insights.ts'
import { salaryBenchmarkRoutes } from './routes/salary-benchmark.ts'
import { jobRoutes } from './routes/jobs.ts'
import { referenceRoutes } from './routes/reference.ts'
import { resumeRoutes } from './routes/resumes.ts'
import { searchRoutes } from './routes/search.ts'
import { eventRoutes, savedSearchRoutes } from './routes/saved-searches.ts'
import { taskRoutes } from './routes/tasks.ts'
import { vectorSearchRoutes } from './routes/vector-search.ts'

export type AppDeps = {
  sql: Sql
  config: Config
  log: Logger
  readiness?: Readiness
  /** Connections for the admission statements (admission.ts), if not sql's; the caller closes them. Default: sql. */
  admissionSql?: Sql
  /** embeds queries for vector search and POST /v2/embed (ingest/embed) */
  embedder?: Embedder
  /** the task queue routes that create tasks enqueue on; without it they answer 503 */
  boss?: PgBoss
  /** where export files and stored resumes are kept; default createFileStore(config) */
  fileStore?: FileStore
  /** the connections of `sql`'s pool: queries of requests beyond that many wait their turn (middleware/queues.ts) */
  poolSize?: number
  /** where read-only work runs: read replicas while they are usable (sql/replicas.ts); default: sql */
  reads?: Reads
}

export function buildApp({ sql, config, log, readiness = { ready: true }, admissionSql = sql, embedder, boss, fileStore, poolSize = POOL_SIZE, reads = primaryReads(sql) }: AppDeps) {
  const app = new Koa({ proxy: false })
  app.context.jwtSecret = jwtSecretSource(sql, config.jwtSecret)
  app.context.admission = new Admission(admissionSql, config.rateLimits)
  app.context.queues = {
    db: new RequestQueue('a database connection', { concurrency: poolSize, ...config.queues.db }),
    cpu: new RequestQueue('the CPU', config.queues.cpu),
  }
  app.context.searches = { inFlight: 0 }
  logErrors(app, log)

  app.use(errorHandler)
  app.use(requestLog(log))
  useMetrics(app, config.metrics, { sql, queues: app.context.queues, poolSize, readiness, log, boss, embedder, replicas: reads instanceof Replicas ? reads : undefined })
  app.use(cors())
  app.use(readinessGate(readiness))
  app.use(countSearches(app.context.searches))
  app.use(recordKeyUse(sql, log))

  const store = fileStore ?? createFileStore(config)
  const resumes = resumeRoutes({
    sql, store, boss, embedder, publicUrl: config.publicUrl,
    analyze: {
      llm: config.resumes.llm,
      readTimeoutMs: config.resumes.readTimeoutMs,
      onLlmFailure: (e) => log.warn({ err: { message: (e as Error).message } }, 'resume LLM pass failed; the heuristic parse stands'),
    },
  })
  // a job looked up by id is found by its key, as the admission's rows are: its statement
  // runs on the admission's connections, whose generic plan saves planning a join on
  // every lookup (docs/metering.md), or on a read replica when one is usable.
  // Searches, lookups, company search, insights and historical search read through
  // `reads`; everything that writes, and what a client reads back right after writing it
  // (tasks, resumes, saved searches, usage), stays on `sql` (docs/scaling.md)
  // routes under /v2/jobs/ with a fixed name come before jobRoutes' /v2/jobs/:job_id
  const routers = [
    healthRoutes(readiness, sql), referenceRoutes(), searchRoutes(reads), vectorSearchRoutes(reads, embedder), exportRoutes(sql, boss, config.tasks), salaryBenchmarkRoutes(sql, boss, config.tasks), insightsRoutes(reads), expiredJobsRoutes(sql, boss, config.tasks), historicalRoutes(reads, boss, config.tasks), contactRoutes(sql), jobRoutes(admissionSql, reads), companySearchRoutes(reads), companyRoutes(reads), taskRoutes(sql), billingRoutes(sql), keyRoutes(sql), embedRoutes(embedder), resumes, eventRoutes(sql), savedSearchRoutes(sql, embedder, config.webhooks), docsRoutes(), consoleRoutes(),
    downloadRoutes(sql, store, signingKeySource(sql, config.files.signingSecret)),
  ]
  for (const router of routers) app.use(router.routes()).use(router.allowedMethods())
  return app
}
