/**
 * Vector search over jobs.embedding (pgvector HNSW, cosine distance `<=>`, the
 * index's vector_cosine_ops): POST /v2/jobs/vsearch's nearest jobs, and
 * POST /v2/jobs/neural-search's ranking, which fuses the vector rank with the lexical
 * text rank by reciprocal rank fusion. docs/vector-search.md has the design.
 *
 * The filters are search's (whereClause), so every lexical filter narrows. How the
 * nearest jobs within them are found is chosen per query from how many jobs the
 * filters match (`locate`, docs/vector-search.md, Plans): the HNSW index scanned
 * iteratively (hnsw.iterative_scan = relaxed_order, pgvector 0.8: the scan goes on
 * until LIMIT rows pass the filters) where they match many; one HNSW batch, then a scan
 * of the matching jobs if the batch comes back short, in between; the scan alone where
 * they match few; and where they name a few job categories, each category's own graph
 * (a partial HNSW index, migration 0031). The scan ranks the matches by the Hamming
 * distance of their vectors' signs (jobs.embedding_bits, migration 0022, in the row)
 * and re-ranks the best few hundred by exact distance, so it never reads more than
 * those few hundred vectors from TOAST. The settings are set locally, so each search
 * runs in a transaction of its own.
 *
 * A query vector is compared only with vectors its model made (jobs.embedding_model).
 */
import { fromSql, toSql } from 'pgvector'
import categoryList from '../seeds/categories.json' with { type: 'json' }
import type { Db, Sql } from './db.ts'
import { jobRecord, type JobRecord } from './jobs.ts'
import { toTsquery, type TextQuery } from './query-syntax.ts'
import { estimateShare, jobsFor, pageIds, rankQuery, whereClause, type SearchFilters, type SearchPage } from './search.ts'
import { isUuid } from './ids.ts'

/** hnsw.ef_search per accuracy: the candidate list the graph search keeps; longer finds more true neighbours, slower. */
export const EF_SEARCH = { low: 40, medium: 200, high: 400 } as const
export type Accuracy = keyof typeof EF_SEARCH

/** Reciprocal rank fusion's k: a job's fused score is the sum of 1 / (RRF_K + rank) over the lists that hold it. */
export const RRF_K = 60
/**
 * How deep each of neural-search's ranked lists (vector, text) goes. The fused list
 * holds at most twice as many, which is as deep as neural-search pages (NEURAL_DEPTH).
 * The vector list's cost grows with its depth (500 took twice as long as 200 at 30,000
 * jobs: 35 ms against 15 ms), and fusion needs the top of each list, not its tail.
 */
export const NEURAL_WINDOW = 200
export const NEURAL_DEPTH = 2 * NEURAL_WINDOW

/**
 * How much the query's words in a job's title add to its cosine similarity in the
 * ranking: WORD_WEIGHT × the share of the words the title has. Measured on the judged
 * queries over real postings (docs/vector-search.md, Relevance): precision@10 rose
 * from 0.63 to 0.86 at 0.3, and changed little above it, where the words start to
 * outweigh the meaning.
 */
export const WORD_WEIGHT = 0.5
/**
 * vsearch's pool of candidates when words count: the nearest jobs and the best title
 * matches, this many of each at least. ef_search (100 at medium accuracy) bounds what
 * the HNSW scan visits whatever the LIMIT, so a deeper pool costs little.
 */
const WORD_CANDIDATES = 100
/** The query words that count; a longer query is a description, which its vector carries. */
const MAX_WORDS = 16

/** A query's words as the ranking counts them: letters and digits, each once, case aside. */
export function queryWords(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}+#]*/gu) ?? []
  return [...new Set(words)].slice(0, MAX_WORDS)
}

export type VectorQuery = {
  vector: number[]
  /** embedding_models.id of the model that made `vector`: only its vectors are compared */
  model: number
  /** the words of a query text that was embedded (queryWords): they count in the ranking when the job's title has them */
  words?: string[]
  accuracy: Accuracy
  /** jobs to leave out (vsearch search_type job: the job itself) */
  exclude?: string[]
  /** the lowest cosine similarity kept */
  minScore?: number | null
  /** one plan for every query, whatever the filters match (the tests' and the bench's comparisons); chosen by `locate` otherwise */
  plan?: VectorPlan
  /** other thresholds for the rule (the tests show each of its branches on a small table); PLAN_RULE otherwise */
  rule?: Partial<PlanRule>
}

export type Slice = { offset: number; limit: number; raw: boolean }

