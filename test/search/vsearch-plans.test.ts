/**
 * The plans of vector search (sql/vector-search.ts, docs/vector-search.md, Plans) over
 * generated jobs, compared with an exact search done here by brute force: each plan,
 * forced, returns nearest jobs within the filters (exactly where it is exact, near it
 * where it is not), each result passing the filters with its exact similarity, in
 * order; and the rule picks the plan the filters' estimated matches call for. On both
 * databases.
 *
 * The table is sized from the rule's own constants: SCAN_DIRECT × 1.5 jobs, so that a
 * filter keeping three in four of them is past SCAN_DIRECT (a batch; the scan by the
 * vectors' signs when forced) and one keeping one in four is within it (the exact
 * scan); a SCAN_DIRECT scaled to the table shows what follows a short batch. Sales jobs lie on one side of
 * the first direction and legal jobs on the other, as job categories are regions of a
 * model's space: a query among the legal jobs is far from the sales ones.
 */
import anyTest, { type TestFn } from 'ava'
import { toSql } from 'pgvector'
import { EMBEDDING_DIM } from '../../ingest/embed/embedder.ts'
import { Rng } from '../../ingest/generator/prng.ts'
import { connect } from '../../sql/db.ts'
import { insertJobs, jobColumns, upsertCompanies, type JobRow } from '../../sql/postings.ts'
import type { SearchFilters } from '../../sql/search.ts'
import {
  CATEGORY_GRAPHS, EF_SEARCH, explainNearest, neuralSearch, SCAN_DIRECT, vectorSearch, type Accuracy, type PlanRule, type VectorPlan, type VectorQuery,
} from '../../sql/vector-search.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'
import { cosine, fixtureModel } from './vector-fixtures.ts'

type Row = { id: string; vector: number[]; sales: boolean; intern: boolean; edge: boolean }
const test = anyTest as TestFn<{ db: TestDb; rows: Row[]; model: number }>

const JOBS = Math.round(SCAN_DIRECT * 1.5)
/**
 * A job is a point in a few dimensions (its meaning) spread over DIMS numbers by one
 * fixed random matrix, as a model's vectors use every number but vary in fewer
 * directions; the rest of the 768 are zero. A graph search is still needed, and
 * loading stays quick.
 */
const LATENT = 12
const DIMS = 256
/** how far along the first direction a job's category moves it: sales jobs to one side, legal jobs to the other */
const SIDE = 2

const rng = new Rng(7)
const random = () => rng.next()
const spread = Array.from({ length: DIMS }, () => Array.from({ length: LATENT }, () => random() * 2 - 1))
function randomVector(side = 0) {
  const point = Array.from({ length: LATENT }, (_, i) => random() * 2 - 1 + (i === 0 ? side : 0))
  return Array.from({ length: EMBEDDING_DIM }, (_, i) => (i < DIMS ? spread[i].reduce((acc, w, j) => acc + w * point[j], 0) : 0))
}
const onEdge = (n: number) => n % 4 === 0 || n % 20 === 2

/** A query among the sales jobs, or among the legal ones. */
const nearSales = () => randomVector(-SIDE)
const nearLegal = () => randomVector(SIDE)

