/**
 * Relevance ranks the newest matches (sql/search.ts, rankedIds): within the window the
 * order is ts_rank, then recency, then id, exactly as ranking every match would give;
 * past it the older matches follow newest first; pages of any size put together give
 * the same list, each match once; ascending order reverses the window's scores only.
 */
import anyTest, { type TestFn } from 'ava'
import { ingest } from '../../ingest/pipeline.ts'
import { parse } from '../../sql/query-syntax.ts'
import { estimateShare, readMatchesFirst, searchJobs, whereClause, type SearchFilters, type SearchPage } from '../../sql/search.ts'
import { rawPosting } from '../helpers/factories.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'

const test = anyTest as TestFn<{ db: TestDb }>
const JOBS = 14
const filters: SearchFilters = { titles: parse(['widget']) }

test.before(async (t) => {
  const db = await testDatabase()
  // newer jobs alternate between a plain title and one that says widget twice and lists
  // it as a skill, so the scores do not follow the dates
  const items = Array.from({ length: JOBS }, (_, i) => ({
    line: i + 1,
    raw: rawPosting(
      {
        source_id: `window-${i}`,
        job_title: i % 3 === 0 ? `Widget Widget Engineer ${i}` : `Widget Engineer ${i}`,
        skills: i % 3 === 0 ? ['Widget'] : ['Welding'],
        // the phrase "machine learning" in every other description; its words apart, or reversed, in the rest
        description: i % 2 === 0 ? `<p>Applied machine learning for widgets, ${i}.</p>` : i % 4 === 1 ? `<p>Learning the machine shop, ${i}.</p>` : `<p>A machine for widgets; learning on the job, ${i}.</p>`,
        date_posted: `2026-10-${String(i + 1).padStart(2, '0')}`,
      },
      i,
    ) as never,
  }))
  await ingest(db.sql, items, { source: 'rank-window-test' })
  t.context = { db }
})

test.after.always(async (t) => {
  await t.context.db?.close()
})

const page = (over: Partial<SearchPage>): SearchPage => ({ page: 1, limit: JOBS, sortBy: 'relevance', sortOrder: null, raw: false, ...over })

/** Every match with its score and date, in the exact order over all of them. */
async function exact(db: TestDb, dir: 'asc' | 'desc') {
  return db.sql<{ id: string; score: number; date: string }[]>`
    select j.id::text, ts_rank(j.rank_tsv, to_tsquery('english', 'widget'))::float8 as score, j.date_posted::text as date
    from jobs j
    where not j.expired and j.title_tsv @@ to_tsquery('english', 'widget')
    order by score ${dir === 'asc' ? db.sql`asc` : db.sql`desc`}, j.date_posted desc, j.id desc`
}

test('the filter used here matches every job, with scores that do not follow the dates', async (t) => {
  const rows = await exact(t.context.db, 'desc')
  t.is(rows.length, JOBS)
  t.true(new Set(rows.map((r) => r.score)).size > 1)
  t.notDeepEqual(rows.map((r) => r.id), [...rows].sort((a, b) => b.date.localeCompare(a.date)).map((r) => r.id))
})

test('a window holding every match ranks exactly as ranking every match', async (t) => {
  const { db } = t.context
  for (const dir of ['desc', 'asc'] as const) {
    const { jobs } = await searchJobs(db.sql, filters, page({ rankWindow: JOBS, sortOrder: dir === 'asc' ? 'asc' : null }))
    const want = await exact(db, dir)
    t.deepEqual(jobs.map((j) => j._id), want.map((r) => r.id), dir)
    t.deepEqual(jobs.map((j) => j.score), want.map((r) => r.score), dir)
  }
})

test('a window of 5: the 5 newest matches by score, then the older ones newest first', async (t) => {
  const { db } = t.context
  const { jobs } = await searchJobs(db.sql, filters, page({ rankWindow: 5 }))
  const all = await exact(db, 'desc')
  const byDate = [...all].sort((a, b) => b.date.localeCompare(a.date) || Number(b.id) - Number(a.id))
  const newest = new Set(byDate.slice(0, 5).map((r) => r.id))
  const windowed = all.filter((r) => newest.has(r.id))
  t.deepEqual(jobs.map((j) => j._id), [...windowed, ...byDate.slice(5)].map((r) => r.id))
  t.deepEqual(jobs.slice(0, 5).map((j) => j.score), windowed.map((r) => r.score), 'the window keeps its scores, best first')
  t.true(jobs.slice(5).every((j) => j.score > 0), 'jobs past the window still carry their score')
})

