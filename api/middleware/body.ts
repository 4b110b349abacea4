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
 *
 * A string (or key) holding a lone UTF-16 surrogate ("\ud800" without its pair) is a
 * 400 on every route, before keyed() too: it is valid JSON but no text, which
 * Postgres would refuse or a response would carry on as U+FFFD.
 */
import type { Context, Middleware, Next } from 'koa'
import { koaBody } from 'koa-body'
import { errors } from '../errors.ts'
import { checkStrings, codePoint, LONE_SURROGATE, locText } from '../validate.ts'

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
  // decoded UTF-8 holds no surrogates: only a \uD800-\uDFFF escape can make one
  if (SURROGATE_ESCAPE.test(ctx.request.rawBody ?? '')) {
    const found = checkStrings(ctx.request.body, ['body'], loneSurrogate)
    if (found) throw errors.badRequest(found)
  }
  return next()
}

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/

const loneSurrogate = (s: string, loc: (string | number)[], key: boolean) => {
  const m = LONE_SURROGATE.exec(s)
  return m ? `Unsafe string: the ${key ? 'key' : 'string'} at ${locText(loc)} holds a lone UTF-16 surrogate (${codePoint(m[0])} at position ${m.index}); send well-formed Unicode` : null
}
