/**
 * Re-posted jobs (docs/ingest.md, "Re-posted jobs"): a posting listed again after its period
 * ended is a new live job with its own dates, while the ended one stays expired; each period
 * is one row of jobs, one row of the archive and one entry of the expired-jobs feed. The
 * tests are serial: expiry runs over the whole database, and each test's timeline is its own.
 */
import anyTest, { type TestFn } from 'ava'
import { randomBytes } from 'node:crypto'
import { ingest, type IngestOptions } from '../../ingest/pipeline.ts'
import type { RawPosting } from '../../ingest/types.ts'
import { listJobIdsToEmbed } from '../../sql/embeddings.ts'
import { listExpiredJobs } from '../../sql/expired-feed.ts'
import { expireJobs } from '../../sql/expiry.ts'
import { parse } from '../../sql/query-syntax.ts'
import { searchJobs, type SearchPage } from '../../sql/search.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'
import { readItems } from '../helpers/factories.ts'

const test = anyTest as TestFn<TestDb>

test.before(async (t) => {
  t.context = await testDatabase()
})
test.after.always(async (t) => {
  await t.context?.close()
})

const at = (day: string) => new Date(`${day}T12:00:00Z`)
const page: SearchPage = { page: 1, limit: 20, sortBy: 'date_posted', sortOrder: null, raw: false }

/** A company of the test's own, and postings of it that share one duplicate group (title, place, text). */
function employer(name: string) {
  const tag = randomBytes(4).toString('hex')
  const company = { name: `${name} ${tag}`, slug: `${name.toLowerCase().replace(/\W+/g, '-')}-${tag}` }
  const posting = (overrides: Partial<RawPosting> & { source_id: string }): RawPosting => ({
    job_board: `Board ${tag}`,
    job_title: 'Staff Nurse',
    description: '<p>Band 5 staff nurse on a busy surgical ward. Preceptorship and rotation offered.</p>',
    location_raw: 'Leeds, United Kingdom',
    job_type: 'Full Time',
    salary_range: { min: 28407, max: 34581, currency: 'GBP', period: 'yearly' },
    company,
    ...overrides,
    job_board_link: `https://board.example.test/${tag}/${overrides.source_id}`,
  })
  return { company, posting, board: `Board ${tag}` }
}

type JobRow = { id: string; job_slug: string; md5_hash: string; expired: boolean; date_posted: string; date_expired: string | null; valid_through: string | null }

async function jobsOf(sql: TestDb['sql'], companySlug: string): Promise<JobRow[]> {
  return [...await sql<JobRow[]>`
    select j.id::text, j.job_slug, j.md5_hash, j.expired, j.date_posted::text, j.date_expired::text,
           to_char(j.valid_through at time zone 'UTC', 'YYYY-MM-DD') as valid_through
    from jobs j join companies c on c.id = j.company_id where c.slug = ${companySlug} order by j.id`]
}

async function archiveOf(sql: TestDb['sql'], companySlug: string) {
  return [...await sql<{ job_id: string; date_posted: string; date_expired: string }[]>`
    select job_id::text, date_posted::text, date_expired::text from job_archive where company_slug = ${companySlug} order by job_id`]
}

/** The feed's entries for these jobs, over the whole window. */
async function feedOf(sql: TestDb['sql'], ids: string[]) {
  const { jobs } = await listExpiredJobs(sql, { since: null, offset: 0, limit: 1000 })
  return jobs.filter((j) => ids.includes(j._id)).map((j) => ({ _id: j._id, date_expired: j.date_expired }))
}

const run = (sql: TestDb['sql'], rows: RawPosting[], now: Date, opts: Partial<IngestOptions> = {}) =>
  ingest(sql, readItems(rows), { source: 'reposted', now, ...opts })

