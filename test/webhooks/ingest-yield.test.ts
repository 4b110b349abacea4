/**
 * While an ingest runs (ingest_runs: started, not finished), the matcher and the
 * deliveries leave the machine to it, except for what has waited MAX_WAIT_MS
 * (jobs/saved-searches-match.ts, jobs/webhooks-deliver.ts). Each decision is shown on the
 * functions themselves, with no worker running, the ages set in the database.
 */
import anyTest, { type TestFn } from 'ava'
import pino from 'pino'
import type { JobSearchBody } from '../../api/schemas/search.ts'
import { toSearch } from '../../api/search-filters.ts'
import { ingest } from '../../ingest/pipeline.ts'
import { MAX_WAIT_MS, matchInbox } from '../../jobs/saved-searches-match.ts'
import { deliverDue } from '../../jobs/webhooks-deliver.ts'
import { loadConfig } from '../../sql/config.ts'
import { insertIngestRun } from '../../sql/postings.ts'
import { insertSavedSearch } from '../../sql/saved-searches.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'
import { createAccountWithKey, rawPosting, readItems } from '../helpers/factories.ts'
import { startReceiver } from '../helpers/receiver.ts'

const test = anyTest.serial as TestFn<{ db: TestDb }>
const log = pino({ level: 'silent' })

test.before(async (t) => {
  t.context.db = await testDatabase()
})
test.after.always(async (t) => {
  await t.context.db?.close()
})

test('the matcher and the deliveries wait while an ingest runs, but not past MAX_WAIT_MS', async (t) => {
  const { db } = t.context
  const rx = await startReceiver()
  t.teardown(rx.close)
  const { accountId } = await createAccountWithKey(db.sql, 'scale')
  const compiled = { filters: toSearch({ job_titles: ['Yieldword'], page: 1, limit: 10 } as JobSearchBody).filters }
  await insertSavedSearch(db.sql, { accountId, name: 'y', kind: 'search', filters: { job_titles: ['Yieldword'] }, compiled: compiled as never, events: ['job.new'], url: rx.url }, 100)
  const summary = await ingest(db.sql, readItems([rawPosting({ job_title: 'Yieldword Engineer', source_id: 'y-1' }, 1)]), { source: 'test-yield' })
  t.is(summary.inserted, 1)
  // the ingest's inbox row, as if written 10 s ago, and another ingest still running
  await db.sql`update saved_search_inbox set created_at = now() - interval '10 seconds'`
  const run = await insertIngestRun(db.sql, 'another feed', new Date())

  t.is((await matchInbox(db.sql, log)).taken, 0, 'an ingest runs: the row waits')
  await db.sql`update saved_search_inbox set created_at = now() - make_interval(secs => ${MAX_WAIT_MS / 1000 + 1})`
  const matched = await matchInbox(db.sql, log)
  t.deepEqual([matched.taken, matched.events], [1, 1], 'past MAX_WAIT_MS the row is matched, the ingest still running')

  const config = { ...loadConfig().webhooks, allowHttp: true, allowPrivate: true }
  const deps = { sql: db.sql, log, config, mailer: null, publicUrl: 'http://localhost' }
  t.is(await deliverDue(deps, 10), 0, 'an ingest runs: the event waits')
  t.is(rx.received.length, 0)
  await db.sql`update webhook_events set next_attempt_at = now() - make_interval(secs => ${MAX_WAIT_MS / 1000 + 1})`
  t.is(await deliverDue(deps, 10), 1, 'past MAX_WAIT_MS it goes, the ingest still running')
  t.is(rx.received.length, 1)

  // once no ingest runs, a new row waits only for the inbox to be still
  await db.sql`update ingest_runs set finished_at = now() where id = ${run}`
  await ingest(db.sql, readItems([rawPosting({ job_title: 'Yieldword Designer', source_id: 'y-2' }, 2)]), { source: 'test-yield' })
  await db.sql`update saved_search_inbox set created_at = now() - interval '3 seconds'`
  t.is((await matchInbox(db.sql, log)).taken, 1)
  t.is(await deliverDue(deps, 10), 1)
  t.is(rx.received.length, 2)
})
