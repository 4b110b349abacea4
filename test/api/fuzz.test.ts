/** Random and malformed requests: never a 500, always the {"detail": ...} envelope. */
import anyTest, { type TestFn } from 'ava'
import fc from 'fast-check'
import { startTestApp, type TestApp } from '../helpers/app.ts'

const test = anyTest as TestFn<TestApp>
test.before(async (t) => {
  const generous = { limit: 1_000_000, windowSeconds: 60 }
  t.context = await startTestApp({ config: { rateLimits: { key: generous, search: generous, anonymous: generous } } })
  await t.context.db.sql`update accounts set plan = 'scale' where id = ${t.context.accountId}`
})
test.after.always(async (t) => {
  await t.context?.close()
})

const segment = fc.oneof(
  fc.constantFrom('v2', 'jobs', 'data', 'categories', 'industries', 'subindustries', 'platform', 'companies', 'tasks', 'search', '1', '0', '-1', '99999999999999999999', '%00', '..', '%2e%2e', 'null'),
  fc.string({ maxLength: 12 }).map(encodeURIComponent),
  fc.uuid(),
)
const pathArb = fc.array(segment, { minLength: 1, maxLength: 6 }).map((parts) => `/${parts.join('/')}`)
const queryArb = fc.dictionary(
  fc.constantFrom('page', 'limit', 'industry', 'return_raw_description', 'x', 'page[0]'),
  fc.oneof(fc.string({ maxLength: 10 }), fc.integer().map(String), fc.constantFrom('true', 'false', '1e309', 'NaN', '-0', '')),
)

async function expectEnvelope(res: Response) {
  const text = await res.text()
  if (res.status >= 500 && res.status !== 503) throw new Error(`${res.status}: ${text}`)
  if (res.status >= 400) {
    const body = JSON.parse(text)
    if (!('detail' in body) || Object.keys(body).length !== 1) throw new Error(`no detail envelope: ${text}`)
  }
}

test('random GET paths, queries and keys', async (t) => {
  await fc.assert(
    fc.asyncProperty(pathArb, queryArb, fc.option(fc.string({ maxLength: 40 }), { nil: undefined }), async (p, query, key) => {
      const qs = new URLSearchParams(query).toString()
      const headers: Record<string, string> = key === undefined ? { 'x-api-key': t.context.key } : { 'x-api-key': key.replace(/[^\x21-\x7e]/g, '') }
      await expectEnvelope(await fetch(`${t.context.base}${p}${qs ? `?${qs}` : ''}`, { headers }))
    }),
    { numRuns: 300 },
  )
  t.pass()
})

test('random bodies and methods on real routes', async (t) => {
  const routes = ['/v2/jobs/1', '/v2/tasks/00000000-0000-0000-0000-000000000000', '/v2/platform/companies/x/jobs', '/v2/jobs/data/categories']
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...routes),
      fc.constantFrom('POST', 'PUT', 'DELETE', 'PATCH', 'GET'),
      fc.oneof(fc.json(), fc.string({ maxLength: 200 }), fc.constant('{"a":')),
      async (route, method, body) => {
        const res = await fetch(t.context.base + route, {
          method,
          headers: { 'content-type': 'application/json', 'x-api-key': t.context.key },
          body: method === 'GET' ? undefined : body,
        })
        await expectEnvelope(res)
      },
    ),
    { numRuns: 200 },
  )
  t.pass()
})

const filterFields = [
  'job_titles', 'keywords', 'company_keywords', 'job_slug', 'location_types', 'geo_locations', 'geofilter_params', 'experience',
  'yoe', 'include_yoe', 'company_name', 'company_slug', 'salary', 'include_no_salary', 'currency', 'job_types', 'job_type',
  'job_category', 'company_types', 'job_board', 'industry', 'sub_industry', 'date_posted', 'days_ago', 'visa',
  'hide_recruiting_agencies', 'return_raw_description', 'sort_by', 'sort_order', 'page', 'limit', 'locations',
]
const oddValue = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.array(fc.string({ maxLength: 20 }), { maxLength: 4 }),
  fc.integer({ min: -5, max: 200 }),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom('true', 'false', '"quoted', '-', 'AND', '2026-02-30', 'USD', 'Remote', 'On-site', 'Contract', 'Finance'),
  fc.record({ min: fc.oneof(fc.integer(), fc.string(), fc.constant(null)), max: fc.oneof(fc.integer(), fc.constant(null)) }),
  fc.array(fc.record({ city: fc.string({ maxLength: 12 }), country: fc.constantFrom('Germany', 'US', 'Atlantis', '') }), { maxLength: 3 }),
  fc.record({ mode: fc.constantFrom('auto', 'weak', 'strict', 'box', 'nope'), radius: fc.oneof(fc.integer({ min: -1, max: 30000 }), fc.string()), unit: fc.constantFrom('mi', 'km', 'degrees', 'ft') }),
)

test('random search and estimate bodies: 200 or a 4xx envelope, never a 500', async (t) => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom('/v2/jobs/search', '/v2/jobs/estimate'), fc.dictionary(fc.constantFrom(...filterFields), oddValue, { maxKeys: 6 }), async (route, body) => {
      await expectEnvelope(await t.context.post(route, body))
    }),
    { numRuns: 300 },
  )
  const qs = new URLSearchParams([['job_titles', '"x'], ['geo_locations', 'Nowhere, ZZ'], ['salary_min', 'abc'], ['limit', '5']])
  await expectEnvelope(await t.context.get(`/v2/jobs/search?${qs}`))
  t.pass()
})
