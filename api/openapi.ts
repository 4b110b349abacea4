/**
 * The OpenAPI 3.1 document, built from one entry per route (routeDocs below). Request
 * parameters and bodies are converted from the same yup schemas the handlers validate
 * with, so the document cannot drift from validation; response shapes come from
 * schemas/responses.ts. Every operation gets the statuses the middleware can produce
 * (401 for keyed routes, 404 where a path names a resource, 422 where input is
 * validated, 500, and 503 while the service is starting), so an entry only lists what
 * its own handler adds.
 *
 * Adding a route: append an entry to routeDocs. test/api/openapi.test.ts enumerates the
 * routers buildApp mounts and fails on any method and path without an entry (and on
 * any entry the app does not serve).
 */
import { convertSchema } from '@sodaru/yup-to-json-schema'
import type { AnyObjectSchema, SchemaDescription, SchemaFieldDescription } from 'yup'
import pkg from '../package.json' with { type: 'json' }
import { PROFILE_JOBS } from './routes/companies.ts'
import { pageQuery } from './schemas/common.ts'
import { jobQuery } from './schemas/jobs.ts'
import { subindustriesQuery } from './schemas/reference.ts'
import { ref, responseSchemas, type JsonSchema, type JsonType, type SchemaName } from './schemas/responses.ts'

/** key: x-api-key required; signin: the same, but a missing key is "Sign in to access this endpoint"; none: public. */
export type AuthKind = 'key' | 'signin' | 'none'
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete'

type MediaType = { schema?: JsonSchema; example?: unknown; examples?: Record<string, { summary?: string; value: unknown }> }
type Header = { description: string; schema: JsonSchema }
export type ResponseObject = { description: string; headers?: Record<string, Header>; content?: Record<string, MediaType> }

export type RouteDoc = {
  method: Method
  /** As the router registers it, prefix included: /v2/jobs/:job_id */
  path: string
  summary: string
  /** Markdown. Say here what the spec leaves "not shown" and this service decided. */
  description?: string
  tags: string[]
  auth: AuthKind
  /** The yup schema the handler validates ctx.query with; each field becomes an `in: query` parameter. */
  query?: AnyObjectSchema
  /** The yup schema the handler validates ctx.params with, when it has one; otherwise path parameters are strings. */
  pathParams?: AnyObjectSchema
  /** The yup schema the handler validates the JSON body with. */
  body?: AnyObjectSchema
  /** Descriptions of path and query parameters by name (yup schemas carry none). */
  params?: Record<string, string>
  /** The success body: a schema name from schemas/responses.ts, an inline JSON Schema, or content by media type. */
  response: SchemaName | JsonSchema | { content: Record<string, MediaType> }
  /** Description of the success response; "OK" when omitted. */
  responseDescription?: string
  /** The success status when it is not 200 (201, 202 ...). */
  okStatus?: number
  /** Statuses the handler adds beyond the standard ones, with when they happen; the body is {"detail": string}. */
  errors?: Record<number, string>
  /** Whole response objects by status, replacing any computed one (e.g. healthz's own 503 body). */
  responses?: Record<number, ResponseObject>
}

export const API_KEY_SCHEME = 'ApiKey'

const json = (schema: JsonSchema, extra: Omit<MediaType, 'schema'> = {}) => ({ 'application/json': { schema, ...extra } })
const refOrInline = (s: SchemaName | JsonSchema): JsonSchema => (typeof s === 'string' ? ref(s) : s)

const tags = [
  { name: 'Jobs', description: 'Job records' },
  { name: 'Companies', description: 'Company profiles and their jobs' },
  { name: 'Tasks', description: 'Background tasks: exports and salary benchmarks' },
  { name: 'Reference data', description: 'Public reference lists; no key, not metered' },
  { name: 'Service', description: 'Health and this documentation; no key' },
]

const rawDescriptionDoc =
  'Optional. The string `true` adds `description_raw` (the original HTML from the source) to the record; `false` or absent leaves it out. Any other value is a 422.'

