/**
 * Lexical job search: the shared filter set as SQL over live jobs, sorted and paged.
 *
 * job_titles match title_tsv; keywords match keywords_tsv (skills, technologies,
 * benefits, description); relevance ranks on the small rank_tsv (see the migration).
 * Counting stops at COUNT_CAP matches; beyond it the total is the planner's estimate
 * (never below what was counted, or what the page itself shows) and the response says
 * so (meta.count). The estimate is only as good as the planner's statistics: ingest and
 * expiry refresh them (analyzeSearchTables), since the embedded database runs no
 * autovacuum and a server's may not have run yet.
 */
import type { PendingQuery, Row } from 'postgres'
import type { Db } from './db.ts'
import { jobRecord, type JobRecord } from './jobs.ts'
import { includesPhrase, phrasesAsWords, toTsquery, type TextQuery } from './query-syntax.ts'

export const COUNT_CAP = 1_000
/** the newest matches that relevance ranks (rankedIds) */
export const RANK_WINDOW = 1_000

/**
 * Reading a job's keyword vector (in TOAST) costs about four times fetching a match's
 * row through a bitmap: 17 against 4 µs a job at 100,000 postings ("security" newest
 * first read 10,732 vectors in 180 ms under EXPLAIN ANALYZE; "support", 31,600 matches,
 * fetched through its GIN index in 130 ms, docs/vector-search.md). Postgres prices both
 * alike, so newestMatches weighs them itself.
 */
export const KEYWORD_READ_COST = 4
export const METERS_PER_DEGREE = 111_320

export type PlaceFilter =
  /** exact: one of jobs.place_keys (a country's key covers remote jobs scoped to it) */
  | { kind: 'key'; key: string }
  /** exact on names, for places without a key (no country, or a city without region) */
  | { kind: 'strict'; city: string | null; region: string | null; country: string | null }
  /** within `meters` of a point */
  | { kind: 'radius'; lat: number; lng: number; meters: number }
  /** inside [minLng, minLat, maxLng, maxLat]; countryKey adds the remote jobs scoped to that country */
  | { kind: 'box'; bbox: [number, number, number, number]; countryKey: string | null }

export type Range = { min?: number | null; max?: number | null }

export type SearchFilters = {
  titles?: TextQuery | null
  keywords?: TextQuery | null
  companyKeywords?: TextQuery | null
  jobSlug?: string
  locationTypes?: string[]
  places?: PlaceFilter[]
  experience?: string[]
  yoe?: Range
  includeNoYoe?: boolean
  companyName?: string
  companySlug?: string
  salary?: Range
  currency?: string
  includeNoSalary?: boolean
  jobTypes?: string[]
  categories?: string[]
  sizeBuckets?: string[]
  jobBoards?: string[]
  industries?: string[]
  subindustries?: string[]
  postedSince?: string
  visa?: boolean
  hideAgencies?: boolean
  /** expired jobs too (neural-search include_expired); live jobs only by default */
  includeExpired?: boolean
  /** the title exactly, case aside (vsearch job_title) */
  jobTitle?: string
  /** posted before this day (neural-search month) */
  postedBefore?: string
  /** each group is one more location filter, AND-ed with `places` (neural-search location_group) */
  placeGroups?: PlaceFilter[][]
  /** leaves out the jobs this user of this account fetched by id (neural-search hide_seen_jobs; sql/migrations/0005) */
  unseenBy?: { accountId: string; userId: string }
}

export type SortBy = 'relevance' | 'date_posted' | 'salary' | 'company' | 'yoe'

export type SearchPage = {
  page: number
  limit: number
  sortBy: SortBy
  sortOrder: 'asc' | 'desc' | null
  raw: boolean
  /** records with neural-search's fields (jobRecord's option) */
  neural?: boolean
  /** the newest matches relevance ranks (RANK_WINDOW unless set) */
  rankWindow?: number
}

const present = <T>(v: T[] | undefined): v is T[] => Array.isArray(v) && v.length > 0

