/**
 * Hostile requests on every route the app mounts: never a 500, never a 503 while the
 * service is ready, always the {"detail": ...} envelope, and 422s that stay small.
 *
 * The routes are read from the routers buildApp mounts and their query parameters and
 * bodies from the OpenAPI document, so a new route is fuzzed without an edit here. The
 * classes generated: control characters (NUL included) in strings, path segments and
 * query values; nesting 1,000, 3,000 and 10,000 levels deep; out-of-range dates and
 * numbers (1e309 included); lists of 10,000 elements; bodies that are not objects;
 * content types that are not JSON, and encodings the body is not in; keys named like
 * Object.prototype's members; odd credentials.
 */
import anyTest, { type TestFn } from 'ava'
import type Router from '@koa/router'
import fc from 'fast-check'
import type Koa from 'koa'
import pino from 'pino'
import { buildApp } from '../../api/app.ts'
import { buildOpenApi, toOpenApiPath } from '../../api/openapi/document.ts'
import { ingest } from '../../ingest/pipeline.ts'
import { loadConfig } from '../../sql/config.ts'
import { insertTask } from '../../sql/tasks.ts'
import { grantFeature, upsertAllowance } from '../../sql/billing.ts'
import { downloadUrl, loadSigningKey } from '../../jobs/files/signing.ts'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { startTestApp, testEmbedder, type TestApp } from '../helpers/app.ts'
import { rawPosting } from '../helpers/factories.ts'
import { multipart } from '../helpers/resume-files.ts'
import { UUID } from '../../sql/ids.ts'

/** body: the route takes a body; multipart: an upload (multipart/form-data) rather than JSON */
type Route = { method: string; path: string; query: string[]; body: boolean; multipart: boolean }
type Real = Record<string, string>
const test = anyTest as TestFn<TestApp & { routes: Route[]; real: Real }>