// --- plans ------------------------------------------------------------------------------

/**
 * How the nearest jobs within the filters are found:
 * - `batch`: one HNSW batch (ef_search candidates, no iteration), kept when `depth`
 *   of its jobs pass the filters;
 * - `index`: the HNSW index, scanned iteratively until the LIMIT's rows have passed
 *   the filters, inside the statement that ranks them;
 * - `scan`: every job that passes the filters, by exact distance when they are at
 *   most SCAN_DIRECT, otherwise ranked by the Hamming distance of its vector's signs
 *   and the best rerankDepth re-ranked by exact distance;
 * - `categories`: the graph of each job category the filters name (migration 0031),
 *   scanned iteratively until `depth` of its jobs have passed the other filters; the
 *   nearest of all the categories' are kept.
 */
export type VectorPlan = 'index' | 'batch' | 'scan' | 'categories'

/**
 * Filters the planner expects to match at most this many jobs go straight to the scan:
 * it reads just the matches, where an HNSW scan would visit many jobs for each one
 * that passes. A scan that finds at most this many computes every match's distance
 * exactly, whatever the signs say: reading 1,000 vectors from TOAST took about 7 ms
 * (100,000 jobs, a busy machine), against 3 ms for the 400 a shortlist reads.
 */
export const SCAN_DIRECT = 1_000
/**
 * The most matches a scan reads: it reads each one's row, so its cost grows with them.
 * A filter estimated to match more is left to the iterative index scan; a scan that
 * finds more (the estimate was low) stops and leaves the search to it too.
 */
export const SCAN_MAX = 15_000
/** The largest HNSW batch, and the iterative scan's candidate list under a filter whose matches lie away from the query: hnsw.ef_search as high accuracy sets it. */
export const BATCH_MAX = 400
/**
 * Under a filter, the iterative index scan goes on until this many rows past those
 * asked for have passed it, and the nearest of all by exact distance are kept: past
 * its first batch the scan finds matches only roughly in order, and stopping at the
 * first `depth` missed nearer ones (recall@10 of job queries 0.93 against 0.99 for two
 * job categories, 12.7 % of 100,000 jobs).
 */
export const INDEX_EXTRA = 30
/**
 * How many of the scan's best by Hamming distance are re-ranked by exact distance: at
 * least RERANK_MIN, and RERANK_PER per job asked for. 768 signs tell vectors apart less
 * finely than their cosines: over 100,000 generated postings a shortlist of 100 held
 * 92 % of the 10 nearest, one of 400 about 99 % (docs/vector-search.md, Plans).
 */
export const RERANK_MIN = 400
export const RERANK_PER = 4
const rerankDepth = (depth: number) => Math.max(RERANK_MIN, RERANK_PER * depth)

/** The job categories with a graph of their live jobs (migration 0031): the interface's list and Other. */
export const CATEGORY_GRAPHS: ReadonlySet<string> = new Set([...categoryList, 'Other'])
/**
 * The most categories whose graphs one search walks, one after another: each costs
 * about as much as a search without a filter (five categories, 29 % of the jobs: 14 ms
 * of SQL at 100,000 postings). A filter of more keeps a third of the jobs or more,
 * which the graph of every job serves.
 */
export const CATEGORIES_MAX = 5

/** The thresholds `locate` chooses by. */
export type PlanRule = { scanDirect: number; scanMax: number; batchMax: number; categoriesMax: number }
export const PLAN_RULE: PlanRule = { scanDirect: SCAN_DIRECT, scanMax: SCAN_MAX, batchMax: BATCH_MAX, categoriesMax: CATEGORIES_MAX }

/**
 * Sets the HNSW scan for the rest of the transaction. Each statement is planned for its
 * own values, without JIT, as every statement of the service is (sql/session-settings.ts):
 * a generic plan here is a sequential scan computing every job's distance.
 */
async function tuneScan(tx: Db, accuracy: Accuracy) {
  await tx`
    select set_config('hnsw.ef_search', ${String(EF_SEARCH[accuracy])}, true),
      set_config('hnsw.iterative_scan', 'relaxed_order', true)`
}

/**
 * Runs `statement` with the planner held to the HNSW index for the nearest jobs: with
 * sorts priced out, an ordered index scan is the only way to the LIMIT's nearest rows.
 * Left to itself, the planner reads a filter's matches and sorts them by distance when
 * it expects few, without counting the read of each one's vector from TOAST.
 */
