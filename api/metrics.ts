/**
 * Prometheus metrics (prom-client), off unless METRICS=1 (docs/operations.md lists every
 * series). One registry per app, so that apps in one process (tests) keep their own.
 *
 * - Requests: a duration histogram by method, route (the router's pattern, never the
 *   path: ids would make a series each) and status, taken when the response closes, as
 *   the request log's line is, since the error handler sets a failure's status after the
 *   routers return. Requests in flight.
 * - Admissions by outcome, read from what the response says (its status and
 *   X-Billing-Code), so that the admission code needs no hook: admitted (the request
 *   passed authentication, rate limits, feature gate and quota), rate_limited,
 *   over_quota, feature_missing, unauthenticated.
 * - The request queues (middleware/queues.ts): running and waiting, and how many may
 *   run; the `db` queue's running requests are the API's pool connections in use.
 * - From the database, on a timer of METRICS_REFRESH_SECONDS rather than per scrape, so
 *   that a scrape reads memory only and stays fast while the database is busy: pg-boss
 *   jobs by queue and state, open tasks by type and state, the background embedding's
 *   backlog, and the database's sessions by application and state.
 */
import { timingSafeEqual } from 'node:crypto'
import type Koa from 'koa'
import type { Context, Next } from 'koa'
import Router from '@koa/router'
import type PgBoss from 'pg-boss'
import type { Logger } from 'pino'
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { Config } from '../sql/config.ts'
import type { Sql } from '../sql/db.ts'
import type { Replicas } from '../sql/replicas.ts'
import { countLiveWithoutVector, modelId } from '../sql/embeddings.ts'
import { countBossJobs, countOpenTasks, countSessions } from '../sql/metrics.ts'
import type { Embedder } from '../ingest/embed/embedder.ts'
import { AppError } from './errors.ts'
import { BILLING_CODE } from './headers.ts'
import type { Queues } from './middleware/queues.ts'
import type { Readiness } from './routes/health.ts'

export type MetricsDeps = {
  sql: Sql
  queues: Queues
  poolSize: number
  readiness: Readiness
  log: Logger
  boss?: PgBoss
  embedder?: Embedder
  /** the read replicas (sql/replicas.ts), when DATABASE_REPLICA_URLS names some */
  replicas?: Pick<Replicas, 'status' | 'primaryReads'>
  refreshSeconds: number
}

/** Seconds; from a cached lookup (a few ms) to an export's creation or a resume's parse under load. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

export type AdmissionOutcome = 'admitted' | 'rate_limited' | 'over_quota' | 'feature_missing' | 'unauthenticated'

/** What admission decided, read from the response; null for a request that met no admission (anonymous, refused before it, or a 404). */
export function admissionOutcome(status: number, billingCode: string | undefined, hadAccount: boolean): AdmissionOutcome | null {
  if (status === 401) return 'unauthenticated'
  if (status === 429) return billingCode === 'limit_exceeded' ? 'over_quota' : 'rate_limited'
  if (status === 403 && billingCode === 'feature_missing') return 'feature_missing'
  return hadAccount ? 'admitted' : null
}

export class Metrics {
  readonly registry = new Registry()
  private readonly duration: Histogram<'method' | 'route' | 'status'>
  private readonly admissions: Counter<'outcome'>
  private inFlight = 0
  private timer: NodeJS.Timeout | null = null
  private refreshing: Promise<void> | null = null
  private embeddingModel: number | null = null