/** One place as a condition on the job `j` (company search uses it on a company's live jobs). */
export function place(db: Db, p: PlaceFilter) {
  if (p.kind === 'key') return db`j.place_keys @> array[${p.key}]::text[]`
  if (p.kind === 'radius') {
    // a lat/lng box first (btree, with statistics the planner can use), then the distance
    const dLat = p.meters / METERS_PER_DEGREE
    const dLng = dLat / Math.max(Math.cos((p.lat * Math.PI) / 180), 0.01)
    return db`exists (
      select 1 from job_locations l
      where l.job_id = j.id
        and l.lat between ${p.lat - dLat} and ${p.lat + dLat}
        and l.lng between ${p.lng - dLng} and ${p.lng + dLng}
        and earth_distance(ll_to_earth(${p.lat}, ${p.lng}), ll_to_earth(l.lat, l.lng)) <= ${p.meters})`
  }
  if (p.kind === 'box') {
    const [minLng, minLat, maxLng, maxLat] = p.bbox
    return db`(exists (
      select 1 from job_locations l
      where l.job_id = j.id and l.lat between ${minLat} and ${maxLat} and l.lng between ${minLng} and ${maxLng})
      ${p.countryKey ? db`or j.place_keys @> array[${p.countryKey}]::text[]` : db``})`
  }
  return db`exists (
    select 1 from job_locations l
    where l.job_id = j.id
      ${p.country ? db`and lower(l.country) = lower(${p.country})` : db``}
      ${p.region ? db`and lower(l.region) = lower(${p.region})` : db``}
      ${p.city ? db`and lower(l.city) = lower(${p.city})` : db``})`
}

/** Overlap of [min, max] with the job's range; `orMissing` keeps jobs that state none. */
function rangeOverlap(db: Db, lo: string, hi: string, r: Range, orMissing: boolean) {
  const min = r.min ?? null
  const max = r.max ?? null
  const cond = db`(${min}::numeric is null or coalesce(${db(hi)}, ${db(lo)}) >= ${min})
              and (${max}::numeric is null or coalesce(${db(lo)}, ${db(hi)}) <= ${max})`
  return orMissing ? db`((${db(lo)} is null and ${db(hi)} is null) or (${cond}))` : db`(${cond})`
}

/** Each text filter with the vector it matches; titles and keywords also count towards relevance. */
function textQueries(db: Db, f: SearchFilters) {
  const fields = [
    [f.titles, db`j.title_tsv`, true],
    [f.keywords, db`j.keywords_tsv`, true],
    [f.companyKeywords, db`c.search_tsv`, false],
  ] as const
  return fields.flatMap(([q, vector, ranked]) => (q ? [{ vector, ranked, ...toTsquery(db, q) }] : []))
}

