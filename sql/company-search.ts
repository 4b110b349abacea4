/**
 * Company search (POST /v2/platform/companies/search): company profiles by text, name,
 * reference lists, tags, boards and where their live postings are, ranked and paged.
 *
 * Nearly everything a search reads is on the company row (sql/migrations/0016):
 * `query` matches profile_tsv (GIN), which holds the live postings' technologies and
 * benefits too; live_jobs, live_boards, live_place_keys and company_types are kept by
 * ingest and expiry. Only a place with a radius or a box reads jobs: an exists() over
 * the company's live jobs' locations, as job search matches them.
 *
 * company_name: the name as typed (any case), a part of it, or a typo of it. Typos are
 * found with pg_trgm: the names whose word similarity to the text is at least
 * WORD_SIMILARITY (the GIN trigram index finds them; the threshold is set for this
 * transaction only), kept when the text is within typoBudget() edits (levenshtein) of
 * the whole name or of its beginning, so "Gitlba" finds "GitLab Inc.".
 *
 * Ranking (docs/search.md): score = ts_rank of `query` (name A 1.0, description,
 * services and technologies B 0.4, postings' words, remote policy and region C 0.2)
 * plus the name's score (exact 1, prefix 0.9, part 0.8, typo 0.6 × word similarity);
 * 1 for every company when neither is given. Ties go to more live postings, then to
 * the older company (id), so pages never repeat or skip.
 */
import { companyProfileFields, type CompanyProfile } from './companies.ts'
import type { Db, Sql } from './db.ts'
import { toTsquery, type TextQuery } from './query-syntax.ts'
import { place, type PlaceFilter } from './search.ts'

export type CompanySearchFilters = {
  text?: TextQuery | null
  name?: string
  industries?: string[]
  subindustries?: string[]
  companyTypes?: string[]
  jobBoards?: string[]
  /** true: companies with a live posting; false: those without */
  hiring?: boolean
  /** any of these, among the company's live postings */
  places?: PlaceFilter[]
  /** linkedin_company_key() of the URL asked for */
  linkedinKey?: string
}

export type CompanyHit = Omit<CompanyProfile, 'id'> & { live_jobs: number; score: number }

/**
 * A one-letter typo in a 4-letter name ("acne" for "acme") has a word similarity of
 * 0.25 to it; pg_trgm's default (0.6) would miss most typos.
 */
export const WORD_SIMILARITY = 0.25

/**
 * Edits a name of this many characters may be off by: none below 4, 1 up to 5, 2 from
 * 6. Text past MAX_TYPO_LENGTH is matched whole or in part only (levenshtein takes at
 * most 255 characters).
 */
export const typoBudget = (length: number) => (length > MAX_TYPO_LENGTH ? 0 : length >= 6 ? 2 : length >= 4 ? 1 : 0)
export const MAX_TYPO_LENGTH = 100

