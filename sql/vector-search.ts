/**
 * Vector search over jobs.embedding (pgvector HNSW, cosine distance `<=>`, the
 * index's vector_cosine_ops): POST /v2/jobs/vsearch's nearest jobs, and
 * POST /v2/jobs/neural-search's ranking, which fuses the vector rank with the lexical
 * text rank by reciprocal rank fusion in one statement. docs/vector-search.md has the
 * design.
 *
 * The filters are search's (whereClause), so every lexical filter narrows. A filtered
 * HNSW scan alone stops after ef_search candidates and, when the filters reject most
 * of them, returns fewer rows than asked for; hnsw.iterative_scan = relaxed_order
 * (pgvector 0.8) lets the scan go on until LIMIT rows pass the filters (or
 * hnsw.max_scan_tuples are visited), and a materialized CTE puts what it found back in
 * exact distance order. Both settings are set locally, so each search runs in a
 * transaction of its own.
 *
 * A query vector is compared only with vectors its model made (jobs.embedding_model).
 */
import { fromSql, toSql } from 'pgvector'
import type { Db, Sql } from './db.ts'
import { jobRecord, type JobRecord } from './jobs.ts'
import { toTsquery, type TextQuery } from './query-syntax.ts'
import { orderBy, rankQuery, whereClause, type SearchFilters } from './search.ts'

/** hnsw.ef_search per accuracy: the candidate list the graph search keeps; longer finds more true neighbours, slower. */
export const EF_SEARCH = { low: 40, medium: 100, high: 400 } as const
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
}

export type Slice = { offset: number; limit: number; raw: boolean }

/**
 * Sets the HNSW scan for the rest of the transaction, and plans each statement for its
 * own values: postgres.js prepares statements, and after five runs Postgres may reuse
 * a generic plan made without knowing the filters' values, which for these queries is
 * a sequential scan computing every job's distance (a filter that keeps 95% of the
 * jobs: 100 ms at 30,000 jobs instead of 5 ms through the index).
 */
async function tuneScan(tx: Db, accuracy: Accuracy) {
  await tx`
    select set_config('hnsw.ef_search', ${String(EF_SEARCH[accuracy])}, true),
      set_config('hnsw.iterative_scan', 'relaxed_order', true),
      set_config('plan_cache_mode', 'force_custom_plan', true)`
}

/** Jobs that have a vector of the query's model (a vector implies its model: migration 0004), and are not left out. */
function comparable(db: Db, q: VectorQuery) {
  return db`j.embedding_model = ${q.model}
    ${q.exclude?.length ? db`and j.id <> all(${q.exclude}::bigint[])` : db``}`
}

const minScore = (db: Db, q: VectorQuery, score: ReturnType<Db>) =>
  q.minScore === undefined || q.minScore === null ? db`true` : db`${score} >= ${q.minScore}`

/**
 * The `depth` nearest jobs that pass the filters, nearest first, as a CTE body: the
 * ORDER BY on the distance alone with a LIMIT is what lets the HNSW index serve it.
 */
function nearest(db: Db, q: VectorQuery, f: SearchFilters, depth: number) {
  return db`
    select j.id, j.company_id, j.embedding <=> ${toSql(q.vector)}::vector as distance
    from jobs j join companies c on c.id = j.company_id
    where ${whereClause(db, f)} and ${comparable(db, q)}
    order by distance
    limit ${depth}`
}

/**
 * The `depth` best candidates for a query vector, best first, as a CTE body of (id,
 * company_id, distance, title_share). Without query words, the nearest jobs, and
 * title_share is 0. With words, the nearest jobs and the `depth` jobs whose titles
 * have the most of the words (the GIN index on title_tsv finds them, so a job the
 * vector alone ranks low is still a candidate), ranked by cosine similarity plus
 * WORD_WEIGHT × the share of the query's words (english stems, stop words left out)
 * that the title has.
 */
