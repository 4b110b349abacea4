/** CORS for browser clients, exposing the billing and rate-limit headers they read. */
import type { Context, Next } from 'koa'
import { EXPOSED } from '../headers.ts'

const exposedHeaders = EXPOSED.join(', ')

export function cors() {
  return async (ctx: Context, next: Next) => {
    ctx.set('Access-Control-Allow-Origin', ctx.get('origin') || '*')
    ctx.set('Vary', 'Origin')
    ctx.set('Access-Control-Expose-Headers', exposedHeaders)
    if (ctx.method === 'OPTIONS' && ctx.get('access-control-request-method')) {
      ctx.set('Access-Control-Allow-Methods', 'GET, POST, OPTIONS')
      ctx.set('Access-Control-Allow-Headers', ctx.get('access-control-request-headers') || 'content-type, x-api-key, authorization')
      ctx.set('Access-Control-Max-Age', '600')
      ctx.status = 204
      return
    }
    return next()
  }
}
