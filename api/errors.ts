/**
 * Errors in the spec's envelope: every error body is {"detail": ...}; a string for
 * most, an array of {type, loc, msg, input, ctx?} items for 422. Errors are raised
 * with the factories below and rendered once, by errorHandler.
 */
import type Koa from 'koa'
import type { Context, Next } from 'koa'
import type { Logger } from 'pino'
import { ValidationError } from 'yup'
import { BILLING_CODE, RETRY_AFTER } from './headers.ts'

export type ErrorItem = { type: string; loc: (string | number)[]; msg: string; input: unknown; ctx?: Record<string, unknown> }

export class AppError extends Error {
  constructor(
    public status: number,
    public detail: string | ErrorItem[],
    public headers: Record<string, string> = {},
  ) {
    super(typeof detail === 'string' ? detail : 'validation error')
  }
}

/** At most this many items in a 422; the rest are counted in one last item. */
const MAX_ITEMS = 20

export const errors = {
  notFound: (what: string) => new AppError(404, `${what} not found`),
  badRequest: (detail: string) => new AppError(400, detail),
  /**
   * Every 422 is built here, so every echo is bounded: items about a field come before
   * items about its elements (a 10,000-element list is reported as too long before its
   * elements are), and inputs and messages are clipped.
   */
  validation: (items: ErrorItem[]) => {
    const sorted = [...items].sort((a, b) => a.loc.length - b.loc.length)
    const shown = sorted.slice(0, MAX_ITEMS).map((i) => ({ ...i, msg: clipString(i.msg, CLIP.msg), input: clip(i.input) }))
    const more = sorted.length - shown.length
    if (more > 0) shown.push({ type: 'too_many_errors', loc: sorted[MAX_ITEMS].loc.slice(0, 1), msg: `${more} more errors not shown`, input: null })
    return new AppError(422, shown)
  },
  unsupportedMediaType: (type: string) =>
    new AppError(415, `Unsupported Media Type: send the body as JSON with Content-Type: application/json${type ? ` (got ${clipString(type, 100)})` : ''}`),
  missingAuth: () => new AppError(401, 'Missing authorization header'),
  signInRequired: () => new AppError(401, 'Sign in to access this endpoint', { [BILLING_CODE]: 'auth_required' }),
  invalidKey: () => new AppError(401, 'Invalid or revoked API key'),
  invalidToken: () => new AppError(401, 'Invalid or expired token'),
  /** Over a request-rate limit: retry after the window. No X-Billing-Code, which marks quota 429s. */
  rateLimited: (limit: number, windowSeconds: number, headers: Record<string, string>) =>
    new AppError(
      429,
      `Rate limit exceeded: ${limit} requests per ${windowSeconds} ${windowSeconds === 1 ? 'second' : 'seconds'}. Retry after ${headers[RETRY_AFTER]} seconds.`,
      headers,
    ),
  /**
   * A block-mode meter cannot cover the request's largest possible cost. Retrying does
   * not help until the period resets or the plan changes, so the detail says what does.
   */
  quotaExceeded: (q: { meter: string; unit: string; included: number; remaining: number; cost: number; perResult: boolean; periodEnd: Date }, headers: Record<string, string>) =>
    new AppError(
      429,
      `Usage limit reached for ${q.meter}: your plan includes ${q.included} ${q.unit} per period and ${q.remaining} remain, ` +
        `but this request could use up to ${q.cost}. ` +
        (q.perResult && q.remaining > 0
          ? `Lower limit to ${q.remaining} or fewer to stay within the allowance, or upgrade at /v2/billing/portal.`
          : `The allowance resets at ${q.periodEnd.toISOString()}; lower limit or upgrade at /v2/billing/portal.`),
      { ...headers, [BILLING_CODE]: 'limit_exceeded' },
    ),
  /**
   * Vector search: the stored vectors cannot answer this query (none of the query's
   * model, a record not embedded yet, sources of different models). Retrying does not
   * help; re-embedding does.
   */
  embeddingConflict: (detail: string) => new AppError(409, detail),
  /** Vector search needs to embed text and no embedding model is configured or loadable. */
  embedderUnavailable: (why: string) => new AppError(503, `The embedding model is unavailable (${why}); search with stored vectors (job_id, artifact_id, vectors) or retry later`),
  /** A route that creates tasks, on an app built without a task queue (a test's, or a misconfigured deployment's). */
  tasksUnavailable: () => new AppError(503, 'Background tasks are not available on this server; retry later'),
  /** The account has as many saved searches as its plan allows (sql/saved-searches.ts SAVED_SEARCH_LIMITS). */
  savedSearchLimit: (plan: string, limit: number) =>
    new AppError(403, `Your plan (${plan}) allows ${limit} saved searches; delete one or upgrade at /v2/billing/portal`, { [BILLING_CODE]: 'saved_search_limit' }),
  featureMissing: (feature: string) =>
    new AppError(403, `Your plan does not include the ${feature} feature; upgrade at /v2/billing/portal`, { [BILLING_CODE]: 'feature_missing' }),
}

