/**
 * Historical search and export over the archive of expired postings (job_archive).
 *
 * Queries read job_archive_facts, one narrow row per archived posting, and the
 * dictionaries it points into (sql/migrations/0019_historical_search.sql). Each filter
 * first picks dictionary ids (the titles that match a title query, the place sets in a
 * place, the terms that hold a keyword, the companies of a name), all looked up in one
 * statement (resolveHistorical); then the facts with those ids are counted by year and
 * company, or, when the filters are only countries, companies and whole years, the
 * counts kept per country set, company and year are summed instead (rollupFilter). The
 * wide archive rows are read only for the records of an export.
 *
 * Titles use the search syntax over the distinct titles' vectors. Keywords use it over
 * the terms (each skill, technology and benefit as written): a posting holds a word when
 * one of its terms does, and a quoted phrase must stand in one term. Places are job
 * search's place filters (sql/search.ts PlaceFilter) over the distinct place sets.
 */
import { stringify } from 'csv-stringify/sync'
import type { PendingQuery, Row } from 'postgres'
import { reserved, type Db, type Sql } from './db.ts'
import { readHeld, renderRecords } from './export.ts'
import type { Term, TextQuery } from './query-syntax.ts'
import { METERS_PER_DEGREE, type PlaceFilter } from './search.ts'

export type HistoricalFilters = {
  titles?: TextQuery | null
  keywords?: TextQuery | null
  /** geo_locations: any of them */
  places?: PlaceFilter[]
  /** location_group: one more place filter, AND-ed with `places` */
  placeGroups?: PlaceFilter[][]
  /** exact names, case aside */
  companyNames?: string[]
  companySlugs?: string[]
  /** inclusive days, YYYY-MM-DD */
  postedFrom?: string
  postedTo?: string
  expiredFrom?: string
  expiredTo?: string
}

const present = <T>(v: T[] | undefined): v is T[] => Array.isArray(v) && v.length > 0

type Fragment = PendingQuery<Row[]>
const tsquery = (db: Db, t: Term) => (t.phrase ? db`phraseto_tsquery('english', ${t.text})` : db`plainto_tsquery('english', ${t.text})`)
const or = (db: Db, parts: Fragment[]) => parts.reduce((acc, p) => db`${acc} or ${p}`)
const and = (db: Db, parts: Fragment[]) => parts.reduce((acc, p) => db`${acc} and ${p}`)

/** The title ids a title query picks: an include matches, no exclusion does. */
function titleLookup(db: Db, q: TextQuery) {
  const matches = (t: Term) => db`t.title_tsv @@ ${tsquery(db, t)}`
  const expression = q.expressions.map((e) => and(db, [...e.include.map(matches), ...e.exclude.map((t) => db`not (${matches(t)})`)]))
  const conds = [...(expression.length ? [db`(${or(db, expression)})`] : []), ...q.exclude.map((t) => db`not (${matches(t)})`)]
  return db`select t.id from job_archive_titles t where ${and(db, conds)}`
}

/** The terms (skills, technologies, benefits as written) that hold a word or phrase. */
const termLookup = (db: Db, t: Term) => db`select k.id from job_archive_terms k where k.term_tsv @@ ${tsquery(db, t)}`

/** One place as a condition on a place set p (job search's place() over the archive's place sets). */
function placeCondition(db: Db, p: PlaceFilter) {
  if (p.kind === 'key') return db`p.place_keys @> array[${p.key}]::text[]`
  if (p.kind === 'radius') {
    const dLat = p.meters / METERS_PER_DEGREE
    const dLng = dLat / Math.max(Math.cos((p.lat * Math.PI) / 180), 0.01)
    return db`p.id in (
      select pt.place_id from job_archive_place_points pt
      where pt.lat between ${p.lat - dLat} and ${p.lat + dLat}
        and pt.lng between ${p.lng - dLng} and ${p.lng + dLng}
        and earth_distance(ll_to_earth(${p.lat}, ${p.lng}), ll_to_earth(pt.lat, pt.lng)) <= ${p.meters})`
  }
  if (p.kind === 'box') {
    const [minLng, minLat, maxLng, maxLat] = p.bbox
    return db`(p.id in (
      select pt.place_id from job_archive_place_points pt
      where pt.lat between ${minLat} and ${maxLat} and pt.lng between ${minLng} and ${maxLng})
      ${p.countryKey ? db`or p.place_keys @> array[${p.countryKey}]::text[]` : db``})`
  }
  return db`exists (
    select 1 from jsonb_array_elements(case when jsonb_typeof(p.locations) = 'array' then p.locations else '[]' end) l
    where true
      ${p.country ? db`and lower(l->>'country') = lower(${p.country})` : db``}
      ${p.region ? db`and lower(l->>'region') = lower(${p.region})` : db``}
      ${p.city ? db`and lower(l->>'city') = lower(${p.city})` : db``})`
}

