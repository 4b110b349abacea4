/**
 * Liveness and readiness, for load balancers and Kubernetes probes (docs/operations.md).
 *
 * - GET /healthz, liveness: 200 once the service can serve (schema applied, demo data
 *   loaded), 503 while it starts. It asks the database nothing, so a database outage does
 *   not get the process restarted.
 * - GET /readyz, readiness: 200 only when the process has started and is not stopping,
 *   the database answers within READY_TIMEOUT_MS, and every migration this build ships
 *   is applied (another process may be applying them); otherwise 503 with the reason.
 *   A stopping process answers 503 at once, so a balancer sends it nothing new.
 */
import Router from '@koa/router'
import type { Context, Next } from 'koa'
import { AppError } from '../errors.ts'
import { RETRY_AFTER } from '../headers.ts'
import type { Sql } from '../../sql/db.ts'
import { listPendingMigrations } from '../../sql/health.ts'

export type Readiness = {
  ready: boolean
  stage?: string
  /** set on SIGTERM (bin/server.ts): /readyz answers 503 from then on */
  stopping?: boolean
}

/** A probe's default timeout is 1 s; a database slower than this is as good as down to a balancer. */
const READY_TIMEOUT_MS = 900

async function notReadyBecause(readiness: Readiness, sql: Sql | undefined): Promise<string | null> {
  if (readiness.stopping) return 'stopping'
  if (!readiness.ready) return `starting (${readiness.stage ?? 'starting'})`
  if (!sql) return null
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), READY_TIMEOUT_MS)))
  try {
    const pending = await Promise.race([listPendingMigrations(sql), timeout])
    if (pending === 'timeout') return `the database did not answer within ${READY_TIMEOUT_MS} ms`
    if (pending.length) return `migrations pending: ${pending.join(', ')}`
    return null
  } catch {
    return 'the database does not answer'
  } finally {
    clearTimeout(timer)
  }
}

export function healthRoutes(readiness: Readiness, sql?: Sql) {
  const router = new Router()
  router.get('/healthz', (ctx) => {
    ctx.status = readiness.ready ? 200 : 503
    ctx.body = readiness.ready ? { status: 'ok' } : { status: 'starting', stage: readiness.stage ?? null }
  })
  router.get('/readyz', async (ctx) => {
    const reason = await notReadyBecause(readiness, sql)
    ctx.status = reason ? 503 : 200
    ctx.body = reason ? { status: 'not ready', reason } : { status: 'ready' }
  })
  return router
}

/** Until ready, everything but the probes (and /metrics, mounted ahead of this) answers 503: the schema may not exist yet. */
export function readinessGate(readiness: Readiness) {
  return async (ctx: Context, next: Next) => {
    if (!readiness.ready && ctx.path !== '/healthz' && ctx.path !== '/readyz') {
      throw new AppError(503, `Service is starting (${readiness.stage ?? 'starting'}); retry shortly`, { [RETRY_AFTER]: '5' })
    }
    return next()
  }
}
