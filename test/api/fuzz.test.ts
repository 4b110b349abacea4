/** Random and malformed requests: never a 500, always the {"detail": ...} envelope. */
import anyTest, { type TestFn } from 'ava'
import fc from 'fast-check'
import { startTestApp, type TestApp } from '../helpers/app.ts'

const test = anyTest as TestFn<TestApp>
test.before(async (t) => {
  t.context = await startTestApp()
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
