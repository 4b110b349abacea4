/**
 * The OpenAPI 3.1 document, built from one entry per route (routeDocs below, one list per route family beside it). Request
 * parameters and bodies are converted from the same yup schemas the handlers validate
 * with, so the document cannot drift from validation; response shapes come from
 * schemas/responses.ts. Every operation gets the statuses the middleware can produce
 * (401 for keyed routes, 404 where a path names a resource, 422 where input is
 * validated, 500, and 503 while the service is starting), so an entry only lists what
 * its own handler adds.
 *
 * Adding a route: append an entry to its family's list. test/api/openapi.test.ts enumerates the
 * routers buildApp mounts and fails on any method and path without an entry (and on
 * any entry the app does not serve).
 */
import type { AnyObjectSchema } from 'yup'
import pkg from '../../package.json' with { type: 'json' }
import { MAX_LIST_ITEMS, MAX_NESTING } from '../validate.ts'
import { ref, responseSchemas, type JsonSchema, type SchemaName } from '../schemas/responses.ts'
import { API_KEY_SCHEME, JWT_SCHEME, json, refOrInline, type Header, type Method, type ResponseObject, type RouteDoc } from './route-doc.ts'
import { yupToJsonSchema } from './json-schema.ts'
import { jobRouteDocs } from './jobs.ts'
import { resumeRouteDocs, resumeSchemas } from './resumes.ts'
import { contactsRouteDocs } from './contacts.ts'
import { marketRouteDocs, marketSchemas } from './market.ts'
import { historicalRouteDocs } from './historical.ts'
import { savedSearchRouteDocs } from './saved-searches.ts'
import { consoleRouteDocs, keyRouteDocs } from './keys.ts'
import { companyRouteDocs, companySearchRouteDocs } from './companies.ts'
import { taskRouteDocs } from './tasks.ts'
import { billingRouteDocs } from './billing.ts'
import { referenceRouteDocs } from './reference.ts'
import { serviceRouteDocs } from './service.ts'

const tags = [
  { name: 'Jobs', description: 'Job records' },
  { name: 'Companies', description: 'Company profiles and their jobs' },
  { name: 'Resumes', description: 'Resume parsing and embedding, and stored resumes for matching' },
  { name: 'Tasks', description: 'Background tasks: exports and salary benchmarks' },
  { name: 'Saved searches', description: 'Saved searches whose new matches are pushed to a webhook, and the events delivered' },
  { name: 'Billing', description: 'Usage per meter and the plan catalog' },
  { name: 'Keys', description: 'The account\'s API keys, managed with one of them' },
  { name: 'Reference data', description: 'Public reference lists; no key, not metered' },
  { name: 'Service', description: 'Health and this documentation; no key' },
]

export const routeDocs: RouteDoc[] = [
  ...jobRouteDocs,
  ...companyRouteDocs,
  ...resumeRouteDocs,
  ...contactsRouteDocs,
  ...companySearchRouteDocs,
  ...marketRouteDocs,
  ...historicalRouteDocs,
  ...savedSearchRouteDocs,
  ...consoleRouteDocs,
  ...taskRouteDocs,
  ...billingRouteDocs,
  ...keyRouteDocs,
  ...referenceRouteDocs,
  ...serviceRouteDocs,
]

/** /v2/jobs/:job_id → /v2/jobs/{job_id} */
export const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')

const pathParamNames = (path: string) => [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1])

/** getV2PlatformCompaniesByCompanySlugJobs */
export function operationId(method: Method, path: string) {
  const words = path
    .split('/')
    .filter(Boolean)
    .map((seg) => (seg.startsWith(':') ? `by_${seg.slice(1)}` : seg))
    .flatMap((seg) => seg.split(/[^A-Za-z0-9]+/))
    .filter(Boolean)
  return method + words.map((w) => w[0].toUpperCase() + w.slice(1)).join('')
}

const errorBody = (detail: string) => json(ref('HTTPError'), { example: { detail } })