async function throughIndex<T>(tx: Db, statement: () => Promise<T>) {
  await tx`select set_config('enable_sort', 'off', true)`
  try {
    return await statement()
  } finally {
    await tx`select set_config('enable_sort', 'on', true)`
  }
}

/**
 * Runs `statement` reading jobs through bitmap scans only: the filters' and text
 * terms' indexes (GIN above all) find the matches, and only their pages are read.
 * Left to itself, the planner often read every live job through a partial index on
 * `not expired` and tested each one, since it does not count what reading a row from
 * TOAST or from outside shared buffers costs (docs/vector-search.md, Plans).
 */
async function throughBitmaps<T>(tx: Db, statement: () => Promise<T>) {
  await tx`select set_config('enable_indexscan', 'off', true), set_config('enable_seqscan', 'off', true)`
  try {
    return await statement()
  } finally {
    await tx`select set_config('enable_indexscan', 'on', true), set_config('enable_seqscan', 'on', true)`
  }
}

/** Jobs that have a vector of the query's model (a vector implies its model: migration 0004), and are not left out. */
function comparable(db: Db, q: VectorQuery) {
  return db`j.embedding_model = ${q.model}
    ${q.exclude?.length ? db`and j.id <> all(${q.exclude}::bigint[])` : db``}`
}

const minScore = (db: Db, q: VectorQuery, score: ReturnType<Db>) =>
  q.minScore === undefined || q.minScore === null ? db`true` : db`${score} >= ${q.minScore}`

/**
 * The jobs the vector list is drawn from: found ahead (their ids), or by the iterative
 * index scan inside the ranking statement (ids null), with hnsw.ef_search `ef` and
 * `extra` rows read past `depth`.
 */
export type Located = { ids: string[] | null; plans: VectorPlan[]; ef?: number; extra?: number }

/**
 * Chooses the plan for the `depth` nearest jobs within the filters (docs/vector-search.md,
 * Plans) from the planner's estimates of the jobs the filters match (`matches`) and of
 * all the jobs searched (`all`):
 *
 * - matches ≤ SCAN_DIRECT: the scan, exact;
 * - a filter on at most CATEGORIES_MAX job categories, live jobs only: their graphs;
 * - otherwise, when BATCH_MAX candidates would hold `depth` matches were the matches
 *   spread evenly (depth × all / matches ≤ BATCH_MAX), an HNSW batch big enough to hold
 *   them twice over (2 × depth × all / matches candidates, at least ef_search, at most
 *   BATCH_MAX). Full: the matches are near the query, and the batch's order is the
 *   exact one. Some but fewer than `depth`: the matches are near, sparser; the
 *   iterative index scan, with BATCH_MAX candidates. None, from fewer than BATCH_MAX
 *   candidates: a batch of BATCH_MAX, read the same way;
 * - none of BATCH_MAX, or no batch: the matches lie away from the query (or are few
 *   against the jobs), where the graph's iterative scan reaches them late and only
 *   roughly: the scan up to SCAN_MAX matches, the iterative index scan with BATCH_MAX
 *   candidates past that.
 *
 * A scan that finds more than SCAN_MAX matches (the estimate was low) gives way to the
 * index. An index scan under a filter reads INDEX_EXTRA rows more.
 */
async function locate(tx: Db, q: VectorQuery, f: SearchFilters, depth: number): Promise<Located> {
  const rule = { ...PLAN_RULE, ...q.rule }
  const ef = EF_SEARCH[q.accuracy]
  if (q.plan === 'index') return { ids: null, plans: ['index'], ef, extra: INDEX_EXTRA }
  if (q.plan === 'batch') return { ids: await batch(tx, q, f, depth, rule.batchMax), plans: ['batch'] }
  if (q.plan === 'scan') return { ids: (await scan(tx, q, f, depth, Infinity, rule.scanDirect))!, plans: ['scan'] }
  const graphs = categoryCandidates(ef, f, rule)
  if (q.plan === 'categories') return { ids: await categoryGraphs(tx, q, f, depth, graphs), plans: ['categories'] }
  const { matches, all } = await estimateMatches(tx, q, f)
  // without a filter that narrows (the two estimates alike), the index's own order stands
  const extra = matches < 0.95 * all ? INDEX_EXTRA : 0
  const plans: VectorPlan[] = []
  const categories = f.categories ?? []
  const graphed = !f.includeExpired && categories.length > 0 && categories.length <= rule.categoriesMax && categories.every((c) => CATEGORY_GRAPHS.has(c))
  if (matches > rule.scanDirect && graphed) {
    return { ids: await categoryGraphs(tx, q, f, depth, graphs), plans: ['categories'] }
  }
  // the candidates that hold `depth` matches were the matches spread evenly among the jobs
  const spread = (depth * all) / matches
  if (matches > rule.scanDirect && spread <= rule.batchMax) {
    const size = Math.min(rule.batchMax, Math.max(ef, Math.ceil(2 * spread)))
    let found = await batch(tx, q, f, depth, size)
    plans.push('batch')
    // none among fewer than BATCH_MAX candidates: BATCH_MAX of them tell matches that
    // are only sparse around the query from matches that lie away from it
    if (found.length === 0 && size < rule.batchMax) {
      found = await batch(tx, q, f, depth, rule.batchMax)
      plans.push('batch')
    }
    if (found.length >= depth) return { ids: found, plans }
    if (found.length > 0) return { ids: null, plans: [...plans, 'index'], ef: Math.max(ef, rule.batchMax), extra }
  }
  if (matches <= rule.scanMax) {
    const found = await scan(tx, q, f, depth, rule.scanMax, rule.scanDirect)
    plans.push('scan')
    if (found) return { ids: found, plans }
  }
  return { ids: null, plans: [...plans, 'index'], ef: Math.max(ef, rule.batchMax), extra }
}

