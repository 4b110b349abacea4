/**
 * The HNSW index at work, on a table large enough for the planner to use it: 2,000
 * jobs with seeded random vectors. A search deeper than ef_search, filtered or not,
 * still returns all it asks for (iterative scans, pgvector 0.8, on both databases),
 * and what it returns is the exact nearest neighbours, or nearly.
 */
import anyTest, { type TestFn } from 'ava'
import { toSql } from 'pgvector'
import { EMBEDDING_DIM } from '../../ingest/embed/embedder.ts'
import type { SearchFilters } from '../../sql/search.ts'
import { insertJobs, jobColumns, upsertCompanies, type JobRow } from '../../sql/postings.ts'
import { EF_SEARCH, explainNearest, vectorSearch, type Accuracy } from '../../sql/vector-search.ts'
import { connect } from '../../sql/db.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'
import { cosine, fixtureModel } from './vector-fixtures.ts'

type Row = { id: string; vector: number[]; legal: boolean }
const test = anyTest as TestFn<{ db: TestDb; rows: Row[]; model: number }>

const JOBS = 2_000
const DIMS = 16 // the random vectors live in a few dimensions: a graph search is still needed, and loading stays quick

function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
const random = prng(42)
const randomVector = () => Array.from({ length: EMBEDDING_DIM }, (_, i) => (i < DIMS ? random() * 2 - 1 : 0))

test.before(async (t) => {
  const db = await testDatabase()
  const sql = db.sql
  const companies = await upsertCompanies(sql, [{
    slug: 'recall-co', name: 'Recall Co', logo: null, link: null, linkedin_link: null, description_summary: null, services: [], size_min: null,
    size_max: null, size_bucket: null, industries: [], subindustries: [], type: null, is_recruiting_agency: false, job_board: 'TestBoard',
  }])
  const nulls = Object.fromEntries(jobColumns.map((c) => [c, null])) as JobRow
  const model = await fixtureModel(sql)
  const rows: Row[] = []
  for (let start = 0; start < JOBS; start += 500) {
    const batch = Array.from({ length: 500 }, (_, k): JobRow => {
      const n = start + k
      return {
        ...nulls,
        company_id: companies.get('recall-co'), job_slug: `recall-${n}`, md5_hash: `recall-${n}`, source_key: `recall-${n}`, job_title: `Job ${n}`,
        job_title_raw: `Job ${n}`, description: '<p>x</p>', description_raw: '<p>x</p>', locations: sql.json([]), remote_countries: [], place_keys: [],
        // one job in three is a legal job, on a board of its own: the filter the filtered searches use (a
        // board, which has no graph of its own as a category has: the graph of every job serves it)
        job_categories: [n % 3 === 0 ? 'Legal Jobs' : 'Sales Jobs'], skills: [], technologies: [], benefits: [], recruiter_agency: false,
        meta_completeness: false, date_posted: '2026-11-01', job_board: n % 3 === 0 ? 'LegalBoard' : 'TestBoard', expired: false, first_seen_at: new Date(), last_seen_at: new Date(),
      }
    })
    const inserted = await insertJobs(sql, batch)
    const vectors = inserted.map(() => randomVector())
    await sql`
      update jobs j set embedding = v.embedding::vector, embedding_model = ${model}
      from unnest(${inserted.map((r) => r.id)}::bigint[], ${vectors.map((v) => toSql(v))}::text[]) as v(id, embedding)
      where j.id = v.id`
    inserted.forEach((r, k) => rows.push({ id: r.id, vector: vectors[k], legal: (start + k) % 3 === 0 }))
  }
  await sql`analyze jobs, companies`
  Object.assign(t.context, { db, rows, model })
})
test.after.always(async (t) => {
  await t.context?.db?.close()
})

/** The exact nearest neighbours, by brute force. */
const exact = (rows: Row[], q: number[], k: number) =>
  rows
    .map((r) => ({ id: r.id, similarity: cosine(q, r.vector) }))
    .sort((a, b) => b.similarity - a.similarity)
    .slice(0, k)
    .map((r) => r.id)