test.before(async (t) => {
  const db = await testDatabase()
  const sql = db.sql
  const companies = await upsertCompanies(sql, [{
    slug: 'plans-co', name: 'Plans Co', logo: null, link: null, linkedin_link: null, description_summary: null, services: [], size_min: null,
    size_max: null, size_bucket: null, industries: [], subindustries: [], type: null, is_recruiting_agency: false, job_board: 'TestBoard',
  }])
  const nulls = Object.fromEntries(jobColumns.map((c) => [c, null])) as JobRow
  const model = await fixtureModel(sql)
  const rows: Row[] = []
  for (let start = 0; start < JOBS; start += 500) {
    const batch = Array.from({ length: Math.min(500, JOBS - start) }, (_, k): JobRow => {
      const n = start + k
      return {
        ...nulls,
        company_id: companies.get('plans-co'), job_slug: `plans-${n}`, md5_hash: `plans-${n}`, source_key: `plans-${n}`, job_title: `Job ${n}`,
        job_title_raw: `Job ${n}`, description: '<p>x</p>', description_raw: '<p>x</p>', locations: sql.json([]), remote_countries: [], place_keys: [],
        // three jobs in four are sales jobs; one in a hundred is an internship, in sales; the Edge board
        // has the legal jobs and one sales job in twenty
        job_categories: [n % 4 === 0 ? 'Legal Jobs' : 'Sales Jobs'], job_type: n % 100 === 1 ? 'Internship' : 'Full Time',
        // the legal jobs are the senior ones: a filter on the same region without a graph of its own
        experience_level: n % 4 === 0 ? 'Senior' : 'Mid', skills: [], technologies: [],
        benefits: [], recruiter_agency: false, meta_completeness: false, date_posted: '2026-11-01', job_board: onEdge(n) ? 'Edge' : 'TestBoard', expired: false,
        first_seen_at: new Date(), last_seen_at: new Date(),
      }
    })
    const inserted = await insertJobs(sql, batch)
    const vectors = inserted.map((_, k) => randomVector((start + k) % 4 === 0 ? SIDE : -SIDE))
    await sql`
      update jobs j set embedding = v.embedding::vector, embedding_model = ${model}
      from unnest(${inserted.map((r) => r.id)}::bigint[], ${vectors.map((v) => toSql(v))}::text[]) as v(id, embedding)
      where j.id = v.id`
    inserted.forEach((r, k) => rows.push({ id: r.id, vector: vectors[k], sales: (start + k) % 4 !== 0, intern: (start + k) % 100 === 1, edge: onEdge(start + k) }))
  }
  // the rule reads the planner's estimates
  await sql`analyze jobs, companies`
  Object.assign(t.context, { db, rows, model })
})
test.after.always(async (t) => {
  await t.context?.db?.close()
})

const sales: SearchFilters = { categories: ['Sales Jobs'] }
const legal: SearchFilters = { categories: ['Legal Jobs'] }
const seniors: SearchFilters = { experience: ['Senior'] }
const interns: SearchFilters = { jobTypes: ['Internship'] }
const edge: SearchFilters = { jobBoards: ['Edge'] }
const none: SearchFilters = {}
const filterCases: [name: string, filters: SearchFilters, pool: (r: Row) => boolean][] = [
  ['no filter', none, () => true],
  ['sales (three in four)', sales, (r) => r.sales],
  ['legal (one in four)', legal, (r) => !r.sales],
  ['senior (the legal jobs)', seniors, (r) => !r.sales],
  ['internships (one in a hundred)', interns, (r) => r.intern],
  ['the Edge board (the legal jobs and one sales job in twenty)', edge, (r) => r.edge],
]

/** The exact nearest neighbours within the pool, by brute force: ids and similarities, nearest first. */
function exact(rows: Row[], q: number[], k: number) {
  return rows
    .map((r) => ({ id: r.id, similarity: cosine(q, r.vector) }))
    .sort((a, b) => b.similarity - a.similarity)
    .slice(0, k)
}

const recall = (found: string[], truth: string[]) => (truth.length ? found.filter((id) => truth.includes(id)).length / truth.length : 1)
const slice = (k: number) => ({ offset: 0, limit: k, raw: false })

async function search(t: { context: { db: TestDb; model: number } }, vector: number[], filters: SearchFilters, k: number, extra: Partial<VectorQuery> = {}) {
  return vectorSearch(t.context.db.sql, { vector, model: t.context.model, accuracy: 'medium', ...extra }, filters, k, slice(k))
}

/**
 * What every plan promises: each result passes the filters, carries its exact
 * similarity, and comes in similarity order. Returns the recall against brute force.
 */
function checkResult(t: { true: (v: boolean, m?: string) => void }, rows: Row[], pool: (r: Row) => boolean, q: number[], jobs: { _id: string; score: number }[], k: number, what: string) {
  const byId = new Map(rows.map((r) => [r.id, r]))
  for (const job of jobs) {
    const row = byId.get(job._id)
    t.true(row !== undefined && pool(row), `${what}: ${job._id} passes the filter`)
    t.true(row !== undefined && Math.abs(job.score - cosine(q, row.vector)) < 1e-5, `${what}: ${job._id} has its exact similarity`)
  }
  t.true(jobs.every((j, i) => i === 0 || j.score <= jobs[i - 1].score), `${what}: similarity order`)
  return recall(jobs.map((j) => j._id), exact(rows.filter(pool), q, k).map((e) => e.id))
}

