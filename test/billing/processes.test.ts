/**
 * Several API processes on one database (each app here is one, with its own
 * Admission): together they never pass a block-mode cap, what was served is what was
 * charged, nothing stays held once requests finish, a reservation whose process died
 * lapses and gives its units back, and the ledger has a row per charged request.
 */
import anyTest, { type TestFn } from 'ava'
import fc from 'fast-check'
import { Admission } from '../../api/middleware/admission.ts'
import { keyed } from '../../api/middleware/keyed.ts'
import { perResult } from '../../api/middleware/metering.ts'
import { RESERVATION_SECONDS } from '../../sql/meters.ts'
import { companyRoutes } from '../../api/routes/companies.ts'
import { jobRoutes } from '../../api/routes/jobs.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'
import { accountOn, ledgerSum, meterRow, periodOf, seedCompany, serveRouter, spend } from './fixtures.ts'
import { ROOMY_LIMITS } from '../helpers/app.ts'

type Ctx = { db: TestDb; company: Awaited<ReturnType<typeof seedCompany>> }
const test = anyTest as TestFn<Ctx>

test.before(async (t) => {
  t.context.db = await testDatabase()
  t.context.company = await seedCompany(t.context.db.sql, 5)
})
test.after.always(async (t) => {
  await t.context?.db?.close()
})

const as = (key: string) => ({ 'x-api-key': key })
/** The units requests in flight hold on the account's meter rows, a number per row that holds any. */
const reservations = (t: { context: Ctx }, accountId: string) =>
  t.context.db.sql<{ units: number }[]>`select reserved::int as units from usage_meters where account_id = ${accountId} and reserved > 0 order by meter`.then((rows) =>
    rows.map((r) => r.units),
  )
/** Moves the account's reservations two slots back, as if RESERVATION_SECONDS had passed twice. */
const ageReservations = (t: { context: Ctx }, accountId: string) => t.context.db.sql`update usage_meters set reserved_slot = reserved_slot - 2 where account_id = ${accountId}`

test('two processes on one block-mode meter: 200 parallel requests split between them, exactly the 50 units left succeed', async (t) => {
  const { db, company } = t.context
  const [a, b] = [await serveRouter(db.sql, jobRoutes(db.sql), { rateLimits: ROOMY_LIMITS }), await serveRouter(db.sql, jobRoutes(db.sql), { rateLimits: ROOMY_LIMITS })]
  t.teardown(async () => (await a.close(), await b.close()))
  const { accountId, key } = await accountOn(db.sql, 'free')
  await spend(db.sql, accountId, 'm_jobs_api_calls', 450)
  const statuses = await Promise.all(
    Array.from({ length: 200 }, async (_, i) => (await fetch(`${(i % 2 ? a : b).base}/v2/jobs/${company.jobIds[i % 5]}`, { headers: as(key) })).status),
  )
  t.is(statuses.filter((s) => s === 200).length, 50)
  t.is(statuses.filter((s) => s === 429).length, 150)
  const period = await periodOf(db.sql, accountId)
  await a.admission.sync()
  t.deepEqual(await meterRow(db.sql, b.admission, accountId, 'm_jobs_api_calls', period), { used: 500, inFlight: 0 })
  t.is(await ledgerSum(db.sql, b.admission, accountId, 'm_jobs_api_calls', period), 500)
})

test('a reservation whose process died holds its units until it lapses, then the next request gives them back', async (t) => {
  const { db, company } = t.context
  const s = await serveRouter(db.sql, jobRoutes(db.sql), { rateLimits: ROOMY_LIMITS })
  t.teardown(s.close)
  const { accountId, key } = await accountOn(db.sql, 'free')
  await spend(db.sql, accountId, 'm_jobs_api_calls', 490)
  const period = await periodOf(db.sql, accountId)
  // what a process that died with a search in flight leaves: a reservation of 10 units, never settled
  await db.sql`update usage_meters set reserved = 10, reserved_slot = floor(extract(epoch from now()) / ${RESERVATION_SECONDS})::bigint where account_id = ${accountId}`
  const held = await fetch(`${s.base}/v2/jobs/${company.jobIds[0]}`, { headers: as(key) })
  t.is(held.status, 429, 'while it lives, its units are spoken for')
  t.is(held.headers.get('platform-usage-included-remaining'), '0')

  await ageReservations(t, accountId)
  const freed = await fetch(`${s.base}/v2/jobs/${company.jobIds[0]}`, { headers: as(key) })
  t.is(freed.status, 200)
  t.is(freed.headers.get('platform-usage-included-remaining'), '9')
  t.deepEqual(await reservations(t, accountId), [], 'the lapsed reservation is gone')
  t.deepEqual(await meterRow(db.sql, s.admission, accountId, 'm_jobs_api_calls', period), { used: 491, inFlight: 0 })
})