/**
 * The planner's estimates of the jobs that pass the filters and of all the jobs
 * searched, each with a vector of the query's model (sql/search.ts): no row is read.
 */
const estimateMatches = (tx: Db, q: VectorQuery, f: SearchFilters) => estimateShare(tx, f, whereClause(tx, f), comparable(tx, q))

/**
 * The ids of up to `depth` nearest jobs within the filters from one HNSW batch of
 * `size` candidates (at least ef_search and `depth`): those of them that pass the filters.
 */
async function batch(tx: Db, q: VectorQuery, f: SearchFilters, depth: number, size: number) {
  const ef = String(Math.max(EF_SEARCH[q.accuracy], depth, size))
  await tx`select set_config('hnsw.ef_search', ${ef}, true), set_config('hnsw.iterative_scan', 'off', true)`
  const rows = await throughIndex(tx, () => tx<{ id: string }[]>`select id::text from (${indexNearest(tx, q, f, depth)}) n`)
  await tx`select set_config('hnsw.ef_search', ${String(EF_SEARCH[q.accuracy])}, true), set_config('hnsw.iterative_scan', 'relaxed_order', true)`
  return rows.map((r) => r.id)
}

/**
 * The candidate list of each category's graph: BATCH_MAX for one or two categories, as
 * the iterative scan keeps under a filter; past two, the nearest jobs are shared among
 * the graphs and each needs a shorter list (two categories at 100,000 postings: recall@10
 * 0.959 with 200, 0.985 with 400; five: 0.981 with 200, 0.991 with 400, for 10 against
 * 14 ms). Never fewer than the accuracy's ef_search.
 */
const categoryCandidates = (ef: number, f: SearchFilters, rule: PlanRule) =>
  Math.max(ef, Math.ceil(rule.batchMax * Math.min(1, 2 / Math.max(1, f.categories?.length ?? 1))))

/**
 * The ids of the `depth` nearest jobs within the filters, found in the graph of each job
 * category they name (a partial HNSW index of its live jobs, migration 0031) with `ef`
 * candidates: the graph's iterative scan goes on until `depth` of its jobs have passed
 * the other filters. A job in two of the categories counts once, at its distance. Where the
 * filters name no category, or take expired jobs too, the graph of every job serves.
 */
async function categoryGraphs(tx: Db, q: VectorQuery, f: SearchFilters, depth: number, ef: number) {
  await tx`select set_config('hnsw.ef_search', ${String(ef)}, true)`
  // each category's own query, so that the planner proves its index's predicate from it
  const each = (f.categories?.length ? f.categories : [null]).map((c) => tx`(${indexNearest(tx, q, c ? { ...f, categories: [c] } : f, depth)})`)
  const rows = await throughIndex(tx, () => tx<{ id: string }[]>`
    select id::text from (${each.reduce((acc, branch) => tx`${acc} union all ${branch}`)}) nearest
    group by id
    order by min(distance), id
    limit ${depth}`)
  await tx`select set_config('hnsw.ef_search', ${String(EF_SEARCH[q.accuracy])}, true)`
  return rows.map((r) => r.id)
}

