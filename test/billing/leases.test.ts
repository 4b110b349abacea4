/**
 * Meter leases across API processes (each app here is one, with its own Admission on
 * one database): together they never pass a block-mode cap, a dead process's lease
 * runs out and its units come back, and close() records every charge and gives
 * every lease back.
 */
import anyTest, { type TestFn } from 'ava'
import fc from 'fast-check'
import { Admission } from '../../api/middleware/admission.ts'
import { FLUSH_MS, IDLE_MS, LEASE_CHUNK, METER_MODE_IDLE_MS, MeterLeases, REFUSAL_MEMORY_MS, TTL_SECONDS, type LeasedRow } from '../../api/middleware/meter-leases.ts'
import { companyRoutes } from '../../api/routes/companies.ts'
import { jobRoutes } from '../../api/routes/jobs.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'
import { accountOn, ledgerSum, meterRow, periodOf, seedCompany, serveRouter, spend } from './fixtures.ts'

type Ctx = { db: TestDb; company: Awaited<ReturnType<typeof seedCompany>> }
const test = anyTest as TestFn<Ctx>
const roomy = { key: { limit: 100_000, windowSeconds: 60 }, search: { limit: 100_000, windowSeconds: 1 }, anonymous: { limit: 100_000, windowSeconds: 60 } }

test.before(async (t) => {
  t.context.db = await testDatabase()
  t.context.company = await seedCompany(t.context.db.sql, 5)
})
test.after.always(async (t) => {
  await t.context?.db?.close()
})

const as = (key: string) => ({ 'x-api-key': key })
const leases = (t: { context: Ctx }, accountId: string) =>
  t.context.db.sql<{ holder: string; units: number; live: boolean }[]>`
    select holder::text, units::int, expires_at > now() as live from meter_leases where account_id = ${accountId} order by holder`

test('two processes on one block-mode meter: 200 parallel requests split between them, exactly the 50 units left succeed', async (t) => {
  const { db, company } = t.context
  const [a, b] = [await serveRouter(db.sql, jobRoutes(db.sql), { rateLimits: roomy }), await serveRouter(db.sql, jobRoutes(db.sql), { rateLimits: roomy })]
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

/** Counts the lease grants a MeterLeases asks for. */
function countGrants(meters: MeterLeases) {
  const counter = { grants: 0 }
  const leases = meters as unknown as { grant: (...a: unknown[]) => Promise<void> }
  const grant = leases.grant.bind(meters)
  leases.grant = (...a) => (counter.grants++, grant(...a))
  return counter
}

test('a busy lease is topped up before it runs out: after the first grant no request waits for one', async (t) => {
  const { db } = t.context
  const { accountId } = await accountOn(db.sql, 'scale')
  const period = await periodOf(db.sql, accountId)
  const meters = new MeterLeases(db.sql)
  t.teardown(() => meters.close())
  const counter = countGrants(meters)
  const key = { accountId, plan: 'scale' as const, meter: 'm_jobs_api_calls' as const, period }
  let waited = 0
  let grants = 0
  for (let i = 0; i < 3 * LEASE_CHUNK; i++) {
    const reserving = meters.reserve(key, 1)
    if (reserving instanceof Promise) waited++
    const reservation = await reserving
    if (!reservation.ok) return t.fail('refused')
    meters.settle(reservation.row, 1, 1, { requestId: null, endpoint: 'test' })
    // requests arrive over time: a top-up asked for gets to finish (a flush queues behind it)
    if (counter.grants > grants) await meters.flush()
    grants = counter.grants
  }
  t.is(waited, 1, 'only the first request, for the first grant')
  t.true(grants >= 3, `${grants} grants`)
  await meters.flush()
  t.deepEqual(await meterRow(db.sql, new Admission(db.sql, roomy), accountId, 'm_jobs_api_calls', period), { used: 3 * LEASE_CHUNK, inFlight: 0 })
})

test('near a block-mode cap, a lease that came back short is not topped up again at once', async (t) => {
  const { db } = t.context
  const { accountId } = await accountOn(db.sql, 'free')
  const period = await periodOf(db.sql, accountId)
  const key = { accountId, plan: 'free' as const, meter: 'm_jobs_api_calls' as const, period }
  // another process leases half of the 500 units first
  const other = new MeterLeases(db.sql)
  const meters = new MeterLeases(db.sql)
  t.teardown(async () => (await meters.close(), await other.close()))
  t.true((await other.reserve(key, 1)).ok)
  const counter = countGrants(meters)
  let served = 0
  const started = Date.now()
  for (let i = 0; i < 200; i++) {
    if (i % 5 === 0) await new Promise((r) => setTimeout(r, 1))
    const reservation = await meters.reserve(key, 1)
    if (!reservation.ok) break
    served++
    meters.settle(reservation.row, 1, 1, { requestId: null, endpoint: 'test' })
  }
  t.true(served >= 100, `${served} served`)
  // a short lease asks again only once its refusal is forgotten: a stalled machine that
  // takes longer over the loop may see one more grant per REFUSAL_MEMORY_MS it took
  const allowed = 5 + Math.floor((Date.now() - started) / REFUSAL_MEMORY_MS)
  t.true(counter.grants <= allowed, `${counter.grants} grants for ${served} requests in ${Date.now() - started} ms`)
})

test('charges are flushed every flushMs: a tick within it records nothing, the first tick after it records them all', async (t) => {
  const { db } = t.context
  const { accountId } = await accountOn(db.sql, 'scale')
  const period = await periodOf(db.sql, accountId)
  // longer than the default (FLUSH_MS), so a tick between the two tells whether this one
  // is used, and long enough that a slow database (the embedded one) cannot use it up
  const flushMs = FLUSH_MS + 2000
  const meters = new MeterLeases(db.sql, undefined, flushMs)
  t.teardown(() => meters.close())
  const key = { accountId, plan: 'scale' as const, meter: 'm_jobs_api_calls' as const, period }
  const charge = async (n: number) => {
    for (let i = 0; i < n; i++) {
      const reservation = await meters.reserve(key, 1)
      if (!reservation.ok) return t.fail('refused')
      meters.settle(reservation.row, 1, 1, { requestId: `r${i}`, endpoint: 'test' })
    }
  }
  const used = async () => {
    const [row] = await db.sql<{ used: number }[]>`
      select used::int from usage_meters where account_id = ${accountId} and meter = 'm_jobs_api_calls' and period_start = ${period.start}`
    return row?.used ?? 0
  }
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms))
  await charge(3)
  // a flush now: the interval counts from when it started, which is before this returns
  await meters.flush()
  const flushed = Date.now()
  t.is(await used(), 3)
  await charge(4)
  await pause(flushed + FLUSH_MS + 500 - Date.now())
  meters.tick()
  await pause(200)
  t.is(await used(), 3, 'a tick within flushMs of the last flush records nothing, though past the default')
  await pause(flushed + flushMs - Date.now())
  meters.tick()
  for (let waited = 0; (await used()) !== 7 && waited < 5000; waited += 50) await pause(50)
  t.is(await used(), 7, 'the first tick after flushMs records every charge since')
})

