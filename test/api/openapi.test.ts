/**
 * The OpenAPI document and the reference page: every route the app serves is in the
 * document (and nothing else), the document is valid OpenAPI 3.1, real responses match
 * the schemas it documents for their status, and /docs works from local files only.
 */
import anyTest, { type TestFn } from 'ava'
import type Router from '@koa/router'
import { Validator } from '@seriousme/openapi-schema-validator'
import type Koa from 'koa'
import pino from 'pino'
import { randomBytes } from 'node:crypto'
import { array, boolean, number, object, string, tuple } from 'yup'
import { buildApp } from '../../api/app.ts'
import { loadConfig } from '../../sql/config.ts'
import { buildOpenApi, routeDocs, toOpenApiPath } from '../../api/openapi/document.ts'
import type { RouteDoc } from '../../api/openapi/route-doc.ts'
import type { JsonSchema } from '../../api/schemas/responses.ts'
import { insertJobs, jobColumns, upsertCompanies, type JobRow } from '../../sql/postings.ts'
import { insertTask } from '../../sql/tasks.ts'
import type { Sql } from '../../sql/db.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { UUID } from '../../sql/ids.ts'

type Doc = ReturnType<typeof buildOpenApi>
type Seeded = { companySlug: string; fullId: string; sparseId: string; expiredId: string; fullSlug: string; taskIds: string[] }
const test = anyTest as TestFn<TestApp & { doc: Doc; seeded: Seeded }>

// Fetched over HTTP, so the checks below are about what clients get.
test.before(async (t) => {
  const app = await startTestApp()
  const res = await app.get('/v2/openapi.json', {})
  Object.assign(t.context, app, { doc: (await res.json()) as Doc, seeded: await seed(app.db.sql, app.accountId) })
})
test.after.always(async (t) => {
  await t.context?.close?.()
})

// --- route coverage -----------------------------------------------------------------

/** "GET /v2/jobs/{job_id}" for every method and path of every router the app mounts. */
function servedRoutes(app: Koa): string[] {
  const out = new Set<string>()
  for (const mw of app.middleware as Array<Koa.Middleware & { router?: Router }>) {
    if (!mw.router) continue // routes() carries its router; allowedMethods() and plain middleware do not
    for (const layer of mw.router.stack) {
      if (typeof layer.path !== 'string') throw new Error(`a RegExp route (${layer.path}) cannot be matched to the document`)
      const path = layer.path.length > 1 ? layer.path.replace(/\/$/, '') : layer.path
      for (const method of layer.methods) {
        if (method !== 'HEAD' && method !== 'OPTIONS') out.add(`${method} ${toOpenApiPath(path)}`)
      }
    }
  }
  return [...out].sort()
}

const documentedRoutes = (doc: Doc) =>
  Object.entries(doc.paths)
    .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
    .sort()

test('every route the app serves is in the document, and the document lists no other', (t) => {
  // with METRICS=1, so that GET /metrics is served too
  const config = loadConfig()
  const app = buildApp({ sql: t.context.db.sql, config: { ...config, metrics: { ...config.metrics, enabled: true } }, log: pino({ level: 'silent' }) })
  const served = servedRoutes(app)
  // guard against an enumeration that silently finds nothing
  for (const known of ['GET /healthz', 'GET /v2/jobs/{job_id}', 'GET /v2/openapi.json', 'GET /docs']) t.true(served.includes(known), known)
  const documented = documentedRoutes(t.context.doc)
  t.deepEqual(served.filter((r) => !documented.includes(r)), [], 'served but missing from api/openapi/ routeDocs')
  t.deepEqual(documented.filter((r) => !served.includes(r)), [], 'in api/openapi/ routeDocs but not served')
})

// --- the document -------------------------------------------------------------------

