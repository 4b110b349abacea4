/**
 * Input that once gave a 500 or widened a search, each with the status and detail it
 * gets now: control characters, deep nesting, impossible dates and numbers, bodies
 * that are not JSON objects, echoes of huge inputs, places without a name or that
 * resolve to nothing. Also what the request log and the usage ledger record.
 */
import anyTest, { type TestFn } from 'ava'
import { gzipSync } from 'node:zlib'
import { ingest } from '../../ingest/pipeline.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { createAccountWithKey, rawPosting } from '../helpers/factories.ts'
import { UUID } from '../../sql/ids.ts'

const test = anyTest as TestFn<TestApp & { jobId: string; companySlug: string; jobSlug: string }>

test.before(async (t) => {
  const generous = { limit: 100_000, windowSeconds: 60 }
  const app = await startTestApp({ config: { rateLimits: { key: generous, search: generous, anonymous: generous } } })
  await app.db.sql`update accounts set plan = 'scale' where id = ${app.accountId}`
  const postings = [
    { job_title: 'Backend Engineer', location_raw: 'Berlin, Germany' },
    { job_title: 'Nurse', location_raw: 'Austin, TX' },
    { job_title: 'Designer', location_raw: 'Remote - US', location_type: 'Remote' },
  ]
  await ingest(
    app.db.sql,
    postings.map((p, i) => ({ line: i + 1, raw: rawPosting({ source_id: `bad-input-${i}`, company: { name: 'Bad Input Co' }, ...p }, i) as never })),
    { source: 'bad-input-test', now: new Date('2026-11-20T00:00:00Z') },
  )
  const [job] = await app.db.sql<{ id: string; job_slug: string; slug: string }[]>`
    select j.id::text, j.job_slug, c.slug from jobs j join companies c on c.id = j.company_id order by j.id limit 1`
  Object.assign(t.context, app, { jobId: job.id, companySlug: job.slug, jobSlug: job.job_slug })
})
test.after.always(async (t) => {
  await t.context?.close?.()
})

type Item = { type: string; loc: (string | number)[]; msg: string; input: unknown; ctx?: Record<string, unknown> }

async function detail(res: Response): Promise<Item[]> {
  const body = await res.json()
  if (!Array.isArray(body.detail)) throw new Error(`not a 422 detail: ${JSON.stringify(body)}`)
  return body.detail
}

const controlMsg = 'Input should not contain control characters (U+0000 to U+001F other than tab, line feed and carriage return, or U+007F)'
const total = async (res: Response) => ((await res.json()) as { total_count: number }).total_count

// --- control characters --------------------------------------------------------------

const textFilters: [string, unknown, (string | number)[]][] = [
  ['job_titles', ['a\u0000b'], ['job_titles', 0]],
  ['keywords', ['a\u0000b'], ['keywords', 0]],
  ['company_keywords', ['a\u0000b'], ['company_keywords', 0]],
  ['company_name', 'a\u0000b', ['company_name']],
  ['company_slug', 'a\u0000b', ['company_slug']],
  ['job_slug', 'a\u0000b', ['job_slug']],
  ['job_board', 'a\u0000b', ['job_board']],
  ['geo_locations', [{ city: 'a\u0000b' }], ['geo_locations', 0, 'city']],
]

test('a NUL in any text filter of POST search and estimate is a 422 naming the field', async (t) => {
  for (const route of ['/v2/jobs/search', '/v2/jobs/estimate']) {
    for (const [field, value, loc] of textFilters) {
      const res = await t.context.post(route, { [field]: value })
      t.is(res.status, 422, `${route} ${field}`)
      t.deepEqual(await detail(res), [{ type: 'value_error', loc: ['body', ...loc], msg: controlMsg, input: 'a\u0000b', ctx: { character: 'U+0000', position: 1 } }], `${route} ${field}`)
    }
  }
})