test('an idle row gives its free units back after IDLE_MS in block mode, METER_MODE_IDLE_MS in meter mode', async (t) => {
  const { db } = t.context
  for (const [plan, mode] of [['free', 'block'], ['scale', 'meter']] as const) {
    const { accountId } = await accountOn(db.sql, plan)
    const key = { accountId, plan, meter: 'm_jobs_api_calls' as const, period: await periodOf(db.sql, accountId) }
    const meters = new MeterLeases(db.sql)
    t.teardown(() => meters.close())
    const reservation = await meters.reserve(key, 1)
    if (!reservation.ok) return t.fail('refused')
    meters.settle(reservation.row, 1, 1, { requestId: null, endpoint: 'test' })
    // idle as long as that, without waiting for it
    const idleFor = async (ms: number) => {
      for (const row of (meters as unknown as { rows: Map<string, LeasedRow> }).rows.values()) row.lastUse -= ms
      await meters.flush()
      return (await leases(t, accountId)).reduce((sum, l) => sum + l.units, 0)
    }
    t.true((await idleFor(0)) > 0, `${mode}: a lease while in use`)
    t.is(await idleFor(IDLE_MS + 100), mode === 'block' ? 0 : LEASE_CHUNK, `${mode}: after ${IDLE_MS} ms idle`)
    t.is(await idleFor(METER_MODE_IDLE_MS), 0, `${mode}: after ${METER_MODE_IDLE_MS} ms idle`)
  }
})

test("a process that dies keeps nothing: once its lease expires, another process gets the units", async (t) => {
  const { db, company } = t.context
  const { accountId, key } = await accountOn(db.sql, 'free')
  await spend(db.sql, accountId, 'm_jobs_api_calls', 480)
  // the first process takes a lease and stops ticking, as if it had died
  const dying = await serveRouter(db.sql, jobRoutes(db.sql), { rateLimits: roomy })
  t.teardown(dying.close)
  t.is((await fetch(`${dying.base}/v2/jobs/${company.jobIds[0]}`, { headers: as(key) })).status, 200)
  await dying.admission.meters.flush()
  dying.admission.stop()
  const held = await leases(t, accountId)
  t.is(held.length, 1)
  t.true(held[0].units > 0, 'it holds free units beyond the one it charged')
  const period = await periodOf(db.sql, accountId)

  const alive = await serveRouter(db.sql, jobRoutes(db.sql), { rateLimits: roomy })
  t.teardown(alive.close)
  const before = await Promise.all(Array.from({ length: 19 }, async () => (await fetch(`${alive.base}/v2/jobs/${company.jobIds[1]}`, { headers: as(key) })).status))
  t.is(before.filter((s) => s === 200).length, 19 - held[0].units, 'the live lease is respected')

  // its lease runs out (TTL_SECONDS after its last renewal); the live process's memory
  // of its refusals (what it knew of others' leases then) lasts REFUSAL_MEMORY_MS
  await db.sql`update meter_leases set expires_at = now() - interval '1 second' where holder = ${held[0].holder}`
  await new Promise((r) => setTimeout(r, REFUSAL_MEMORY_MS))
  const after = await Promise.all(Array.from({ length: held[0].units + 5 }, async () => (await fetch(`${alive.base}/v2/jobs/${company.jobIds[1]}`, { headers: as(key) })).status))
  t.is(after.filter((s) => s === 200).length, held[0].units, 'its units come back, and no more')
  t.deepEqual(await meterRow(db.sql, alive.admission, accountId, 'm_jobs_api_calls', period), { used: 500, inFlight: 0 })
  t.true(TTL_SECONDS >= 10, 'long enough to outlive a slow flush, short enough to come back soon')
})

