/**
 * total_count past the exact count: the planner's estimate, with statistics refreshed
 * by ingest (fresh tables have none, and the embedded database never gathers them on
 * its own), never below what was counted or what the page shows.
 */
import anyTest, { type TestFn } from 'ava'
import { ingest } from '../../ingest/pipeline.ts'
import type { ReadItem } from '../../ingest/read.ts'
import { COUNT_CAP } from '../../sql/search.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { rawPosting } from '../helpers/factories.ts'

const test = anyTest as TestFn<TestApp>
const NURSES = 1150

test.before(async (t) => {
  const generous = { limit: 1_000_000, windowSeconds: 60 }
  t.context = await startTestApp({ config: { rateLimits: { key: generous, search: generous, anonymous: generous } } })
  await t.context.db.sql`update accounts set plan = 'scale' where id = ${t.context.accountId}`
  const items: ReadItem[] = Array.from({ length: NURSES + 350 }, (_, i) => ({
    line: i + 1,
    raw: rawPosting(i < NURSES ? { job_title: `Registered Nurse, ward ${i}` } : { job_title: `Backend Engineer ${i}` }, i) as never,
  }))
  const summary = await ingest(t.context.db.sql, items, { source: 'total-count' })
  if (summary.inserted !== items.length) throw new Error(`ingested ${JSON.stringify(summary)}`)
})
test.after.always(async (t) => {
  await t.context?.close()
})

const search = async (t: { context: TestApp }, body: object) => {
  const res = await t.context.post('/v2/jobs/search', body)
  if (res.status !== 200) throw new Error(`${res.status}: ${await res.text()}`)
  return res.json()
}

test('past the exact count, the estimate follows the data after an ingest', async (t) => {
  const first = await search(t, { job_titles: ['nurse'], limit: 10 })
  t.true(first.total_count > COUNT_CAP)
  t.true(Math.abs(first.total_count - NURSES) / NURSES < 0.25, `estimated ${first.total_count} for ${NURSES}`)
  t.is(first.total_pages, Math.ceil(first.total_count / 10))
  t.like(first.jobs[0].meta.count, { lowerBound: true, exact: false })
  const all = await search(t, { limit: 10 })
  t.true(Math.abs(all.total_count - (NURSES + 350)) / (NURSES + 350) < 0.25, `estimated ${all.total_count} for ${NURSES + 350}`)
})

test('a page that comes back short makes the total exact; a full one is a floor', async (t) => {
  const last = await search(t, { job_titles: ['nurse'], limit: 100, page: 12 })
  t.is(last.jobs.length, NURSES - 1100)
  t.is(last.total_count, NURSES)
  t.is(last.total_pages, 12)
  t.like(last.jobs[0].meta.count, { value: NURSES, exact: true, lowerBound: false })
  const full = await search(t, { job_titles: ['nurse'], limit: 100, page: 11 })
  t.is(full.jobs.length, 100)
  t.true(full.total_count >= 1100)
})

test('a page ranked by relevance counts its own matches: the totals of the same search by date; past the last match, counted apart', async (t) => {
  const ranked = await search(t, { job_titles: ['engineer'], limit: 10 })
  const byDate = await search(t, { job_titles: ['engineer'], limit: 10, sort_by: 'date_posted' })
  t.is(ranked.total_count, 350)
  t.is(ranked.total_count, byDate.total_count)
  t.is(ranked.company_count, byDate.company_count)
  t.true(ranked.company_count >= 1)
  t.like(ranked.jobs[0].meta.count, { value: 350, exact: true })
  // the count columns are the page's own, never a record's
  t.false('matched' in ranked.jobs[0] || 'matched_companies' in ranked.jobs[0])
  const past = await search(t, { job_titles: ['engineer'], limit: 100, page: 5 })
  t.is(past.jobs.length, 0)
  t.is(past.total_count, 350)
  t.is(past.company_count, byDate.company_count)
})

test('past the exact count, a yoe range is estimated from the statistics of what it compares (migration 0028)', async (t) => {
  // every posting here asks for 5+ years: all of them match 2 to 5; without those
  // statistics Postgres guessed a ninth of the jobs
  const body = { yoe: { min: 2, max: 5 }, limit: 10 }
  const res = await search(t, body)
  const all = NURSES + 350
  t.true(Math.abs(res.total_count - all) / all < 0.25, `estimated ${res.total_count} for ${all}`)
})