test.before(async (t) => {
  const generous = { limit: 1_000_000, windowSeconds: 60 }
  const dataDir = await mkdtemp(path.join(tmpdir(), 'jds-fuzz-'))
  const base = loadConfig()
  // exports are queued and never worked on: no worker runs here
  const app = await startTestApp({
    tasks: true,
    config: {
      rateLimits: { key: generous, search: generous, anonymous: generous },
      dataDir,
      downloadsDir: path.join(dataDir, 'downloads'),
      tasks: { ...base.tasks, inProcess: false },
    },
  })
  const close = app.close
  app.close = async () => {
    await close()
    await rm(dataDir, { recursive: true, force: true })
  }
  await app.db.sql`update accounts set plan = 'scale' where id = ${app.accountId}`
  // and the contacts add-on, so POST /v2/jobs/contacts answers (docs/metering.md)
  await grantFeature(app.db.sql, app.accountId, 'hiring_manager_contacts')
  await upsertAllowance(app.db.sql, app.accountId, { meter: 'm_hiring_manager_contacts', included: 1_000_000, overage_mode: 'block', overage_cents_per_unit: null })
  // embedded, so that vsearch from this job answers (see readyBodies)
  await ingest(app.db.sql, [{ line: 1, raw: rawPosting({ source_id: 'fuzz-1', location_raw: 'Berlin, Germany' }, 1) as never }], {
    source: 'fuzz', now: new Date('2026-11-20T00:00:00Z'), embedder: testEmbedder(),
  })
  const [job] = await app.db.sql<{ id: string; job_slug: string; slug: string }[]>`
    select j.id::text, j.job_slug, c.slug from jobs j join companies c on c.id = j.company_id limit 1`
  const task = await insertTask(app.db.sql, { account_id: app.accountId, type: 'export_job_data', input: { format: 'csv', search: {} } })
  // a finished export with its file, so the download route has a link that works
  await mkdir(path.join(dataDir, 'downloads'), { recursive: true })
  await writeFile(path.join(dataDir, 'downloads', `${task.id}.csv`), '_id\n1\n')
  const expiresAt = new Date(Date.now() + 86_400_000)
  await app.db.sql`update tasks set state = 'finished', file_key = ${`${task.id}.csv`}, file_expires_at = ${expiresAt} where id = ${task.id}`
  const link = new URL(downloadUrl(await loadSigningKey(app.db.sql, null), 'http://x', task.id, expiresAt, 'export.csv'))
  const [, , , , expires, signature, filename] = link.pathname.split('/')
  // a stored resume with its file, for the resume routes (DELETE comes last of them)
  const [resume] = await app.db.sql<{ id: string }[]>`
    insert into resumes (account_id, resume_url, file_key, content_type, status) values (${app.accountId}, 'http://x', 'resumes/fuzz.txt', 'text/plain', 'uploaded') returning id::text`
  await mkdir(path.join(dataDir, 'downloads', 'resumes'), { recursive: true })
  await writeFile(path.join(dataDir, 'downloads', 'resumes', 'fuzz.txt'), 'Fuzz Resume\n')
  // a saved search with an event, for the saved-search and event routes
  const [saved] = await app.db.sql<{ id: string }[]>`
    insert into saved_searches (account_id, name, kind, filters, compiled, events, webhook_url, secret)
    values (${app.accountId}, 'fuzz', 'search', '{}', '{"filters": {}}', '{job.new}', 'https://example.com/hook', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw') returning id::text`
  const [event] = await app.db.sql<{ id: string }[]>`
    insert into webhook_events (saved_search_id, account_id, type, job_ids, status) values (${saved.id}, ${app.accountId}, 'job.new', ${[job.id]}::bigint[], 'failed') returning id::text`
  // a second key of the account, for DELETE /v2/keys/:key_id (the key in use cannot revoke itself)
  const [spareKey] = await app.db.sql<{ id: string }[]>`
    insert into api_keys (account_id, key_hash, prefix, name) values (${app.accountId}, 'fuzz-spare-key', 'jds_fuzz', 'fuzz') returning id::text`
  const real = {
    key_id: spareKey.id, console_file: 'console.js',
    job_id: job.id, company_slug: job.slug, job_slug: job.job_slug, task_id: task.id, resume_id: resume.id, file: 'swagger-ui.css', expires, signature, filename,
    saved_search_id: saved.id, event_id: event.id,
  }
  Object.assign(t.context, app, { routes: await mountedRoutes(app.db.sql), real })
})
test.after.always(async (t) => {
  await t.context?.close?.()
})

/** Every method and path of the routers buildApp mounts, with the query parameters and body the document gives them. */
async function mountedRoutes(sql: TestApp['db']['sql']): Promise<Route[]> {
  const app = buildApp({ sql, config: loadConfig(), log: pino({ level: 'silent' }) })
  const doc = buildOpenApi() as unknown as { paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; requestBody?: { content: object } }>> }
  const out: Route[] = []
  for (const mw of app.middleware as Array<Koa.Middleware & { router?: Router }>) {
    for (const layer of mw.router?.stack ?? []) {
      const path = String(layer.path).replace(/(.)\/$/, '$1')
      for (const method of layer.methods.filter((m) => m !== 'HEAD')) {
        const op = doc.paths[toOpenApiPath(path)]?.[method.toLowerCase()]
        out.push({
          method, path, query: (op?.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
          body: Boolean(op?.requestBody), multipart: 'multipart/form-data' in (op?.requestBody?.content ?? {}),
        })
      }
    }
  }
  // only its routers were wanted: stop the admission it started
  await app.context.admission?.close()
  return out
}