/**
 * The ids of the jobs within the filters that are nearest by the Hamming distance of
 * their vectors' signs (`<~>`): rerankDepth(depth) of them, which the ranking
 * statement orders by exact distance; all of them when there are at most `exactUpTo`
 * (SCAN_DIRECT), so that the ranking is exact. Reads at most `cap` + 1 matches; null
 * when there are more.
 */
async function scan(tx: Db, q: VectorQuery, f: SearchFilters, depth: number, cap: number, exactUpTo: number) {
  const bits = tx`binary_quantize(${toSql(q.vector)}::vector)`
  // the matches are counted apart and the LIMIT computed from the count, so the sort
  // keeps only the best rerankDepth (a bounded sort) rather than ordering every match
  const rows = await throughBitmaps(tx, () => tx<{ id: string; matches: number }[]>`
    with matched as materialized (
      select j.id, j.embedding_bits <~> ${bits} as hamming
      from ${jobsFor(tx, f)}
      where ${whereClause(tx, f)} and ${comparable(tx, q)}
      ${Number.isFinite(cap) ? tx`limit ${cap + 1}` : tx``}
    ), counted as (
      select count(*)::int as matches from matched
    )
    select m.id::text, counted.matches
    from matched m cross join counted
    order by m.hamming, m.id
    limit (select case when matches <= ${exactUpTo} then null else ${rerankDepth(depth)}::int end from counted)`)
  return rows.length > 0 && rows[0].matches > cap ? null : rows.map((r) => r.id)
}

/**
 * The `depth` nearest jobs that pass the filters, nearest first, as a CTE body of (id,
 * company_id, distance): the ORDER BY on the distance alone with a LIMIT is what lets
 * the HNSW index serve it. With `extra`, the scan reads that many rows more and the
 * nearest `depth` of all by exact distance are kept.
 */
function indexNearest(db: Db, q: VectorQuery, f: SearchFilters, depth: number, extra = 0) {
  const scanned = db`
    select j.id, j.company_id, j.embedding <=> ${toSql(q.vector)}::vector as distance
    from jobs j join companies c on c.id = j.company_id
    where ${whereClause(db, f)} and ${comparable(db, q)}
    order by distance
    limit ${depth + extra}`
  return extra > 0 ? db`select * from (${scanned}) scanned order by distance, id limit ${depth}` : scanned
}

/**
 * The `depth` nearest jobs as a CTE body of (id, company_id, distance): through the
 * index (`found.ids` null), or among the jobs found ahead, their distances computed
 * exactly. OFFSET 0 keeps the ORDER BY out of the inner query, so the planner computes
 * the distance of these rows rather than walking the graph for them.
 */
function nearest(db: Db, q: VectorQuery, f: SearchFilters, depth: number, found: Located) {
  if (!found.ids) return indexNearest(db, q, f, depth, found.extra)
  return db`
    select * from (
      select j.id, j.company_id, j.embedding <=> ${toSql(q.vector)}::vector as distance
      from jobs j
      where j.id = any(${found.ids}::bigint[]) and ${comparable(db, q)}
      offset 0
    ) found
    order by distance, id
    limit ${depth}`
}

/** Runs the statement that ranks the vector list: held to the index, with the plan's ef_search, when the index finds the list inside it. */
async function ranking<T>(tx: Db, found: Located, statement: () => Promise<T>) {
  if (found.ids) return statement()
  if (found.ef) await tx`select set_config('hnsw.ef_search', ${String(found.ef)}, true)`
  return throughIndex(tx, statement)
}

// --- ranking ----------------------------------------------------------------------------

/**
 * The `depth` best candidates for a query vector, best first, as a CTE body of (id,
 * company_id, distance, title_share). Without query words, the nearest jobs, and
 * title_share is 0. With words, the nearest jobs and the `depth` jobs whose titles
 * have the most of the words (the GIN index on title_tsv finds them, so a job the
 * vector alone ranks low is still a candidate), ranked by cosine similarity plus
 * WORD_WEIGHT × the share of the query's words (english stems, stop words left out)
 * that the title has.
 */