export const routeDocs: RouteDoc[] = [
  // Jobs
  {
    method: 'get',
    path: '/v2/jobs/:job_id',
    summary: 'Get a job',
    description:
      'One job record by its `_id`, live or expired (see `expired`). An id that is not a job id, or no job, is a 404. ' +
      'Pass `return_raw_description=true` for the original HTML as `description_raw`.',
    tags: ['Jobs'],
    auth: 'key',
    query: jobQuery,
    params: { job_id: 'The `_id` of a job record', return_raw_description: rawDescriptionDoc },
    response: 'JobRecord',
    errors: { 404: 'No job has this id' },
  },

  // Companies
  {
    method: 'get',
    path: '/v2/platform/companies/:company_slug',
    summary: 'Get a company and its recent jobs',
    description:
      `The company profile and its ${PROFILE_JOBS} most recent jobs by \`date_posted\`, newest first. ` +
      'Expired jobs are included: check each job\'s `expired` flag. Use `GET /v2/platform/companies/{company_slug}/jobs` to page through live jobs.',
    tags: ['Companies'],
    auth: 'key',
    params: { company_slug: 'The company\'s `company_slug`' },
    response: 'CompanyWithJobs',
    errors: { 404: 'No company has this slug' },
  },
  {
    method: 'get',
    path: '/v2/platform/companies/:company_slug/jobs',
    summary: 'List a company\'s live jobs',
    description:
      'A page of the company\'s live jobs (expired ones are left out), newest first, with the distinct categories of its live jobs. ' +
      '`limit` is 1 to 100, default 10; `page` starts at 1.',
    tags: ['Companies'],
    auth: 'key',
    query: pageQuery,
    params: { company_slug: 'The company\'s `company_slug`', page: 'Page number, from 1', limit: 'Jobs per page, 1 to 100' },
    response: 'CompanyJobsPage',
    errors: { 404: 'No company has this slug' },
  },
  {
    method: 'get',
    path: '/v2/platform/companies/:company_slug/jobs/:job_slug',
    summary: 'Get one of a company\'s jobs',
    description:
      'A job record by the company\'s slug and the job\'s `job_slug`, live or expired (see `expired`). ' +
      'Pass `return_raw_description=true` for the original HTML as `description_raw`.',
    tags: ['Companies'],
    auth: 'key',
    query: jobQuery,
    params: {
      company_slug: 'The company\'s `company_slug`',
      job_slug: 'The job\'s `job_slug`',
      return_raw_description: rawDescriptionDoc,
    },
    response: 'JobRecord',
    errors: { 404: 'No company has this slug, or it has no job with this slug' },
  },

  // Tasks
  {
    method: 'get',
    path: '/v2/tasks/:task_id',
    summary: 'Get a task',
    description: 'A task of the calling account. Another account\'s task, like an unknown or malformed id, is a 404. Poll until `state` is `finished` or `failed`.',
    tags: ['Tasks'],
    auth: 'key',
    params: { task_id: 'The task `id` (a UUID)' },
    response: 'Task',
    errors: { 404: 'No task with this id belongs to the calling account' },
  },

  // Reference data
  {
    method: 'get',
    path: '/v2/jobs/data/categories',
    summary: 'List job categories',
    description: 'Every job category, as `{"categories": string[]}`. Records may also carry `Other`, which is listed last.',
    tags: ['Reference data'],
    auth: 'none',
    response: 'Categories',
  },
  {
    method: 'get',
    path: '/v2/jobs/data/industries',
    summary: 'List industries',
    description: 'Every industry with its subindustries, as `{"industries": [{"name", "subindustries": string[]}]}`. Order is not significant.',
    tags: ['Reference data'],
    auth: 'none',
    response: 'Industries',
  },
  {
    method: 'get',
    path: '/v2/jobs/data/subindustries',
    summary: 'List subindustries',
    description:
      'Every subindustry with the industries it belongs to, as `{"subindustries": [{"name", "industries": string[]}]}`, sorted by name. ' +
      'The optional `industry` query narrows the list to one industry; a name not in `GET /v2/jobs/data/industries` is a 422 (`value_error`, with the allowed names in `ctx.allowed`).',
    tags: ['Reference data'],
    auth: 'none',
    query: subindustriesQuery,
    params: { industry: 'Optional. An industry name from GET /v2/jobs/data/industries, e.g. `Legal`' },
    response: 'Subindustries',
    errors: { 422: 'Unknown industry' },
  },

  // Service
  {
    method: 'get',
    path: '/healthz',
    summary: 'Health check',
    description: '200 `{"status": "ok"}` once the service can serve; 503 `{"status": "starting", "stage": ...}` before. Answers while every other route is 503.',
    tags: ['Service'],
    auth: 'none',
    response: 'Healthz',
    responses: {
      503: { description: 'Starting: the schema or demo data is not ready yet', content: json(ref('Healthz'), { example: { status: 'starting', stage: 'demo data' } }) },
    },
  },
  {
    method: 'get',
    path: '/v2/openapi.json',
    summary: 'This OpenAPI document',
    tags: ['Service'],
    auth: 'none',
    response: { type: 'object', description: 'An OpenAPI 3.1.0 document' },
  },
  {
    method: 'get',
    path: '/docs',
    summary: 'API reference page',
    description: 'Swagger UI over `/v2/openapi.json`, served from this service (no CDN).',
    tags: ['Service'],
    auth: 'none',
    response: { content: { 'text/html': { schema: { type: 'string' } } } },
  },
  {
    method: 'get',
    path: '/docs/:file',
    summary: 'API reference page assets',
    description: 'The static files of the reference page (scripts, styles, icons). Only files of the bundled Swagger UI are served.',
    tags: ['Service'],
    auth: 'none',
    params: { file: 'A file name, e.g. `swagger-ui-bundle.js`' },
    response: {
      content: {
        'text/javascript': { schema: { type: 'string' } },
        'text/css': { schema: { type: 'string' } },
        'image/png': {},
      },
    },
    errors: { 404: 'No such file' },
  },
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

// --- yup → JSON Schema -------------------------------------------------------------

const jsonTypes = new Set<JsonType>(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'])

type Converter = (description: SchemaFieldDescription, converters: Record<string, Converter>) => JsonSchema

/**
 * The library's object converter, without the default it copies from yup (every yup
 * object has one, built from its fields' defaults; the README says to drop it), and
 * with noUnknown() as additionalProperties: false.
 */
const objectConverter: Converter = (description, converters) => {
  const d = description as SchemaDescription & { fields?: Record<string, SchemaFieldDescription> }
  const schema: JsonSchema = { type: d.nullable ? ['object', 'null'] : 'object' }
  if (d.label) schema.title = d.label
  const properties: Record<string, JsonSchema> = {}
  const required: string[] = []
  for (const [name, field] of Object.entries(d.fields ?? {})) {
    const convert = converters[(field as SchemaDescription).type]
    properties[name] = convert ? convert(field, converters) : {}
    if ('optional' in field && !field.optional) required.push(name)
  }
  if (Object.keys(properties).length) schema.properties = properties
  if (required.length) schema.required = required
  if (d.tests?.some((t) => t.name === 'noUnknown')) schema.additionalProperties = false
  return Object.assign(schema, (d.meta as { jsonSchema?: JsonSchema } | undefined)?.jsonSchema)
}

/** Draft-07 habits of the converter, in 2020-12 terms: tuple items → prefixItems; no empty or non-JSON types. */
function normalize(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...schema }
  if (Array.isArray(out.items)) {
    out.prefixItems = (out.items as JsonSchema[]).map(normalize)
    delete out.items
  } else if (out.items) out.items = normalize(out.items)
  if (out.properties) out.properties = Object.fromEntries(Object.entries(out.properties).map(([k, v]) => [k, normalize(v)]))
  if (out.type !== undefined) {
    const types = (Array.isArray(out.type) ? out.type : [out.type]).filter((t) => jsonTypes.has(t))
    if (types.length === 0) delete out.type
    else out.type = types.length === 1 ? types[0] : [...new Set(types)]
  }
  if (out.default === undefined) delete out.default
  return out
}

/** A yup object schema as JSON Schema. */
export function yupToJsonSchema(schema: AnyObjectSchema): JsonSchema {
  // the library types converters as a complete record; it merges ours over its own
  return normalize(convertSchema(schema, { converters: { object: objectConverter } as never }) as JsonSchema)
}

// --- the document ------------------------------------------------------------------

const errorBody = (detail: string) => json(ref('HTTPError'), { example: { detail } })

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
  ValidationError: {
    description: 'The request failed validation: one item per offending field',
    content: json(ref('ValidationError')),
  },
  InternalError: { description: 'Server failure', content: errorBody('Internal Server Error') },
  ServiceUnavailable: {
    description: 'The service is starting (every route but /healthz), or a query took too long',
    headers: { 'Retry-After': { description: 'Seconds to wait, while starting', schema: { type: 'integer' } } },
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
  out[route.okStatus ?? 200] = {
    description: route.responseDescription ?? 'OK',
    content: typeof body === 'object' && 'content' in body ? body.content : json(refOrInline(body as SchemaName | JsonSchema)),
  }
  if (route.auth !== 'none') out[401] = responseRef(route.auth === 'signin' ? 'SignInRequired' : 'Unauthorized')
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
    security: route.auth === 'none' ? [] : [{ [API_KEY_SCHEME]: [] }],
    ...(params.length ? { parameters: params } : {}),
    ...(bodySchema ? { requestBody: { required: Boolean(bodySchema.required?.length), content: json(bodySchema) } } : {}),
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
        'or for 422 an array of `{type, loc, msg, input, ctx?}` items.',
    },
    tags,
    paths,
    components: {
      schemas: responseSchemas as Record<string, JsonSchema>,
      responses: standardResponses,
      securitySchemes: {
        [API_KEY_SCHEME]: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'The API key shown in the account profile' },
      },
    },
  }
}

export type OpenApiDocument = ReturnType<typeof buildOpenApi>