test.serial('a re-posting after expiry is a new live job with its new dates; each period is archived once and in the feed once', async (t) => {
  const { sql } = t.context
  const { company, posting } = employer('Leeds Teaching Hospitals')
  const old = posting({ source_id: 'ltht-100', date_posted: '2026-01-10', valid_through: '2026-02-10' })
  t.like(await run(sql, [old], at('2026-01-15')), { inserted: 1 })
  await expireJobs(sql, { afterDays: 30, now: at('2026-02-11') })
  const [first] = await jobsOf(sql, company.slug)
  t.like(first, { expired: true, date_expired: '2026-02-10' })

  // the board posts it again under a new id, open until the end of April
  const again = posting({ source_id: 'ltht-200', date_posted: '2026-03-01', valid_through: '2026-04-30' })
  const queued: string[] = []
  const summary = await run(sql, [again], at('2026-03-01'), {
    // what the vector queue takes from the batch's transaction (jobs/embed-vectors.ts enqueueVectors)
    queueVectors: async (tx, md5Hashes) => {
      queued.push(...(await listJobIdsToEmbed(tx, -1, md5Hashes)))
      return queued.length
    },
  })
  t.like(summary, { inserted: 1, duplicates: 0, updated: 0 })
  const [stillOld, repost] = await jobsOf(sql, company.slug)
  t.deepEqual(stillOld, first, 'the ended period is left as it was')
  t.like(repost, { expired: false, date_posted: '2026-03-01', valid_through: '2026-04-30', date_expired: null, md5_hash: first.md5_hash })
  t.is(repost.job_slug, `${first.job_slug}-2`, 'a later period of the group: the slug takes its number')
  t.deepEqual(queued, [repost.id], 'the new job, and only it, is queued for a vector')

  // search finds the re-posting, and only it
  const found = await searchJobs(sql, { companySlug: company.slug, titles: parse(['staff nurse']) }, page)
  t.deepEqual(found.jobs.map((j) => j._id), [repost.id])
  t.is(found.jobs[0].date_posted, '2026-03-01')
  const [{ live_jobs }] = await sql`select live_jobs from companies where slug = ${company.slug}`
  t.is(live_jobs, 1)

  // the ended period: in the archive and the feed once
  t.deepEqual(await archiveOf(sql, company.slug), [{ job_id: first.id, date_posted: '2026-01-10', date_expired: '2026-02-10' }])
  t.deepEqual(await feedOf(sql, [first.id, repost.id]), [{ _id: first.id, date_expired: '2026-02-10' }])

  // the same two files again, a day later: nothing changes but when they were seen
  const snapshot = async () => (await sql`select j.*, s.job_board, s.source_key from jobs j join job_sources s on s.job_id = j.id join companies c on c.id = j.company_id where c.slug = ${company.slug} order by j.id`)
    .map(({ last_seen_at: _l, ...rest }) => JSON.stringify(rest))
  const before = await snapshot()
  t.like(await run(sql, [old, again], at('2026-03-02')), { inserted: 0, updated: 0, duplicates: 0, unchanged: 2 })
  t.like(await run(sql, [again, old], at('2026-03-03')), { inserted: 0, updated: 0, duplicates: 0, unchanged: 2 })
  t.deepEqual(await snapshot(), before)
  t.is((await jobsOf(sql, company.slug)).length, 2)

  // the re-posting ends: archived once as well, and in the feed
  await expireJobs(sql, { afterDays: 30, now: at('2026-05-01') })
  await expireJobs(sql, { afterDays: 30, now: at('2026-05-02') })
  t.deepEqual(await archiveOf(sql, company.slug), [
    { job_id: first.id, date_posted: '2026-01-10', date_expired: '2026-02-10' },
    { job_id: repost.id, date_posted: '2026-03-01', date_expired: '2026-04-30' },
  ])
  t.deepEqual(
    (await feedOf(sql, [first.id, repost.id])).sort((a, b) => a._id.localeCompare(b._id)),
    [{ _id: first.id, date_expired: '2026-02-10' }, { _id: repost.id, date_expired: '2026-04-30' }].sort((a, b) => a._id.localeCompare(b._id)),
  )
  // a third period: its own job again, numbered on
  await run(sql, [posting({ source_id: 'ltht-300', date_posted: '2026-06-01', valid_through: '2026-07-31' })], at('2026-06-01'))
  const jobs = await jobsOf(sql, company.slug)
  t.deepEqual(jobs.map((j) => [j.expired, j.job_slug]), [[true, first.job_slug], [true, `${first.job_slug}-2`], [false, `${first.job_slug}-3`]])
})

