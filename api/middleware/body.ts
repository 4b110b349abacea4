/**
 * JSON body parsing, per route, so an unknown path is a 404 before its body is read.
 * The limit bounds the body while it streams; a malformed body becomes the spec's
 * json_invalid item in errorHandler.
 *
 * What reaches the route is always an object. A body with content must be sent as
 * JSON (application/json or any +json type): anything else is a 415, not a body read
 * as empty, which would run an unfiltered search and bill it. A JSON value that is
 * not an object (null, a list, a number) is a 422 dict_type at ["body"]. An empty
 * body, with or without a content type, is {}, as `curl -X POST` without data means.
 * Both refusals come before keyed() on the routes that parse a body, so they cost
 * nothing. A compressed body that does not decompress is a 400.
 */
import type { Context, Middleware, Next } from 'koa'
import { koaBody } from 'koa-body'
import { errors } from '../errors.ts'

const JSON_TYPES = ['json', '+json']

const parse = koaBody({
  json: true,
  jsonTypes: JSON_TYPES,
  urlencoded: false,
  text: false,
  multipart: false,
  jsonLimit: '1mb',
  jsonStrict: false,
  includeUnparsed: true,
})

const noop = async () => {}

/** No body bytes announced: no Content-Length (or 0) and no chunked transfer. */
const isEmpty = (ctx: Context) => ctx.get('transfer-encoding') === '' && (ctx.get('content-length') === '' || Number(ctx.get('content-length')) === 0)

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

export const jsonBody = (): Middleware => async (ctx: Context, next: Next) => {
  if (isEmpty(ctx)) {
    ctx.request.body = {}
    return next()
  }
  if (!ctx.is(JSON_TYPES)) throw errors.unsupportedMediaType(ctx.get('content-type'))
  try {
    await parse(ctx, noop)
  } catch (e) {
    // zlib's errors carry no HTTP status; a body that does not decompress is the client's fault, not ours
    const z = e as { code?: unknown; errno?: unknown }
    if (typeof z.code === 'string' && typeof z.errno === 'number') {
      throw errors.badRequest(`Bad Request: the body could not be decoded as Content-Encoding: ${ctx.get('content-encoding').slice(0, 100)}`)
    }
    throw e
  }
  // a chunked body can turn out empty only once it is read
  if (ctx.request.rawBody === '') ctx.request.body = {}
  else if (!isObject(ctx.request.body)) {
    throw errors.validation([{ type: 'dict_type', loc: ['body'], msg: 'Input should be a valid dictionary (a JSON object)', input: ctx.request.body ?? null }])
  }
  return next()
}
