/**
 * A billing change holds when the admin's command returns: every running API process
 * has applied it by then (sql/api-processes.ts). Two API processes serve one database
 * here; each change is followed at once by requests to both.
 */
import anyTest, { type TestFn } from 'ava'
import { execFile } from 'node:child_process'
import type { AddressInfo } from 'node:net'
import { promisify } from 'node:util'
import pino from 'pino'
import { buildApp } from '../../api/app.ts'
import { createKey, revokeKey } from '../../sql/accounts.ts'
import { awaitBillingChange, LIVE_SECONDS } from '../../sql/api-processes.ts'
import { upsertAllowance } from '../../sql/billing.ts'
import { loadConfig } from '../../sql/config.ts'
import { connectAdmission } from '../../sql/db.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { accountOn, seedCompany } from './fixtures.ts'

type Ctx = TestApp & { second: { base: string; close: () => Promise<void> }; jobId: string }
const test = anyTest.serial as TestFn<Ctx>
const roomy = { key: { limit: 100_000, windowSeconds: 60 }, search: { limit: 100_000, windowSeconds: 1 }, anonymous: { limit: 100_000, windowSeconds: 60 } }

test.before(async (t) => {
  const first = await startTestApp({ config: { rateLimits: roomy } })
  // a second API process on the same database, with connections and an admission of its own
  const admissionSql = connectAdmission(first.db.url)
  const app = buildApp({ sql: first.db.sql, config: { ...loadConfig(), rateLimits: roomy }, log: pino({ level: 'silent' }), admissionSql })
  const server = app.listen(0, '127.0.0.1')
  await new Promise((r) => server.once('listening', r))
  const second = {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections()
      await new Promise((r) => server.close(r))
      await app.context.admission!.close()
      await admissionSql.end({ timeout: 5 })
    },
  }
  const company = await seedCompany(first.db.sql, 1)
  Object.assign(t.context, first, { second, jobId: company.jobIds[0] })
  // both processes have recorded themselves before the first change
  await waitFor(async () => (await first.db.sql`select count(*)::int as n from api_processes`)[0].n === 2)
})
test.after.always(async (t) => {
  await t.context?.second?.close()
  await t.context?.close?.()
})

async function waitFor(ok: () => Promise<boolean>) {
  for (let i = 0; i < 200 && !(await ok()); i++) await new Promise((r) => setTimeout(r, 25))
}

const statuses = (t: { context: Ctx }, path: string, key: string) =>
  Promise.all([t.context.base, t.context.second.base].map(async (base) => (await fetch(base + path, { headers: { 'x-api-key': key } })).status))

test('revoke, then request at once, 50 times in a row: always 401 from both processes', async (t) => {
  const { db } = t.context
  const { accountId } = await accountOn(db.sql, 'free')
  const seen: number[][] = []
  for (let i = 0; i < 50; i++) {
    const key = await createKey(db.sql, accountId)
    t.deepEqual(await statuses(t, '/v2/billing/portal', key), [200, 200], 'the key is cached by both')
    t.true(await revokeKey(db.sql, key))
    await awaitBillingChange(db.sql)
    seen.push(await statuses(t, '/v2/billing/portal', key))
  }
  t.deepEqual(seen, Array.from({ length: 50 }, () => [401, 401]))
})

test('an allowance lowered to what is used refuses the next request at once, in both processes', async (t) => {
  const { db, jobId } = t.context
  for (let i = 0; i < 20; i++) {
    const { accountId, key } = await accountOn(db.sql, 'starter')
    // both processes hold a lease of units on the meter row
    t.deepEqual(await statuses(t, `/v2/jobs/${jobId}`, key), [200, 200])
    await upsertAllowance(db.sql, accountId, { meter: 'm_jobs_api_calls', included: 2, overage_mode: 'block', overage_cents_per_unit: null })
    await awaitBillingChange(db.sql)
    t.deepEqual(await statuses(t, `/v2/jobs/${jobId}`, key), [429, 429], `round ${i}`)
  }
})

test('the admin CLI returns only once both processes dropped the key', async (t) => {
  const { db } = t.context
  const { accountId } = await accountOn(db.sql, 'free')
  for (let i = 0; i < 3; i++) {
    const key = await createKey(db.sql, accountId)
    t.deepEqual(await statuses(t, '/v2/billing/portal', key), [200, 200])
    const { stdout } = await promisify(execFile)('npx', ['tsx', 'api/admin.ts', 'keys:revoke', '--key', key], { env: { ...process.env, DATABASE_URL: db.url } })
    t.deepEqual(JSON.parse(stdout), { revoked: true })
    t.deepEqual(await statuses(t, '/v2/billing/portal', key), [401, 401])
  }
})

test('a process that stopped writing is not waited for; one alive but behind is named', async (t) => {
  const { db } = t.context
  const dead = '00000000-0000-4000-8000-00000000dead'
  await db.sql`insert into api_processes (id, epoch, seen_at) values (${dead}, 0, now() - make_interval(secs => ${LIVE_SECONDS + 1}))`
  const { waitedMs } = await awaitBillingChange(db.sql)
  t.true(waitedMs < 2000, `waited ${waitedMs} ms`)
  const stuck = '00000000-0000-4000-8000-0000000057c4'
  await db.sql`insert into api_processes (id, epoch) values (${stuck}, 0)`
  const err = await t.throwsAsync(awaitBillingChange(db.sql, { timeoutMs: 300 }))
  t.regex(err!.message, new RegExp(stuck))
  await db.sql`delete from api_processes where id in (${dead}, ${stuck})`
})

test('a process that stops cleanly leaves api_processes', async (t) => {
  const { db } = t.context
  const before = (await db.sql`select count(*)::int as n from api_processes`)[0].n
  await t.context.second.close()
  t.context.second.close = async () => {}
  t.is((await db.sql`select count(*)::int as n from api_processes`)[0].n, before - 1)
})