test.serial('a board that lists the same id again after expiry, with new dates: a new job, and the source follows it', async (t) => {
  const { sql } = t.context
  const { company, posting, board } = employer('Bradford Care')
  await run(sql, [posting({ source_id: 'bc-1', date_posted: '2026-01-10', valid_through: '2026-02-10' })], at('2026-01-15'))
  await expireJobs(sql, { afterDays: 30, now: at('2026-02-11') })
  // the same id, the same date posted, a new closing date
  const relisted = posting({ source_id: 'bc-1', date_posted: '2026-01-10', valid_through: '2026-04-30' })
  t.like(await run(sql, [relisted], at('2026-03-01')), { inserted: 0, updated: 1 })
  const [ended, live] = await jobsOf(sql, company.slug)
  t.like(ended, { expired: true, date_expired: '2026-02-10', valid_through: '2026-02-10' })
  t.like(live, { expired: false, valid_through: '2026-04-30', date_expired: null })
  const [source] = await sql`select job_id::text from job_sources where job_board = ${board} and source_key = 'bc-1'`
  t.is(source.job_id, live.id)
  t.like(await run(sql, [relisted], at('2026-03-02')), { unchanged: 1, updated: 0, inserted: 0 })

  // edited while live: rewritten in place, as any live posting is
  t.like(await run(sql, [{ ...relisted, valid_through: '2026-05-15' }], at('2026-03-03')), { updated: 1 })
  const after = await jobsOf(sql, company.slug)
  t.is(after.length, 2)
  t.like(after[1], { id: live.id, valid_through: '2026-05-15', expired: false })
  t.deepEqual((await searchJobs(sql, { companySlug: company.slug }, page)).jobs.map((j) => j._id), [live.id])
})

test.serial('a duplicate from another board while live joins the live job, not an ended period', async (t) => {
  const { sql } = t.context
  const { company, posting } = employer('Harrogate District')
  const first = posting({ source_id: 'hd-1', job_board: 'Board A', date_posted: '2026-01-10', valid_through: '2026-02-01' })
  t.like(await run(sql, [first, { ...first, job_board: 'Board B', source_id: 'b-77' }], at('2026-01-15')), { inserted: 1, duplicates: 1 })
  const [job] = await jobsOf(sql, company.slug)
  const sources = await sql`select job_board from job_sources where job_id = ${job.id} order by job_board`
  t.deepEqual(sources.map((s) => s.job_board), ['Board A', 'Board B'])

  // an ended period and a live re-posting: a copy from a third board joins the live one
  await expireJobs(sql, { afterDays: 30, now: at('2026-02-02') })
  t.like(await run(sql, [posting({ source_id: 'hd-2', job_board: 'Board A', date_posted: '2026-03-01' })], at('2026-03-01')), { inserted: 1 })
  t.like(await run(sql, [posting({ source_id: 'c-5', job_board: 'Board C', date_posted: '2026-03-02' })], at('2026-03-02')), { inserted: 0, duplicates: 1 })
  const [, repost] = await jobsOf(sql, company.slug)
  const copies = await sql`select job_board from job_sources where job_id = ${repost.id} order by job_board`
  t.deepEqual(copies.map((s) => s.job_board), ['Board A', 'Board C'])
  t.is((await jobsOf(sql, company.slug)).length, 2)
})