test('a NUL in a GET search parameter is a 422 at its query loc', async (t) => {
  for (const field of ['job_titles', 'keywords', 'company_keywords', 'company_name', 'company_slug', 'job_slug', 'job_board', 'geo_locations']) {
    const res = await t.context.get(`/v2/jobs/search?${field}=a%00b`)
    t.is(res.status, 422, field)
    const items = await detail(res)
    t.is(items.length, 1)
    t.like(items[0], { type: 'value_error', msg: controlMsg, input: 'a\u0000b', ctx: { character: 'U+0000', position: 1 } }, field)
    t.deepEqual(items[0].loc.slice(0, 2), ['query', field])
  }
})

test('other control characters are refused too; tab, line feed and carriage return are text', async (t) => {
  for (const [c, code] of [['\u0001', 'U+0001'], ['\u001b', 'U+001B'], ['\u007f', 'U+007F'], ['\u000b', 'U+000B']]) {
    const res = await t.context.post('/v2/jobs/search', { keywords: [`x${c}`] })
    t.is(res.status, 422, code)
    t.deepEqual((await detail(res))[0].ctx, { character: code, position: 1 })
  }
  for (const text of ['engineer\tberlin', 'engineer\nberlin', 'engineer\r\n']) t.is((await t.context.post('/v2/jobs/search', { keywords: [text] })).status, 200)
})

test('a NUL in a path segment is a 422 at its path loc, on every route that takes one', async (t) => {
  const { companySlug, jobSlug } = t.context
  const cases: [string, string][] = [
    ['/v2/platform/companies/a%00b', 'company_slug'],
    ['/v2/platform/companies/a%00b/jobs', 'company_slug'],
    ['/v2/platform/companies/a%00b/jobs/x', 'company_slug'],
    [`/v2/platform/companies/${companySlug}/jobs/a%00b`, 'job_slug'],
    ['/v2/jobs/a%00b', 'job_id'],
    ['/v2/tasks/a%00b', 'task_id'],
    ['/v2/tasks/%01', 'task_id'],
  ]
  for (const [path, name] of cases) {
    const res = await t.context.get(path)
    t.is(res.status, 422, path)
    const [item] = await detail(res)
    t.deepEqual(item.loc, ['path', name], path)
    t.is(item.type, 'value_error')
  }
  // the checks do not get in the way of real slugs
  t.is((await t.context.get(`/v2/platform/companies/${companySlug}/jobs/${jobSlug}`)).status, 200)
})

// --- nesting --------------------------------------------------------------------------

test('a body nested 1,000, 3,000 or 10,000 levels deep is a small 422, not a stack overflow', async (t) => {
  for (const depth of [1_000, 3_000, 10_000]) {
    for (const body of [`{"job_titles":${'['.repeat(depth)}${']'.repeat(depth)}}`, `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`]) {
      const res = await t.context.post('/v2/jobs/search', body)
      t.is(res.status, 422, `${depth}`)
      const text = await res.text()
      t.true(text.length < 2_000, `echo of ${depth} levels is ${text.length} characters`)
      const [item, ...rest] = JSON.parse(text).detail as Item[]
      t.is(rest.length, 0)
      t.like(item, { type: 'value_error', msg: 'Input is nested too deeply: at most 16 levels of lists and objects', ctx: { max_depth: 16 } })
      t.is(item.loc[0], 'body')
      t.is(item.loc.length, 17)
    }
  }
  // the estimate and the GET form share the check
  t.is((await t.context.post('/v2/jobs/estimate', `{"geo_locations":${'['.repeat(3000)}${']'.repeat(3000)}}`)).status, 422)
})

// --- dates and numbers ----------------------------------------------------------------