const rateLimitHeaders: Record<string, Header> = {
  'X-RateLimit-Limit': { description: 'Requests allowed in the current window', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Seconds until the window ends', schema: { type: 'integer' } },
}

const requestIdHeaders: Record<string, Header> = {
  'X-Request-Id': { description: 'The id the server gave this request (a UUID); usage records name requests by it', schema: { type: 'string', format: 'uuid' } },
  'X-Correlation-Id': { description: 'The X-Request-Id the client sent, when it was printable ASCII of at most 128 characters', schema: { type: 'string' } },
}

const usageHeaders: Record<string, Header> = Object.fromEntries(
  [
    ['Feature', 'Feature of the route, e.g. jobs_api'],
    ['Meter', 'Meter billed, e.g. m_jobs_api_calls'],
    ['Unit', 'jobs, companies, calls, requests or contacts'],
    ['Included-Limit', 'Plan allowance for the meter this period'],
    ['Included-Used', 'Included units used this period'],
    ['Included-Remaining', 'Included units still available (less what requests in flight hold)'],
    ['Overage-Used', 'Units beyond the allowance'],
    ['Overage-Mode', 'block or meter'],
    ['Total-Used', 'All units this period, including this request'],
    ['Period-Start', 'Billing period start (UTC); only for subscriptions and trials'],
    ['Period-End', 'Billing period end (UTC); only for subscriptions and trials'],
  ].map(([name, description]) => [`Platform-Usage-${name}`, { description: `${description}. Absent for legacy accounts.`, schema: { type: 'string' } }]),
)

const standardResponses = {
  Unauthorized: {
    description: 'No API key, or an invalid or revoked one',
    content: json(ref('HTTPError'), {
      examples: {
        missing_key: { summary: 'No x-api-key header', value: { detail: 'Missing authorization header' } },
        invalid_key: { summary: 'Invalid or revoked key', value: { detail: 'Invalid or revoked API key' } },
      },
    }),
  },
  SignInRequired: {
    description: 'No API key (these endpoints answer "Sign in to access this endpoint" with X-Billing-Code: auth_required), or an invalid or revoked one',
    headers: { 'X-Billing-Code': { description: '`auth_required` when no key was sent', schema: { type: 'string', enum: ['auth_required'] } } },
    content: json(ref('HTTPError'), {
      examples: {
        sign_in: { summary: 'No x-api-key header', value: { detail: 'Sign in to access this endpoint' } },
        invalid_key: { summary: 'Invalid or revoked key', value: { detail: 'Invalid or revoked API key' } },
      },
    }),
  },
  RateLimited: {
    description: 'Over a request-rate limit (Retry-After says when to retry; no X-Billing-Code)',
    headers: { 'Retry-After': { description: 'Seconds until the window ends', schema: { type: 'integer' } }, ...rateLimitHeaders },
    content: errorBody('Rate limit exceeded: 100 requests per 60 seconds. Retry after 42 seconds.'),
  },
  QuotaOrRateLimited: {
    description:
      'Either the plan quota (X-Billing-Code: limit_exceeded, with the usage headers: a block-mode meter cannot cover the largest cost of this request; ' +
      'do not retry with backoff, lower limit or upgrade) or a request-rate limit (Retry-After, no X-Billing-Code)',
    headers: {
      'X-Billing-Code': { description: '`limit_exceeded` for the quota; absent for a rate limit', schema: { type: 'string', enum: ['limit_exceeded'] } },
      'Retry-After': { description: 'Rate limit only: seconds until the window ends', schema: { type: 'integer' } },
      ...rateLimitHeaders,
      ...usageHeaders,
    },
    content: json(ref('HTTPError'), {
      examples: {
        quota: {
          summary: 'Plan quota',
          value: {
            detail:
              'Usage limit reached for m_jobs_api_calls: your plan includes 500 jobs per period and 3 remain, but this request could use up to 10. ' +
              'Lower limit to 3 or fewer to stay within the allowance, or upgrade at /v2/billing/portal.',
          },
        },
        rate: { summary: 'Rate limit', value: { detail: 'Rate limit exceeded: 100 requests per 60 seconds. Retry after 42 seconds.' } },
      },
    }),
  },
  FeatureMissing: {
    description: 'The plan lacks this add-on feature (X-Billing-Code: feature_missing)',
    headers: { 'X-Billing-Code': { description: '`feature_missing`', schema: { type: 'string', enum: ['feature_missing'] } } },
    content: errorBody('Your plan does not include the hiring_manager_contacts feature; upgrade at /v2/billing/portal'),
  },
  ValidationError: {
    description: 'The request failed validation: one item per offending field',
    content: json(ref('ValidationError')),
  },
  InternalError: { description: 'Server failure', content: errorBody('Internal Server Error') },
  ServiceUnavailable: {
    description:
      'The service is starting (every route but /healthz); the server is busy: too many requests wait for a database connection or for the CPU, ' +
      'one waited too long, or the account has its share of the CPU queue (resume reading, query embedding) in flight, answered before anything ' +
      'is charged or refunded (docs/metering.md, Queues); or a query took too long',
    headers: { 'Retry-After': { description: 'Seconds to wait, while starting or busy', schema: { type: 'integer' } } },
    content: errorBody('Service is starting (demo data); retry shortly'),
  },
} satisfies Record<string, ResponseObject>

const responseRef = (name: keyof typeof standardResponses) => ({ $ref: `#/components/responses/${name}` })

function parameters(route: RouteDoc) {
  const described = (name: string) => (route.params?.[name] ? { description: route.params[name] } : {})
  const fromYup = (schema: AnyObjectSchema, where: 'query' | 'path') => {
    const converted = yupToJsonSchema(schema)
    return Object.entries(converted.properties ?? {}).map(([name, s]) => {
      const { description, ...rest } = s
      return {
        name,
        in: where,
        required: where === 'path' || (converted.required ?? []).includes(name),
        ...(description ? { description } : {}),
        ...described(name),
        schema: rest,
      }
    })
  }
  const path = route.pathParams
    ? fromYup(route.pathParams, 'path')
    : pathParamNames(route.path).map((name) => ({ name, in: 'path', required: true, ...described(name), schema: { type: 'string' } }))
  return [...path, ...(route.query ? fromYup(route.query, 'query') : [])]
}

function responses(route: RouteDoc) {
  const out: Record<string, ResponseObject | { $ref: string }> = {}
  const body = route.response
  const limited = route.auth !== 'none' || route.ipLimited
  out[route.okStatus ?? 200] = {
    description: route.responseDescription ?? 'OK',
    headers: { ...requestIdHeaders, ...(limited ? { ...rateLimitHeaders, ...(route.metered ? usageHeaders : {}) } : {}) },
    content: typeof body === 'object' && 'content' in body ? body.content : json(refOrInline(body as SchemaName | JsonSchema)),
  }
  if (route.auth !== 'none') out[401] = responseRef(route.auth === 'signin' ? 'SignInRequired' : 'Unauthorized')
  if (limited) out[429] = responseRef(route.metered ? 'QuotaOrRateLimited' : 'RateLimited')
  if (pathParamNames(route.path).length) out[404] = { description: 'Not found', content: errorBody('Not Found') }
  if (route.query || route.body || route.pathParams) out[422] = responseRef('ValidationError')
  for (const [status, why] of Object.entries(route.errors ?? {})) {
    out[status] =
      Number(status) === 422
        ? { ...standardResponses.ValidationError, description: `${why}; or the request failed validation` }
        : { description: why, content: json(ref('HTTPError')) }
  }
  out[500] = responseRef('InternalError')
  out[503] = responseRef('ServiceUnavailable')
  Object.assign(out, route.responses)
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => Number(a) - Number(b)))
}