test.serial('each plan, forced, returns nearest jobs within the filters: filtered, with exact similarities, in order', async (t) => {
  const { rows } = t.context
  const k = 10
  for (const plan of ['index', 'batch', 'scan', 'categories'] as VectorPlan[]) {
    for (const [name, filters, pool] of filterCases) {
      // the categories' graphs serve a filter on categories; without one, the graph of every job does
      if (plan === 'categories' && !filters.categories) continue
      for (const [side, make] of [['among the sales jobs', nearSales], ['among the legal jobs', nearLegal]] as const) {
        let sum = 0
        for (let i = 0; i < 4; i++) {
          const q = make()
          const result = await search(t, q, filters, k, { plan })
          t.deepEqual(result.plans, [plan])
          const r = checkResult(t, rows, pool, q, result.jobs, k, `${plan}, ${name}, ${side}`)
          sum += r
          const full = Math.min(k, rows.filter(pool).length)
          // a batch keeps what its ef_search candidates hold: for a rare filter, or one whose jobs lie away from the query, short
          if (plan !== 'batch') t.is(result.jobs.length, full, `${plan}, ${name}, ${side}: full`)
          else if (name === 'no filter') t.is(result.jobs.length, full, `batch, ${name}: full`)
          else if (name.startsWith('internships')) t.true(result.jobs.length < full, 'batch, internships: short')
        }
        const mean = sum / 4
        t.log(`${plan}, ${name}, ${side}: recall@10 ${mean}`)
        // the index and the batch where they serve: the filter's jobs around the query
        const served = plan === 'scan' || plan === 'categories' || name === 'no filter' || (name.startsWith('sales') && side === 'among the sales jobs')
        if (served) t.true(mean >= 0.9, `${plan}, ${name}, ${side}: recall@10 ${mean}`)
      }
    }
  }
})

test.serial('a scan of at most SCAN_DIRECT matches is exact: the same jobs, order and similarities as brute force', async (t) => {
  const { rows } = t.context
  for (const [filters, pool] of [[legal, (r: Row) => !r.sales], [interns, (r: Row) => r.intern]] as const) {
    const q = nearSales()
    const result = await search(t, q, filters, 50, { plan: 'scan' })
    const truth = exact(rows.filter(pool), q, 50)
    t.deepEqual(result.jobs.map((j) => j._id), truth.map((e) => e.id))
    result.jobs.forEach((j, i) => t.true(Math.abs(j.score - truth[i].similarity) < 1e-5))
  }
})

test.serial('past SCAN_DIRECT matches the scan ranks by the signs and re-ranks by exact distance: near-exact', async (t) => {
  const { rows } = t.context
  t.true(rows.filter((r) => r.sales).length > SCAN_DIRECT, 'the sales filter is past SCAN_DIRECT')
  let sum = 0
  for (let i = 0; i < 10; i++) {
    const q = i % 2 ? nearLegal() : nearSales()
    const result = await search(t, q, sales, 10, { plan: 'scan' })
    t.is(result.jobs.length, 10)
    sum += checkResult(t, rows, (r) => r.sales, q, result.jobs, 10, 'scan by signs')
  }
  t.true(sum / 10 >= 0.9, `recall@10 ${sum / 10}`)
})