test('the routes fuzzed are every route the app mounts', (t) => {
  const names = t.context.routes.map((r) => `${r.method} ${r.path}`)
  for (const known of [
    'POST /v2/jobs/search', 'GET /v2/jobs/search', 'POST /v2/jobs/estimate', 'GET /v2/jobs/:job_id', 'GET /v2/platform/companies/:company_slug',
    'GET /v2/platform/companies/:company_slug/jobs', 'GET /v2/platform/companies/:company_slug/jobs/:job_slug', 'GET /v2/tasks/:task_id',
    'GET /v2/billing/usage/summary', 'GET /v2/billing/portal', 'GET /v2/jobs/data/categories', 'GET /v2/jobs/data/industries',
    'GET /v2/jobs/data/subindustries', 'GET /healthz', 'GET /v2/openapi.json', 'GET /docs', 'GET /docs/:file',
  ]) t.true(names.includes(known), known)
  t.deepEqual(t.context.routes.filter((r) => r.body).map((r) => r.path).sort(), [
    '/v2/embed', '/v2/jobs/contacts', '/v2/jobs/estimate', '/v2/jobs/expired-jobs/export', '/v2/jobs/export', '/v2/jobs/historical/export',
    '/v2/jobs/historical/search', '/v2/jobs/insights', '/v2/jobs/neural-search', '/v2/jobs/salary-benchmark', '/v2/jobs/search', '/v2/jobs/vsearch',
    '/v2/keys', '/v2/platform/companies/:company_slug/insights', '/v2/platform/companies/search', '/v2/resumes', '/v2/resumes/embed',
    '/v2/saved-searches', '/v2/saved-searches/:saved_search_id',
  ])
  t.true(t.context.routes.find((r) => r.path === '/v2/jobs/search' && r.method === 'GET')!.query.includes('geo_locations'))
})

// --- what every answer must be -------------------------------------------------------------


/**
 * Never a 500; a 503 only while starting; errors in the envelope (but the probes, /healthz
 * and /readyz, whose 503 is a body of their own); 422 items well formed and bounded.
 */
async function expectEnvelope(t: { context: TestApp }, res: Response, what: string) {
  const text = await res.text()
  const fail = (why: string) => {
    throw new Error(`${what}: ${res.status} ${why}: ${text.slice(0, 300)}`)
  }
  if (res.status >= 500 && !(res.status === 503 && !t.context.readiness.ready)) fail('server error')
  if (!UUID.test(res.headers.get('x-request-id') ?? '')) fail('no server request id')
  const json = (res.headers.get('content-type') ?? '').startsWith('application/json')
  if (res.status < 400) {
    if (json) JSON.parse(text)
    return
  }
  if (!json) fail('error without a JSON body')
  const body = JSON.parse(text)
  if (res.status === 503 && new URL(res.url).pathname === '/healthz') {
    if (body.status !== 'starting') fail('healthz while starting')
    return
  }
  if (res.status === 503 && new URL(res.url).pathname === '/readyz') {
    if (body.status !== 'not ready' || !/^starting/.test(body.reason)) fail('readyz while starting')
    return
  }
  if (!('detail' in body) || Object.keys(body).length !== 1) fail('no detail envelope')
  if (res.status !== 422) {
    if (typeof body.detail !== 'string') fail('detail is not a string')
    return
  }
  if (!Array.isArray(body.detail) || body.detail.length === 0 || body.detail.length > 21) fail('422 detail is not 1 to 21 items')
  for (const item of body.detail) {
    if (typeof item.type !== 'string' || typeof item.msg !== 'string' || !('input' in item)) fail('malformed item')
    if (!Array.isArray(item.loc) || !['body', 'query', 'path'].includes(item.loc[0])) fail('loc does not start with body, query or path')
  }
  if (text.length > 64_000) fail(`a 422 of ${text.length} characters`)
}

// --- generators ----------------------------------------------------------------------------

