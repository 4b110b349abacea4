/**
 * The salary benchmark's queries (jobs/salary-benchmark.ts has the task, docs/market-data.md
 * the design): the posting a public URL names, titles similar to the requested one by
 * their vectors, and the sample with its salary distribution.
 *
 * The sample is every posting, live or expired, that passes the filters (the window,
 * places, location types, industries, experience levels, years of experience) and
 * whose title either matches the title query (search's syntax, title_tsv) or is, case
 * aside, one of the similar titles. The query's exclusions (-word) apply to both.
 */
import { toSql } from 'pgvector'
import type { Db, Sql } from './db.ts'
import { toTsquery, type TextQuery } from './query-syntax.ts'
import { annualPay, salaryDistribution, type SalaryDistribution } from './salary-stats.ts'
import { whereClause, type SearchFilters } from './search.ts'

export type BenchmarkQuery = {
  titles: TextQuery
  /** the requested titles as exactTitle() writes them: a posting with one of these titles is an exact match */
  exactTitles: string[]
  /** every other filter; includeExpired is set, titles are not */
  filters: SearchFilters
  /** the posting a public_url named: benchmarked against the others */
  excludeId?: string | null
}

/**
 * A title as exact matches compare it: lower case, blanks collapsed, and of a requested
 * title only the words (no quotes, no -exclusions, no AND).
 * e.g. '"Staff  Nurse"' -> 'staff nurse'; 'nurse -agency' -> 'nurse'
 */
export function exactTitle(requested: string) {
  return requested
    .replace(/"/g, ' ')
    .split(/\s+/)
    .filter((w) => w && w !== 'AND' && !(w.startsWith('-') && w.length > 1))
    .join(' ')
    .toLowerCase()
}

/** A posting's title as exactTitle() compares it, in SQL. */
const postedTitle = (db: Db) => db`lower(btrim(regexp_replace(j.job_title, '[[:space:]]+', ' ', 'g')))`

export type UrlPosting = {
  id: string
  job_title: string
  country: string | null
  experience_level: string | null
  salary_min: number | null
  salary_max: number | null
  salary_currency: string | null
  salary_period: string | null
}

/**
 * The posting a public URL names: one of its sources' application or board link, as
 * given, or with a trailing slash added or removed, or without its #fragment. The most
 * recently posted when several share it. Hash indexes serve the look-up (0018).
 */
export async function findPostingByUrl(db: Db, url: string): Promise<UrlPosting | null> {
  const given = url.trim()
  const bare = given.replace(/#.*$/, '')
  const urls = [...new Set([given, bare, bare.endsWith('/') ? bare.slice(0, -1) : `${bare}/`])]
  const [row] = await db<UrlPosting[]>`
    select j.id::text, j.job_title, j.experience_level,
      coalesce((select l.country from job_locations l where l.job_id = j.id and l.country is not null order by l.position limit 1), j.remote_countries[1]) as country,
      j.salary_min::float8, j.salary_max::float8, j.salary_currency, j.salary_period
    from jobs j
    where j.id in (
      select s.job_id from job_sources s where s.application_link = any(${urls}::text[])
      union
      select s.job_id from job_sources s where s.job_board_link = any(${urls}::text[]))
    order by j.date_posted desc, j.id desc
    limit 1`
  return row ?? null
}

/** The filters as a condition on `j` (and `c`), without the title match. */
const others = (db: Db, q: BenchmarkQuery) =>
  db`${whereClause(db, { ...q.filters, titles: null, includeExpired: true })}
    ${q.excludeId ? db`and j.id <> ${q.excludeId}` : db``}`

export type SimilarTitle = { title: string; similarity: number }

/**
 * Titles of the postings nearest `vector` (cosine similarity on jobs.embedding, HNSW with
 * pgvector's iterative scan, so the filters do not starve it) that the title query does
 * not already match: at most `limit` distinct titles, case aside, each with the best
 * similarity of its postings, from the `depth` nearest postings at `minSimilarity` or more.
 */
export async function findSimilarTitles(
  sql: Sql,
  q: BenchmarkQuery,
  v: { vector: number[]; model: number },
  { depth, minSimilarity, limit }: { depth: number; minSimilarity: number; limit: number },
): Promise<SimilarTitle[]> {
  return sql.begin(async (tx) => {
    const { include } = toTsquery(tx, q.titles)
    await tx`select set_config('hnsw.ef_search', '100', true), set_config('hnsw.iterative_scan', 'relaxed_order', true)`
    return tx<SimilarTitle[]>`
      with nearest as materialized (
        select j.job_title, j.title_tsv, 1 - (j.embedding <=> ${toSql(v.vector)}::vector) as similarity
        from jobs j join companies c on c.id = j.company_id
        where ${others(tx, q)} and j.embedding_model = ${v.model}
        order by j.embedding <=> ${toSql(v.vector)}::vector
        limit ${depth}
      )
      select min(job_title) as title, max(similarity)::float8 as similarity
      from nearest
      where similarity >= ${minSimilarity} ${include ? tx`and not (title_tsv @@ ${include})` : tx``}
      group by lower(job_title)
      order by similarity desc, title
      limit ${limit}`
  })
}

/** How a title joined the sample: it is a requested title, it has the query's words, or it is similar by meaning. */
export type TitleMatch = 'exact' | 'words' | 'similar'
export type MatchedTitle = { title: string; count: number; match: TitleMatch }

export type BenchmarkSample = {
  postings: number
  salaries: number
  /** salaries of postings whose title is a requested one */
  exact_salaries: number
  titles: MatchedTitle[]
  distribution: SalaryDistribution
}

/** The sample's postings, with their pay in `currency` and how their title matched. */
function matched(db: Db, q: BenchmarkQuery, similar: string[], currency: string) {
  const { include, exclude } = toTsquery(db, q.titles)
  const words = include ? db`j.title_tsv @@ ${include}` : db`true`
  const lower = similar.map((t) => t.toLowerCase())
  return db`
    select j.job_title, j.experience_level, j.location_type, ${annualPay(db, currency)} as pay,
      case when ${postedTitle(db)} = any(${q.exactTitles}::text[]) then 'exact' when ${words} then 'words' else 'similar' end as match
    from jobs j join companies c on c.id = j.company_id
    where ${others(db, q)}
      and (${words} ${lower.length ? db`or lower(j.job_title) = any(${lower}::text[])` : db``})
      ${exclude ? db`and not (j.title_tsv @@ ${exclude})` : db``}`
}

export const MATCHED_TITLES = 10

/** Counts, the most common titles and the salary distribution of the sample. */
export async function benchmarkSample(
  db: Db,
  q: BenchmarkQuery,
  similar: string[],
  currency: string,
  rankOf: number | null,
): Promise<BenchmarkSample> {
  const sample = matched(db, q, similar, currency)
  const [[counts], titles, distribution] = await Promise.all([
    db<{ postings: number; salaries: number; exact_salaries: number }[]>`
      select count(*)::int as postings, count(pay)::int as salaries, count(pay) filter (where match = 'exact')::int as exact_salaries
      from (${sample}) m`,
    // the most common spelling of each title, case aside
    db<MatchedTitle[]>`
      select mode() within group (order by job_title) as title, count(*)::int as count, min(match) as match
      from (${sample}) m
      group by lower(job_title)
      order by count desc, title
      limit ${MATCHED_TITLES}`,
    salaryDistribution(db, db`select pay, experience_level, location_type from (${sample}) m`, currency, {
      groups: ['experience_level', 'location_type'],
      rankOf,
    }),
  ])
  return { ...counts, titles, distribution }
}