/** The place groups given (geo_locations, then each location_group), each a list of places of which any will do. */
const placeGroupsOf = (f: HistoricalFilters) => [f.places, ...(f.placeGroups ?? [])].filter(present)

/** What job_archive_counts can answer: countries (each group any of its keys), companies and whole years posted. */
export type RollupFilter = { countries: string[][]; fromYear: number | null; toYear: number | null }

/**
 * The filters as the counts read them, when every filter is one the counts are kept by:
 * countries (a geo_locations entry naming only a country, a location_group made of
 * countries), companies, and a posting window of whole years (from a 1 January, to a
 * 31 December). null otherwise: titles, keywords, regions, cities, expiry dates or a
 * window that cuts a year need the facts.
 */
export function rollupFilter(f: HistoricalFilters): RollupFilter | null {
  if (f.titles || f.keywords || f.expiredFrom || f.expiredTo) return null
  if ((f.postedFrom && !f.postedFrom.endsWith('-01-01')) || (f.postedTo && !f.postedTo.endsWith('-12-31'))) return null
  const keys = placeGroupsOf(f).map((g) => g.map((p) => (p.kind === 'key' && p.key.startsWith('c:') ? p.key : null)))
  if (!keys.every((g) => g.every((k) => k !== null))) return null
  const year = (day: string | undefined) => (day ? Number(day.slice(0, 4)) : null)
  return { countries: keys as string[][], fromYear: year(f.postedFrom), toYear: year(f.postedTo) }
}

type Ids = number[]
type KeywordIds = { expressions: { include: Ids[]; exclude: Ids[] }[]; exclude: Ids[] }

/**
 * The filters with every dictionary condition replaced by the ids it picks. Looked up
 * first, in one statement, so the queries over the facts carry the ids themselves and
 * the planner sees how many postings they hold: a company of 1,500 postings is read
 * through its index, not by walking the newest postings until 50 of its own turn up.
 */
export type ResolvedFilters = {
  titles: Ids | null
  keywords: KeywordIds | null
  /** one list of place sets per place group; a posting's set must be in each */
  places: Ids[]
  /** company_names, company_slugs: a posting's company must be in each */
  companies: Ids[]
  postedFrom?: string
  postedTo?: string
  expiredFrom?: string
  expiredTo?: string
  /** the counts' view of the filters (rollupFilter), with the country sets that match */
  rollup: { countrySets: Ids | null; fromYear: number | null; toYear: number | null } | null
}

export async function resolveHistorical(db: Db, f: HistoricalFilters): Promise<ResolvedFilters> {
  const lookups: Fragment[] = []
  const slot = (q: Fragment) => lookups.push(q) - 1
  const titles = f.titles ? slot(titleLookup(db, f.titles)) : null
  const terms = (list: Term[]) => list.map((t) => slot(termLookup(db, t)))
  const keywords = f.keywords
    ? { expressions: f.keywords.expressions.map((e) => ({ include: terms(e.include), exclude: terms(e.exclude) })), exclude: terms(f.keywords.exclude) }
    : null
  const places = placeGroupsOf(f).map((group) => slot(db`select p.id from job_archive_places p where ${or(db, group.map((p) => db`(${placeCondition(db, p)})`))}`))
  const companies = [
    ...(present(f.companyNames) ? [slot(db`select c.id from job_archive_companies c where lower(c.company_name) = any(${f.companyNames.map((n) => n.toLowerCase())}::text[])`)] : []),
    ...(present(f.companySlugs) ? [slot(db`select c.id from job_archive_companies c where c.company_slug = any(${f.companySlugs}::text[])`)] : []),
  ]
  const rollup = rollupFilter(f)
  const countrySets = rollup?.countries.length
    ? slot(db`select s.id from job_archive_country_sets s where ${and(db, rollup.countries.map((keys) => db`s.country_keys && ${keys}::text[]`))}`)
    : null

  const found = lookups.length
    ? (await db<Record<string, Ids>[]>`select ${lookups.map((q, i) => db`array(${q} order by 1) as ${db(`l${i}`)}`).reduce((acc, c) => db`${acc}, ${c}`)}`)[0]
    : {}
  const ids = (i: number) => found[`l${i}`]
  return {
    titles: titles === null ? null : ids(titles),
    keywords: keywords && {
      expressions: keywords.expressions.map((e) => ({ include: e.include.map(ids), exclude: e.exclude.map(ids) })),
      exclude: keywords.exclude.map(ids),
    },
    places: places.map(ids),
    companies: companies.map(ids),
    postedFrom: f.postedFrom,
    postedTo: f.postedTo,
    expiredFrom: f.expiredFrom,
    expiredTo: f.expiredTo,
    rollup: rollup && { countrySets: countrySets === null ? null : ids(countrySets), fromYear: rollup.fromYear, toYear: rollup.toYear },
  }
}