const recall = (found: string[], truth: string[]) => found.filter((id) => truth.includes(id)).length / truth.length

const legal: SearchFilters = { jobBoards: ['LegalBoard'] }

test.serial('the planner serves a shallow nearest-jobs query from the HNSW index', async (t) => {
  const q = { vector: randomVector(), model: t.context.model, accuracy: 'low' as Accuracy }
  t.regex(await explainNearest(t.context.db.sql, q, {}, 10), /jobs_embedding_idx/)
})

/**
 * On a table this small the planner prefers a sequential scan and a sort (exact) for
 * deep or filtered searches; with both priced out on a connection of the test's own,
 * the index serves them, as it does on a large table.
 */
async function indexOnly<T>(db: TestDb, use: (sql: TestDb['sql']) => Promise<T>) {
  const sql = connect(db.url, 1)
  try {
    await sql`set enable_seqscan = off`
    await sql`set enable_sort = off`
    return await use(sql)
  } finally {
    // the embedded database is one session: what this connection set, every connection sees
    await sql`reset enable_seqscan`
    await sql`reset enable_sort`
    await sql.end({ timeout: 5 })
  }
}

test.serial('a search deeper than ef_search returns all it asks for, near-exact, filtered or not (iterative index scans)', async (t) => {
  const { db, rows } = t.context
  const topK = 3 * EF_SEARCH.low
  await indexOnly(db, async (sql) => {
    for (const [filters, pool] of [[{}, rows], [legal, rows.filter((r) => r.legal)]] as const) {
      const q = randomVector()
      const query = { vector: q, model: t.context.model, accuracy: 'low' as Accuracy }
      t.regex(await explainNearest(sql, query, filters, topK), /Index Scan using jobs_embedding_idx/, JSON.stringify(filters))
      const result = await vectorSearch(sql, query, filters, topK, { offset: 0, limit: topK, raw: false })
      t.is(result.total, topK, JSON.stringify(filters))
      t.is(result.jobs.length, topK)
      const ids = result.jobs.map((j) => j._id)
      t.true(ids.every((id) => pool.some((r) => r.id === id)), 'every result passes the filter')
      const r = recall(ids, exact(pool, q, topK))
      t.true(r >= 0.9, `recall@${topK} ${r} with ${JSON.stringify(filters)}`)
      // strict similarity order, whatever order the relaxed scan found them in
      t.true(result.jobs.every((j, i) => i === 0 || j.score <= result.jobs[i - 1].score))
    }
  })
})

test.serial('without iterative scans the same search stops at ef_search rows: the reason they are on', async (t) => {
  const rows = await indexOnly(t.context.db, (sql) =>
    sql.begin(async (tx) => {
      await tx`select set_config('hnsw.ef_search', ${String(EF_SEARCH.low)}, true), set_config('hnsw.iterative_scan', 'off', true)`
      return tx`select id from jobs j where j.embedding is not null order by j.embedding <=> ${toSql(randomVector())}::vector limit ${3 * EF_SEARCH.low}`
    }),
  )
  t.true(rows.length <= EF_SEARCH.low, `${rows.length} rows`)
})

test.serial('recall@10 against exact nearest neighbours at each accuracy, over 20 queries', async (t) => {
  const { db, rows } = t.context
  const queries = Array.from({ length: 20 }, randomVector)
  const recalls: Record<string, number> = {}
  for (const accuracy of ['low', 'medium', 'high'] as Accuracy[]) {
    let sum = 0
    for (const q of queries) {
      const result = await vectorSearch(db.sql, { vector: q, model: t.context.model, accuracy }, {}, 10, { offset: 0, limit: 10, raw: false })
      sum += recall(result.jobs.map((j) => j._id), exact(rows, q, 10))
    }
    recalls[accuracy] = sum / queries.length
  }
  t.log(recalls)
  t.true(recalls.medium >= 0.95, JSON.stringify(recalls))
  t.true(recalls.high >= recalls.low, JSON.stringify(recalls))
})