test('date_posted is a real calendar day from 1900-01-01 on', async (t) => {
  const post = (date_posted: unknown) => t.context.post('/v2/jobs/search', { date_posted })
  for (const bad of ['2026-02-31', '2023-02-29', '2026-13-01', '2026-00-10', '2026-1-1', 'yesterday', '2026-02-30T00:00:00Z', '+02026-01-01']) {
    const res = await post(bad)
    t.is(res.status, 422, bad)
    t.deepEqual(await detail(res), [{ type: 'date_parsing', loc: ['body', 'date_posted'], msg: 'Input should be a valid date as YYYY-MM-DD, a day that exists', input: bad }], bad)
  }
  for (const early of ['0000-01-01', '1899-12-31']) {
    const res = await post(early)
    t.is(res.status, 422, early)
    t.deepEqual(await detail(res), [{ type: 'greater_than_equal', loc: ['body', 'date_posted'], msg: 'Input should be on or after 1900-01-01', input: early, ctx: { ge: '1900-01-01' } }])
  }
  for (const good of ['2024-02-29', '1900-01-01', '9999-12-31', '2026-11-01']) t.is((await post(good)).status, 200, good)
  t.is((await t.context.get('/v2/jobs/search?date_posted=0000-01-01')).status, 422)
  t.is((await t.context.get('/v2/jobs/search?date_posted=2026-02-31')).status, 422)
})

test('numbers out of range are 422s: huge, infinite, past each field\'s bound', async (t) => {
  const infinite = await t.context.post('/v2/jobs/search', '{"limit": 1e309}')
  t.is(infinite.status, 422)
  t.deepEqual(await detail(infinite), [{ type: 'finite_number', loc: ['body', 'limit'], msg: 'Input should be a finite number', input: 'Infinity' }])
  const negative = await t.context.post('/v2/jobs/search', '{"salary": {"min": -1e309}}')
  t.deepEqual(await detail(negative), [{ type: 'finite_number', loc: ['body', 'salary', 'min'], msg: 'Input should be a finite number', input: '-Infinity' }])

  const cases: [Record<string, unknown>, (string | number)[], number][] = [
    [{ page: 1e9 }, ['page'], 10_000],
    [{ limit: 1e15 }, ['limit'], 100],
    [{ salary: { min: 1e13 } }, ['salary', 'min'], 1e12],
    [{ salary: { max: 1e300 } }, ['salary', 'max'], 1e12],
    [{ yoe: { min: 101 } }, ['yoe', 'min'], 100],
    [{ days_ago: 36_501 }, ['days_ago'], 36_500],
    [{ geofilter_params: { radius: 1e20 } }, ['geofilter_params', 'radius'], 20_000],
  ]
  for (const [body, loc, le] of cases) {
    const res = await t.context.post('/v2/jobs/search', body)
    t.is(res.status, 422, JSON.stringify(body))
    const items = await detail(res)
    t.like(items.find((i) => i.loc.join('.') === ['body', ...loc].join('.')), { type: 'less_than_equal', ctx: { le } }, JSON.stringify(body))
  }
  for (const qs of ['salary_min=1e309', 'yoe_max=1000', 'days_ago=Infinity', 'geo_radius=1e400', 'page=99999999999999999999', 'limit=1e309']) {
    t.is((await t.context.get(`/v2/jobs/search?${qs}`)).status, 422, qs)
  }
  for (const qs of ['page=99999999999999999999', 'page=1e309', 'page=5000&limit=100']) {
    const res = await t.context.get(`/v2/platform/companies/${t.context.companySlug}/jobs?${qs}`)
    t.is(res.status, 422, qs)
    t.is((await detail(res))[0].loc[1], 'page', qs)
  }
})

// --- bodies that are not JSON objects -------------------------------------------------