test.serial('the rule: the scan for few matches; past them a batch, kept when full, the index after it when short, the scan when empty', async (t) => {
  const { rows } = t.context
  const byId = rowById(rows)
  // a batch at medium accuracy holds ef_search candidates, exactly (no filter trims a batch of this small table's graph)
  const batchSize = EF_SEARCH.medium
  /** how many legal jobs the `n` nearest of a query hold (a medium batch's candidates, exactly, for batchSize) */
  const legalNearby = (q: number[], n: number = batchSize) => exact(rows, q, n).filter((e) => !byId.get(e.id)!.sales).length
  /** a query among the sales jobs whose batchSize nearest hold a few Edge jobs, fewer than 10 */
  const atTheEdge = () => {
    for (;;) {
      const q = nearSales()
      const n = exact(rows, q, batchSize).filter((e) => byId.get(e.id)!.edge).length
      if (n >= 3 && n <= 7) return q
    }
  }
  /** a query among the sales jobs with no Edge job among its `near` nearest and 12 or more among its 400 nearest */
  const sparseEdge = (near: number) => {
    for (let tries = 0; tries < 5_000; tries++) {
      const q = nearSales()
      if (exact(rows, q, near).every((e) => !byId.get(e.id)!.edge) && exact(rows, q, 400).filter((e) => byId.get(e.id)!.edge).length >= 12) return q
    }
    throw new Error(`no query with no Edge job among its ${near} nearest and 12 among its 400`)
  }
  // SCAN_DIRECT scaled to this table, to show what it does past 20,000 jobs
  const small: Partial<PlanRule> = { scanDirect: 200 }
  const cases: [what: string, vector: () => number[], filters: SearchFilters, accuracy: Accuracy, rule: Partial<PlanRule> | undefined, plans: VectorPlan[]][] = [
    // a batch of ef_search candidates (2 × 10 at a share of 1 are fewer), full
    ['no filter', nearSales, none, 'medium', undefined, ['batch']],
    ['no filter, low accuracy', nearSales, none, 'low', undefined, ['batch']],
    // at most SCAN_DIRECT matches: the scan, exact, categories or not
    ['legal', nearLegal, legal, 'medium', undefined, ['scan']],
    ['internships', nearSales, interns, 'medium', undefined, ['scan']],
    // past SCAN_DIRECT, a filter on categories: their graphs, wherever the query is
    ['sales, a query among them', nearSales, sales, 'medium', undefined, ['categories']],
    ['sales, a query among the legal jobs', nearLegal, sales, 'medium', undefined, ['categories']],
    ['legal, a query among the sales jobs, past a small scanDirect', nearSales, legal, 'medium', small, ['categories']],
    ['sales or legal, low accuracy', nearLegal, { categories: ['Sales Jobs', 'Legal Jobs'] }, 'low', undefined, ['categories']],
    // the graphs hold live jobs: with expired ones too, the graph of every job (a batch, full around sales jobs)
    ['sales, expired jobs too', nearSales, { categories: ['Sales Jobs'], includeExpired: true }, 'medium', undefined, ['batch']],
    // more categories than categoriesMax: as any other filter
    ['sales or legal, no graphs', nearLegal, { categories: ['Sales Jobs', 'Legal Jobs'] }, 'medium', { categoriesMax: 1 }, ['batch']],
    // past scanDirect: a batch of max(ef_search, 2 × 10 / 0.25) = ef_search candidates, full around senior jobs
    ['senior, a query among them', nearLegal, seniors, 'medium', small, ['batch']],
    // senior jobs are a quarter: 10 of them spread evenly among 40 candidates, twice over among 80 (low accuracy: ef_search 40);
    // a batchMax between the two still holds 10 of them, and the batch is tried with it; below 40, not at all
    ['senior, a query among them, a batchMax that holds 10 of them once', nearLegal, seniors, 'low', { ...small, batchMax: 60 }, ['batch']],
    ['senior, a query among them, a batchMax that cannot hold 10 of them', nearLegal, seniors, 'low', { ...small, batchMax: 30 }, ['scan']],
    // a few matches in it: the iterative index from there
    ['the Edge board, a query among sales jobs with a few Edge ones near', atTheEdge, edge, 'medium', small, ['batch', 'index']],
    // none among fewer than batchMax candidates (low accuracy: about 70, twice 10 at the Edge board's share of
    // 29 %): a batch of batchMax, which holds them where they are only sparse around the query ...
    ['the Edge board, a query with none among its 70 nearest, 12 among its 400', () => sparseEdge(70), edge, 'low', small, ['batch', 'batch']],
    // ... and none where they lie away from it: the scan ...
    ['senior, a query among the sales jobs', nearSales, seniors, 'medium', small, ['batch', 'batch', 'scan']],
    // ... or, past scanMax, the index
    ['senior, a query among the sales jobs, a small scanMax', nearSales, seniors, 'medium', { ...small, scanMax: 300 }, ['batch', 'batch', 'index']],
  ]
  for (const [what, vector, filters, accuracy, rule, plans] of cases) {
    const q = vector()
    if (rule?.scanDirect && vector === nearSales) t.is(legalNearby(q), 0, `${what}: the premise, no legal job among the ${batchSize} nearest`)
    if (rule?.scanDirect && vector === nearLegal) t.true(legalNearby(q) >= 10, `${what}: the premise, 10 legal jobs among the ${batchSize} nearest`)
    const result = await search(t, q, filters, 10, { accuracy, rule })
    t.deepEqual(result.plans, plans, what)
    const pool = filterCases.find(([, f]) => f === filters)?.[2] ?? ((r: Row) => filters.categories!.includes(r.sales ? 'Sales Jobs' : 'Legal Jobs'))
    const r = checkResult(t, rows, pool, q, result.jobs, 10, what)
    t.is(result.jobs.length, 10, what)
    // low accuracy trades recall for speed (vector-recall.test.ts measures it over many queries)
    if (accuracy !== 'low') t.true(r >= 0.9, `${what}: recall@10 ${r}`)
  }
  t.true(rowsPassing(rows, (r) => !r.sales) > 300, 'legal and senior jobs are past the small scanDirect and scanMax')
})