test.serial('a posting that arrives already expired: its own period after an ended one, the same period when the dates overlap', async (t) => {
  const { sql } = t.context
  const { company, posting } = employer('Airedale Trust')
  await run(sql, [posting({ source_id: 'at-1', date_posted: '2025-01-10', valid_through: '2025-02-10' })], at('2025-01-15'))
  await expireJobs(sql, { afterDays: 30, now: at('2025-02-11') })

  const later = posting({ source_id: 'at-2', date_posted: '2025-06-01', valid_through: '2025-06-30' })
  const overlapping = posting({ source_id: 'x-1', job_board: 'Other Board', date_posted: '2025-01-20', valid_through: '2025-02-05' })
  t.like(await run(sql, [later, overlapping], at('2026-01-05')), { inserted: 1, duplicates: 1, expired_on_arrival: 2 })
  const [ended, own] = await jobsOf(sql, company.slug)
  t.like(own, { expired: true, date_posted: '2025-06-01', date_expired: '2025-06-30' })
  const [copy] = await sql`select job_id::text from job_sources where job_board = 'Other Board' and source_key = 'x-1'`
  t.is(copy.job_id, ended.id, 'its dates fall within the first period: another source of it')
  await expireJobs(sql, { afterDays: 30, now: at('2026-01-06') })
  t.deepEqual(await archiveOf(sql, company.slug), [
    { job_id: ended.id, date_posted: '2025-01-10', date_expired: '2025-02-10' },
    { job_id: own.id, date_posted: '2025-06-01', date_expired: '2025-06-30' },
  ])
  t.is((await searchJobs(sql, { companySlug: company.slug }, page)).jobs.length, 0, 'nothing of it is live')

  // a live period now: an ended copy that closed before it was posted is a period of its
  // own; one that closed after it was posted is another source of the live job
  const live = posting({ source_id: 'at-3', date_posted: '2026-01-10', valid_through: '2026-03-31' })
  t.like(await run(sql, [live], at('2026-01-10')), { inserted: 1 })
  t.like(await run(sql, [
    posting({ source_id: 'y-1', job_board: 'Old Board', date_posted: '2025-09-01', valid_through: '2025-09-30' }),
    posting({ source_id: 'y-2', job_board: 'Old Board', date_posted: '2026-01-05', valid_through: '2026-01-12' }),
  ], at('2026-01-20')), { inserted: 1, duplicates: 1 })
  const jobs = await jobsOf(sql, company.slug)
  t.deepEqual(jobs.map((j) => [j.date_posted, j.expired]), [['2025-01-10', true], ['2025-06-01', true], ['2026-01-10', false], ['2025-09-01', true]])
  const [y2] = await sql`select job_id::text from job_sources where job_board = 'Old Board' and source_key = 'y-2'`
  t.is(y2.job_id, jobs[2].id)
  t.like(jobs[2], { expired: false, valid_through: '2026-03-31' }, 'an ended copy does not end the live job')
})

test.serial('both periods in one file land as two jobs, in either order, and a second run changes nothing', async (t) => {
  const { sql } = t.context
  for (const order of ['old first', 'new first']) {
    const { company, posting } = employer(`One File ${order}`)
    const old = posting({ source_id: 'f-1', date_posted: '2025-10-01', valid_through: '2025-10-31' })
    const now = posting({ source_id: 'f-2', date_posted: '2026-02-01', valid_through: '2026-03-31' })
    const rows = order === 'old first' ? [old, now] : [now, old]
    t.like(await run(sql, rows, at('2026-02-10')), { inserted: 2, duplicates: 0, expired_on_arrival: 1 }, order)
    const jobs = await jobsOf(sql, company.slug)
    t.deepEqual(jobs.map((j) => [j.date_posted, j.expired]).sort(), [['2025-10-01', true], ['2026-02-01', false]], order)
    t.is(new Set(jobs.map((j) => j.job_slug)).size, 2)
    t.like(await run(sql, rows, at('2026-02-11')), { inserted: 0, updated: 0, duplicates: 0, unchanged: 2 }, order)
    t.deepEqual(await jobsOf(sql, company.slug), jobs, order)
  }
})