test('a body that is not JSON is a 415, one that is not an object a 422; neither is charged', async (t) => {
  const { accountId, key } = await createAccountWithKey(t.context.db.sql, 'free')
  const send = (route: string, body: string | undefined, type?: string) =>
    fetch(t.context.base + route, { method: 'POST', headers: { 'x-api-key': key, ...(type ? { 'content-type': type } : {}) }, body })
  for (const route of ['/v2/jobs/search', '/v2/jobs/estimate']) {
    for (const [body, type] of [['limit=3', 'application/x-www-form-urlencoded'], ['{"limit": 3}', 'text/plain'], ['{"limit": 3}', 'text/plain;charset=UTF-8'], ['<limit>3</limit>', 'application/xml']]) {
      const res = await send(route, body, type)
      t.is(res.status, 415, `${route} ${type}`)
      t.deepEqual(await res.json(), { detail: `Unsupported Media Type: send the body as JSON with Content-Type: application/json (got ${type})` })
      t.is(res.headers.get('platform-usage-total-used'), null)
    }
    for (const body of ['null', '[]', '[{"limit": 3}]', '3', '"x"', 'true']) {
      const res = await send(route, body, 'application/json')
      t.is(res.status, 422, `${route} ${body}`)
      t.deepEqual(await detail(res), [{ type: 'dict_type', loc: ['body'], msg: 'Input should be a valid dictionary (a JSON object)', input: JSON.parse(body) }])
      t.is(res.headers.get('platform-usage-total-used'), null)
    }
    // +json types are JSON; an empty body is {}
    t.is((await send(route, '{"limit": 1}', 'application/vnd.api+json')).status, 200)
    t.is((await send(route, undefined)).status, 200)
    t.is((await send(route, '', 'text/plain')).status, 200)
  }
  await t.context.sync()
  const [meter] = await t.context.db.sql<{ used: number }[]>`select used::int from usage_meters where account_id = ${accountId} and meter = 'm_jobs_api_calls'`
  // served: {"limit": 1} (1 job) and the two empty bodies (every job, 3) on search; the estimate costs 0, and so did every refusal
  const served = await t.context.db.sql<{ units: number }[]>`select coalesce(sum(units), 0)::int as units from usage_ledger where account_id = ${accountId}`
  t.is(meter?.used ?? 0, served[0].units)
  t.is(served[0].units, 1 + 3 + 3)
})

test('a compressed body that does not decompress is a 400', async (t) => {
  for (const encoding of ['gzip', 'deflate', 'br']) {
    const res = await t.context.post('/v2/jobs/search', '{"limit": 1}', { 'x-api-key': t.context.key, 'content-encoding': encoding })
    t.is(res.status, 400, encoding)
    t.deepEqual(await res.json(), { detail: `Bad Request: the body could not be decoded as Content-Encoding: ${encoding}` })
  }
  const gzipped = await fetch(`${t.context.base}/v2/jobs/search`, {
    method: 'POST',
    headers: { 'x-api-key': t.context.key, 'content-type': 'application/json', 'content-encoding': 'gzip' },
    body: gzipSync('{"limit": 1}'),
  })
  t.is(gzipped.status, 200)
})

test('keys named like Object.prototype members are ignored like any unknown key, in bodies and queries', async (t) => {
  for (const name of ['constructor', 'toString', 'valueOf', 'hasOwnProperty']) {
    t.is((await t.context.post('/v2/jobs/search', `{"${name}": 1, "limit": 1}`)).status, 200, name)
    t.is((await t.context.post('/v2/jobs/estimate', `{"yoe": {"${name}": 1}, "geofilter_params": {"${name}": "x"}}`)).status, 200, name)
    t.is((await t.context.get(`/v2/jobs/search?${name}=x`)).status, 200, name)
    t.is((await t.context.get(`/v2/jobs/${t.context.jobId}?${name}=x`)).status, 200, name)
    t.is((await t.context.get(`/v2/platform/companies/${t.context.companySlug}/jobs?${name}=x`)).status, 200, name)
    t.is((await t.context.get(`/v2/jobs/data/subindustries?${name}=x`, {})).status, 200, name)
  }
  // a place whose only key is inherited has no name
  t.is((await t.context.post('/v2/jobs/search', '{"geo_locations": [{"constructor": "Berlin"}]}')).status, 422)
  const proto = await t.context.post('/v2/jobs/search', '{"__proto__": {"limit": 1}}')
  t.is(proto.status, 422)
  t.like((await detail(proto))[0], { type: 'json_invalid', loc: ['body', 0], ctx: { error: 'Object contains forbidden prototype property' } })
})