test('GET /v2/openapi.json needs no key and is a valid OpenAPI 3.1.0 document', async (t) => {
  const res = await t.context.get('/v2/openapi.json', {})
  t.is(res.status, 200)
  t.regex(res.headers.get('content-type') ?? '', /^application\/json/)
  const doc = JSON.parse(await res.text())
  t.is(doc.openapi, '3.1.0')
  const validator = new Validator()
  const result = await validator.validate(doc)
  t.deepEqual(result.errors, undefined)
  t.true(result.valid)
  t.is(validator.version, '3.1')
  t.deepEqual(doc, buildOpenApi(), 'the served document is the one buildOpenApi() makes')
})

type Operation = Doc['paths'][string][string]
const operations = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ method, path, op: op as Operation })))

/** Follows a local "#/components/..." reference. */
function resolve<T>(doc: unknown, node: T): T {
  let out: unknown = node
  while (out && typeof out === 'object' && '$ref' in out && typeof out.$ref === 'string') {
    const ref: string = out.$ref
    if (!ref.startsWith('#/')) throw new Error(`non-local $ref ${ref}`)
    out = ref.slice(2).split('/').reduce<any>((o, k) => o?.[k], doc)
    if (out === undefined) throw new Error(`unresolved $ref ${ref}`)
  }
  return out as T
}

const publicPaths = ['/healthz', '/readyz', '/metrics', '/v2/openapi.json', '/docs', '/docs/{file}', '/console', '/console/{console_file}', '/v2/jobs/data/categories', '/v2/jobs/data/industries', '/v2/jobs/data/subindustries', '/v2/downloads/{task_id}/{expires}/{signature}/{filename}']

test('security, statuses and 401 examples follow each route\'s auth kind', (t) => {
  const { doc } = t.context
  t.deepEqual(doc.components.securitySchemes.ApiKey, { type: 'apiKey', in: 'header', name: 'x-api-key', description: doc.components.securitySchemes.ApiKey.description })
  t.false('security' in doc, 'no global security: each operation says')
  const ids = new Set<string>()
  for (const { method, path, op } of operations(doc)) {
    const where = `${method.toUpperCase()} ${path}`
    t.false(ids.has(op.operationId), `${where}: duplicate operationId`)
    ids.add(op.operationId)
    t.true(op.summary.length > 0 && op.tags.length > 0, where)
    const statuses = Object.keys(op.responses)
    t.is(statuses.filter((s) => /^2\d\d$/.test(s)).length, 1, `${where} lists one success status`)
    for (const s of ['500', '503']) t.true(statuses.includes(s), `${where} lists ${s}`)
    if (publicPaths.includes(path)) {
      t.deepEqual(op.security, [], `${where} is public`)
      t.false(statuses.includes('401'), `${where} has no 401`)
    } else {
      t.deepEqual(op.security, [{ ApiKey: [] }], `${where} needs a key`)
      const unauthorized = resolve<unknown>(doc, op.responses[401]) as { content: { 'application/json': { examples: Record<string, { value: { detail: string } }> } } }
      const texts = Object.values(unauthorized.content['application/json'].examples).map((e) => e.value.detail)
      t.true(texts.includes('Invalid or revoked API key'), where)
      t.true(texts.includes('Missing authorization header') || texts.includes('Sign in to access this endpoint'), where)
    }
    // path parameters: every {name} in the template is declared in: path
    const declared = ((op.parameters ?? []) as { name: string; in: string; required: boolean }[]).filter((p) => p.in === 'path')
    const inTemplate = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1])
    t.deepEqual(declared.map((p) => p.name).sort(), inTemplate.sort(), where)
    t.true(declared.every((p) => p.required), where)
    if (inTemplate.length) t.true(statuses.includes('404'), `${where} lists 404`)
    if ((op.parameters ?? []).some((p: { in: string }) => p.in === 'query') || 'requestBody' in op) t.true(statuses.includes('422'), `${where} lists 422`)
  }
  // all three 401 texts appear in the document
  const all = JSON.stringify(doc.components.responses)
  for (const text of ['Missing authorization header', 'Sign in to access this endpoint', 'Invalid or revoked API key']) t.true(all.includes(text), text)
})