export function whereClause(db: Db, f: SearchFilters) {
  const conds = [f.includeExpired ? db`true` : db`not j.expired`]
  for (const { vector, include, exclude } of textQueries(db, f)) {
    if (include) conds.push(db`${vector} @@ ${include}`)
    if (exclude) conds.push(db`not (${vector} @@ ${exclude})`)
  }
  if (f.jobSlug) conds.push(db`j.job_slug = ${f.jobSlug}`)
  if (present(f.locationTypes)) conds.push(db`j.location_type = any(${f.locationTypes})`)
  for (const group of [f.places, ...(f.placeGroups ?? [])]) {
    if (present(group)) conds.push(db`(${group.map((p) => place(db, p)).reduce((acc, p) => db`${acc} or ${p}`)})`)
  }
  if (f.jobTitle) conds.push(db`lower(j.job_title) = lower(${f.jobTitle})`)
  if (present(f.experience)) conds.push(db`j.experience_level = any(${f.experience})`)
  if (f.yoe) conds.push(rangeOverlap(db, 'yoe_min', 'yoe_max', f.yoe, f.includeNoYoe ?? false))
  else if (f.includeNoYoe === false) conds.push(db`(j.yoe_min is not null or j.yoe_max is not null)`)
  if (f.companyName) conds.push(db`lower(c.name) = lower(${f.companyName})`)
  if (f.companySlug) conds.push(db`c.slug = ${f.companySlug}`)
  if (f.salary) {
    const inCurrency = f.currency ? db`and j.salary_currency = ${f.currency.toUpperCase()}` : db``
    const range = rangeOverlap(db, 'salary_annual_min', 'salary_annual_max', f.salary, false)
    conds.push(
      f.includeNoSalary
        ? db`((j.salary_annual_min is null and j.salary_annual_max is null) or (${range} ${inCurrency}))`
        : db`(${range} ${inCurrency})`,
    )
  } else if (f.currency) conds.push(db`(j.salary_currency = ${f.currency.toUpperCase()} ${f.includeNoSalary ? db`or j.salary_currency is null` : db``})`)
  else if (f.includeNoSalary === false) conds.push(db`(j.salary_annual_min is not null or j.salary_annual_max is not null)`)
  if (present(f.jobTypes)) conds.push(db`j.job_type = any(${f.jobTypes})`)
  if (present(f.categories)) conds.push(db`j.job_categories && ${f.categories}::text[]`)
  if (present(f.sizeBuckets)) conds.push(db`c.size_bucket = any(${f.sizeBuckets})`)
  if (present(f.jobBoards)) conds.push(db`j.job_board = any(${f.jobBoards})`)
  if (present(f.industries)) conds.push(db`c.industries && ${f.industries}::text[]`)
  if (present(f.subindustries)) conds.push(db`c.subindustries && ${f.subindustries}::text[]`)
  if (f.postedSince) conds.push(db`j.date_posted >= ${f.postedSince}::date`)
  if (f.postedBefore) conds.push(db`j.date_posted < ${f.postedBefore}::date`)
  if (f.visa !== undefined) conds.push(f.visa ? db`j.visa_sponsored` : db`not coalesce(j.visa_sponsored, false)`)
  if (f.hideAgencies) conds.push(db`not j.recruiter_agency and not c.is_recruiting_agency`)
  if (f.unseenBy) {
    conds.push(db`not exists (
      select 1 from job_views v
      where v.account_id = ${f.unseenBy.accountId} and v.user_id = ${f.unseenBy.userId} and v.job_id = j.id)`)
  }
  return conds.reduce((acc, c) => db`${acc} and ${c}`)
}

/**
 * Whether the filters read the company's row: whereClause's conditions on `c`, which
 * this list must follow. Every job has its company (company_id is not null, with a
 * foreign key), so the join changes no result, only what a statement reads: without
 * it, a scan in date order reads the jobs alone, and the planner can answer from an
 * index what it would otherwise fetch each row for (the company_id to join on).
 */
export const readsCompany = (f: SearchFilters) =>
  Boolean(f.companyName || f.companySlug || f.sizeBuckets?.length || f.industries?.length || f.subindustries?.length || f.hideAgencies || f.companyKeywords)

/** `jobs j`, joined to its company (`c`) when the filters read it or `withCompany` (a sort by company name). */
export const jobsFor = (db: Db, f: SearchFilters, withCompany = false) =>
  readsCompany(f) || withCompany ? db`jobs j join companies c on c.id = j.company_id` : db`jobs j`

/** ts_rank on rank_tsv: title (A, 1.0) > skills and technologies (B, 0.4) > benefits (C, 0.2); description only: 0. */
export function rankQuery(db: Db, f: SearchFilters) {
  const parts = textQueries(db, f).flatMap((q) => (q.ranked && q.include ? [q.include] : []))
  return parts.length ? parts.reduce((acc, p) => db`${acc} || ${p}`) : null
}

/** The order of every sort but relevance with text (rankedIds): relevance without text is date order. */
function orderBy(db: Db, sortBy: SortBy, order: 'asc' | 'desc' | null) {
  const dir = (fallback: 'asc' | 'desc') => ((order ?? fallback) === 'asc' ? db`asc` : db`desc`)
  switch (sortBy) {
    case 'salary':
      return db`coalesce(j.salary_annual_max, j.salary_annual_min) ${dir('desc')} nulls last, j.id ${dir('desc')}`
    case 'company':
      return db`lower(c.name) ${dir('asc')}, j.date_posted desc, j.id desc`
    case 'yoe':
      return db`coalesce(j.yoe_min, j.yoe_max) ${dir('asc')} nulls last, j.id ${dir('asc')}`
    default:
      // date_posted, and relevance without text; id breaks ties, so pages never repeat or skip
      return db`j.date_posted ${dir('desc')}, j.id ${dir('desc')}`
  }
}