// --- echoes -----------------------------------------------------------------------------

test('a 422 echoes a bounded input: long lists, long strings and many errors are cut with a marker', async (t) => {
  const huge = await t.context.post('/v2/jobs/search', { job_titles: Array.from({ length: 10_000 }, (_, i) => `t${i}`) })
  t.is(huge.status, 422)
  const text = await huge.text()
  t.true(text.length < 1_000, `${text.length} characters`)
  const [item] = JSON.parse(text).detail as Item[]
  t.like(item, { type: 'too_long', loc: ['body', 'job_titles'], ctx: { max_length: 1_000, actual_length: 10_000 } })
  t.deepEqual(item.input, ['t0', 't1', 't2', 't3', 't4', 't5', 't6', 't7', 't8', 't9', '… 9990 more items'])

  const sixty = await detail(await t.context.post('/v2/jobs/search', { job_titles: Array.from({ length: 60 }, () => 'x') }))
  t.deepEqual(sixty, [{ type: 'too_long', loc: ['body', 'job_titles'], msg: 'List should have at most 50 items, not 60', input: [...Array(10).fill('x'), '… 50 more items'], ctx: { max_length: 50, actual_length: 60 } }])

  const long = await detail(await t.context.post('/v2/jobs/search', { keywords: ['k'.repeat(100_000)] }))
  t.like(long[0], { type: 'string_too_long', loc: ['body', 'keywords', 0], input: `${'k'.repeat(100)}… (100000 characters)`, ctx: { max_length: 500 } })

  // many bad elements: the first 20 items, then one that counts the rest
  const many = await detail(await t.context.post('/v2/jobs/search', { job_titles: Array.from({ length: 45 }, (_, i) => i) }))
  t.is(many.length, 21)
  t.deepEqual(many[20], { type: 'too_many_errors', loc: ['body'], msg: '25 more errors not shown', input: null })
  t.true(many.slice(0, 20).every((i) => i.type === 'string_type'))

  const deepInput = await detail(await t.context.post('/v2/jobs/search', { geofilter_params: [{ mode: { a: { b: { c: { d: 1 } } } } }] }))
  t.deepEqual(deepInput[0].input, { a: { b: { c: '{object with 1 keys}' } } })
})

// --- places -----------------------------------------------------------------------------

test('a place without a name is a 422; one that resolves to nothing matches nothing, on POST and GET alike', async (t) => {
  const all = await total(await t.context.post('/v2/jobs/search', {}))
  t.true(all >= 3)
  for (const place of [{}, { city: '' }, { city: '  ', region: '', country: ' ' }]) {
    const res = await t.context.post('/v2/jobs/search', { geo_locations: [{ country: 'Germany' }, place] })
    t.is(res.status, 422, JSON.stringify(place))
    t.deepEqual(await detail(res), [{ type: 'value_error', loc: ['body', 'geo_locations', 1], msg: 'A place needs at least one of city, region or country', input: place }])
  }
  t.is((await t.context.get('/v2/jobs/search?geo_locations=')).status, 422)
  t.is((await t.context.get('/v2/jobs/search?geo_locations=%20%20')).status, 422)

  for (const text of ['12345', 'Remote', 'Anywhere', 'Atlantis', '!!!', 'Nowhere, ZZ']) {
    const res = await t.context.get(`/v2/jobs/search?geo_locations=${encodeURIComponent(text)}`)
    t.is(res.status, 200, text)
    t.is(await total(res), 0, `GET ${text}`)
    t.is(await total(await t.context.post('/v2/jobs/search', { geo_locations: [{ city: text }] })), 0, `POST ${text}`)
  }
  t.is(await total(await t.context.post('/v2/jobs/search', { geo_locations: [{ country: 'Atlantis' }] })), 0)
  // a known place still finds its jobs, and an unknown one beside it adds nothing
  t.is(await total(await t.context.get('/v2/jobs/search?geo_locations=Germany')), 1)
  t.is(await total(await t.context.get('/v2/jobs/search?geo_locations=Germany&geo_locations=12345')), 1)
  t.is(await total(await t.context.get('/v2/jobs/search?geo_locations=Remote%20-%20US')), 2)
})

