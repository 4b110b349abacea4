/**
 * One structured line per request: id, method, route, status, ms, and the account.
 *
 * The request id is always the server's own UUID: metering writes it into the usage
 * ledger, so a client must not choose it. A client's X-Request-Id (printable ASCII,
 * at most 128 characters; anything else is dropped) is kept as a correlation id,
 * logged as correlation_id and echoed in X-Correlation-Id; the response's X-Request-Id
 * is the server's id.
 *
 * The line is written when the response is done, not when the middleware chain
 * returns: errorHandler runs outside this middleware and sets the status of a
 * failure after it, so only the response knows what was sent.
 *
 * Credentials stay out of the line: it holds the path without its query string, a
 * download link's path without its signature (the link is the credential), and no
 * header but the correlation id.
 */
import { randomUUID } from 'node:crypto'
import type { Context, Next } from 'koa'
import type { Logger } from 'pino'
import { redactDownloadLinks } from '../../jobs/files/signing.ts'
import { CORRELATION_ID, REQUEST_ID } from '../headers.ts'

const CORRELATION = /^[\x20-\x7e]{1,128}$/

export function requestLog(log: Logger) {
  return (ctx: Context, next: Next) => {
    const started = process.hrtime.bigint()
    const id = randomUUID()
    const given = ctx.get(REQUEST_ID).trim()
    const correlationId = CORRELATION.test(given) ? given : null
    ctx.state.requestId = id
    ctx.set(REQUEST_ID, id)
    if (correlationId) ctx.set(CORRELATION_ID, correlationId)
    ctx.res.once('close', () => {
      log.info({
        req_id: id,
        ...(correlationId ? { correlation_id: correlationId } : {}),
        method: ctx.method,
        // the route @koa/router matched (its documented ctx.routerPath), e.g. /v2/jobs/:job_id
        route: ctx.routerPath ?? null,
        path: redactDownloadLinks(ctx.path),
        status: ctx.res.statusCode,
        // the client went away before the whole response was written
        ...(ctx.res.writableFinished ? {} : { aborted: true }),
        ms: Number(process.hrtime.bigint() - started) / 1e6,
        account_id: ctx.state.account?.id ?? null,
      })
    })
    return next()
  }
}