/**
 * Keywords, term by term: a posting holds a word when one of its terms does, so each
 * word is the terms holding it, tested against the posting's term_ids (GIN).
 */
function keywordCondition(db: Db, k: KeywordIds) {
  const holds = (ids: Ids) => db`f.term_ids && ${ids}::int[]`
  const expression = k.expressions.map((e) => and(db, [...e.include.map(holds), ...e.exclude.map((ids) => db`not (${holds(ids)})`)]))
  return and(db, [...(expression.length ? [db`(${or(db, expression)})`] : []), ...k.exclude.map((ids) => db`not (${holds(ids)})`)])
}

/** The filters as a condition on the facts f; `true` when there are none. */
export function historicalWhere(db: Db, r: ResolvedFilters) {
  const conds: Fragment[] = []
  if (r.titles) conds.push(db`f.title_id = any(${r.titles}::int[])`)
  if (r.keywords) conds.push(keywordCondition(db, r.keywords))
  for (const ids of r.places) conds.push(db`f.place_id = any(${ids}::int[])`)
  for (const ids of r.companies) conds.push(db`f.company_id = any(${ids}::int[])`)
  if (r.postedFrom) conds.push(db`f.date_posted >= ${r.postedFrom}::date`)
  if (r.postedTo) conds.push(db`f.date_posted <= ${r.postedTo}::date`)
  if (r.expiredFrom) conds.push(db`f.date_expired >= ${r.expiredFrom}::date`)
  if (r.expiredTo) conds.push(db`f.date_expired <= ${r.expiredTo}::date`)
  return conds.length ? and(db, conds) : db`true`
}

/**
 * The price of exporting `records` archived postings, in the spec's steps: 0.12 USD each
 * for the first 1,000, 0.03 for the next 9,000, 0.01 for the next 90,000 and 0.001 after
 * that, with 0.50 the least an export costs (none at all when it holds no record).
 * Reckoned in thousandths of a dollar, the smallest step, so the price is exact.
 */
export const EXPORT_TIERS = [
  { records: 1_000, mills: 120 },
  { records: 9_000, mills: 30 },
  { records: 90_000, mills: 10 },
  { records: Infinity, mills: 1 },
] as const
export const EXPORT_MINIMUM_MILLS = 500
export const EXPORT_TIERS_TEXT =
  'USD 0.12 per record for the first 1,000 records, 0.03 per record for the next 9,000 (records 1,001 to 10,000), ' +
  '0.01 per record for the next 90,000 (10,001 to 100,000), 0.001 per record after 100,000; 0.50 minimum per export'

export type ExportQuote = { record_count: number; price_usd: number; tiers: string }

export function exportQuote(records: number): ExportQuote {
  let mills = 0
  let left = records
  for (const tier of EXPORT_TIERS) {
    const n = Math.min(left, tier.records)
    mills += n * tier.mills
    left -= n
  }
  if (records > 0) mills = Math.max(mills, EXPORT_MINIMUM_MILLS)
  return { record_count: records, price_usd: mills / 1000, tiers: EXPORT_TIERS_TEXT }
}

export type HistoricalCounts = {
  total_count: number
  /** of the matches, those whose description text the archive kept */
  described: number
  /** matches by year posted, every year that has one, ascending */
  years: { year: number; count: number }[]
  /** the companies with the most matches, by name, most first (ties by name) */
  top_companies: { company_name: string; count: number }[]
}

