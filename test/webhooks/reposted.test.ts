/**
 * A re-posted job (docs/ingest.md, "Re-posted jobs") is new to saved searches again, while
 * the same posting ingested again is not (docs/webhooks.md, "Matching"): the matcher run
 * by hand after each ingest, no worker running.
 */
import anyTest, { type TestFn } from 'ava'
import { randomBytes } from 'node:crypto'
import pino from 'pino'
import type { JobSearchBody } from '../../api/schemas/search.ts'
import { toSearch } from '../../api/search-filters.ts'
import { ingest } from '../../ingest/pipeline.ts'
import type { RawPosting } from '../../ingest/types.ts'
import { matchInbox } from '../../jobs/saved-searches-match.ts'
import { expireJobs } from '../../sql/expiry.ts'
import { insertSavedSearch } from '../../sql/saved-searches.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'
import { createAccountWithKey, readItems } from '../helpers/factories.ts'

const test = anyTest.serial as TestFn<{ db: TestDb }>
const log = pino({ level: 'silent' })
const at = (day: string) => new Date(`${day}T12:00:00Z`)

test.before(async (t) => {
  t.context.db = await testDatabase()
})
test.after.always(async (t) => {
  await t.context.db?.close()
})

test('a re-posting after expiry is a new job.new event; the same posting again is none', async (t) => {
  const { sql } = t.context.db
  const tag = randomBytes(4).toString('hex')
  const word = `Zq${tag}`
  const posting = (source_id: string, date_posted: string, valid_through: string): RawPosting => ({
    job_board: `Board ${tag}`, job_title: `${word} Staff Nurse`, description: '<p>Band 5 staff nurse on a busy surgical ward.</p>',
    location_raw: 'Leeds, United Kingdom', job_type: 'Full Time', company: { name: `Leeds Teaching Hospitals ${tag}` },
    source_id, date_posted, valid_through, job_board_link: `https://board.example.test/${tag}/${source_id}`,
  })
  const { accountId } = await createAccountWithKey(sql, 'scale')
  const compiled = { filters: toSearch({ job_titles: [word], page: 1, limit: 10 } as JobSearchBody).filters }
  const s = await insertSavedSearch(sql, { accountId, name: 'nurses', kind: 'search', filters: { job_titles: [word] }, compiled: compiled as never, events: ['job.new'], url: 'https://hooks.example.test/n' }, 100)
  /** Matches what the last ingest recorded (its row made old enough that the matcher need not wait) and returns the events' jobs. */
  const match = async () => {
    await sql`update saved_search_inbox set created_at = now() - interval '1 minute'`
    await matchInbox(sql, log)
    return (await sql<{ job_ids: string[] }[]>`select job_ids::text[] from webhook_events where saved_search_id = ${s!.id} order by id`).map((e) => e.job_ids)
  }
  const run = (rows: RawPosting[], now: Date) => ingest(sql, readItems(rows), { source: 'reposted', now })

  t.like(await run([posting('ltht-100', '2026-01-10', '2026-02-10')], at('2026-01-15')), { inserted: 1 })
  const [first] = await sql<{ id: string }[]>`select id::text from jobs where job_title like ${word + '%'} order by id`
  t.deepEqual(await match(), [[first.id]])

  t.like(await run([posting('ltht-100', '2026-01-10', '2026-02-10')], at('2026-01-20')), { inserted: 0, unchanged: 1 })
  t.deepEqual(await match(), [[first.id]], 'the same posting again: no event')

  await expireJobs(sql, { afterDays: 30, now: at('2026-02-11') })
  t.like(await run([posting('ltht-200', '2026-03-01', '2026-04-30')], at('2026-03-01')), { inserted: 1 })
  const [, repost] = await sql<{ id: string }[]>`select id::text from jobs where job_title like ${word + '%'} order by id`
  t.not(repost.id, first.id)
  t.deepEqual(await match(), [[first.id], [repost.id]], 'the re-posting is new again')
})