// --- request ids and the log ------------------------------------------------------------


/** The log line of a request, once the response is done (the line is written then). */
async function logLine(t: { context: TestApp }, requestId: string) {
  for (let i = 0; i < 100; i++) {
    const line = t.context.logs.find((l) => l.includes(`"req_id":"${requestId}"`))
    if (line) return JSON.parse(line) as Record<string, unknown>
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error(`no log line for ${requestId}`)
}

test('the request log records the status actually sent', async (t) => {
  const cases: [Promise<Response>, number][] = [
    [t.context.post('/v2/jobs/search', { limit: 'x' }), 422],
    [t.context.post('/v2/jobs/search', 'a=1', { 'x-api-key': t.context.key, 'content-type': 'application/x-www-form-urlencoded' }), 415],
    [t.context.get('/v2/jobs/1', {}), 401],
    [t.context.get('/v2/jobs/999999999'), 404],
    [t.context.get('/v2/platform/companies/a%00b'), 422],
    [t.context.get('/v2/jobs/data/categories', {}), 200],
  ]
  for (const [pending, status] of cases) {
    const res = await pending
    t.is(res.status, status)
    const line = await logLine(t, res.headers.get('x-request-id')!)
    t.is(line.status, status)
  }
})

test('request ids are the server\'s: the client\'s X-Request-Id is a correlation id, never in the ledger', async (t) => {
  const { accountId, key } = await createAccountWithKey(t.context.db.sql, 'free')
  const res = await t.context.get(`/v2/jobs/${t.context.jobId}`, { 'x-api-key': key, 'x-request-id': 'evil' })
  t.is(res.status, 200)
  const id = res.headers.get('x-request-id')!
  t.regex(id, UUID)
  t.is(res.headers.get('x-correlation-id'), 'evil')
  t.regex(res.headers.get('access-control-expose-headers') ?? '', /X-Correlation-Id/)

  await t.context.sync()
  const ledger = await t.context.db.sql<{ request_ids: string[] }[]>`select request_ids from usage_ledger where account_id = ${accountId}`
  t.deepEqual(ledger.flatMap((r) => r.request_ids), [id])

  const line = await logLine(t, id)
  t.is(line.correlation_id, 'evil')
  t.is(line.status, 200)

  // without one, or with one that is too long or not printable, there is no correlation id
  for (const given of [undefined, 'x'.repeat(129), 'caf\u00e9']) {
    const r = await t.context.get('/v2/jobs/data/categories', given === undefined ? {} : { 'x-request-id': given })
    t.regex(r.headers.get('x-request-id')!, UUID)
    t.is(r.headers.get('x-correlation-id'), null)
    t.false('correlation_id' in (await logLine(t, r.headers.get('x-request-id')!)))
  }
})

test('an industry named like an inherited property is unknown, not every industry', async (t) => {
  for (const industry of ['toString', 'constructor', '__proto__']) {
    const res = await fetch(`${t.context.base}/v2/jobs/data/subindustries?industry=${industry}`)
    t.is(res.status, 422, industry)
    const [item] = await detail(res)
    t.like(item, { type: 'value_error', loc: ['query', 'industry'] })
  }
})
