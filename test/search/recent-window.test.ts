/**
 * The newest keyword matches looked for among the newest live jobs first
 * (sql/search.ts, newestMatches and recentWindow): the rule, and the same newest
 * matches whether the window holds them all, some of them or none.
 */
import anyTest, { type TestFn } from 'ava'
import { ingest } from '../../ingest/pipeline.ts'
import { parse } from '../../sql/query-syntax.ts'
import { ENTRY_COST, estimateShare, newestMatches, readMatchesFirst, recentWindow, whereClause, WINDOW_MARGIN, type SearchFilters } from '../../sql/search.ts'
import { rawPosting } from '../helpers/factories.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'

const test = anyTest as TestFn<{ db: TestDb }>
const JOBS = 120

/** Job i (0 the oldest, one a day) and the words its description holds. */
function words(i: number) {
  return [
    i % 5 !== 0 && 'gadget', // four jobs in five, newest and oldest alike
    i < 72 && 'sprocket', // the oldest 60 %: none among the newest
    (i < 60 || i % 6 === 0) && 'flange', // the older half, and one in six of the newer
  ].filter(Boolean)
}

test.before(async (t) => {
  const db = await testDatabase()
  const day = (i: number) => new Date(Date.UTC(2026, 7, 1 + i)).toISOString().slice(0, 10)
  const items = Array.from({ length: JOBS }, (_, i) => ({
    line: i + 1,
    raw: rawPosting({ source_id: `recent-${i}`, job_title: `Fitter ${i}`, description: `<p>Work with ${words(i).join(', ')} and more, ${i}.</p>`, date_posted: day(i) }, i) as never,
  }))
  await ingest(db.sql, items, { source: 'recent-window-test' })
  t.context = { db }
})

test.after.always(async (t) => {
  await t.context.db?.close()
})

test('the rule: a window where the matches are many, none where reading them all costs less, or nothing matches', (t) => {
  const all = 100_000
  // a term in a third of the jobs would be walked: 1.5 × 1,001 × 3 jobs, read as entries
  t.false(readMatchesFirst({ matches: all / 3, all }, 1001))
  t.is(recentWindow({ matches: all / 3, all }, 1001), Math.ceil(WINDOW_MARGIN * 1001 * 3))
  // one in ten would be read whole (10,000 rows): the window reads 1,502 and 15,015 entries
  t.true(readMatchesFirst({ matches: all / 10, all }, 1001))
  t.is(recentWindow({ matches: all / 10, all }, 1001), Math.ceil(WINDOW_MARGIN * 1001 * 10))
  // 3,000 matches: 1,502 rows and 50,050 entries cost more than reading the 3,000
  t.true(WINDOW_MARGIN * 1001 + ENTRY_COST * Math.ceil((WINDOW_MARGIN * 1001 * all) / 3000) > 3000)
  t.is(recentWindow({ matches: 3000, all }, 1001), null)
  t.is(recentWindow({ matches: 0, all }, 1001), null)
  // a window as large as the live jobs is no window
  t.is(recentWindow({ matches: 10, all: 10 }, 10), null)
})

/** The `n` newest live jobs whose keywords hold `word`, by date then id. */
async function exact(db: TestDb, word: string, n: number) {
  const rows = await db.sql<{ id: string }[]>`
    select j.id::text from jobs j
    where not j.expired and j.keywords_tsv @@ to_tsquery('english', ${word})
    order by j.date_posted desc, j.id desc
    limit ${n}`
  return rows.map((r) => r.id)
}

async function newest(db: TestDb, word: string, n: number) {
  const f: SearchFilters = { keywords: parse([word]) }
  const where = whereClause(db.sql, f)
  const found = await newestMatches(db.sql, f, where, n)
  const rows = await found.query
  return { window: found.window, ids: rows.map((r) => String(r.id)), estimate: await estimateShare(db.sql, f, where) }
}

test('every job is live, and the planner expects each word in more than half of them', async (t) => {
  const { db } = t.context
  const [{ live }] = await db.sql<{ live: number }[]>`select count(*)::int as live from jobs where not expired`
  t.is(live, JOBS)
  for (const word of ['gadget', 'sprocket', 'flange']) {
    const { estimate } = await newest(db, word, 3)
    t.true(estimate.matches > JOBS / 2 && estimate.matches < JOBS, `${word}: ${estimate.matches} of ${estimate.all}`)
  }
})

test('a window that holds the newest matches: exactly them, newest first', async (t) => {
  const { db } = t.context
  for (const n of [1, 3, 10]) {
    const { window, ids } = await newest(db, 'gadget', n)
    t.true(window !== null && window < JOBS, `n ${n}: window ${window}`)
    t.deepEqual(ids, await exact(db, 'gadget', n), `n ${n}`)
  }
})

test('a window that holds none of the matches, or fewer than asked: the older jobs make up the rest', async (t) => {
  const { db } = t.context
  // the newest sprocket job is the 49th newest job; the newest flange jobs are one in six
  const sprocket = await newest(db, 'sprocket', 3)
  t.true(sprocket.window !== null && sprocket.window < JOBS - 72, `window ${sprocket.window}`)
  t.deepEqual(sprocket.ids, await exact(db, 'sprocket', 3))
  t.deepEqual(sprocket.ids.length, 3)
  const flange = await newest(db, 'flange', 3)
  t.true(flange.window !== null && flange.window > 6 && flange.window < 3 * 6, `window ${flange.window}`)
  t.deepEqual(flange.ids, await exact(db, 'flange', 3))
})

test('asking for more than match: no window, every match once', async (t) => {
  const { db } = t.context
  const { window, ids } = await newest(db, 'sprocket', 500)
  t.is(window, null)
  t.is(ids.length, 72)
  t.deepEqual(ids, await exact(db, 'sprocket', 500))
})
