/**
 * Migration 0021 moves metering from leases to admission statements: it keeps every
 * charge (meter rows and ledger, batched rows included), drops the leases, the epoch
 * and the process records, and refuses to run while a process of the previous version
 * still says it is alive (its unflushed charges would be lost).
 */
import test from 'ava'
import { randomBytes } from 'node:crypto'
import postgres from 'postgres'
import { Admission } from '../../api/middleware/admission.ts'
import { jobRoutes } from '../../api/routes/jobs.ts'
import { findBillingAccount } from '../../sql/accounts.ts'
import { connect, type Sql } from '../../sql/db.ts'
import { startEmbedded } from '../../sql/embedded.ts'
import { listMigrations, migrate } from '../../sql/migrate.ts'
import { createAccountWithKey } from '../helpers/factories.ts'
import { ledgerSum, meterRow, seedCompany, serveRouter } from './fixtures.ts'

/** An empty database: on TEST_DATABASE_URL's server, or an in-memory embedded one. */
async function emptyDatabase(): Promise<{ sql: Sql; close: () => Promise<void> }> {
  const serverUrl = process.env.TEST_DATABASE_URL
  if (!serverUrl) {
    const embedded = await startEmbedded({ dataDir: null, port: 0 })
    const sql = connect(embedded.url, 4)
    return { sql, close: async () => (await sql.end({ timeout: 5 }), await embedded.stop()) }
  }
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} })
  const name = `jds_test_${randomBytes(5).toString('hex')}`
  await admin`create database ${admin(name)}`
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  const sql = connect(url.toString(), 4)
  return {
    sql,
    close: async () => {
      await sql.end({ timeout: 5 })
      await admin`drop database if exists ${admin(name)} with (force)`
      await admin.end()
    },
  }
}

test('0021 keeps every charge, drops leases, epoch and process records, and waits for the previous version to stop', async (t) => {
  const { sql, close } = await emptyDatabase()
  t.teardown(close)
  // the schema as it was before 0021, applied as migrate() applies it
  await sql`create table schema_migrations (version text primary key, name text not null, applied_at timestamptz not null default now())`
  for (const m of listMigrations().filter((m) => m.version < '0021')) {
    await sql.begin(async (tx) => {
      await tx.unsafe(m.text)
      await tx`insert into schema_migrations (version, name) values (${m.version}, ${m.file})`
    })
  }
  // usage as the previous version left it: a meter row, a flush's ledger row listing three
  // requests and a single one, a lease, and a process that is still running
  const { accountId, key } = await createAccountWithKey(sql, 'free')
  // a free account's period: the calendar month
  const now = new Date()
  const period = { start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)), end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)), kind: 'calendar_month' as const }
  await sql`
    insert into usage_meters (account_id, meter, period_start, period_end, used)
    values (${accountId}, 'm_jobs_api_calls', ${period.start}, ${period.end}, 7)`
  await sql`
    insert into usage_ledger (account_id, meter, period_start, units, kind, endpoint, requests, request_ids, request_units, request_at_ms) values
      (${accountId}, 'm_jobs_api_calls', ${period.start}, 6, 'charge', 'GET /v2/jobs/:job_id', 3, '{r1,r2,r3}', '{1,2,3}', '{1,2,3}'),
      (${accountId}, 'm_jobs_api_calls', ${period.start}, 1, 'charge', 'GET /v2/jobs/:job_id', 1, '{r4}', '{1}', '{4}')`
  await sql`
    insert into meter_leases (account_id, meter, period_start, holder, units, expires_at)
    values (${accountId}, 'm_jobs_api_calls', ${period.start}, gen_random_uuid(), 1000, now() + interval '30 seconds')`
  const process = '00000000-0000-4000-8000-000000000001'
  await sql`insert into api_processes (id, epoch) values (${process}, 1)`

  await t.throwsAsync(migrate(sql), { message: /previous version are still running/ })
  t.is((await sql`select 1 from schema_migrations where version = '0021'`).length, 0, 'nothing applied')
  // it stops (a process that stopped cleanly leaves the table; one that died stops writing)
  await sql`update api_processes set seen_at = now() - interval '1 minute'`
  t.deepEqual(await migrate(sql), listMigrations().filter((m) => m.version >= '0021').map((m) => m.file))

  const gone = await sql<{ name: string }[]>`
    select c.relname::text as name from pg_class c join pg_namespace s on s.oid = c.relnamespace
    where s.nspname = 'public' and c.relname in ('meter_leases', 'api_processes', 'billing_epoch')
    union all
    select p.proname::text from pg_proc p join pg_namespace s on s.oid = p.pronamespace
    where s.nspname = 'public' and p.proname in ('meter_grant', 'meter_flush', 'bump_billing_epoch')`
  t.deepEqual([...gone], [])
  const admission = new Admission(sql, { key: { limit: 100, windowSeconds: 60 }, search: { limit: 4, windowSeconds: 1 }, anonymous: { limit: 25, windowSeconds: 60 } })
  t.deepEqual(await meterRow(sql, admission, accountId, 'm_jobs_api_calls', period), { used: 7, inFlight: 0 })
  t.is(await ledgerSum(sql, admission, accountId, 'm_jobs_api_calls', period), 7)
  t.deepEqual(
    (await sql<{ request_id: string }[]>`select request_id from usage_ledger_charges where account_id = ${accountId} order by ledger_id, position`).map((r) => r.request_id),
    ['r1', 'r2', 'r3', 'r4'],
  )

  // and the next request is charged on top
  const company = await seedCompany(sql, 1)
  const s = await serveRouter(sql, jobRoutes(sql))
  t.teardown(s.close)
  const res = await fetch(`${s.base}/v2/jobs/${company.jobIds[0]}`, { headers: { 'x-api-key': key } })
  t.is(res.status, 200)
  t.is(res.headers.get('platform-usage-total-used'), '8')
  t.deepEqual(await meterRow(sql, admission, accountId, 'm_jobs_api_calls', period), { used: 8, inFlight: 0 })
})