function candidates(db: Db, q: VectorQuery, f: SearchFilters, depth: number) {
  if (!q.words?.length) return db`select n.*, 0::float8 as title_share from (${nearest(db, q, f, depth)}) n`
  const any = toTsquery(db, { expressions: q.words.map((w) => ({ include: [{ phrase: false, text: w }], exclude: [] })), exclude: [] }).include!
  return db`
    with words as materialized (${wordWeights(db, q.words)})
    select * from (
      select c.id, c.company_id, c.distance,
        coalesce((select sum(w.weight) filter (where j.title_tsv @@ w.q) / nullif(sum(w.weight), 0) from words w), 0) as title_share
      from (
        (${nearest(db, q, f, depth)})
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

/** The plan of vsearch's nearest-jobs query, for the bench's and tests' check that the HNSW index serves it. */
export async function explainNearest(sql: Sql, q: VectorQuery, f: SearchFilters, depth: number) {
  return sql.begin(async (tx) => {
    await tuneScan(tx, q.accuracy)
    const rows = await tx<{ 'QUERY PLAN': string }[]>`explain ${nearest(tx, q, f, depth)}`
    return rows.map((r) => r['QUERY PLAN']).join('\n')
  })
}

/**
 * `nearest` counts the jobs the vector list held before minScore: none means no job
 * within the filters has a vector of the query's model, which the caller may want to
 * explain.
 */
export type VectorSearchResult = { jobs: (JobRecord & { score: number })[]; total: number; companies: number; nearest: number }

/**
 * POST /v2/jobs/vsearch: the topK nearest jobs that pass the filters and reach
 * minScore are the result set (total, companies); the slice of it is returned.
 */
export async function vectorSearch(sql: Sql, q: VectorQuery, f: SearchFilters, topK: number, s: Slice): Promise<VectorSearchResult> {
  return sql.begin(async (tx) => {
    await tuneScan(tx, q.accuracy)
    // with words, a deeper pool: a job the words lift may lie past the topK nearest
    const depth = q.words?.length ? Math.max(topK, WORD_CANDIDATES) : topK
    const hits = await tx<{ id: string; company_id: string; score: number }[]>`
      with ranked as materialized (${candidates(tx, q, f, depth)})
      select id::text, company_id::text, 1 - distance as score
      from ranked
      order by (1 - distance) + ${WORD_WEIGHT} * title_share desc, distance, id
      limit ${topK}`
    const kept = q.minScore === undefined || q.minScore === null ? hits : hits.filter((h) => h.score >= q.minScore!)
    const jobs = await records(
      tx,
      kept.slice(s.offset, s.offset + s.limit).map(({ id, score }) => ({ id, score })),
      { raw: s.raw },
    )
    return { jobs, total: kept.length, companies: new Set(kept.map((h) => h.company_id)).size, nearest: hits.length }
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

/** `nearest` as in VectorSearchResult: the length of the vector list before score_threshold. */
export type NeuralSearchResult = { jobs: (JobRecord & Omit<NeuralRank, 'id'>)[]; total: number; ranking: 'rrf' | 'vector'; nearest: number }

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
  return sql.begin(async (tx) => {
    await tuneScan(tx, q.accuracy)
    const rank = rankQuery(tx, f)
    const vectorFilters = { ...f, titles: exclusionsOnly(f.titles), keywords: exclusionsOnly(f.keywords) }
    const rows = rank ? await fusedRanking(tx, q, vectorFilters, f, rank) : await vectorRanking(tx, q, vectorFilters)
    const ranked = rows.map(({ nearest: _, ...r }) => r)
    const jobs = await records(tx, ranked.slice(s.offset, s.offset + s.limit), { raw: s.raw, neural: true })
    return { jobs, total: ranked.length, ranking: rank ? 'rrf' : 'vector', nearest: rows[0]?.nearest ?? 0 }
  })
}

/** A ranking's rows, each with the length of the vector list (the same on every row). */
type RankRow = NeuralRank & { nearest: number }

/** The order of the vector list: similarity, plus the query's words in the title (candidates). */
const vectorOrder = (tx: Db) => tx`(1 - distance) + ${WORD_WEIGHT} * title_share desc, distance, id`

function vectorRanking(tx: Db, q: VectorQuery, f: SearchFilters) {
  return tx<RankRow[]>`
    with nearest as materialized (${candidates(tx, q, f, NEURAL_WINDOW)})
    select id::text, 1 - distance as vector_score, (row_number() over (order by ${vectorOrder(tx)}))::int as vector_rank,
      null::float8 as text_score, null::int as text_rank, null::float8 as fused_score, (select count(*) from nearest)::int as nearest
    from nearest
    where ${minScore(tx, q, tx`1 - distance`)}
    order by ${vectorOrder(tx)}`
}

/** The ranking of reciprocal rank fusion, in one statement. */
function fusedRanking(tx: Db, q: VectorQuery, vectorFilters: SearchFilters, f: SearchFilters, rank: NonNullable<ReturnType<typeof rankQuery>>) {
  const relevance = orderBy(tx, 'relevance', null, true)
  // a text match's similarity, read only for the matches the vector list lacks, and
  // only where the job has a vector of the query's model
  const distance = tx`case when e.embedding_model = ${q.model} then e.embedding <=> ${toSql(q.vector)}::vector end`
  return tx<RankRow[]>`
    with nearest as materialized (${candidates(tx, q, vectorFilters, NEURAL_WINDOW)}),
    vector_ranked as (
      select id, distance, row_number() over (order by ${vectorOrder(tx)}) as vector_rank
      from nearest
    ),
    text_ranked as (
      select j.id, j.score as text_score, row_number() over (order by ${relevance}) as text_rank
      from (
        select j.id, j.date_posted, ts_rank(j.rank_tsv, ${rank})::float8 as score
        from jobs j join companies c on c.id = j.company_id
        where ${whereClause(tx, f)}
        order by ${relevance}
        limit ${NEURAL_WINDOW}
      ) j
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** A resume's vector, when the resume belongs to the account: another account's is as unknown as a missing one. */
export async function findResumeVector(
  db: Db, accountId: string, resumeId: string,
): Promise<(StoredVector & { status: string; parse_error: string | null }) | null> {
  if (!UUID.test(resumeId)) return null
  const [row] = await db<{ id: string; embedding: string | null; model: number | null; status: string; parse_error: string | null }[]>`
    select id::text, embedding::text, embedding_model as model, status, parse_error
    from resumes where id = ${resumeId} and account_id = ${accountId}`
  return row ? { ...row, embedding: row.embedding === null ? null : (fromSql(row.embedding) as number[]) } : null
}