test('a request that outlives its reservation is still charged when it settles', async (t) => {
  const { db, company } = t.context
  const router = jobRoutes(db.sql)
  const s = await serveRouter(db.sql, router, { rateLimits: ROOMY_LIMITS })
  t.teardown(s.close)
  const { accountId, key } = await accountOn(db.sql, 'starter')
  const period = await periodOf(db.sql, accountId)
  // the handler's reservation lapses while it runs, and it answers only once another
  // request on the row has been admitted (and has given the lapsed units back)
  let lapse = () => {}
  const lapsed = new Promise<void>((resolve) => (lapse = resolve))
  let finish = () => {}
  const finished = new Promise<void>((resolve) => (finish = resolve))
  // reserves 5, returns 1 job
  router.get('/slow/:n', keyed({ meter: 'm_jobs_api_calls', cost: perResult(() => 5, 100) }), async (ctx) => {
    await ageReservations(t, accountId)
    lapse()
    await finished
    ctx.body = { jobs: [{ id: 1 }] }
  })
  const slow = fetch(`${s.base}/v2/jobs/slow/1`, { headers: as(key) })
  await lapsed
  t.is((await fetch(`${s.base}/v2/jobs/${company.jobIds[0]}`, { headers: as(key) })).status, 200)
  t.deepEqual(await reservations(t, accountId), [], 'that admission gave the lapsed units back')
  finish()
  t.is((await slow).status, 200)
  t.deepEqual(await meterRow(db.sql, s.admission, accountId, 'm_jobs_api_calls', period), { used: 2, inFlight: 0 }, 'both charged, nothing held')
  t.is(await ledgerSum(db.sql, s.admission, accountId, 'm_jobs_api_calls', period), 2)
})

test('once requests finish, every charge is recorded and nothing is held', async (t) => {
  const { db, company } = t.context
  const { accountId, key } = await accountOn(db.sql, 'growth')
  const s = await serveRouter(db.sql, jobRoutes(db.sql), { rateLimits: ROOMY_LIMITS })
  const statuses = await Promise.all(Array.from({ length: 30 }, async () => (await fetch(`${s.base}/v2/jobs/${company.jobIds[2]}`, { headers: as(key) })).status))
  t.deepEqual([...new Set(statuses)], [200])
  await s.close()
  t.deepEqual(await reservations(t, accountId), [])
  const period = await periodOf(db.sql, accountId)
  const idle = new Admission(db.sql, ROOMY_LIMITS)
  t.deepEqual(await meterRow(db.sql, idle, accountId, 'm_jobs_api_calls', period), { used: 30, inFlight: 0 })
  t.is(await ledgerSum(db.sql, idle, accountId, 'm_jobs_api_calls', period), 30)
})

test("the ledger lists every request, with the server's request id (never the client's), endpoint and time, a row each", async (t) => {
  const { db, company } = t.context
  // the ledger's request ids are the server's (the X-Request-Id it answers with), never
  // what a client sends, however it is spelled: quotes, backslashes, braces, commas or NULL
  for (const sent of [['req-one', 'req "two"', 'back\\slash {x},y', 'NULL', 'in side'], ['NULL', '{x},y', 'in side', 'req-four', 'req-five']]) {
    const { accountId, key } = await accountOn(db.sql, 'starter')
    const s = await serveRouter(db.sql, jobRoutes(db.sql), { rateLimits: ROOMY_LIMITS })
    t.teardown(s.close)
    const started = new Date(Date.now() - 1000)
    const ids: string[] = []
    for (const id of sent) {
      const res = await fetch(`${s.base}/v2/jobs/${company.jobIds[3]}`, { headers: { ...as(key), 'x-request-id': id } })
      t.is(res.status, 200)
      t.is(res.headers.get('x-correlation-id'), id, "the client's id comes back apart")
      ids.push(res.headers.get('x-request-id')!)
    }
    t.true(ids.every((id) => /^[0-9a-f-]{36}$/.test(id)))
    await s.admission.sync()
    const rows = await db.sql<{ units: number; kind: string; endpoint: string; requests: number; request_ids: string[]; request_units: number[] }[]>`
      select units::int, kind, endpoint, requests, request_ids, request_units::int[] from usage_ledger where account_id = ${accountId} order by id`
    t.is(rows.length, 5, 'a row per charged request')
    t.true(rows.every((r) => r.units === 1 && r.kind === 'charge' && r.endpoint === 'GET /v2/jobs/:job_id' && r.requests === 1 && r.request_units[0] === 1))
    t.deepEqual(rows.map((r) => r.request_ids[0]), ids)
    const charges = await db.sql<{ units: number; request_id: string | null; endpoint: string; at: Date }[]>`
      select units::int, request_id, endpoint, at from usage_ledger_charges where account_id = ${accountId} order by ledger_id, position`
    t.deepEqual(charges.map((r) => r.request_id), ids)
    t.true(charges.every((r) => r.units === 1 && r.endpoint === 'GET /v2/jobs/:job_id' && r.at >= started && r.at <= new Date()))
    t.true(charges.every((r, i) => i === 0 || r.at >= charges[i - 1].at), 'in the order they were settled')
  }
})