function candidates(db: Db, q: VectorQuery, f: SearchFilters, depth: number, found: Located) {
  if (!q.words?.length) return db`select n.*, 0::float8 as title_share from (${nearest(db, q, f, depth, found)}) n`
  const any = toTsquery(db, { expressions: q.words.map((w) => ({ include: [{ phrase: false, text: w }], exclude: [] })), exclude: [] }).include!
  return db`
    with words as materialized (${wordWeights(db, q.words)})
    select * from (
      select c.id, c.company_id, c.distance,
        coalesce((select sum(w.weight) filter (where j.title_tsv @@ w.q) / nullif(sum(w.weight), 0) from words w), 0) as title_share
      from (
        (${nearest(db, q, f, depth, found)})
        union
        (select j.id, j.company_id, j.embedding <=> ${toSql(q.vector)}::vector as distance
          from jobs j join companies c on c.id = j.company_id
          where ${whereClause(db, f)} and ${comparable(db, q)} and j.title_tsv @@ ${any}
          order by ts_rank(j.title_tsv, ${any}) desc, j.id desc
          limit ${depth})
      ) c
      join jobs j on j.id = c.id
    ) ranked
    order by (1 - distance) + ${WORD_WEIGHT} * title_share desc, distance, id
    limit ${depth}`
}

/**
 * Each query word's tsquery and its weight: -ln of the share of titles that have it, as
 * Postgres's statistics of title_tsv know it (pg_stats' most common elements; a word
 * they do not list is rarer than those, and takes their lowest frequency), so that
 * "hr" counts for more than "manager" in "hr manager". Words Postgres drops (stop words)
 * are left out. Without statistics (a table never analyzed) every word weighs alike.
 */
function wordWeights(db: Db, words: string[]) {
  return db`
    with stats as (
      select most_common_elems::text::text[] as elems, most_common_elem_freqs as freqs
      from pg_stats where schemaname = current_schema() and tablename = 'jobs' and attname = 'title_tsv'
    ),
    word as (
      select plainto_tsquery('english', w) as q, tsvector_to_array(to_tsvector('english', w)) as lexemes
      from unnest(${words}::text[]) w
      where numnode(plainto_tsquery('english', w)) > 0
    )
    select word.q, -ln(greatest(least(coalesce(
        (select max(s.freqs[array_position(s.elems, l)]) from stats s, unnest(word.lexemes) l),
        (select s.freqs[array_length(s.elems, 1) + 1] from stats s),
        0.01), 0.999999), 0.000001)) as weight
    from word`
}

/** The records of `rows`, in their order, each with the row's own fields (scores, ranks) added. */
async function records<T extends { id: string }>(db: Db, rows: T[], opts: { raw: boolean; neural?: boolean }) {
  if (rows.length === 0) return []
  const found = await db<JobRecord[]>`
    select ${jobRecord(db, opts)}
    from jobs j join companies c on c.id = j.company_id
    where j.id = any(${rows.map((r) => r.id)}::bigint[])`
  const byId = new Map(found.map((r) => [r._id, r]))
  return rows.flatMap(({ id, ...extra }) => {
    const record = byId.get(id)
    return record ? [{ ...record, ...extra }] : []
  })
}

/** The plan of the index plan's nearest-jobs query, for the tests' check that the HNSW index serves it. */
export async function explainNearest(sql: Sql, q: VectorQuery, f: SearchFilters, depth: number) {
  return sql.begin(async (tx) => {
    await tuneScan(tx, q.accuracy)
    const rows = await throughIndex(tx, () => tx<{ 'QUERY PLAN': string }[]>`explain ${indexNearest(tx, q, f, depth)}`)
    return rows.map((r) => r['QUERY PLAN']).join('\n')
  })
}

/**
 * `nearest` counts the jobs the vector list held before minScore: none means no job
 * within the filters has a vector of the query's model, which the caller may want to
 * explain. `plans` are the plans tried, the last one serving (`locate`).
 */
export type VectorSearchResult = { jobs: (JobRecord & { score: number })[]; total: number; companies: number; nearest: number; plans: VectorPlan[] }

/**
 * POST /v2/jobs/vsearch: the topK nearest jobs that pass the filters and reach
 * minScore are the result set (total, companies); the slice of it is returned.
 */
export async function vectorSearch(sql: Sql, q: VectorQuery, f: SearchFilters, topK: number, s: Slice): Promise<VectorSearchResult> {
  return sql.begin(async (tx) => {
    await tuneScan(tx, q.accuracy)
    // with words, a deeper pool: a job the words lift may lie past the topK nearest
    const depth = q.words?.length ? Math.max(topK, WORD_CANDIDATES) : topK
    const found = await locate(tx, q, f, depth)
    const hits = await ranking(tx, found, () => tx<{ id: string; company_id: string; score: number }[]>`
      with ranked as materialized (${candidates(tx, q, f, depth, found)})
      select id::text, company_id::text, 1 - distance as score
      from ranked
      order by (1 - distance) + ${WORD_WEIGHT} * title_share desc, distance, id
      limit ${topK}`)
    const kept = q.minScore === undefined || q.minScore === null ? hits : hits.filter((h) => h.score >= q.minScore!)
    const jobs = await records(
      tx,
      kept.slice(s.offset, s.offset + s.limit).map(({ id, score }) => ({ id, score })),
      { raw: s.raw },
    )
    return { jobs, total: kept.length, companies: new Set(kept.map((h) => h.company_id)).size, nearest: hits.length, plans: found.plans }
  })
}