test.serial('a job that ended only because no board listed it comes back when listed again within its period; posted after it ended, it is a new period', async (t) => {
  const { sql } = t.context
  const quiet = async (name: string) => {
    const e = employer(name)
    await run(sql, [e.posting({ source_id: 'q-1', date_posted: '2026-01-10' })], at('2026-01-15'))
    // its board's next ingests lack it; 30 days on, the expiry run ends it (no valid_through)
    await run(sql, [e.posting({ source_id: 'q-other', job_title: 'Porter', date_posted: '2026-02-20' })], at('2026-02-20'))
    await expireJobs(sql, { afterDays: 30, now: at('2026-02-21') })
    const [job] = await jobsOf(sql, e.company.slug)
    t.like(job, { expired: true, date_expired: '2026-02-21' })
    return { ...e, job }
  }

  // another board's copy, posted before it ended: the same period, back to live
  const same = await quiet('Calderdale Quiet')
  const wide = `${same.board} Wide`
  t.like(await run(sql, [same.posting({ source_id: 'w-1', job_board: wide, date_posted: '2026-01-12' })], at('2026-02-25')), { duplicates: 1, inserted: 0 })
  const back = await jobsOf(sql, same.company.slug)
  t.deepEqual(back.filter((j) => j.job_slug !== same.job.job_slug).map((j) => j.expired), [false], 'the porter')
  t.like(back.find((j) => j.id === same.job.id), { expired: false, date_expired: null })
  t.deepEqual(await feedOf(sql, [same.job.id]), [], 'back: out of the feed')
  // when it ends again (neither board lists it any more), its one archive row follows
  await run(sql, [
    same.posting({ source_id: 'q-2', job_title: 'Cleaner', date_posted: '2026-04-10' }),
    same.posting({ source_id: 'w-2', job_board: wide, job_title: 'Cleaner', date_posted: '2026-04-10' }),
  ], at('2026-04-10'))
  await expireJobs(sql, { afterDays: 30, now: at('2026-04-11') })
  t.deepEqual((await archiveOf(sql, same.company.slug)).filter((a) => a.job_id === same.job.id), [{ job_id: same.job.id, date_posted: '2026-01-10', date_expired: '2026-04-11' }])

  // its own board lists it again, unchanged: back as well
  const relisted = await quiet('Kirklees Quiet')
  t.like(await run(sql, [relisted.posting({ source_id: 'q-1', date_posted: '2026-01-10' })], at('2026-02-25')), { unchanged: 1 })
  t.like((await jobsOf(sql, relisted.company.slug)).find((j) => j.id === relisted.job.id), { expired: false })

  // posted after it ended: a re-posting, a new job beside the ended one
  const later = await quiet('Wakefield Quiet')
  t.like(await run(sql, [later.posting({ source_id: 'w-2', job_board: `${later.board} Wide`, date_posted: '2026-03-01' })], at('2026-03-01')), { inserted: 1 })
  const jobs = (await jobsOf(sql, later.company.slug)).filter((j) => j.md5_hash === later.job.md5_hash)
  t.deepEqual(jobs.map((j) => [j.id === later.job.id, j.expired, j.date_posted]), [[true, true, '2026-01-10'], [false, false, '2026-03-01']])
})

test.serial('an unchanged source of an ended job, whose copy closes later: live again as a job of its own', async (t) => {
  const { sql } = t.context
  const { company, posting } = employer('Pontefract Copy')
  // the job shows Board A's posting, which closes first; Board B's copy of it closes later
  const a = posting({ source_id: 'pa-1', job_board: 'Board A', date_posted: '2026-01-10', valid_through: '2026-02-10' })
  const b = posting({ source_id: 'pb-1', job_board: 'Board B', date_posted: '2026-01-10', valid_through: '2026-03-31' })
  t.like(await run(sql, [a, b], at('2026-01-15')), { inserted: 1, duplicates: 1 })
  await expireJobs(sql, { afterDays: 30, now: at('2026-02-11') })
  t.like(await run(sql, [b], at('2026-02-15')), { updated: 1 })
  const [ended, live] = await jobsOf(sql, company.slug)
  t.like(ended, { expired: true, date_expired: '2026-02-10' })
  t.like(live, { expired: false, valid_through: '2026-03-31' })
  t.like(await run(sql, [a, b], at('2026-02-16')), { unchanged: 2, inserted: 0, updated: 0 })
  t.is((await jobsOf(sql, company.slug)).length, 2)
})