test('the ledger refuses a row whose request columns do not add up, and changes nothing', async (t) => {
  const { db } = t.context
  const { accountId } = await accountOn(db.sql, 'starter')
  const period = await periodOf(db.sql, accountId)
  await spend(db.sql, accountId, 'm_jobs_api_calls', 3)
  const insert = (requests: number, ids: string, units: string) => db.sql`
    insert into usage_ledger (account_id, meter, period_start, units, kind, endpoint, requests, request_ids, request_units, request_at_ms)
    values (${accountId}, 'm_jobs_api_calls', ${period.start}, 2, 'charge', 'GET /x', ${requests}, ${ids}::text[], ${units}::bigint[], '{1,2}')`
  await t.throwsAsync(insert(2, '{a}', '{1,1}'), { message: /usage_ledger_requests_check/ })
  await t.throwsAsync(insert(2, '{a,b}', '{2,0}'), { message: /usage_ledger_request_sign_check/ })
  t.is(await ledgerSum(db.sql, new Admission(db.sql, ROOMY_LIMITS), accountId, 'm_jobs_api_calls', period), 3)
  t.deepEqual(await meterRow(db.sql, new Admission(db.sql, ROOMY_LIMITS), accountId, 'm_jobs_api_calls', period), { used: 3, inFlight: 0 })
})

test('property: random limits from two processes at once never pass the cap, and what was served is what was charged', async (t) => {
  const { db, company } = t.context
  const apps = [await serveRouter(db.sql, companyRoutes(db.sql), { rateLimits: ROOMY_LIMITS }), await serveRouter(db.sql, companyRoutes(db.sql), { rateLimits: ROOMY_LIMITS })]
  t.teardown(async () => {
    for (const a of apps) await a.close()
  })
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 0, max: 60 }), fc.array(fc.record({ app: fc.integer({ min: 0, max: 1 }), limit: fc.integer({ min: 1, max: 8 }) }), { minLength: 1, maxLength: 25 }), async (left, calls) => {
      const { accountId, key } = await accountOn(db.sql, 'free')
      await spend(db.sql, accountId, 'm_jobs_api_calls', 500 - left)
      const responses = await Promise.all(
        calls.map(async ({ app, limit }) => {
          const res = await fetch(`${apps[app].base}/v2/platform/companies/${company.slug}/jobs?limit=${limit}`, { headers: as(key) })
          const body = await res.json()
          return { status: res.status, served: res.status === 200 ? body.jobs.length : 0, code: res.headers.get('x-billing-code') }
        }),
      )
      const served = responses.reduce((sum, r) => sum + r.served, 0)
      const period = await periodOf(db.sql, accountId)
      await apps[0].admission.sync()
      const row = await meterRow(db.sql, apps[1].admission, accountId, 'm_jobs_api_calls', period)
      const ledger = await ledgerSum(db.sql, apps[1].admission, accountId, 'm_jobs_api_calls', period)
      return (
        responses.every((r) => r.status === 200 || (r.status === 429 && r.code === 'limit_exceeded')) &&
        served <= left &&
        row.used === 500 - left + served &&
        ledger === row.used &&
        row.inFlight === 0
      )
    }),
    { numRuns: 12 },
  )
  t.pass()
})