/**
 * The matches grouped by year posted and company, with their count and how many kept a
 * description: from the counts when the filters allow (rollupFilter), else from the
 * facts (a hash aggregate over the matching rows).
 */
function yearCompanyGroups(db: Db, r: ResolvedFilters) {
  if (r.rollup) {
    const conds = [
      ...(r.rollup.countrySets ? [db`c.country_set_id = any(${r.rollup.countrySets}::int[])`] : []),
      ...r.companies.map((ids) => db`c.company_id = any(${ids}::int[])`),
      ...(r.rollup.fromYear === null ? [] : [db`c.year >= ${r.rollup.fromYear}`]),
      ...(r.rollup.toYear === null ? [] : [db`c.year <= ${r.rollup.toYear}`]),
    ]
    return db`
      select c.year::int as year, c.company_id, sum(c.postings)::int as n, sum(c.described)::int as described
      from job_archive_counts c
      where ${conds.length ? and(db, conds) : db`true`}
      group by 1, 2
      having sum(c.postings) > 0`
  }
  return db`
    select extract(year from f.date_posted)::int as year, f.company_id, count(*)::int as n, (count(*) filter (where f.described))::int as described
    from job_archive_facts f
    where ${historicalWhere(db, r)}
    group by 1, 2`
}

/**
 * Counts the matches once, grouped by year posted and company, and derives the total,
 * the years and the top companies from those groups.
 */
export async function countHistorical(db: Db, r: ResolvedFilters, topCompanies = 10): Promise<HistoricalCounts> {
  const [row] = await db<HistoricalCounts[]>`
    with m as (${yearCompanyGroups(db, r)})
    select
      coalesce((select sum(n) from m), 0)::int as total_count,
      coalesce((select sum(described) from m), 0)::int as described,
      coalesce((select json_agg(json_build_object('year', year, 'count', n) order by year) from (select year, sum(n)::int as n from m group by year) y), '[]') as years,
      coalesce((select json_agg(json_build_object('company_name', company_name, 'count', n) order by n desc, company_name) from (
        select c.company_name, sum(m.n)::int as n from m join job_archive_companies c on c.id = m.company_id
        group by c.company_name order by n desc, c.company_name limit ${topCompanies}
      ) top), '[]') as top_companies`
  return row
}

/**
 * Up to this many matches, the sample sorts them all rather than walk the postings from
 * the newest: the walk reads about size × (archive / matches) postings to find its
 * sample, which for a small company is tens of thousands, while sorting a few thousand
 * matches found through their index takes a few milliseconds. The planner would often
 * walk anyway, as it expects matches to be spread evenly over time.
 */
export const SAMPLE_SORT_MAX = 20_000

/**
 * The titles of the most recently posted matches, with the year each was posted.
 * `matches` (countHistorical's total) picks how they are found (SAMPLE_SORT_MAX).
 */
export async function sampleHistoricalTitles(db: Db, r: ResolvedFilters, size: number, matches: number) {
  if (size <= 0 || matches === 0) return []
  const where = historicalWhere(db, r)
  // OFFSET 0 keeps the subquery whole: the matches are found first, then sorted
  const found =
    matches <= SAMPLE_SORT_MAX
      ? db`(select f.job_id, f.date_posted, f.title_id from job_archive_facts f where ${where} offset 0) f`
      : db`job_archive_facts f`
  return db<{ job_title: string; year_posted: number }[]>`
    select t.job_title, extract(year from f.date_posted)::int as year_posted
    from ${found} join job_archive_titles t on t.id = f.title_id
    ${matches <= SAMPLE_SORT_MAX ? db`` : db`where ${where}`}
    order by f.date_posted desc, f.job_id desc
    limit ${size}`
}

/** How many archived postings an export of these filters holds, capped at `max`. */
export async function countHistoricalExport(db: Db, r: ResolvedFilters, max: number | null) {
  const [row] = await db<{ n: number }[]>`
    select count(*)::int as n from (
      select 1 from job_archive_facts f where ${historicalWhere(db, r)} ${max === null ? db`` : db`limit ${max}`}
    ) matched`
  return row.n
}

/** How the records are written: CSV rows or JSON lines. */
export type HistoricalFormat = 'csv' | 'json'

/**
 * An exported archive record of each posting of the batch b. For CSV every value is
 * text (places and lists as their JSON text), so the driver hands the worker strings
 * it writes as they are; description is null where the archive kept none.
 */