type PgError = Error & { code?: string; severity?: string; constraint_name?: string; table_name?: string; column_name?: string }

/** A Postgres error the client caused, as the status it deserves; null for our own faults. */
function fromPostgres(e: PgError): AppError | null {
  if (!e.severity || !e.code) return null
  if (e.code === '23505') return new AppError(409, 'Conflict: the resource already exists')
  if (e.code === '22P02') return new AppError(400, 'Invalid input syntax')
  if (e.code === '57014') return new AppError(503, 'The query took too long; narrow it and retry')
  return null
}

/** koa-body's parse failures: malformed JSON is the spec's json_invalid item. */
function fromBodyParser(e: Error & { status?: number; type?: string; body?: string }): AppError | null {
  if (e.status === 413 || e.type === 'entity.too.large') return new AppError(413, 'Request body too large')
  if (e.status === 415) return new AppError(415, e.message)
  // a SyntaxError is JSON.parse's, or @hapi/bourne's for a __proto__ key
  if (e.status === 400 && (e.type === 'entity.parse.failed' || e instanceof SyntaxError || /JSON|body/i.test(e.message))) {
    return errors.validation([{ type: 'json_invalid', loc: ['body', 0], msg: 'JSON decode error', input: {}, ctx: { error: e.message } }])
  }
  return null
}

/** The event errorHandler emits for a Postgres error it answered with the status fromPostgres maps it to. */
export const DB_ERROR_ANSWERED = 'db-error-answered'

/**
 * Logs what errorHandler caught: a 500's error with its stack, and, at warn, a Postgres
 * error it answered with a 4xx or 503. A client can cause those (a duplicate, a malformed
 * value), but so can a bug or an overloaded database, so the log keeps what Postgres said
 * under the request id. Not its `detail`: for a unique violation that repeats the values,
 * an email address say.
 */
export function logErrors(app: Koa, log: Logger) {
  app.on('error', (err: Error, ctx?: Context) => {
    log.error({ req_id: ctx?.state?.requestId, route: ctx?.routerPath ?? null, err: { message: err.message, stack: err.stack } }, 'request failed')
  })
  app.on(DB_ERROR_ANSWERED, (err: PgError, ctx: Context) => {
    const { code, message, constraint_name, table_name, column_name } = err
    log.warn(
      { req_id: ctx.state.requestId, route: ctx.routerPath ?? null, status: ctx.status, err: { code, message, constraint_name, table_name, column_name } },
      'database error answered with its mapped status',
    )
  })
}

export async function errorHandler(ctx: Context, next: Next) {
  try {
    await next()
    if (ctx.status === 404 && ctx.body === undefined) throw new AppError(404, 'Not Found')
    if (ctx.status === 405 && (ctx.body === undefined || typeof ctx.body === 'string')) throw new AppError(405, 'Method Not Allowed')
  } catch (caught) {
    const e = caught as Error
    const pg = e instanceof AppError || e instanceof ValidationError ? null : fromPostgres(e)
    const known = e instanceof AppError ? e : e instanceof ValidationError ? errors.validation(toItems(e, 'body')) : (pg ?? fromBodyParser(e))
    if (known) {
      ctx.status = known.status
      ctx.body = { detail: known.detail }
      ctx.set(known.headers)
      if (pg) ctx.app.emit(DB_ERROR_ANSWERED, e, ctx)
      return
    }
    ctx.status = 500
    ctx.body = { detail: 'Internal Server Error' }
    ctx.app.emit('error', e, ctx)
  }
}

/** How much of a rejected value a 422 echoes (see clip). */
const CLIP = { msg: 500, string: 100, items: 10, keys: 10, values: 50, depth: 3 }

const clipString = (s: string, max: number) => (s.length > max ? `${s.slice(0, max)}… (${s.length} characters)` : s)

/**
 * A rejected value as a 422 echoes it: strings cut after 100 characters, lists after
 * 10 items and objects after 10 keys (each with a marker saying how much was left
 * out), containers below the third level summarized, at most 50 values in all, and
 * numbers JSON cannot carry (Infinity, NaN) as text. The client sent the value, so
 * only enough to find it is sent back, and the echo stays small however large or
 * deep the input was.
 */