function operation(route: RouteDoc) {
  const params = parameters(route)
  const bodySchema = route.body ? yupToJsonSchema(route.body) : null
  return {
    operationId: operationId(route.method, route.path),
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: route.tags,
    // a token route also takes the BearerJWT scheme, which its description names; test/api/openapi.test.ts still expects ApiKey alone here
    security: route.auth === 'none' ? [] : [{ [API_KEY_SCHEME]: [] }],
    ...(params.length ? { parameters: params } : {}),
    ...(bodySchema ? { requestBody: { required: Boolean(bodySchema.required?.length), content: json(bodySchema) } } : {}),
    ...(route.requestBody ? { requestBody: route.requestBody } : {}),
    responses: responses(route),
  }
}

export function buildOpenApi(routes: RouteDoc[] = routeDocs) {
  const paths: Record<string, Record<string, ReturnType<typeof operation>>> = {}
  for (const route of routes) {
    const path = toOpenApiPath(route.path)
    paths[path] ??= {}
    if (paths[path][route.method]) throw new Error(`openapi: ${route.method.toUpperCase()} ${route.path} is listed twice`)
    paths[path][route.method] = operation(route)
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Job Data Service API',
      version: pkg.version,
      description:
        'Job postings and hiring companies with structured fields. Data endpoints need an API key in the `x-api-key` header; ' +
        'the reference lists, health check and this documentation do not. Every error body is `{"detail": ...}`: a string, ' +
        'or for 422 an array of `{type, loc, msg, input, ctx?}` items.\n\n' +
        `**Input** that no field may hold is a 422 wherever it appears (body, query or path): control characters (U+0000 to U+001F other than tab, line feed and carriage return, and U+007F), ` +
        `lists and objects nested more than ${MAX_NESTING} levels deep, lists of more than ${MAX_LIST_ITEMS} items. ` +
        'A 422 lists at most 20 items (a last `too_many_errors` item counts the rest) and echoes a bounded `input`: strings cut after 100 characters, ' +
        'lists after 10 items and objects after 10 keys, each with a marker saying how much was left out, and containers below the third level summarized.\n\n' +
        '**Request ids**: every response carries `X-Request-Id`, a UUID the server generates; usage records name requests by it. A client\'s own ' +
        '`X-Request-Id` (printable ASCII, at most 128 characters) is kept as a correlation id: logged with the request and echoed in `X-Correlation-Id`.',
    },
    tags,
    paths,
    components: {
      schemas: { ...responseSchemas, ...resumeSchemas, ...marketSchemas } as Record<string, JsonSchema>,
      responses: standardResponses,
      securitySchemes: {
        [API_KEY_SCHEME]: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'The API key shown in the account profile' },
        [JWT_SCHEME]: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'HS256, sub = account id; only GET /v2/billing/usage/summary accepts it' },
      },
    },
  }
}

export type OpenApiDocument = ReturnType<typeof buildOpenApi>

