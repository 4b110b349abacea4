/**
 * A billing change holds for the very next request: every admission reads the key,
 * account and allowance from the database. Two API processes serve one database
 * here; each change is followed at once by requests to both.
 */
import anyTest, { type TestFn } from 'ava'
import { execFile } from 'node:child_process'
import type { AddressInfo } from 'node:net'
import { promisify } from 'node:util'
import pino from 'pino'
import { buildApp } from '../../api/app.ts'
import { createKey, revokeKey } from '../../sql/accounts.ts'
import { upsertAllowance } from '../../sql/billing.ts'
import { loadConfig } from '../../sql/config.ts'
import { startTestApp, type TestApp, ROOMY_LIMITS } from '../helpers/app.ts'
import { accountOn, seedCompany } from './fixtures.ts'

type Ctx = TestApp & { second: { base: string; close: () => Promise<void> }; jobId: string }
const test = anyTest.serial as TestFn<Ctx>

test.before(async (t) => {
  const first = await startTestApp({ config: { rateLimits: ROOMY_LIMITS }, embedder: null })
  // a second API process on the same database
  const app = buildApp({ sql: first.db.sql, config: { ...loadConfig(), rateLimits: ROOMY_LIMITS }, log: pino({ level: 'silent' }) })
  const server = app.listen(0, '127.0.0.1')
  await new Promise((r) => server.once('listening', r))
  const second = {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections()
      await new Promise((r) => server.close(r))
    },
  }
  const company = await seedCompany(first.db.sql, 1)
  Object.assign(t.context, first, { second, jobId: company.jobIds[0] })
})
test.after.always(async (t) => {
  await t.context?.second?.close()
  await t.context?.close?.()
})

const statuses = (t: { context: Ctx }, path: string, key: string) =>
  Promise.all([t.context.base, t.context.second.base].map(async (base) => (await fetch(base + path, { headers: { 'x-api-key': key } })).status))

test('revoke, then request at once, 50 times in a row: always 401 from both processes', async (t) => {
  const { db } = t.context
  const { accountId } = await accountOn(db.sql, 'free')
  const seen: number[][] = []
  for (let i = 0; i < 50; i++) {
    const key = await createKey(db.sql, accountId)
    t.deepEqual(await statuses(t, '/v2/billing/portal', key), [200, 200], 'the key works in both')
    t.true(await revokeKey(db.sql, key))
    seen.push(await statuses(t, '/v2/billing/portal', key))
  }
  t.deepEqual(seen, Array.from({ length: 50 }, () => [401, 401]))
})

test('an allowance lowered to what is used refuses the next request at once, in both processes', async (t) => {
  const { db, jobId } = t.context
  for (let i = 0; i < 20; i++) {
    const { accountId, key } = await accountOn(db.sql, 'starter')
    t.deepEqual(await statuses(t, `/v2/jobs/${jobId}`, key), [200, 200])
    await upsertAllowance(db.sql, accountId, { meter: 'm_jobs_api_calls', included: 2, overage_mode: 'block', overage_cents_per_unit: null })
    t.deepEqual(await statuses(t, `/v2/jobs/${jobId}`, key), [429, 429], `round ${i}`)
  }
})

test('a key revoked while requests keep using it: none is admitted once the revocation has returned', async (t) => {
  const { db, jobId } = t.context
  const { key } = await accountOn(db.sql, 'scale')
  // requests one after another on each of four connections, alternating processes
  // until each has sent two after the revocation returned
  let revokedAt = Infinity
  const sent: { at: number; status: number }[] = []
  const loops = Array.from({ length: 4 }, async (_, i) => {
    for (let n = 0, late = 0; late < 2; n++) {
      const at = performance.now()
      const res = await fetch(`${[t.context.base, t.context.second.base][(i + n) % 2]}/v2/jobs/${jobId}`, { headers: { 'x-api-key': key } })
      await res.arrayBuffer()
      sent.push({ at, status: res.status })
      if (at > revokedAt) late++
    }
  })
  // some requests go through first
  while (sent.filter((s) => s.status === 200).length < 20) await new Promise((r) => setImmediate(r))
  t.true(await revokeKey(db.sql, key))
  revokedAt = performance.now()
  await Promise.all(loops)
  const after = sent.filter((s) => s.at > revokedAt)
  t.is(after.length, 8)
  t.deepEqual([...new Set(after.map((s) => s.status))], [401])
})

test('after the admin CLI revokes a key, both processes refuse it', async (t) => {
  const { db } = t.context
  const { accountId } = await accountOn(db.sql, 'free')
  for (let i = 0; i < 3; i++) {
    const key = await createKey(db.sql, accountId)
    t.deepEqual(await statuses(t, '/v2/billing/portal', key), [200, 200])
    const { stdout } = await promisify(execFile)('npx', ['tsx', 'bin/admin.ts', 'keys:revoke', '--key', key], { env: { ...process.env, DATABASE_URL: db.url } })
    t.deepEqual(JSON.parse(stdout), { revoked: true })
    t.deepEqual(await statuses(t, '/v2/billing/portal', key), [401, 401])
  }
})