export type SearchResult = {
  jobs: (JobRecord & { score: number })[]
  total: number
  companies: number
  exact: boolean
}

/**
 * The ids (and scores) of one page, in order: the part of a search that reads the
 * matches. `rows` reads fewer than the page's limit from its offset (an export's charge).
 * `order` sorts the page's rows again where they are joined to their records (`page`).
 */
export async function pageIds(db: Db, f: SearchFilters, p: SearchPage, where: ReturnType<typeof whereClause>, rows = p.limit): Promise<PageIds> {
  const rank = rankQuery(db, f)
  const offset = (p.page - 1) * p.limit
  if (rank && p.sortBy === 'relevance') {
    const newest = await newestMatches(db, f, where, Math.max(p.rankWindow ?? RANK_WINDOW, offset + rows, COUNT_CAP + 1))
    return { ...rankedIds(db, f, rank, p, where, rows, offset, newest.query), estimated: newest.estimated }
  }
  const order = orderBy(db, p.sortBy, p.sortOrder)
  const ids = db`
    select j.id, ${rank ? db`ts_rank(j.rank_tsv, ${rank})::float8` : db`1::float8`} as score
    from ${jobsFor(db, f, p.sortBy === 'company')}
    where ${where}
    order by ${order}
    limit ${rows} offset ${offset}`
  return { ids, order, counted: false }
}

/**
 * A page's ids query, the order to sort its rows by, and whether each row also carries
 * the count of matches (`matched`, up to COUNT_CAP + 1 at least) and of their companies
 * (`matched_companies`), which relevance's window reads anyway (rankedIds). `estimated`
 * is the planner's estimate of the matches where choosing the page's plan asked for it
 * (newestMatches), so that an estimated total need not ask again.
 */
export type PageIds = { ids: PendingQuery<Row[]>; order: PendingQuery<Row[]>; counted: boolean; estimated?: number }

/**
 * Relevance ranks the RANK_WINDOW newest matches by score (ts_rank, then recency, then
 * id); a search that matches more lists the rest after them, newest first. Finding the
 * newest matches is a search by date, which an index serves in order however many
 * jobs match, and only they are read for their rank: ranking every match read each
 * one's row, 650 ms for 115,000 matches at 1,000,000 postings (docs/search.md, "Sorting").
 */
function rankedIds(db: Db, f: SearchFilters, rank: NonNullable<ReturnType<typeof rankQuery>>, p: SearchPage, where: ReturnType<typeof whereClause>, rows: number, offset: number, newest: PendingQuery<Row[]>): PageIds {
  const dir = p.sortOrder === 'asc' ? db`asc` : db`desc`
  const window = p.rankWindow ?? RANK_WINDOW
  // one match past COUNT_CAP tells an exact count from an estimated one (newest reads
  // that many at least), so the page counts its matches itself rather than a second
  // statement finding them again
  const ids = db`
    with newest as materialized (${newest}),
    -- the rank is read once the window is chosen: in the same select as the date sort,
    -- Postgres would compute it for every match before sorting them
    ranked as (
      select n.id, n.date_posted, j.company_id, ts_rank(j.rank_tsv, ${rank})::float8 as score,
        row_number() over (order by n.date_posted desc, n.id desc) > ${window} as beyond
      from newest n join jobs j on j.id = n.id
    )
    select id, score, row_number() over (
        order by beyond, case when not beyond then score end ${dir}, date_posted desc, id desc) as ord,
      count(*) over ()::int as matched,
      (select count(distinct company_id) from ranked)::int as matched_companies
    from ranked
    order by ord
    limit ${rows} offset ${offset}`
  return { ids, order: db`page.ord`, counted: true }
}