const present = <T>(v: T[] | undefined): v is T[] => Array.isArray(v) && v.length > 0

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`)

/** The name condition and its score; null without a name. */
function nameMatch(db: Db, given: string | undefined) {
  const q = given?.trim().toLowerCase()
  if (!q) return null
  const n = [...q].length
  const k = typoBudget(n)
  const contains = db`c.name ilike ${`%${escapeLike(q)}%`}`
  const exact = db`lower(c.name) = ${q}`
  // the whole name, or its beginning as long as the text or a letter longer (a letter
  // left out of the text); not a shorter beginning, which let "Doist" find "Distro"
  const within = db`least(
      levenshtein_less_equal(left(lower(c.name), 255), ${q}, ${k}),
      levenshtein_less_equal(left(lower(c.name), ${n}), ${q}, ${k}),
      levenshtein_less_equal(left(lower(c.name), ${n + 1}), ${q}, ${k})) <= ${k}`
  const typo = k > 0 ? db`(${q} <% c.name and ${within})` : null
  return {
    where: typo ? db`(${exact} or ${contains} or ${typo})` : db`(${exact} or ${contains})`,
    score: db`case when ${exact} then 1.0 when lower(c.name) like ${`${escapeLike(q)}%`} then 0.9 when ${contains} then 0.8
                   else 0.6 * word_similarity(${q}, c.name) end`,
  }
}

function whereClause(db: Db, f: CompanySearchFilters, name: ReturnType<typeof nameMatch>, text: ReturnType<typeof toTsquery> | null) {
  const conds = [db`true`]
  if (text?.include) conds.push(db`c.profile_tsv @@ ${text.include}`)
  if (text?.exclude) conds.push(db`not (c.profile_tsv @@ ${text.exclude})`)
  if (name) conds.push(name.where)
  if (present(f.industries)) conds.push(db`c.industries && ${f.industries}::text[]`)
  if (present(f.subindustries)) conds.push(db`c.subindustries && ${f.subindustries}::text[]`)
  if (present(f.companyTypes)) conds.push(db`c.company_types && ${f.companyTypes}::text[]`)
  if (present(f.jobBoards)) conds.push(db`(c.live_boards && ${f.jobBoards}::text[] or c.job_board = any(${f.jobBoards}::text[]))`)
  if (f.hiring === true) conds.push(db`c.live_jobs > 0`)
  if (f.hiring === false) conds.push(db`c.live_jobs = 0`)
  if (present(f.places)) conds.push(placesCondition(db, f.places))
  if (f.linkedinKey) conds.push(db`linkedin_company_key(c.linkedin_link) = ${f.linkedinKey}`)
  return conds.reduce((acc, c) => db`${acc} and ${c}`)
}

/**
 * Any of the places, among the company's live postings. A place with a key (a country,
 * a region, a city matched by name) is looked up in the company's live_place_keys; a
 * radius or a box reads the live jobs' locations, as job search does.
 */
function placesCondition(db: Db, places: PlaceFilter[]) {
  const keys = places.flatMap((p) => (p.kind === 'key' ? [p.key] : p.kind === 'box' && p.countryKey ? [p.countryKey] : []))
  const others = places.filter((p) => p.kind !== 'key')
  const conds = [
    ...(keys.length ? [db`c.live_place_keys && ${keys}::text[]`] : []),
    ...(others.length
      ? [db`exists (select 1 from jobs j where j.company_id = c.id and not j.expired and (${others.map((p) => place(db, p)).reduce((acc, p) => db`${acc} or ${p}`)}))`]
      : []),
  ]
  return db`(${conds.reduce((acc, c) => db`${acc} or ${c}`)})`
}

function parts(db: Db, f: CompanySearchFilters) {
  const text = f.text ? toTsquery(db, f.text) : null
  const name = nameMatch(db, f.name)
  const where = whereClause(db, f, name, text)
  const scores = [...(text?.include ? [db`ts_rank(c.profile_tsv, ${text.include})`] : []), ...(name ? [name.score] : [])]
  const score = scores.length ? scores.reduce((acc, s) => db`${acc} + ${s}`) : null
  return { where, score }
}

/** A name long enough for typos: its search reads pg_trgm's threshold, set in a transaction. */
const usesTypos = (f: CompanySearchFilters) => typoBudget([...(f.name?.trim() ?? '')].length) > 0

/**
 * One statement: the matches (ids, scores, live counts) once, their count, and the
 * page's profiles, built for the page's rows only. A page past the last one still
 * returns a row, with the count and no company.
 */
function pageQuery(db: Db, f: CompanySearchFilters, page: { page: number; limit: number }) {
  const { where, score } = parts(db, f)
  return db`
    with matched as materialized (
      select c.id, c.live_jobs, ${score ? db`(${score})::float8` : db`1::float8`} as score
      from companies c
      where ${where}
    )
    select total.n as total, hit.*
    from (select count(*)::int as n from matched) total
    left join lateral (
      select ${companyProfileFields(db)}, m.live_jobs, m.score, m.id as hit_id
      from (select * from matched order by score desc, live_jobs desc, id limit ${page.limit} offset ${(page.page - 1) * page.limit}) m
      join companies c on c.id = m.id
    ) hit on true
    order by hit.score desc, hit.live_jobs desc, hit.hit_id`
}

type PageRow = Partial<CompanyHit> & { total: number; hit_id: string | null }

export async function searchCompanies(sql: Sql, f: CompanySearchFilters, page: { page: number; limit: number }) {
  const result = (rows: PageRow[]) => ({
    companies: rows.filter((r) => r.hit_id !== null).map(({ total: _, hit_id: __, ...hit }) => hit as CompanyHit),
    total: rows[0]?.total ?? 0,
  })
  if (!usesTypos(f)) return result((await pageQuery(sql, f, page)) as unknown as PageRow[])
  // the threshold <% reads, for this transaction only; both statements are sent at once
  const [, rows] = await sql.begin((tx) => [
    tx`select set_config('pg_trgm.word_similarity_threshold', ${String(WORD_SIMILARITY)}, true)`,
    pageQuery(tx, f, page),
  ])
  return result(rows as unknown as PageRow[])
}

/** The plan of a search's page query, for the bench's index check. */
export async function explainCompanySearch(sql: Sql, f: CompanySearchFilters, page: { page: number; limit: number }, analyze = false) {
  return sql.begin(async (tx) => {
    await tx`select set_config('pg_trgm.word_similarity_threshold', ${String(WORD_SIMILARITY)}, true)`
    const rows = await tx<{ 'QUERY PLAN': string }[]>`explain ${analyze ? tx`(analyze, buffers)` : tx``} ${pageQuery(tx, f, page)}`
    return rows.map((r) => r['QUERY PLAN']).join('\n')
  })
}