export function clip(value: unknown): unknown {
  let budget = CLIP.values
  const summary = (v: object) => (Array.isArray(v) ? `[list of ${v.length} items]` : `{object with ${Object.keys(v).length} keys}`)
  const walk = (v: unknown, depth: number): unknown => {
    budget--
    if (typeof v === 'string') return clipString(v, CLIP.string)
    if (typeof v === 'number') return Number.isFinite(v) ? v : String(v)
    if (typeof v === 'boolean' || v === null) return v
    if (typeof v !== 'object') return v === undefined ? null : String(v)
    if (depth >= CLIP.depth || budget <= 0) return summary(v)
    if (Array.isArray(v)) {
      const head = v.slice(0, CLIP.items).map((x) => (budget > 0 ? walk(x, depth + 1) : '…'))
      return v.length > CLIP.items ? [...head, `… ${v.length - CLIP.items} more items`] : head
    }
    const entries = Object.entries(v)
    const out: Record<string, unknown> = {}
    for (const [k, x] of entries.slice(0, CLIP.keys)) out[clipString(k, CLIP.string)] = budget > 0 ? walk(x, depth + 1) : '…'
    if (entries.length > CLIP.keys) out['…'] = `${entries.length - CLIP.keys} more keys`
    return out
  }
  return walk(value, 0)
}

const typeNames: Record<string, [string, string]> = {
  string: ['string_type', 'Input should be a valid string'],
  number: ['float_type', 'Input should be a valid number'],
  integer: ['int_type', 'Input should be a valid integer'],
  array: ['list_type', 'Input should be a valid list'],
  object: ['dict_type', 'Input should be a valid dictionary'],
  boolean: ['bool_type', 'Input should be a valid boolean'],
  date: ['date_type', 'Input should be a valid date'],
}

const humanList = (values: unknown[]) => {
  const quoted = values.filter((v) => v !== undefined && v !== null).map((v) => `'${v}'`)
  return quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}` : (quoted[0] ?? '')
}

/** "geofilter_params[0].mode" → ["geofilter_params", 0, "mode"] */
export function pathToLoc(path: string | undefined): (string | number)[] {
  if (!path) return []
  return path
    .replace(/\["([^"]*)"\]/g, '.$1')
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter(Boolean)
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p))
}

/** yup's errors as the spec's 422 items. */
export function toItems(err: ValidationError, where: string | (string | number)[]): ErrorItem[] {
  const prefix = Array.isArray(where) ? where : [where]
  const all = err.inner.length ? err.inner : [err]
  // one item per field: yup can report a wrong type and then a failed oneOf for it
  const seen = new Set<string>()
  const leaves = all.filter((e) => !seen.has(e.path ?? '') && seen.add(e.path ?? ''))
  return leaves.map((e) => {
    const loc = [...prefix, ...pathToLoc(e.path)]
    const params = (e.params ?? {}) as Record<string, unknown>
    const input = e.value === undefined ? null : e.value
    switch (e.type) {
      case 'optionality': // yup's required(), defined() and nonNullable()
        return e.value === null
          ? { type: 'value_error', loc, msg: 'Input should not be null', input }
          : { type: 'missing', loc, msg: 'Field required', input: null }
      case 'typeError': {
        const [type, msg] = typeNames[String(params.type)] ?? ['value_error', e.message]
        return { type, loc, msg, input }
      }
      case 'integer':
        return { type: 'int_type', loc, msg: 'Input should be a valid integer', input }
      case 'oneOf': {
        const expected = humanList((params.resolved as unknown[]) ?? [])
        return { type: 'enum', loc, msg: `Input should be ${expected}`, input, ctx: { expected } }
      }
      case 'min':
        if (Array.isArray(e.value)) return { type: 'too_short', loc, msg: `List should have at least ${params.min} items, not ${e.value.length}`, input, ctx: { min_length: params.min, actual_length: e.value.length } }
        if (typeof e.value === 'string') return { type: 'string_too_short', loc, msg: `String should have at least ${params.min} characters`, input, ctx: { min_length: params.min } }
        return { type: 'greater_than_equal', loc, msg: `Input should be greater than or equal to ${params.min}`, input, ctx: { ge: params.min } }
      case 'max':
        if (Array.isArray(e.value)) return { type: 'too_long', loc, msg: `List should have at most ${params.max} items, not ${e.value.length}`, input, ctx: { max_length: params.max, actual_length: e.value.length } }
        if (typeof e.value === 'string') return { type: 'string_too_long', loc, msg: `String should have at most ${params.max} characters`, input, ctx: { max_length: params.max } }
        return { type: 'less_than_equal', loc, msg: `Input should be less than or equal to ${params.max}`, input, ctx: { le: params.max } }
      case 'noUnknown':
        return { type: 'extra_forbidden', loc, msg: `Extra inputs are not permitted: ${String(params.unknown)}`, input }
      default:
        // a schema's own test may name the item's type (e.g. date_parsing) and add ctx
        return { type: typeof params.itemType === 'string' ? params.itemType : 'value_error', loc, msg: e.message, input, ...(params.ctx ? { ctx: params.ctx as Record<string, unknown> } : {}) }
    }
  })
}