const keywords = new Set([
  '$ref', 'type', 'title', 'description', 'format', 'enum', 'const', 'default', 'examples', 'properties', 'required',
  'additionalProperties', 'items', 'prefixItems', 'anyOf', 'oneOf', 'allOf', 'not', 'minimum', 'maximum',
  'exclusiveMinimum', 'exclusiveMaximum', 'minItems', 'maxItems', 'minLength', 'maxLength', 'pattern', 'contentMediaType',
])
const jsonTypes = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'])

/** The validator does not look inside Schema Objects; this catches typos such as type: "strnig". */
function schemaProblems(schema: JsonSchema, where: string, doc: unknown): string[] {
  const problems: string[] = []
  for (const k of Object.keys(schema)) if (!keywords.has(k)) problems.push(`${where}: unknown keyword ${k}`)
  if (schema.$ref) {
    try {
      resolve(doc, schema)
    } catch (e) {
      problems.push(`${where}: ${(e as Error).message}`)
    }
  }
  for (const type of [schema.type ?? []].flat()) if (!jsonTypes.has(type)) problems.push(`${where}: bad type ${type}`)
  for (const r of schema.required ?? []) if (!schema.properties?.[r]) problems.push(`${where}: required ${r} is not a property`)
  for (const [k, v] of Object.entries(schema.properties ?? {})) problems.push(...schemaProblems(v, `${where}.${k}`, doc))
  if (schema.items) problems.push(...schemaProblems(schema.items, `${where}[]`, doc))
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const) schema[key]?.forEach((s, i) => problems.push(...schemaProblems(s, `${where}.${key}[${i}]`, doc)))
  return problems
}

test('every schema in the document uses known keywords and types, and every $ref resolves', (t) => {
  const { doc } = t.context
  const problems: string[] = []
  for (const [name, s] of Object.entries(doc.components.schemas)) problems.push(...schemaProblems(s, name, doc))
  const walk = (node: unknown, where: string) => {
    if (!node || typeof node !== 'object') return
    for (const [k, v] of Object.entries(node)) {
      if (k === 'schema' && v && typeof v === 'object') problems.push(...schemaProblems(v as JsonSchema, where, doc))
      else if (k === '$ref') {
        try {
          resolve(doc, node)
        } catch (e) {
          problems.push(`${where}: ${(e as Error).message}`)
        }
      } else walk(v, `${where}/${k}`)
    }
  }
  walk(doc.paths, '#/paths')
  walk(doc.components.responses, '#/components/responses')
  t.deepEqual(problems, [])
})

test('query parameters are the fields of the yup schemas the routes validate with', (t) => {
  type Param = { name: string; in: string; required: boolean; description: string; schema: JsonSchema }
  const params = (path: string): Record<string, Param> =>
    Object.fromEntries(((t.context.doc.paths[path].get.parameters ?? []) as Param[]).map((p) => [p.name, p]))
  const page = params('/v2/platform/companies/{company_slug}/jobs')
  t.deepEqual(page.limit, { name: 'limit', in: 'query', required: false, description: page.limit.description, schema: { type: 'integer', default: 10, minimum: 1, maximum: 100 } })
  t.deepEqual(page.page.schema, { type: 'integer', default: 1, minimum: 1 })
  for (const path of ['/v2/jobs/{job_id}', '/v2/platform/companies/{company_slug}/jobs/{job_slug}']) {
    const raw = params(path).return_raw_description
    t.deepEqual(raw.schema, { type: 'string', enum: ['true', 'false'] }, path)
    t.false(raw.required)
    t.regex(raw.description, /description_raw/)
  }
  const industry = params('/v2/jobs/data/subindustries').industry
  t.is(industry.in, 'query')
  t.false(industry.required)
  t.regex(t.context.doc.paths['/v2/jobs/data/subindustries'].get.description ?? '', /422/)
  t.regex(t.context.doc.paths['/v2/platform/companies/{company_slug}'].get.description ?? '', /100 most recent.*[Ee]xpired/s)
})