function historicalRecord(db: Db, format: HistoricalFormat) {
  const text = (value: Fragment) => (format === 'csv' ? db`(${value})::text` : value)
  return db`
    a.job_id::text as _id,
    a.job_title,
    a.company_name,
    a.company_slug,
    to_char(a.date_posted, 'YYYY-MM-DD') as date_posted,
    to_char(a.date_expired, 'YYYY-MM-DD') as date_expired,
    ${text(db`a.locations`)} as locations,
    ${text(db`to_jsonb(a.countries)`)} as countries,
    ${text(db`to_jsonb(a.skills)`)} as skills,
    ${text(db`to_jsonb(a.technologies)`)} as technologies,
    ${text(db`to_jsonb(a.benefits)`)} as benefits,
    a.description`
}

/** The export's columns, in order (the CSV header). */
export const HISTORICAL_EXPORT_FIELDS = [
  '_id', 'job_title', 'company_name', 'company_slug', 'date_posted', 'date_expired', 'locations', 'countries', 'skills', 'technologies', 'benefits', 'description',
] as const

/**
 * Writes the matches, most recently posted first, at most `max` of them, a batch at a
 * time as job export does (sql/export.ts): a cursor WITH HOLD over the facts' ids on a
 * reserved connection, and each batch's records rendered as text by Postgres (a JSON
 * line is row_to_json's text, a CSV row its values quoted: renderRecords). Returns the
 * number of records. `name` is unique among the exports running at once.
 */
export async function writeHistoricalRecords(
  sql: Sql,
  name: string,
  q: { filters: ResolvedFilters; max: number | null; format: HistoricalFormat },
  write: (chunk: string) => Promise<void>,
  onBatch: (records: number) => Promise<void>,
) {
  const ids = sql`
    select f.job_id from job_archive_facts f
    where ${historicalWhere(sql, q.filters)}
    order by f.date_posted desc, f.job_id desc
    ${q.max === null ? sql`` : sql`limit ${q.max}`}`
  return reserved(sql, async (conn) => {
    const records = (batch: { job_id: string }[]) => conn`
      select ${historicalRecord(conn, q.format)}
      from unnest(${batch.map((r) => r.job_id)}::bigint[]) with ordinality as b(job_id, n)
      join job_archive a on a.job_id = b.job_id
      order by b.n`
    if (q.format === 'csv') await write(stringify([[...HISTORICAL_EXPORT_FIELDS]]))
    return readHeld<{ job_id: string }>(conn, name, ids, async (batch) => {
      await write(await renderRecords(conn, records(batch), q.format))
      await onBatch(batch.length)
    })
  })
}

/** The plan of a search's counting query, for the bench. */
export async function explainHistorical(db: Db, r: ResolvedFilters) {
  const rows = await db<{ 'QUERY PLAN': string }[]>`explain ${yearCompanyGroups(db, r)}`
  return rows.map((r) => r['QUERY PLAN']).join('\n')
}

/**
 * The quotes of an account's historical exports created since `since` (its billing
 * period's start), for `admin usage:show`: no meter charges them, so this is where an
 * operator reads what they would cost. Sums are of the finished exports' quotes.
 */
export async function listExportQuotes(db: Db, accountId: string, since: Date) {
  const tasks = await db<{ task_id: string; state: string; created_at: Date; completed_at: Date | null; quote: ExportQuote | null }[]>`
    select id::text as task_id, state, created_at, completed_at, result->'quote' as quote
    from tasks
    where account_id = ${accountId} and type = 'export_historical_jobs' and created_at >= ${since}
    order by created_at, id`
  const quoted = tasks.flatMap((t) => (t.quote ? [t.quote] : []))
  return {
    since: since.toISOString(),
    exports: tasks.length,
    records: quoted.reduce((n, q) => n + q.record_count, 0),
    // in thousandths, as quoted, so the sum is exact
    price_usd: quoted.reduce((n, q) => n + Math.round(q.price_usd * 1000), 0) / 1000,
    tasks: tasks.map((t) => ({
      task_id: t.task_id,
      state: t.state,
      created_at: t.created_at.toISOString(),
      completed_at: t.completed_at?.toISOString() ?? null,
      record_count: t.quote?.record_count ?? null,
      price_usd: t.quote?.price_usd ?? null,
    })),
  }
}