/**
 * The `n` newest matches (id, date_posted). Where the keywords hold a term, jobs read
 * newest first are each checked against their keyword vector, which lives in TOAST, and
 * Postgres prices that read like any other: it walks the dates for a term that one job
 * in ten has ("security", 100,000 postings: 10,732 vectors, 135 ms), where finding every
 * match through the GIN index and sorting them takes a fifth of that. So when the
 * planner's estimates say the matches are few enough (readMatchesFirst), all of them
 * are found first (OFFSET 0 keeps the LIMIT and the order out of their plan), then the
 * newest kept. Where they are many (recentWindow), the matches are first looked for
 * among the newest live jobs only, a date range that Postgres ANDs with the GIN index
 * as a bitmap, so that no keyword vector is read; the older jobs are searched, by the
 * same rule, only when that window holds fewer than `n`. A keywords phrase is confirmed
 * only by the positions in keywords_tsv: Postgres confirms it on every job that has the
 * phrase's words before it sorts them by date ("machine learning" in the last 30 days at
 * 1,000,000 postings: 9,800 vectors read, 150 ms), so the jobs with the words are sorted
 * first, and the phrase is confirmed in date order until `n` have it.
 */
export async function newestMatches(db: Db, f: SearchFilters, where: ReturnType<typeof whereClause>, n: number): Promise<NewestMatches> {
  // the statement is returned inside an object: a promise resolved with the statement itself would run it
  if (f.keywords && includesPhrase(f.keywords)) {
    const phrase = toTsquery(db, f.keywords).include!
    const query = db`
      select w.id, w.date_posted
      from (
        select j.id, j.date_posted
        from ${jobsFor(db, f)}
        where ${whereClause(db, { ...f, keywords: phrasesAsWords(f.keywords) })}
        order by j.date_posted desc, j.id desc
        offset 0
      ) w
      join jobs j on j.id = w.id
      where j.keywords_tsv @@ ${phrase}
      order by w.date_posted desc, w.id desc
      limit ${n}`
    return { query, window: null }
  }
  const matches = (also: PendingQuery<Row[]>) => db`select j.id, j.date_posted from ${jobsFor(db, f)} where ${where} and ${also}`
  const walk = (also: PendingQuery<Row[]>) => db`${matches(also)} order by j.date_posted desc, j.id desc limit ${n}`
  if (!f.keywords || !toTsquery(db, f.keywords).include) return { query: walk(db`true`), window: null }
  const estimate = await estimateShare(db, f, where)
  const estimated = Math.round(estimate.matches)
  const newest = readMatchesFirst(estimate, n)
    ? (also: PendingQuery<Row[]>) => db`select * from (${matches(also)} offset 0) m order by date_posted desc, id desc limit ${n}`
    : walk
  const size = f.includeExpired ? null : recentWindow(estimate, n)
  const start = size === null ? null : await nthNewest(db, size)
  if (!start) return { query: newest(db`true`), estimated, window: null }
  const from = db`(${start.date_posted}::date, ${start.id}::bigint)`
  // the older jobs' branch sits under a one-time filter, so it runs only when the window falls short
  const query = db`
    with recent as materialized (${matches(db`(j.date_posted, j.id) >= ${from}`)})
    select id, date_posted from recent
    union all
    select id, date_posted from (${newest(db`(j.date_posted, j.id) < ${from}`)}) older
    where (select count(*) from recent) < ${n}
    order by date_posted desc, id desc
    limit ${n}`
  return { query, estimated, window: size }
}

/**
 * newestMatches' statement; `estimated` the planner's estimate of the matches where the
 * choice of plan asked for it; `window` how many of the newest live jobs it searches
 * first (recentWindow), null where it searches them all at once.
 */
export type NewestMatches = { query: PendingQuery<Row[]>; estimated?: number; window: number | null }

/**
 * Whether finding every match costs less than reading jobs newest first until `n`
 * match, from the planner's estimates (estimateShare): the walk reads about
 * n × all / matches keyword vectors, at KEYWORD_READ_COST each, against a row for each
 * match.
 */
export function readMatchesFirst({ matches, all }: { matches: number; all: number }, n: number) {
  return matches * matches < KEYWORD_READ_COST * n * all
}

/** How many times the newest jobs expected to hold `n` matches the window spans, against the estimate being off. */
export const WINDOW_MARGIN = 1.5
/**
 * Reading an entry of the date index costs about a fortieth of fetching a row (0.09 µs:
 * 3,001 entries in 0.28 ms, against 4 µs a row), and the window reads its entries twice:
 * to find its start, then as the date range of its bitmap.
 */