test('close() records every charge and gives every lease back', async (t) => {
  const { db, company } = t.context
  const { accountId, key } = await accountOn(db.sql, 'growth')
  const s = await serveRouter(db.sql, jobRoutes(db.sql), { rateLimits: roomy })
  const statuses = await Promise.all(Array.from({ length: 30 }, async () => (await fetch(`${s.base}/v2/jobs/${company.jobIds[2]}`, { headers: as(key) })).status))
  t.deepEqual([...new Set(statuses)], [200])
  t.true((await leases(t, accountId)).length === 1, 'a lease while it runs')
  await s.close()
  t.is((await leases(t, accountId)).length, 0)
  const period = await periodOf(db.sql, accountId)
  const idle = new Admission(db.sql, roomy)
  t.deepEqual(await meterRow(db.sql, idle, accountId, 'm_jobs_api_calls', period), { used: 30, inFlight: 0 })
  t.is(await ledgerSum(db.sql, idle, accountId, 'm_jobs_api_calls', period), 30)
})

test("the ledger lists every request, with the server's request id (never the client's), endpoint and time, in a row per meter row and endpoint a flush", async (t) => {
  const { db, company } = t.context
  // the ledger's request ids are the server's (the X-Request-Id it answers with), never
  // what a client sends, however it is spelled: quotes, backslashes, braces, commas or NULL
  for (const sent of [['req-one', 'req "two"', 'back\\slash {x},y', 'NULL', 'in side'], ['NULL', '{x},y', 'in side', 'req-four', 'req-five']]) {
    const { accountId, key } = await accountOn(db.sql, 'starter')
    const s = await serveRouter(db.sql, jobRoutes(db.sql), { rateLimits: roomy })
    t.teardown(s.close)
    // no ticks: the charges wait for the one flush sync() makes
    s.admission.stop()
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
    const [row, ...more] = await db.sql<{ units: number; kind: string; endpoint: string; requests: number; request_ids: string[]; request_units: number[] }[]>`
      select units::int, kind, endpoint, requests, request_ids, request_units::int[] from usage_ledger where account_id = ${accountId}`
    t.is(more.length, 0, 'one flush, one meter row, one endpoint: one ledger row')
    t.like(row, { units: 5, kind: 'charge', endpoint: 'GET /v2/jobs/:job_id', requests: 5, request_ids: ids, request_units: [1, 1, 1, 1, 1] })
    const charges = await db.sql<{ units: number; request_id: string | null; endpoint: string; at: Date }[]>`
      select units::int, request_id, endpoint, at from usage_ledger_charges where account_id = ${accountId} order by ledger_id, position`
    t.deepEqual(charges.map((r) => r.request_id), ids)
    t.true(charges.every((r) => r.units === 1 && r.endpoint === 'GET /v2/jobs/:job_id' && r.at >= started && r.at <= new Date()))
    t.true(charges.every((r, i) => i === 0 || r.at >= charges[i - 1].at), 'in the order they were settled')
  }
})

test('meter_flush refuses ledger columns that do not add up, and changes nothing', async (t) => {
  const { db } = t.context
  const { accountId } = await accountOn(db.sql, 'starter')
  const period = await periodOf(db.sql, accountId)
  await spend(db.sql, accountId, 'm_jobs_api_calls', 3)
  const flush = (counts: string, requestIds: string) => db.sql`
    select * from meter_flush(gen_random_uuid(), 30, array[${accountId}]::uuid[], '{m_jobs_api_calls}', array[${period.start}]::timestamptz[],
      '{2}', '{0}', '{1}', '{GET /x}', ${counts}::int[], '{1,1}', '{1,2}', ${requestIds}::text[])`
  await t.throwsAsync(flush('{2}', '{a}'), { message: /2 charges in groups, but 2 units, 2 times and 1 request ids/ })
  await t.throwsAsync(flush('{3}', '{a,b}'), { message: /3 charges in groups/ })
  t.is(await ledgerSum(db.sql, new Admission(db.sql, roomy), accountId, 'm_jobs_api_calls', period), 3)
  t.deepEqual(await meterRow(db.sql, new Admission(db.sql, roomy), accountId, 'm_jobs_api_calls', period), { used: 3, inFlight: 0 })
})

test('property: random limits from two processes at once never pass the cap, and what was served is what was charged', async (t) => {
  const { db, company } = t.context
  const apps = [await serveRouter(db.sql, companyRoutes(db.sql), { rateLimits: roomy }), await serveRouter(db.sql, companyRoutes(db.sql), { rateLimits: roomy })]
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
