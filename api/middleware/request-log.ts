/** One structured line per request: id, method, route, status, ms, and the account. */
import { randomUUID } from 'node:crypto'
import type { Context, Next } from 'koa'
import type { Logger } from 'pino'

export function requestLog(log: Logger) {
  return async (ctx: Context, next: Next) => {
    const started = process.hrtime.bigint()
    const id = ctx.get('x-request-id').slice(0, 100) || randomUUID()
    ctx.state.requestId = id
    ctx.set('X-Request-Id', id)
    try {
      await next()
    } finally {
      log.info({
        req_id: id,
        method: ctx.method,
        route: ctx._matchedRoute ?? null,
        path: ctx.path,
        status: ctx.status,
        ms: Number(process.hrtime.bigint() - started) / 1e6,
        account_id: ctx.state.account?.id ?? null,
      })
    }
  }
}