/** How a neural-search result was ranked; null where the job is not in that list. */
export type NeuralRank = {
  id: string
  vector_score: number | null
  vector_rank: number | null
  text_score: number | null
  text_rank: number | null
  fused_score: number | null
}

/** `nearest` as in VectorSearchResult: the length of the vector list before score_threshold; `plans` the vector list's. */
export type NeuralSearchResult = {
  jobs: (JobRecord & Omit<NeuralRank, 'id'>)[]
  total: number
  ranking: 'rrf' | 'vector'
  nearest: number
  plans: VectorPlan[]
}

/** The text terms' exclusions alone: on the vector side they filter, and nothing ranks. */
const exclusionsOnly = (t: TextQuery | null | undefined): TextQuery | null => (t?.exclude.length ? { expressions: [], exclude: t.exclude } : null)

/**
 * POST /v2/jobs/neural-search with a query vector. With text terms (job_titles or
 * keywords that include something), reciprocal rank fusion: the NEURAL_WINDOW nearest
 * jobs within the lexical filters (text exclusions included, text terms not) and the
 * NEURAL_WINDOW best text matches (searchJobs' relevance order: ts_rank, then
 * recency, then id) are joined, and each job scores the sum of 1 / (RRF_K + rank) over
 * the lists that hold it. Every fused job also gets its vector_score, so minScore
 * applies to all of them. Without text terms, the nearest jobs within the filters, in
 * similarity order.
 */
export async function neuralSearch(sql: Sql, q: VectorQuery, f: SearchFilters, s: Slice): Promise<NeuralSearchResult> {
  const rank = rankQuery(sql, f)
  const vectorFilters = { ...f, titles: exclusionsOnly(f.titles), keywords: exclusionsOnly(f.keywords) }
  // The text matches need none of the vector scan's settings: a connection of their own
  // reads them while a transaction finds the nearest jobs (the two take about as long
  // as each other where the text is a common word). That transaction ends before they
  // are awaited: the embedded database runs one transaction at a time, for every
  // connection, so waiting inside it for another connection would wait forever.
  // Without text, one transaction does it all.
  const reading = rank ? textMatches(sql, f) : null
  reading?.catch(() => {}) // a failure is thrown where it is awaited, not reported as unhandled before
  const located = reading
    ? await sql.begin(async (tx) => {
        await tuneScan(tx, q.accuracy)
        return locate(tx, q, vectorFilters, NEURAL_WINDOW)
      })
    : null
  const text = await reading
  return sql.begin(async (tx) => {
    await tuneScan(tx, q.accuracy)
    const found = located ?? (await locate(tx, q, vectorFilters, NEURAL_WINDOW))
    const rows = await ranking(tx, found, () => (text ? fusedRanking(tx, q, vectorFilters, found, text) : vectorRanking(tx, q, vectorFilters, found)))
    const ranked = rows.map(({ nearest: _, ...r }) => r)
    const jobs = await records(tx, ranked.slice(s.offset, s.offset + s.limit), { raw: s.raw, neural: true })
    return { jobs, total: ranked.length, ranking: rank ? 'rrf' : 'vector', nearest: rows[0]?.nearest ?? 0, plans: found.plans }
  })
}

/** A ranking's rows, each with the length of the vector list (the same on every row). */
type RankRow = NeuralRank & { nearest: number }

/** The order of the vector list: similarity, plus the query's words in the title (candidates). */
const vectorOrder = (tx: Db) => tx`(1 - distance) + ${WORD_WEIGHT} * title_share desc, distance, id`

function vectorRanking(tx: Db, q: VectorQuery, f: SearchFilters, found: Located) {
  return tx<RankRow[]>`
    with nearest as materialized (${candidates(tx, q, f, NEURAL_WINDOW, found)})
    select id::text, 1 - distance as vector_score, (row_number() over (order by ${vectorOrder(tx)}))::int as vector_rank,
      null::float8 as text_score, null::int as text_rank, null::float8 as fused_score, (select count(*) from nearest)::int as nearest
    from nearest
    where ${minScore(tx, q, tx`1 - distance`)}
    order by ${vectorOrder(tx)}`
}

