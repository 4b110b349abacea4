/**
 * Every session of the service plans each statement for its own values and without JIT
 * (sql/session-settings.ts): a server's connections send the settings when they connect,
 * the embedded database starts with them (a server's also sort in 16 MB and price a page read out of order at 1.1). A prepared search run more than five times
 * keeps a plan made for its values (Postgres's default would reuse a generic one).
 */
import test from 'ava'
import { SERVER_SESSION_SETTINGS, SESSION_SETTINGS } from '../../sql/session-settings.ts'
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