  constructor(private readonly deps: MetricsDeps) {
    const registers = [this.registry]
    collectDefaultMetrics({ register: this.registry })
    this.duration = new Histogram({
      name: 'jds_http_request_duration_seconds',
      help: 'Time from a request\'s arrival to its response\'s close, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      buckets: DURATION_BUCKETS,
      registers,
    })
    this.admissions = new Counter({ name: 'jds_admissions_total', help: 'Keyed requests by what admission decided', labelNames: ['outcome'], registers })
    const self = this
    new Gauge({ name: 'jds_http_requests_in_flight', help: 'Requests received and not yet answered', registers, collect() { this.set(self.inFlight) } })
    const { queues } = deps
    new Gauge({
      name: 'jds_request_queue_active', help: 'Requests running in a request queue (db: holding one of the API pool\'s connections)', labelNames: ['queue'], registers,
      collect() { for (const [name, q] of Object.entries(queues)) this.set({ queue: name }, q.active) },
    })
    new Gauge({
      name: 'jds_request_queue_waiting', help: 'Requests waiting in a request queue', labelNames: ['queue'], registers,
      collect() { for (const [name, q] of Object.entries(queues)) this.set({ queue: name }, q.waiting) },
    })
    new Gauge({
      name: 'jds_request_queue_concurrency', help: 'How many may run at once in a request queue (db: the API pool\'s connections)', labelNames: ['queue'], registers,
      collect() { for (const [name, q] of Object.entries(queues)) this.set({ queue: name }, q.limits.concurrency) },
    })
    new Gauge({ name: 'jds_db_pool_size', help: 'Connections of the API\'s main pool', registers }).set(deps.poolSize)
    const { replicas } = deps
    if (replicas) {
      // kept by sql/replicas.ts, read at the scrape: memory only
      new Gauge({
        name: 'jds_db_replica_usable', help: 'Whether a read replica takes reads now (1), or is skipped (0): down, further behind than REPLICA_MAX_LAG_SECONDS, or not a standby', labelNames: ['replica', 'state'], registers,
        collect() {
          this.reset()
          for (const r of replicas.status()) this.set({ replica: r.name, state: r.state }, r.state === 'up' ? 1 : 0)
        },
      })
      new Gauge({
        name: 'jds_db_replica_lag_seconds', help: 'How far a read replica was behind the primary at its last check (absent while it does not answer)', labelNames: ['replica'], registers,
        collect() {
          this.reset()
          for (const r of replicas.status()) if (r.lagSeconds !== null) this.set({ replica: r.name }, r.lagSeconds)
        },
      })
      new Counter({
        name: 'jds_db_reads_total', help: 'Reads of the routes that may use a replica, by where they ran (primary: no replica usable, or one failed the read)', labelNames: ['target'], registers,
        collect() {
          this.reset()
          this.inc({ target: 'primary' }, replicas.primaryReads)
          for (const r of replicas.status()) this.inc({ target: r.name }, r.reads)
        },
      })
    }
    this.bossJobs = new Gauge({ name: 'jds_boss_jobs', help: 'pg-boss jobs not yet done, by queue and state', labelNames: ['queue', 'state'], registers })
    this.tasks = new Gauge({ name: 'jds_tasks', help: 'Tasks queued or processing, by type and state', labelNames: ['type', 'state'], registers })
    this.sessions = new Gauge({ name: 'jds_db_sessions', help: 'This database\'s client sessions by application name and state', labelNames: ['application', 'state'], registers })
    this.backlog = new Gauge({ name: 'jds_embedding_backlog', help: 'Live jobs without a vector of the configured model', registers })
    this.refreshedAt = new Gauge({ name: 'jds_metrics_refresh_timestamp_seconds', help: 'When the series read from the database were last read', registers })
    this.refreshErrors = new Counter({ name: 'jds_metrics_refresh_errors_total', help: 'Refreshes of the database series that failed', registers })
  }

  private readonly bossJobs: Gauge<'queue' | 'state'>
  private readonly tasks: Gauge<'type' | 'state'>
  private readonly sessions: Gauge<'application' | 'state'>
  private readonly backlog: Gauge
  private readonly refreshedAt: Gauge
  private readonly refreshErrors: Counter

