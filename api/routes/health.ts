/** GET /healthz: 200 once the service can serve (schema applied, demo data loaded), 503 before. */
import Router from '@koa/router'
import type { Context, Next } from 'koa'
import { AppError } from '../errors.ts'
import { RETRY_AFTER } from '../headers.ts'

export type Readiness = { ready: boolean; stage?: string }

export function healthRoutes(readiness: Readiness) {
  const router = new Router()
  router.get('/healthz', (ctx) => {
    ctx.status = readiness.ready ? 200 : 503
    ctx.body = readiness.ready ? { status: 'ok' } : { status: 'starting', stage: readiness.stage ?? null }
  })
  return router
}

/** Until ready, everything but /healthz answers 503: the schema may not exist yet. */
export function readinessGate(readiness: Readiness) {
  return async (ctx: Context, next: Next) => {
    if (!readiness.ready && ctx.path !== '/healthz') {
      throw new AppError(503, `Service is starting (${readiness.stage ?? 'starting'}); retry shortly`, { [RETRY_AFTER]: '5' })
    }
    return next()
  }
}