test('a new entry needs only its fields: query and body yup schemas become parameters and a request body', async (t) => {
  const body = object({
    job_titles: array(string().required()).min(1).required(),
    remote: boolean(),
    salary: object({ min: number().integer().min(0), max: number().nullable() }).noUnknown(),
    point: tuple([number().required(), number().required()]),
    format: string().oneOf(['csv', 'json']).default('json'),
  }).noUnknown()
  const extra: RouteDoc = {
    method: 'post',
    path: '/v2/jobs/example/:kind',
    summary: 'Example',
    tags: ['Jobs'],
    auth: 'signin',
    query: object({ industry: array(string().required()), limit: number().integer().max(100).required() }),
    body,
    params: { kind: 'A kind' },
    response: 'Task',
    okStatus: 202,
    errors: { 400: 'Unparseable date', 429: 'Quota or rate limit' },
  }
  const doc = buildOpenApi([...routeDocs, extra])
  const op = doc.paths['/v2/jobs/example/{kind}'].post
  t.deepEqual(op.security, [{ ApiKey: [] }])
  t.deepEqual(Object.keys(op.responses), ['202', '400', '401', '404', '422', '429', '500', '503'])
  t.deepEqual(op.responses[401], { $ref: '#/components/responses/SignInRequired' })
  t.deepEqual(
    op.parameters?.map((p: { name: string; in: string; required: boolean }) => [p.name, p.in, p.required]),
    [['kind', 'path', true], ['industry', 'query', false], ['limit', 'query', true]],
  )
  const schema = (op as { requestBody: { required: boolean; content: { 'application/json': { schema: JsonSchema } } } }).requestBody.content['application/json'].schema
  t.true((op as { requestBody: { required: boolean } }).requestBody.required)
  t.deepEqual(schema.required, ['job_titles'])
  t.is(schema.additionalProperties, false)
  t.is(schema.default, undefined, 'no object default copied from yup')
  t.deepEqual(schema.properties!.job_titles, { type: 'array', items: { type: 'string' }, minItems: 1 })
  t.deepEqual(schema.properties!.salary, {
    type: 'object',
    properties: { min: { type: 'integer', minimum: 0 }, max: { type: ['number', 'null'] } },
    additionalProperties: false,
  })
  t.deepEqual(schema.properties!.point.prefixItems, [{ type: 'number' }, { type: 'number' }])
  t.deepEqual(schema.properties!.format, { type: 'string', enum: ['csv', 'json'], default: 'json' })
  const result = await new Validator().validate(structuredClone(doc))
  t.true(result.valid, JSON.stringify(result.errors))
})

// --- real responses against the documented schemas ------------------------------------

/**
 * A small JSON Schema checker for the keywords above. Objects with listed properties
 * are treated as closed unless they say additionalProperties: true, so a field the
 * select list gains without a schema change is reported.
 */
function mismatches(doc: unknown, schema: JsonSchema, value: unknown, at = '$'): string[] {
  if (schema.$ref) return mismatches(doc, resolve(doc, schema), value, at)
  const out: string[] = []
  if (schema.anyOf && !schema.anyOf.some((s) => mismatches(doc, s, value, at).length === 0)) {
    out.push(`${at}: matches none of anyOf: ${schema.anyOf.map((s) => mismatches(doc, s, value, at).join('; ')).join(' | ')}`)
  }
  if (schema.oneOf && schema.oneOf.filter((s) => mismatches(doc, s, value, at).length === 0).length !== 1) out.push(`${at}: not exactly one of oneOf`)
  for (const s of schema.allOf ?? []) out.push(...mismatches(doc, s, value, at))
  const actual = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value
  if (schema.type) {
    const types = [schema.type].flat()
    const ok = types.some((ty) => ty === actual || (ty === 'integer' && Number.isInteger(value)))
    if (!ok) return [...out, `${at}: ${JSON.stringify(value)} is not ${types.join('|')}`]
  }
  if (schema.enum && !schema.enum.includes(value)) out.push(`${at}: ${JSON.stringify(value)} not in enum`)
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) out.push(`${at}: below minimum`)
    if (schema.maximum !== undefined && value > schema.maximum) out.push(`${at}: above maximum`)
  }
  if (typeof value === 'string' && schema.format) {
    const formats: Record<string, RegExp> = {
      date: /^\d{4}-\d\d-\d\d$/,
      'date-time': /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/,
      uuid: UUID,
    }
    if (formats[schema.format] && !formats[schema.format].test(value)) out.push(`${at}: ${value} is not a ${schema.format}`)
  }
  if (actual === 'array') {
    const items = value as unknown[]
    if (schema.maxItems !== undefined && items.length > schema.maxItems) out.push(`${at}: more than ${schema.maxItems} items`)
    if (schema.items) items.forEach((v, i) => out.push(...mismatches(doc, schema.items!, v, `${at}[${i}]`)))
  }
  if (actual === 'object' && schema.properties) {
    const obj = value as Record<string, unknown>
    for (const r of schema.required ?? []) if (!(r in obj)) out.push(`${at}: missing ${r}`)
    for (const [k, v] of Object.entries(obj)) {
      if (schema.properties[k]) out.push(...mismatches(doc, schema.properties[k], v, `${at}.${k}`))
      else if (schema.additionalProperties !== true) out.push(`${at}: undocumented property ${k}`)
    }
  }
  return out
}

