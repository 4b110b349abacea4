/**
 * One endpoint gets one delivery at a time, in event order, however many saved searches
 * send to it (sql/saved-searches.ts claimDueEvents): the claim itself, with no worker
 * running, so each step is decided by the database alone.
 */
import anyTest, { type TestFn } from 'ava'
import type { JobSearchBody } from '../../api/schemas/search.ts'
import { toSearch } from '../../api/search-filters.ts'
import { claimDueEvents, insertEvents, insertSavedSearch, markDelivered, markFailed } from '../../sql/saved-searches.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'
import { createAccountWithKey } from '../helpers/factories.ts'

const test = anyTest.serial as TestFn<{ db: TestDb }>

test.before(async (t) => {
  t.context.db = await testDatabase()
})
test.after.always(async (t) => {
  await t.context.db?.close()
})

const ok = { statusCode: 200, error: null, durationMs: 1 }

async function searchTo(db: TestDb, accountId: string, url: string, name: string) {
  const compiled = { filters: toSearch({ job_titles: [name], page: 1, limit: 10 } as JobSearchBody).filters }
  const row = await insertSavedSearch(db.sql, { accountId, name, kind: 'search', filters: { job_titles: [name] }, compiled: compiled as never, events: ['job.new'], url }, 100)
  return row!.id as string
}

test('two searches sending to one URL: one delivery at a time, in event order; another URL goes beside them', async (t) => {
  const { db } = t.context
  const { accountId } = await createAccountWithKey(db.sql, 'scale')
  const shared = 'https://hooks.example.test/shared'
  const [a, b, other] = [await searchTo(db, accountId, shared, 'a'), await searchTo(db, accountId, shared, 'b'), await searchTo(db, accountId, 'https://hooks.example.test/other', 'c')]
  await insertEvents(db.sql, 'job.new', [{ saved_search_id: a, job_id: '1' }])
  await insertEvents(db.sql, 'job.new', [{ saved_search_id: b, job_id: '2' }])
  await insertEvents(db.sql, 'job.new', [{ saved_search_id: a, job_id: '3' }, { saved_search_id: other, job_id: '4' }])

  // the shared URL's oldest event, and the other URL's: b's event is due, but waits its turn
  const first = await claimDueEvents(db.sql, 10, 60)
  t.deepEqual(first.map((e) => [e.saved_search_id, e.job_ids]), [[a, ['1']], [other, ['4']]])
  t.deepEqual([...(await claimDueEvents(db.sql, 10, 60))], [], 'nothing while the shared URL has a delivery in flight')

  await markDelivered(db.sql, first[0], ok)
  const second = await claimDueEvents(db.sql, 10, 60)
  t.deepEqual(second.map((e) => [e.saved_search_id, e.job_ids]), [[b, ['2']]], 'the next event of the URL, from the other search')

  // a failed attempt to be retried later keeps the URL's queue behind it, in order
  await markFailed(db.sql, second[0], { statusCode: 500, error: 'HTTP 500', durationMs: 1 }, 3600)
  t.deepEqual([...(await claimDueEvents(db.sql, 10, 60))], [], "a's next event waits behind b's retry")
  await db.sql`update webhook_events set next_attempt_at = now() where id = ${second[0].id}`
  const retried = await claimDueEvents(db.sql, 10, 60)
  t.deepEqual(retried.map((e) => e.id), [second[0].id])
  await markDelivered(db.sql, retried[0], ok)
  const third = await claimDueEvents(db.sql, 10, 60)
  t.deepEqual(third.map((e) => [e.saved_search_id, e.job_ids]), [[a, ['3']]])
})

test('a paused search does not hold up another search sending to the same URL', async (t) => {
  const { db } = t.context
  const { accountId } = await createAccountWithKey(db.sql, 'scale')
  const shared = 'https://hooks.example.test/paused'
  const [a, b] = [await searchTo(db, accountId, shared, 'pa'), await searchTo(db, accountId, shared, 'pb')]
  await insertEvents(db.sql, 'job.new', [{ saved_search_id: a, job_id: '1' }])
  await insertEvents(db.sql, 'job.new', [{ saved_search_id: b, job_id: '2' }])
  await db.sql`update saved_searches set status = 'paused' where id = ${a}`
  const claimed = await claimDueEvents(db.sql, 10, 60)
  t.deepEqual(claimed.map((e) => e.saved_search_id), [b])
})
