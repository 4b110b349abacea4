/**
 * Every session of the service plans each statement for its own values and without JIT
 * (sql/session-settings.ts): a server's connections send the settings when they connect,
 * the embedded database starts with them (a server's also sort in 16 MB and price a page read out of order at 1.1). A prepared search run more than five times
 * keeps a plan made for its values (Postgres's default would reuse a generic one). A
 * server's admission statements run on connections of their own that keep Postgres's
 * default, so they are planned once.
 */
import test from 'ava'
import { Admission } from '../../api/middleware/admission.ts'
import { createAccount, createKey, hashKey } from '../../sql/accounts.ts'
import { ADMISSION_APPLICATION, openAdmission, openDatabase } from '../../sql/db.ts'
import { ADMISSION_SESSION_SETTINGS, SERVER_SESSION_SETTINGS, SESSION_SETTINGS } from '../../sql/session-settings.ts'
import { testDatabase } from '../helpers/db.ts'

test('each connection of the pool has the settings, and a prepared statement stays planned for its values', async (t) => {
  const db = await testDatabase()
  try {
    // as many at once as the pool opens, so every connection answers
    const rows = await Promise.all(Array.from({ length: 8 }, () => db.sql<{ plan_cache_mode: string; jit: string; work_mem: string; random_page_cost: string; pg_sleep: string }[]>`
      select current_setting('plan_cache_mode') as plan_cache_mode, current_setting('jit') as jit, current_setting('work_mem') as work_mem,
        current_setting('random_page_cost') as random_page_cost, pg_sleep(0.05)`))
    // a server's sessions sort in 16 MB and price a page read out of order at 1.1; the embedded database keeps its 4 MB and 4
    const want = db.kind === 'server' ? SERVER_SESSION_SETTINGS : { ...SESSION_SETTINGS, work_mem: '4MB', random_page_cost: '4' }
    for (const [{ pg_sleep: _, ...row }] of rows) t.deepEqual(row, want)
    await db.sql`create table skewed (k int, v int)`
    await db.sql`insert into skewed select i % 2, i from generate_series(1, 1000) i`
    await db.sql`analyze skewed`
    // the plans a prepared statement was given, after 7 runs on one connection
    const plansAfterRuns = async (mode?: 'auto') => {
      const c = await db.sql.reserve()
      try {
        if (mode) await c`select set_config('plan_cache_mode', ${mode}, false)`
        for (let i = 0; i < 7; i++) await c`select count(*) from skewed where k = ${0}`
        const [row] = await c<{ generic: number; custom: number }[]>`
          select generic_plans::int as generic, custom_plans::int as custom
          from pg_prepared_statements where statement like 'select count(*) from skewed%'`
        if (mode) await c`reset plan_cache_mode`
        await c`deallocate all`
        return row
      } finally {
        c.release()
      }
    }
    t.deepEqual(await plansAfterRuns(), { generic: 0, custom: 7 })
    // the check sees a generic plan where Postgres's default makes one
    t.true((await plansAfterRuns('auto')).generic > 0)
  } finally {
    await db.close()
  }
})

test("a server's admission has connections of its own whose statements keep a generic plan; the embedded database's shares its pool", async (t) => {
  const db = await testDatabase()
  try {
    if (db.kind === 'embedded') {
      const opened = await openDatabase({ databaseUrl: null, dataDir: null, embeddedPort: 0, own: true })
      try {
        t.is(openAdmission(opened).sql, opened.sql)
      } finally {
        await opened.close()
      }
      return
    }
    const opened = await openDatabase({ databaseUrl: db.url, dataDir: null, embeddedPort: 0, max: 2 })
    const admission = openAdmission(opened)
    try {
      t.not(admission.sql, opened.sql)
      const [row] = await admission.sql<Record<string, string>[]>`
        select current_setting('plan_cache_mode') as plan_cache_mode, current_setting('jit') as jit, current_setting('work_mem') as work_mem,
          current_setting('random_page_cost') as random_page_cost, current_setting('application_name') as application_name`
      t.deepEqual(row, { ...ADMISSION_SESSION_SETTINGS, application_name: ADMISSION_APPLICATION })
      // a request's admission, seven times on one of its connections: Postgres keeps the generic plan
      const key = await createKey(db.sql, await createAccount(db.sql, 'admission-plans@example.test', 'scale'))
      const conn = await admission.sql.reserve()
      try {
        const gate = new Admission(conn, { key: { limit: 1000, windowSeconds: 60 }, search: { limit: 1000, windowSeconds: 1 }, anonymous: { limit: 1000, windowSeconds: 60 } })
        for (let i = 0; i < 7; i++) {
          const admitted = await gate.admit({ keyHash: hashKey(key) }, { limits: gate.limiter.windows(true), feature: null, meter: { meter: 'm_jobs_api_calls', charge: 1, reserve: 0 }, charge: { requestId: null, endpoint: null } })
          t.is(admitted?.charged, 1)
        }
        const [plans] = await conn<{ generic: number; custom: number }[]>`
          select generic_plans::int as generic, custom_plans::int as custom
          from pg_prepared_statements where statement like '%billing_period%'`
        t.true(plans.generic > 0, `admission plans: ${JSON.stringify(plans)}`)
      } finally {
        conn.release()
      }
    } finally {
      await admission.close()
      await opened.close()
    }
  } finally {
    await db.close()
  }
})