/** The response must be a documented status of the operation, and its body must match that status's schema. */
async function documented(t: { context: { doc: Doc } }, method: string, path: string, res: Response) {
  const op = t.context.doc.paths[path]?.[method] as Operation | undefined
  if (!op) return [`${method} ${path} is not documented`]
  const response = op.responses[String(res.status) as keyof typeof op.responses]
  if (!response) return [`${method} ${path}: status ${res.status} is not documented`]
  const content = (resolve(t.context.doc, response) as { content?: Record<string, { schema?: JsonSchema }> }).content ?? {}
  const type = (res.headers.get('content-type') ?? '').split(';')[0]
  if (!content[type]) return [`${method} ${path} ${res.status}: content type ${type} is not documented`]
  return type === 'application/json' ? mismatches(t.context.doc, content[type].schema ?? {}, await res.json()) : []
}

async function seed(sql: Sql, accountId: string): Promise<Seeded> {
  const tag = randomBytes(5).toString('hex')
  const companySlug = `openapi-co-${tag}`
  const ids = await upsertCompanies(sql, [
    {
      slug: companySlug, name: `OpenAPI Co ${tag}`, logo: 'https://logo.example.test/co.png', link: 'https://co.example.test',
      linkedin_link: 'https://www.linkedin.com/company/openapi-co', description_summary: 'Payments infrastructure',
      services: ['Payments'], size_min: 51, size_max: 200, size_bucket: '51-200', industries: ['Finance'],
      subindustries: ['Fintech'], type: null, is_recruiting_agency: false, job_board: 'TestBoard',
    },
  ])
  const companyId = ids.get(companySlug)!
  const nulls = Object.fromEntries(jobColumns.map((c) => [c, null])) as JobRow
  const job = (n: string, fields: Partial<JobRow>): JobRow => ({
    ...nulls,
    company_id: companyId, job_slug: `openapi-${tag}-${n}`, md5_hash: `md5-${tag}-${n}`, source_key: `src-${tag}-${n}`,
    job_title: `Engineer ${n}`, job_title_raw: `Engineer ${n}!`, description: '<p>Build things.</p>', description_raw: '<div><p>Build things.</p></div>',
    locations: sql.json([]), remote_countries: [], place_keys: [], job_categories: [], skills: [], technologies: [], benefits: [],
    recruiter_agency: false, meta_completeness: false, date_posted: '2026-11-01', job_board: 'TestBoard', expired: false,
    first_seen_at: new Date(), last_seen_at: new Date(),
    ...fields,
  })
  const [full, sparse, expired] = await insertJobs(sql, [
    job('full', {
      location_raw: 'Berlin, Germany', location_type: 'Hybrid', job_type: 'Full Time',
      locations: sql.json([{ city: 'Berlin', region: 'Berlin', country: 'Germany', coordinates: { lat: 52.52, lng: 13.405 } }]),
      salary_min: 70000, salary_max: 90000, salary_currency: 'EUR', salary_period: 'yearly', salary_annual_min: 70000, salary_annual_max: 90000,
      yoe_min: 3, yoe_max: null, experience_level: 'Senior', education_level: 'Bachelor', language: 'en', team: 'Payments',
      requirements_summary: '5+ years', job_categories: ['Software Engineer Jobs'], skills: ['TypeScript'], technologies: ['PostgreSQL'],
      benefits: ['Equity'], visa_sponsored: true, offers_equity: true, job_board_link: 'https://board.example.test/1',
      application_link: 'https://co.example.test/apply', platform_job_id: 't-1',
    }),
    job('sparse', { date_posted: '2026-10-01' }),
    job('expired', { date_posted: '2026-09-01', expired: true, date_expired: '2026-10-15', job_categories: ['Sales Jobs'] }),
  ])
  const queued = await insertTask(sql, { account_id: accountId, type: 'export_job_data', input: { format: 'csv', search: {} } })
  const done = await insertTask(sql, { account_id: accountId, type: 'salary_benchmark', input: { job_title: 'Engineer' }, notify: true })
  await sql`
    update tasks set state = 'finished', progress = 1, started_at = now(), completed_at = now(), worker_id = 'w-1',
      result = ${sql.json({ market: { salary: { count: 10, p50: 80000 } }, confidence: { grade: 'B' }, proposed: null })}
    where id = ${done.id}`
  return { companySlug, fullId: full.id, sparseId: sparse.id, expiredId: expired.id, fullSlug: `openapi-${tag}-full`, taskIds: [queued.id, done.id] }
}