export const ENTRY_COST = 1 / 20

/**
 * How many of the newest live jobs a search for the `n` newest keyword matches looks
 * among first: WINDOW_MARGIN times those that would hold `n` matches spread evenly over
 * time, from the planner's estimates. Within the window the matches are found through
 * the GIN index ANDed with the date range, which reads a row for each of them and no
 * keyword vector ("engineer", 16,700 of 76,400 live jobs, its newest 1,001 matches with
 * the pages not yet in Postgres's buffers: 120 ms walking the dates, 29 ms in a window).
 * null where the window would cost more, counted in rows, than the plan readMatchesFirst
 * chooses (every match read, or the walk's keyword vectors at KEYWORD_READ_COST), or
 * where nothing is expected to match.
 */
export function recentWindow(estimate: { matches: number; all: number }, n: number): number | null {
  const { matches, all } = estimate
  if (matches <= 0) return null
  const size = Math.ceil((WINDOW_MARGIN * n * all) / matches)
  const otherwise = readMatchesFirst(estimate, n) ? matches : (KEYWORD_READ_COST * n * all) / matches
  return WINDOW_MARGIN * n + ENTRY_COST * size < otherwise && size < all ? size : null
}

/** The `nth` newest live job's date and id, read from the date index alone; null where fewer jobs are live. */
async function nthNewest(db: Db, nth: number) {
  const [row] = await db<{ date_posted: string; id: string }[]>`
    select j.date_posted::text, j.id::text
    from jobs j
    where not j.expired
    order by j.date_posted desc, j.id desc
    offset ${nth - 1}
    limit 1`
  return row ?? null
}

export async function searchJobs(db: Db, f: SearchFilters, p: SearchPage): Promise<SearchResult> {
  const where = whereClause(db, f)
  const { ids, order, counted, estimated } = await pageIds(db, f, p, where)
  type PageRow = JobRecord & { score: number; matched?: number; matched_companies?: number }
  const [rows, separately] = await Promise.all([
    // The page is chosen over ids and sort keys alone; only its rows are then built
    // into records. Postgres evaluates a select list before sorting, so sorting the
    // records themselves would read every match's description.
    db<PageRow[]>`
      select ${jobRecord(db, { raw: p.raw, neural: p.neural })}, page.score
        ${counted ? db`, page.matched, page.matched_companies` : db``}
      from (${ids}) page
      join jobs j on j.id = page.id
      join companies c on c.id = j.company_id
      order by ${order}`,
    counted ? null : totals(db, f, where),
  ])
  const jobs = rows.map(({ matched: _m, matched_companies: _c, ...job }) => job)
  // a page past the last match carries no count: the matches are counted apart then
  const counts = separately ?? (rows.length ? await fromPageCount(db, f, where, rows[0].matched!, rows[0].matched_companies!, estimated) : await totals(db, f, where))
  return { jobs, ...withPage(counts, (p.page - 1) * p.limit, jobs.length, p.limit) }
}

/** totals from the matches a ranked page counted (rankedIds): exact up to COUNT_CAP, estimated past it. */
async function fromPageCount(db: Db, f: SearchFilters, where: ReturnType<typeof whereClause>, matched: number, companies: number, estimated?: number) {
  if (matched <= COUNT_CAP) return { total: matched, companies, exact: true }
  return { total: Math.max(COUNT_CAP + 1, estimated ?? (await estimateMatches(db, f, where))), companies, exact: false }
}

/**
 * What a page proves about an estimated total: there are at least as many matches as
 * the page reaches, and exactly that many when it came back short of its limit.
 */
function withPage<T extends { total: number; exact: boolean }>(counts: T, offset: number, found: number, limit: number): T {
  if (counts.exact) return counts
  if (found > 0 && found < limit) return { ...counts, total: offset + found, exact: true }
  return { ...counts, total: Math.max(counts.total, offset + found) }
}

/** Refreshes the planner statistics that search's estimates come from. */
export async function analyzeSearchTables(db: Db) {
  await db`analyze jobs, companies, job_locations`
}

/** The fewest jobs a load writes before their tables' statistics are refreshed during it (statisticsAsJobsGrow). */
export const ANALYZE_GROWTH_MIN = 10_000