/** JSON text fragments JSON.stringify cannot produce (1e309) or would take long to build as values. */
class Raw {
  constructor(public text: string) {}
}
function toJson(v: unknown): string {
  if (v instanceof Raw) return v.text
  if (Array.isArray(v)) return `[${v.map(toJson).join(',')}]`
  if (v && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${toJson(x)}`).join(',')}}`
  return JSON.stringify(v) ?? 'null'
}

const controlChar = fc.oneof(fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)), fc.constant('\u007f'))
/** Text with control characters (NUL often), quotes, escapes, lone surrogates and non-ASCII among ordinary letters. */
const hostileText = fc.oneof(
  fc.string({ unit: fc.oneof(controlChar, fc.constantFrom('a', 'Z', ' ', '"', '\\', '%', '-', 'é', '\u2028', '\ud800', '\u{1f600}')), minLength: 1, maxLength: 12 }),
  fc.string({ unit: 'binary-ascii', maxLength: 16 }),
  fc.constantFrom('\u0000', 'a\u0000b', 'engineer\u0000', '\u0000\u0000', 'Berlin\u0001', '\u001b[31m', 'x\u007f'),
)
const oddDate = fc.oneof(
  fc.constantFrom('0000-01-01', '2026-02-31', '2023-02-29', '2026-13-01', '2026-00-00', '1899-12-31', '9999-12-31', '99999-01-01', '-001-01-01', '2026-1-1', '2026-02-30T00:00:00Z', '1e309'),
  fc.tuple(fc.integer({ min: 0, max: 12_000 }), fc.integer({ min: -1, max: 14 }), fc.integer({ min: -1, max: 33 })).map(
    ([y, m, d]) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`,
  ),
)
const oddNumberText = fc.constantFrom('1e309', '-1e309', '1e308', '99999999999999999999', '9007199254740993', '-1', '-0', '0', '1.5', 'NaN', 'Infinity', '0x10', '1e-400', '')
const oddNumber = fc.oneof(
  oddNumberText.filter((s) => /^-?[\d.e]+$/.test(s)).map((s) => new Raw(s)),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 1e300, 2 ** 63),
)

/** 1,000, 3,000 or 10,000 levels of lists or objects, as text (no value is built). */
const deep = fc.tuple(fc.constantFrom(1_000, 3_000, 10_000), fc.constantFrom('list', 'object', 'mixed')).map(([n, kind]) => {
  if (kind === 'list') return new Raw(`${'['.repeat(n)}${']'.repeat(n)}`)
  if (kind === 'object') return new Raw(`${'{"city":'.repeat(n)}"x"${'}'.repeat(n)}`)
  return new Raw(`${'[{"a":'.repeat(n / 2)}1${'}]'.repeat(n / 2)}`)
})
/** 10,000 elements of one kind. */
const huge = fc.constantFrom('x', 1, null, { city: 'Berlin' }, '\u0000', [], 1e300).map((e) => new Raw(toJson(Array.from({ length: 10_000 }, () => e))))

/** Keys an object inherits: a lookup by name in a plain object finds them. */
const inheritedNames = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__', 'isPrototypeOf']

const filterFields = [
  'job_titles', 'keywords', 'company_keywords', 'job_slug', 'location_types', 'geo_locations', 'geofilter_params', 'experience',
  'yoe', 'include_yoe', 'company_name', 'company_slug', 'salary', 'include_no_salary', 'currency', 'job_types', 'job_type',
  'job_category', 'company_types', 'job_board', 'industry', 'sub_industry', 'date_posted', 'days_ago', 'visa',
  'hide_recruiting_agencies', 'return_raw_description', 'sort_by', 'sort_order', 'page', 'limit', 'locations',
]

const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileText,
  fc.array(hostileText, { maxLength: 4 }),
  oddNumber,
  oddDate,
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom('true', 'false', '"quoted', '-', 'AND', 'USD', 'Remote', 'On-site', 'Contract', 'Finance', '', ' '),
  fc.record({ min: fc.oneof(oddNumber, hostileText, fc.constant(null)), max: fc.oneof(oddNumber, fc.constant(null)) }, { requiredKeys: [] }),
  fc.array(fc.record({ city: fc.oneof(hostileText, fc.constantFrom('Berlin', '', '12345')), region: fc.constantFrom('TX', '', ' '), country: fc.constantFrom('Germany', 'US', 'Atlantis', '') }, { requiredKeys: [] }), { maxLength: 3 }),
  fc.record({ mode: fc.constantFrom('auto', 'weak', 'strict', 'box', 'nope', '\u0000'), radius: fc.oneof(oddNumber, fc.string()), unit: fc.constantFrom('mi', 'km', 'degrees', 'ft') }, { requiredKeys: [] }),
  fc.dictionary(fc.constantFrom(...inheritedNames, 'min', 'city', 'mode'), fc.oneof(hostileText, oddNumber, fc.constant(null)), { maxKeys: 3 }),
  deep,
  huge,
)

/** A body: a filter set with odd values, one nested deep or huge at any depth, or JSON that is not an object. */
const bodyText = fc.oneof(
  { weight: 5, arbitrary: fc.dictionary(fc.constantFrom(...filterFields, ...inheritedNames), oddValue, { maxKeys: 6 }).map(toJson) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...filterFields), fc.oneof(deep, huge)).map(([k, v]) => toJson({ [k]: [{ city: v }] })) },
  { weight: 1, arbitrary: fc.oneof(deep, huge).map(toJson) },
  { weight: 1, arbitrary: fc.constantFrom('null', '[]', '[{}]', '3', '"x"', 'true', '1e309', '', ' ', '{"a":', '\ufeff{}', '{"__proto__": {"x": 1}}', '{"limit": 1, "limit": 1e309}') },
  { weight: 1, arbitrary: fc.json({ maxDepth: 3 }) },
)
const contentType = fc.constantFrom(
  'application/json', 'application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/vnd.api+json',
  'application/x-www-form-urlencoded', 'text/plain', 'text/plain;charset=UTF-8', 'multipart/form-data; boundary=x', 'application/xml',
  'application/json; charset=bogus', 'text/json', 'application/jsonx', undefined,
)
/** Mostly none; otherwise an encoding the body (plain text) is not in, or one nobody supports. */
const contentEncoding = fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'bogus', 'gzip, gzip') })

/** A path segment: a real one, or text with control characters, encodings that do not decode, huge numbers, dot segments. */
/** Lone surrogates as U+FFFD, as a URL carries them. */
const wellFormed = (s: string) => s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')

const segment = (real: string) =>
  fc.oneof(
    { weight: 2, arbitrary: fc.constant(real) },
    { weight: 3, arbitrary: hostileText.map((s) => encodeURIComponent(wellFormed(s))) },
    {
      weight: 2,
      arbitrary: fc.constantFrom('%00', 'a%00b', '%01', '%1F', '%7F', '%09', '%0A', '%C0%80', '%ED%A0%80', '%FF', '%', '%zz', '..', '%2e%2e', '%2F', 'null', '-1', '0', '99999999999999999999', '1e309', 'NaN', 'x'.repeat(3000)),
    },
    { weight: 1, arbitrary: fc.uuid() },
  )

const queryValue = fc.oneof(hostileText, oddNumberText, oddDate, fc.constantFrom('true', 'false', 'Remote', 'Germany', '12345', 'Atlantis', '', ' ', 'x'.repeat(2000)))
type Query = { pairs: [string, string][] } | { repeat: [string, string, number] }
/** Query parameters: the route's own and some it does not know, or one repeated past every list's limit. */
const queryFor = (route: Route): fc.Arbitrary<Query> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.record({ pairs: fc.array(fc.tuple(fc.constantFrom(...route.query, ...inheritedNames, 'x', 'page[0]', '\u0000', 'limit'), queryValue), { maxLength: 6 }) }) },
    { weight: 1, arbitrary: fc.record({ repeat: fc.tuple(fc.constantFrom(...route.query, 'keywords'), fc.constantFrom('x', '\u0000', '1e309'), fc.constantFrom(60, 1_001, 1_100)) }) },
  )
/** Repeats kept under about 12 KB of query: Node answers a longer request head itself (431), before the app. */
function pairsOf(q: Query): [string, string][] {
  if ('pairs' in q) return q.pairs
  const [k, v, n] = q.repeat
  const fits = Math.floor(12_000 / encodeURIComponent(`${k}=${v}&`).length)
  return Array.from({ length: Math.min(n, fits) }, () => [k, v])
}

const credentials = (key: string) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constant({ 'x-api-key': key }) },
    { weight: 1, arbitrary: fc.constant({}) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 40 }).map((k) => ({ 'x-api-key': k.trim() || 'x' })) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 40 }).map((k) => ({ authorization: `Bearer ${k}` })) },
  )
/** A client request id: printable, too long, or with characters from Latin-1 (the header cannot carry control characters). */
const clientId = fc.option(
  fc.oneof(fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 40 }), fc.constant('r'.repeat(500)), fc.constant('caf\u00e9\u00ff')),
  { nil: undefined },
)

/**
 * fetch, sent once more when the connection fails: in about one run in five a request
 * (a hostile body, a refused key) came back as "fetch failed", a transport error with no
 * response to check, and it did not recur when run alone. A request whose connection
 * fails twice fails the property, with the error's cause (fast-check reports only the
 * message).
 */
const send = (url: string, init: RequestInit) =>
  fetch(url, init)
    .catch(() => fetch(url, init))
    .catch((e: Error & { cause?: unknown }) => {
      throw new Error(`${init.method ?? 'GET'} ${url.slice(0, 120)}: ${e.message}: ${String(e.cause)}`)
    })

function urlFor(base: string, route: Route, segments: Record<string, string>, query: [string, string][]) {
  const path = route.path.replace(/:([a-z_]+)/g, (_, name: string) => segments[name])
  const qs = new URLSearchParams(query.map(([k, v]) => [k, wellFormed(v)])).toString()
  return `${base}${path}${qs ? `?${qs}` : ''}`
}

const segmentsArb = (real: Real) => fc.record(Object.fromEntries(Object.entries(real).map(([name, value]) => [name, segment(value)])))

// --- properties ------------------------------------------------------------------------------

test('every route with hostile path segments, query values and credentials', async (t) => {
  const { routes, real, base, key } = t.context
  await t.notThrowsAsync(
    fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes).chain((route) => fc.tuple(fc.constant(route), segmentsArb(real), queryFor(route), credentials(key), clientId)),
        async ([route, segments, query, auth, id]) => {
          const url = urlFor(base, route, segments, pairsOf(query))
          const headers: Record<string, string> = { ...auth, ...(id ? { 'x-request-id': id } : {}) }
          const init: RequestInit = route.body ? { method: route.method, headers: { ...headers, 'content-type': 'application/json' }, body: '{}' } : { method: route.method, headers }
          await expectEnvelope(t, await send(url, init), `${route.method} ${url.slice(0, 200)}`)
        },
      ),
      { numRuns: 400, includeErrorInReport: true },
    ),
  )
})

test('every route with hostile bodies, content types and methods', async (t) => {
  const { routes, real, base, key } = t.context
  await t.notThrowsAsync(
    fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE', 'own'),
        bodyText,
        contentType,
        contentEncoding,
        async (route, verb, body, type, encoding) => {
          const method = verb === 'own' ? route.method : verb
          const url = urlFor(base, route, real, [])
          const res = await send(url, {
            method,
            headers: { 'x-api-key': key, ...(type ? { 'content-type': type } : {}), ...(encoding ? { 'content-encoding': encoding } : {}) },
            body: method === 'GET' ? undefined : body,
          })
          await expectEnvelope(t, res, `${method} ${route.path} ${type} ${encoding} ${body.slice(0, 100)}`)
        },
      ),
      { numRuns: 300, includeErrorInReport: true },
    ),
  )
})

test('every body route: each class on each field, as a 422 that costs nothing', async (t) => {
  const { routes, base, key } = t.context
  const classes: [string, unknown][] = [
    ['NUL', 'a\u0000b'],
    ['NUL in a list', ['a\u0000b']],
    ['NUL in a place', [{ city: 'a\u0000b' }]],
    ['deep list', new Raw(`${'['.repeat(3_000)}${']'.repeat(3_000)}`)],
    ['deep object', new Raw(`${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`)],
    ['huge list', new Raw(toJson(Array.from({ length: 10_000 }, () => 'x')))],
    ['infinite number', new Raw('1e309')],
  ]
  for (const route of routes.filter((r) => r.body)) {
    // unknown fields too (locations): what no field may hold is refused wherever it is
    for (const field of filterFields) {
      for (const [name, value] of classes) {
        const res = await fetch(base + route.path, { method: route.method, headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: toJson({ [field]: value }) })
        const what = `${route.path} ${field}: ${name}`
        // company search answers unsafe strings (NUL) with the spec's 400 rather than a 422
        t.is(res.status, route.path === '/v2/platform/companies/search' && name.startsWith('NUL') ? 400 : 422, what)
        t.is(res.headers.get('platform-usage-total-used'), null, what)
        await expectEnvelope(t, res, what)
      }
    }
    for (const body of ['null', '[]', '3', '"x"']) t.is((await fetch(base + route.path, { method: route.method, headers: { 'x-api-key': key, 'content-type': 'application/json' }, body })).status, 422, body)
    // an upload answers a body that is not multipart as a missing file part
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) t.is((await fetch(base + route.path, { method: route.method, headers: { 'x-api-key': key, 'content-type': type }, body: 'limit=1' })).status, route.multipart ? 422 : 415, type)
  }
})

/**
 * A body each body route answers with a 200: {} for the filter routes (every field is
 * optional); vsearch needs its query vector's source, neural-search vector or lexical,
 * and embed a text.
 */
const readyBodies = (real: Real): Record<string, unknown> => ({
  '/v2/jobs/vsearch': { search_type: 'job', job_id: real.job_id },
  '/v2/jobs/neural-search': { lexical: {} },
  '/v2/jobs/contacts': { company_slug: real.company_slug },
  '/v2/embed': { text: 'fuzz' },
  '/v2/jobs/export': { search: {}, format: 'csv' },
  '/v2/jobs/expired-jobs/export': { since: '2026-01-01' },
  '/v2/jobs/salary-benchmark': { job_title: 'Backend Engineer' },
  '/v2/jobs/historical/search': { job_titles: ['engineer'] },
  '/v2/jobs/historical/export': { job_titles: ['engineer'], format: 'csv' },
  '/v2/keys': { name: 'fuzz' },
  '/v2/saved-searches': { name: 'fuzz', kind: 'search', filters: {}, webhook: { url: 'https://hooks.example.com/fuzz' } },
})

test.serial('while starting, every route is a 503, with Retry-After but for the probes (/healthz, /readyz); once ready, no route is', async (t) => {
  const { routes, real, base, key, readiness } = t.context
  readiness.ready = false
  readiness.stage = 'demo data'
  try {
    for (const route of routes) {
      const res = await fetch(urlFor(base, route, real, []), { method: route.method, headers: { 'x-api-key': key } })
      t.is(res.status, 503, route.path)
      // a probe's 503 is its answer, with a body of its own; the balancer asks again on its own schedule
      if (route.path !== '/healthz' && route.path !== '/readyz') t.is(res.headers.get('retry-after'), '5', route.path)
      await expectEnvelope(t, res, route.path)
    }
  } finally {
    readiness.ready = true
  }
  for (const route of routes) {
    const upload = multipart([{ name: 'file', bytes: Buffer.from('Fuzz Resume\nfuzz@example.com'), type: 'text/plain', filename: 'r.txt' }])
    const body = route.multipart ? upload.body : route.body ? JSON.stringify(readyBodies(real)[route.path] ?? {}) : undefined
    const type = route.multipart ? upload.contentType : 'application/json'
    const res = await fetch(urlFor(base, route, real, []), { method: route.method, headers: { 'x-api-key': key, 'content-type': type }, body })
    t.true(res.status < 400, `${route.method} ${route.path}: ${res.status}`)
    await expectEnvelope(t, res, route.path)
  }
})