test('real responses match the schemas documented for their status', async (t) => {
  const { seeded: s, get } = t.context
  const co = `/v2/platform/companies/${s.companySlug}`
  const cases: [string, string, Record<string, string>?][] = [
    [`/v2/jobs/${s.fullId}`, '/v2/jobs/{job_id}'],
    [`/v2/jobs/${s.fullId}?return_raw_description=true`, '/v2/jobs/{job_id}'],
    [`/v2/jobs/${s.sparseId}`, '/v2/jobs/{job_id}'],
    [`/v2/jobs/${s.expiredId}`, '/v2/jobs/{job_id}'],
    ['/v2/jobs/424242424', '/v2/jobs/{job_id}'],
    [`/v2/jobs/${s.fullId}?return_raw_description=yes`, '/v2/jobs/{job_id}'],
    [`/v2/jobs/${s.fullId}`, '/v2/jobs/{job_id}', {}],
    [`/v2/jobs/${s.fullId}`, '/v2/jobs/{job_id}', { 'x-api-key': 'jds_not-a-real-key' }],
    [co, '/v2/platform/companies/{company_slug}'],
    ['/v2/platform/companies/no-such-co', '/v2/platform/companies/{company_slug}'],
    [`${co}/jobs`, '/v2/platform/companies/{company_slug}/jobs'],
    [`${co}/jobs?limit=1&page=2`, '/v2/platform/companies/{company_slug}/jobs'],
    [`${co}/jobs?limit=101`, '/v2/platform/companies/{company_slug}/jobs'],
    [`${co}/jobs/${s.fullSlug}?return_raw_description=true`, '/v2/platform/companies/{company_slug}/jobs/{job_slug}'],
    [`${co}/jobs/nope`, '/v2/platform/companies/{company_slug}/jobs/{job_slug}'],
    ...s.taskIds.map((id) => [`/v2/tasks/${id}`, '/v2/tasks/{task_id}'] as [string, string]),
    ['/v2/tasks/garbage', '/v2/tasks/{task_id}'],
    ['/v2/jobs/data/categories', '/v2/jobs/data/categories', {}],
    ['/v2/jobs/data/industries', '/v2/jobs/data/industries', {}],
    ['/v2/jobs/data/subindustries', '/v2/jobs/data/subindustries', {}],
    ['/v2/jobs/data/subindustries?industry=Legal', '/v2/jobs/data/subindustries', {}],
    ['/v2/jobs/data/subindustries?industry=Basket%20Weaving', '/v2/jobs/data/subindustries', {}],
    ['/healthz', '/healthz', {}],
  ]
  const statuses = new Set<number>()
  for (const [url, path, headers] of cases) {
    const res = await get(url, headers)
    statuses.add(res.status)
    t.deepEqual(await documented(t, 'get', path, res), [], `${res.status} GET ${url}`)
  }
  t.deepEqual([...statuses].sort(), [200, 401, 404, 422], 'the cases cover success and each client error')

  // the documented behaviour, not just the shape
  const profile = await (await get(co)).json()
  t.deepEqual(profile.jobs.map((j: { _id: string }) => j._id), [s.fullId, s.sparseId, s.expiredId], 'newest first, expired included')
  const page = await (await get(`${co}/jobs`)).json()
  t.deepEqual(page.jobs.map((j: { _id: string }) => j._id), [s.fullId, s.sparseId], 'live jobs only')
  t.deepEqual(page.job_categories, [{ category: 'Software Engineer Jobs' }])
  t.is(page.limit, 10)
  t.false('description_raw' in (await (await get(`/v2/jobs/${s.fullId}`)).json()))
  t.is((await (await get(`/v2/jobs/${s.fullId}?return_raw_description=true`)).json()).description_raw, '<div><p>Build things.</p></div>')
})