/**
 * For a long load: returns a function to call with the jobs written so far, which
 * refreshes the statistics (analyzeSearchTables) each time the table has grown by the
 * jobs the statistics last counted, ANALYZE_GROWTH_MIN at least. Where autovacuum is off
 * or has not yet come round (the embedded database runs none), a table filled by the
 * load keeps the statistics of its start: the load's own lookups, planned for 500 hashes
 * against a table thought empty, then read every row (a sequential scan of 100,000 jobs
 * for each batch, 0.9 s, and slower with each one). Doubling keeps the refreshes few:
 * seven on the way to 1,000,000 jobs. The growth is counted from the table's size at
 * the start plus the jobs written since, not from the last refresh's moment: batches
 * written beside a refresh are in its count, and must not count again toward the next.
 */
export async function statisticsAsJobsGrow(db: Db, min: number = ANALYZE_GROWTH_MIN) {
  const counted = async () => {
    const [row] = await db<{ n: number }[]>`select greatest(reltuples, 0)::float8 as n from pg_class where oid = 'jobs'::regclass`
    return row.n
  }
  const before = await counted()
  let due = before + Math.max(min, before)
  return async (written: number) => {
    if (before + written < due) return false
    due = Infinity // until this refresh has counted: a batch written beside it finds it under way
    await analyzeSearchTables(db)
    const n = await counted()
    due = n + Math.max(min, n)
    return true
  }
}

/** The plan of a search's page query, for the bench's check that every query uses an index. */
export async function explainSearch(db: Db, f: SearchFilters, p: SearchPage) {
  const rows = await db<{ 'QUERY PLAN': string }[]>`explain ${(await pageIds(db, f, p, whereClause(db, f))).ids}`
  return rows.map((r) => r['QUERY PLAN']).join('\n')
}

/** The counts alone: POST /v2/jobs/estimate. */
export function estimateSearch(db: Db, f: SearchFilters) {
  return totals(db, f, whereClause(db, f))
}

async function totals(db: Db, f: SearchFilters, where: ReturnType<typeof whereClause>) {
  const [counted] = await countMatches(db, f, where)
  const exact = counted.total <= COUNT_CAP
  const total = exact ? counted.total : Math.max(COUNT_CAP + 1, await estimateMatches(db, f, where))
  return { total, companies: counted.companies, exact }
}

/** Exact up to COUNT_CAP + 1; the caller knows it is a lower bound past the cap. */
async function countMatches(db: Db, f: SearchFilters, where: ReturnType<typeof whereClause>) {
  return db<{ total: number; companies: number }[]>`
    select count(*)::int as total, count(distinct company_id)::int as companies
    from (
      select j.company_id from ${jobsFor(db, f)}
      where ${where}
      limit ${COUNT_CAP + 1}
    ) matched`
}

/**
 * The planner's estimates, in one planning, of the jobs that pass `where` (and `also`)
 * and of all the jobs searched (live ones, or every one with include_expired, and
 * `also`): no row is read.
 */
export async function estimateShare(db: Db, f: SearchFilters, where: ReturnType<typeof whereClause>, also = db`true`) {
  type Node = { 'Plan Rows': number; Plans?: Node[] }
  const [row] = await db<{ 'QUERY PLAN': [{ Plan: Node }] }[]>`
    explain (format json)
    select 1 from ${jobsFor(db, f)} where ${where} and ${also}
    union all
    select 1 from jobs j where ${whereClause(db, { includeExpired: f.includeExpired })} and ${also}`
  const plan = row['QUERY PLAN'][0].Plan
  // an Append of the two; a planner that proves the filters match nothing leaves the second alone
  if (plan.Plans?.length === 2) return { matches: plan.Plans[0]['Plan Rows'], all: plan.Plans[1]['Plan Rows'] }
  return { matches: 0, all: plan['Plan Rows'] }
}

async function estimateMatches(db: Db, f: SearchFilters, where: ReturnType<typeof whereClause>) {
  const [row] = await db<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }[]>`
    explain (format json) select 1 from ${jobsFor(db, f)} where ${where}`
  return Math.round(row['QUERY PLAN'][0].Plan['Plan Rows'])
}