test('pages of 3 put together are the whole list, each match once, for windows inside, across and beyond the pages', async (t) => {
  const { db } = t.context
  for (const rankWindow of [1, 4, 6, 9, 14, 100]) {
    const whole = (await searchJobs(db.sql, filters, page({ rankWindow }))).jobs.map((j) => j._id)
    const pages: string[] = []
    for (let n = 1; n <= Math.ceil(JOBS / 3); n++) {
      const { jobs } = await searchJobs(db.sql, filters, page({ rankWindow, page: n, limit: 3 }))
      pages.push(...jobs.map((j) => j._id))
    }
    t.deepEqual(pages, whole, `window ${rankWindow}`)
    t.is(new Set(pages).size, JOBS, `window ${rankWindow}`)
  }
})

test('a keywords phrase: exactly the jobs with the phrase, newest first within and past a window of 3, pages whole', async (t) => {
  const { db } = t.context
  const phrase: SearchFilters = { keywords: parse(['"machine learning"']) }
  const want = await db.sql<{ id: string }[]>`
    select j.id::text from jobs j
    where not j.expired and j.keywords_tsv @@ phraseto_tsquery('english', 'machine learning')
    order by ts_rank(j.rank_tsv, phraseto_tsquery('english', 'machine learning')) desc, j.date_posted desc, j.id desc`
  t.is(want.length, JOBS / 2)
  const words = await db.sql<{ n: number }[]>`
    select count(*)::int as n from jobs j where j.keywords_tsv @@ plainto_tsquery('english', 'machine learning')`
  t.is(words[0].n, JOBS, 'every job has both words, so the phrase is what picks')
  for (const rankWindow of [3, JOBS]) {
    const { jobs } = await searchJobs(db.sql, phrase, page({ rankWindow }))
    t.deepEqual(jobs.map((j) => j._id), want.map((r) => r.id), `window ${rankWindow}`)
    const pages: string[] = []
    for (let n = 1; n <= 3; n++) pages.push(...(await searchJobs(db.sql, phrase, page({ rankWindow, page: n, limit: 3 }))).jobs.map((j) => j._id))
    t.deepEqual(pages, want.map((r) => r.id), `window ${rankWindow}, pages of 3`)
  }
  // an excluded phrase keeps its meaning beside an included one
  const { jobs } = await searchJobs(db.sql, { keywords: parse(['"machine learning" -"applied machine"']) }, page({ rankWindow: 3 }))
  t.is(jobs.length, 0)
})

test('sorted by date with a keywords phrase: the phrase jobs by date, each with its score, pages whole, counted exactly', async (t) => {
  const { db } = t.context
  const phrase: SearchFilters = { keywords: parse(['"machine learning"']) }
  const want = await db.sql<{ id: string; score: number }[]>`
    select j.id::text, ts_rank(j.rank_tsv, phraseto_tsquery('english', 'machine learning'))::float8 as score from jobs j
    where not j.expired and j.keywords_tsv @@ phraseto_tsquery('english', 'machine learning')
    order by j.date_posted desc, j.id desc`
  const byDate = page({ sortBy: 'date_posted' })
  const all = await searchJobs(db.sql, phrase, byDate)
  t.deepEqual(all.jobs.map((j) => j._id), want.map((r) => r.id))
  t.deepEqual(all.jobs.map((j) => j.score), want.map((r) => r.score))
  t.like(all, { total: JOBS / 2, exact: true, companies: new Set(all.jobs.map((j) => j.company_slug)).size })
  const pages: string[] = []
  for (let n = 1; n <= 3; n++) {
    const onePage = await searchJobs(db.sql, phrase, { ...byDate, page: n, limit: 3 })
    t.like(onePage, { total: JOBS / 2, exact: true }, `page ${n}`)
    pages.push(...onePage.jobs.map((j) => j._id))
  }
  t.deepEqual(pages, want.map((r) => r.id), 'pages of 3')
  // oldest first: the same jobs reversed
  const oldest = await searchJobs(db.sql, phrase, { ...byDate, sortOrder: 'asc' })
  t.deepEqual(oldest.jobs.map((j) => j._id), want.map((r) => r.id).reverse())
})

test('keywords: every match is read first when the planner expects few against the jobs, the dates walked when many', async (t) => {
  const { sql } = t.context.db
  const f: SearchFilters = { keywords: parse(['machine']) }
  const where = whereClause(sql, f)
  const estimate = await estimateShare(sql, f, where)
  const { matches, all } = estimate
  t.true(matches >= JOBS / 2 && all >= JOBS / 2, `the estimates: ${matches} of ${all}`)
  // KEYWORD_READ_COST × n × all against matches²: a window of 1,001 over 14 jobs, and one of 1
  t.true(readMatchesFirst(estimate, 1001))
  t.false(readMatchesFirst(estimate, 1))
  // either way the newest matches are the same: here read first, ranked as relevance ranks them
  const found = await searchJobs(sql, f, page({ sortBy: 'date_posted' }))
  const ranked = await searchJobs(sql, f, page({ rankWindow: JOBS }))
  t.is(found.total, JOBS)
  const ids = (r: typeof found) => r.jobs.map((j) => j._id).sort()
  t.deepEqual(ids(ranked), ids(found))
})