type TextMatches = { ids: string[]; scores: number[] }

/**
 * The NEURAL_WINDOW best text matches, best first: the first page of the same search
 * sorted by relevance (sql/search.ts, pageIds), in a statement of its own. Its newest
 * matches are a search by date with a LIMIT, which the planner serves by the number of
 * matches it expects: a common word newest first through the date index ("support",
 * 40,000 matches of 100,000 postings: 39 ms), a rare one through its GIN index. Held to
 * bitmap scans as it was, a common word read every match's row (130 ms); left to choose
 * without the LIMIT, the planner had read every live job and its TOASTed keyword vector
 * (0.6–1.3 s, docs/vector-search.md).
 */
async function textMatches(db: Db, f: SearchFilters): Promise<TextMatches> {
  const page: SearchPage = { page: 1, limit: NEURAL_WINDOW, sortBy: 'relevance', sortOrder: null, raw: false }
  const { ids } = await pageIds(db, f, page, whereClause(db, f))
  const rows = await db<{ id: string; score: number }[]>`select id::text, score from (${ids}) page order by ord`
  return { ids: rows.map((r) => r.id), scores: rows.map((r) => r.score) }
}

/** The ranking of reciprocal rank fusion, in one statement over the vector list and the text matches. */
function fusedRanking(tx: Db, q: VectorQuery, vectorFilters: SearchFilters, found: Located, text: TextMatches) {
  // a text match's similarity, read only for the matches the vector list lacks, and
  // only where the job has a vector of the query's model
  const distance = tx`case when e.embedding_model = ${q.model} then e.embedding <=> ${toSql(q.vector)}::vector end`
  return tx<RankRow[]>`
    with nearest as materialized (${candidates(tx, q, vectorFilters, NEURAL_WINDOW, found)}),
    vector_ranked as (
      select id, distance, row_number() over (order by ${vectorOrder(tx)}) as vector_rank
      from nearest
    ),
    text_ranked as (
      select t.id, t.text_score, t.text_rank
      from unnest(${text.ids}::bigint[], ${text.scores}::float8[]) with ordinality as t(id, text_score, text_rank)
    ),
    fused as (
      select coalesce(v.id, t.id) as id,
        1 - coalesce(v.distance, (select ${distance} from jobs e where e.id = t.id)) as vector_score,
        v.vector_rank, t.text_score, t.text_rank,
        coalesce(1.0 / (${RRF_K}::int + v.vector_rank), 0) + coalesce(1.0 / (${RRF_K}::int + t.text_rank), 0) as fused_score
      from vector_ranked v full outer join text_ranked t on t.id = v.id
    )
    select id::text, vector_score, vector_rank::int, text_score, text_rank::int, fused_score::float8,
      (select count(*) from nearest)::int as nearest
    from fused
    where ${minScore(tx, q, tx`vector_score`)}
    order by fused_score desc, vector_rank nulls last, text_rank nulls last, id desc`
}

// --- the stored vectors that queries start from ------------------------------------------

export type StoredVector = { id: string; embedding: number[] | null; model: number | null }

/** The vectors of these jobs (live or expired); a job without one has embedding null, a vector of an unknown model model null. */
export async function findJobVectors(db: Db, ids: string[]): Promise<StoredVector[]> {
  const valid = ids.filter((id) => /^\d{1,18}$/.test(id))
  if (valid.length === 0) return []
  const rows = await db<{ id: string; embedding: string | null; model: number | null }[]>`
    select id::text, embedding::text, embedding_model as model from jobs where id = any(${valid}::bigint[])`
  return rows.map((r) => ({ ...r, embedding: r.embedding === null ? null : (fromSql(r.embedding) as number[]) }))
}


/** A resume's vector, when the resume belongs to the account: another account's is as unknown as a missing one. */
export async function findResumeVector(
  db: Db, accountId: string, resumeId: string,
): Promise<(StoredVector & { status: string; parse_error: string | null }) | null> {
  if (!isUuid(resumeId)) return null
  const [row] = await db<{ id: string; embedding: string | null; model: number | null; status: string; parse_error: string | null }[]>`
    select id::text, embedding::text, embedding_model as model, status, parse_error
    from resumes where id = ${resumeId} and account_id = ${accountId}`
  return row ? { ...row, embedding: row.embedding === null ? null : (fromSql(row.embedding) as number[]) } : null
}