test.serial('while starting, /healthz and the other routes answer with their documented 503 bodies', async (t) => {
  t.context.readiness.ready = false
  t.context.readiness.stage = 'demo data'
  try {
    const health = await t.context.get('/healthz', {})
    t.is(health.status, 503)
    t.deepEqual(await documented(t, 'get', '/healthz', health), [])
    for (const [url, path] of [['/v2/jobs/data/categories', '/v2/jobs/data/categories'], ['/docs', '/docs'], ['/v2/openapi.json', '/v2/openapi.json']]) {
      const res = await t.context.get(url, {})
      t.is(res.status, 503, url)
      t.is(res.headers.get('retry-after'), '5', url)
      t.deepEqual(await documented(t, 'get', path, res), [], url)
    }
  } finally {
    t.context.readiness.ready = true
  }
})

// --- /docs ------------------------------------------------------------------------------

test('/docs is Swagger UI over /v2/openapi.json, served from local files without a key', async (t) => {
  for (const url of ['/docs', '/docs/']) {
    const res = await t.context.get(url, {})
    t.is(res.status, 200, url)
    t.regex(res.headers.get('content-type') ?? '', /^text\/html/)
    const html = await res.text()
    t.notRegex(html, /https?:\/\//, 'no CDN or other remote asset')
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1])
    t.true(assets.includes('/docs/swagger-ui-bundle.js'))
    t.true(assets.includes('/docs/swagger-ui.css'))
    for (const asset of assets) {
      const a = await t.context.get(asset, {})
      t.is(a.status, 200, asset)
      const expected = asset.endsWith('.js') ? /^text\/javascript/ : asset.endsWith('.css') ? /^text\/css/ : /^image\/png/
      t.regex(a.headers.get('content-type') ?? '', expected, asset)
      t.deepEqual(await documented(t, 'get', '/docs/{file}', a), [], asset)
      if (asset.endsWith('swagger-initializer.js')) t.regex(await a.text(), /url: '\/v2\/openapi\.json'/)
    }
  }
  const bundle = await t.context.get('/docs/swagger-ui-bundle.js', {})
  t.regex(bundle.headers.get('content-type') ?? '', /javascript/)
  t.true(Number(bundle.headers.get('content-length')) > 100_000)
  t.regex(await bundle.text(), /SwaggerUIBundle/)
})

test('/docs/:file serves only the files of swagger-ui-dist', async (t) => {
  for (const file of ['..%2Fpackage.json', '..%2F..%2F..%2Fpackage.json', '%2e%2e%2fpackage.json', '..%5Cpackage.json', 'package.json', 'README.md', 'index.html', 'nope.js', '%2Fetc%2Fpasswd']) {
    const res = await t.context.get(`/docs/${file}`, {})
    t.is(res.status, 404, file)
    t.deepEqual(await res.json(), { detail: 'Not Found' }, file)
  }
})