test.serial('every job category has a graph of its live jobs, and a search within one category walks it', async (t) => {
  const { db, model } = t.context
  const graphs = await db.sql<{ indexname: string; indexdef: string }[]>`
    select indexname, indexdef from pg_indexes where tablename = 'jobs' and indexdef like '%USING hnsw%' and indexdef like '%WHERE%'`
  for (const category of CATEGORY_GRAPHS) {
    const literal = `'{${/[ ,&]/.test(category) ? `"${category}"` : category}}'::text[]`
    t.true(graphs.some((g) => g.indexdef.includes(literal) && g.indexdef.includes('NOT expired')), `${category}: a partial HNSW index of its live jobs`)
  }
  t.is(graphs.length, CATEGORY_GRAPHS.size)
  const plan = await explainNearest(db.sql, { vector: nearLegal(), model, accuracy: 'medium' }, sales, 10)
  t.regex(plan, /Index Scan using jobs_embedding_sales_idx/)
})

const rowsPassing = (rows: Row[], pool: (r: Row) => boolean) => rows.filter(pool).length
const rowById = (rows: Row[]) => new Map(rows.map((r) => [r.id, r]))

test.serial('neural-search draws its vector list by the same rule: within the filter, nearest first', async (t) => {
  const { rows, model } = t.context
  for (const [filters, pool, plans] of [[legal, (r: Row) => !r.sales, ['scan']], [none, () => true, ['batch']]] as const) {
    const q = nearLegal()
    const result = await neuralSearch(t.context.db.sql, { vector: q, model, accuracy: 'medium' }, filters, { offset: 0, limit: 100, raw: false })
    t.deepEqual(result.plans, [...plans])
    t.is(result.ranking, 'vector')
    const ids = result.jobs.map((j) => j._id)
    const r = recall(ids, exact(rows.filter(pool), q, 100).map((e) => e.id))
    t.true(r >= 0.9, `recall@100 ${r}`)
    const byId = new Map(rows.map((row) => [row.id, row]))
    t.true(result.jobs.every((j) => pool(byId.get(j._id)!) && Math.abs(j.vector_score! - cosine(q, byId.get(j._id)!.vector)) < 1e-5))
  }
})

test.serial('the settings a plan changes are its own statement\'s: the transaction after it plans as before', async (t) => {
  // a pool of one connection: the next statement runs where the search ran
  const sql = connect(t.context.db.url, 1)
  try {
    await vectorSearch(sql, { vector: nearSales(), model: t.context.model, accuracy: 'medium' }, sales, 40, slice(40))
    const [after] = await sql<{ sort: string; indexscan: string; seqscan: string; iterative: string }[]>`
      select current_setting('enable_sort') as sort, current_setting('enable_indexscan') as indexscan, current_setting('enable_seqscan') as seqscan,
        current_setting('hnsw.iterative_scan') as iterative`
    t.like(after, { sort: 'on', indexscan: 'on', seqscan: 'on', iterative: 'off' })
  } finally {
    await sql.end({ timeout: 5 })
  }
})