  /** Times every request; register it before the routers (and before the readiness gate, so that its 503s count). */
  middleware() {
    return (ctx: Context, next: Next) => {
      const started = process.hrtime.bigint()
      this.inFlight++
      ctx.res.once('close', () => {
        this.inFlight--
        const status = ctx.res.statusCode
        const route = ctx.routerPath ?? 'unmatched'
        this.duration.observe({ method: ctx.method, route, status: String(status) }, Number(process.hrtime.bigint() - started) / 1e9)
        // the endpoint's own 401 is no admission's
        if (route === '/metrics') return
        const code = ctx.res.getHeader(BILLING_CODE)
        const outcome = admissionOutcome(status, typeof code === 'string' ? code : undefined, Boolean(ctx.state.account))
        if (outcome) this.admissions.inc({ outcome })
      })
      return next()
    }
  }

  /** Reads the database series now (once at a time), then every refreshSeconds until stop(). */
  start() {
    if (this.timer) return
    void this.refresh()
    this.timer = setInterval(() => void this.refresh(), this.deps.refreshSeconds * 1000)
    this.timer.unref()
  }

  stop() {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
  }

  refresh(): Promise<void> {
    this.refreshing ??= this.read().finally(() => (this.refreshing = null))
    return this.refreshing
  }

  private async read() {
    const { sql, readiness, embedder, log } = this.deps
    // before the migrations the tables do not exist
    if (!readiness.ready) return
    try {
      const [jobs, tasks, sessions] = [await countBossJobs(sql), await countOpenTasks(sql), await countSessions(sql)]
      const backlog = embedder ? await countLiveWithoutVector(sql, (this.embeddingModel ??= await modelId(sql, embedder.info))) : null
      this.bossJobs.reset()
      for (const r of jobs) this.bossJobs.set({ queue: r.queue, state: r.state }, r.n)
      this.tasks.reset()
      for (const r of tasks) this.tasks.set({ type: r.type, state: r.state }, r.n)
      this.sessions.reset()
      for (const r of sessions) this.sessions.set({ application: r.application, state: r.state }, r.n)
      if (backlog !== null) this.backlog.set(backlog)
      this.refreshedAt.set(Date.now() / 1000)
    } catch (e) {
      this.refreshErrors.inc()
      log.warn({ err: { message: (e as Error).message } }, 'metrics: reading the database series failed')
    }
  }

  /** The text exposition format. */
  scrape() {
    return this.registry.metrics()
  }
}

/** Whether the Authorization header carries `token`, compared in constant time. */
function bearerMatches(header: string | undefined, token: string) {
  const m = /^Bearer (.+)$/i.exec(header ?? '')
  if (!m) return false
  const given = Buffer.from(m[1].trim())
  const want = Buffer.from(token)
  return given.length === want.length && timingSafeEqual(given, want)
}

export function metricsRoutes(metrics: Metrics, token: string | null) {
  const router = new Router()
  router.get('/metrics', async (ctx) => {
    if (token && !bearerMatches(ctx.get('authorization'), token)) {
      throw new AppError(401, 'GET /metrics needs Authorization: Bearer with METRICS_TOKEN', { 'WWW-Authenticate': 'Bearer realm="metrics"' })
    }
    ctx.type = metrics.registry.contentType
    ctx.body = await metrics.scrape()
  })
  return router
}

/**
 * With METRICS=1, times every request from here on and serves GET /metrics (ahead of the
 * readiness gate: a starting server is worth watching too). Call it right after the
 * request log. Returns the metrics, or null when they are off.
 */
export function useMetrics(app: Koa, config: Config['metrics'], deps: Omit<MetricsDeps, 'refreshSeconds'>) {
  if (!config.enabled) return null
  const metrics = new Metrics({ ...deps, refreshSeconds: config.refreshSeconds })
  app.use(metrics.middleware())
  const router = metricsRoutes(metrics, config.token)
  app.use(router.routes()).use(router.allowedMethods())
  metrics.start()
  return metrics
}
