/** Writes for ingest: companies, jobs, their locations and sources, boards and runs. */
import type { Db } from './db.ts'

export type CompanyRow = {
  slug: string
  name: string
  logo: string | null
  link: string | null
  linkedin_link: string | null
  description_summary: string | null
  services: string[]
  size_min: number | null
  size_max: number | null
  size_bucket: string | null
  industries: string[]
  subindustries: string[]
  type: string | null
  is_recruiting_agency: boolean
  job_board: string
}

const companyColumns = [
  'slug', 'name', 'logo', 'link', 'linkedin_link', 'description_summary', 'services', 'size_min', 'size_max',
  'size_bucket', 'industries', 'subindustries', 'type', 'is_recruiting_agency', 'job_board',
] as const

/**
 * Creates companies and fills in what a feed tells us about known ones. A value the
 * feed leaves out keeps what we had; a row that would not change is not written, so
 * a re-ingest leaves companies untouched. Returns slug → id for every row given.
 */
export async function upsertCompanies(db: Db, rows: CompanyRow[]): Promise<Map<string, string>> {
  if (rows.length === 0) return new Map()
  await db`
    insert into companies ${db(rows, ...companyColumns)}
    on conflict (slug) do update set
      name = excluded.name,
      logo = coalesce(excluded.logo, companies.logo),
      link = coalesce(excluded.link, companies.link),
      linkedin_link = coalesce(excluded.linkedin_link, companies.linkedin_link),
      description_summary = coalesce(excluded.description_summary, companies.description_summary),
      services = case when cardinality(excluded.services) > 0 then excluded.services else companies.services end,
      size_min = coalesce(excluded.size_min, companies.size_min),
      size_max = coalesce(excluded.size_max, companies.size_max),
      size_bucket = coalesce(excluded.size_bucket, companies.size_bucket),
      industries = case when cardinality(excluded.industries) > 0 then excluded.industries else companies.industries end,
      subindustries = case when cardinality(excluded.subindustries) > 0 then excluded.subindustries else companies.subindustries end,
      type = coalesce(excluded.type, companies.type),
      is_recruiting_agency = excluded.is_recruiting_agency or companies.is_recruiting_agency,
      updated_at = now()
    where (companies.name, companies.logo, companies.link, companies.linkedin_link, companies.description_summary,
           companies.services, companies.size_min, companies.size_max, companies.size_bucket, companies.industries,
           companies.subindustries, companies.type, companies.is_recruiting_agency)
      is distinct from
          (excluded.name, coalesce(excluded.logo, companies.logo), coalesce(excluded.link, companies.link),
           coalesce(excluded.linkedin_link, companies.linkedin_link),
           coalesce(excluded.description_summary, companies.description_summary),
           case when cardinality(excluded.services) > 0 then excluded.services else companies.services end,
           coalesce(excluded.size_min, companies.size_min), coalesce(excluded.size_max, companies.size_max),
           coalesce(excluded.size_bucket, companies.size_bucket),
           case when cardinality(excluded.industries) > 0 then excluded.industries else companies.industries end,
           case when cardinality(excluded.subindustries) > 0 then excluded.subindustries else companies.subindustries end,
           coalesce(excluded.type, companies.type), excluded.is_recruiting_agency or companies.is_recruiting_agency)`
  const found = await db<{ id: string; slug: string }[]>`
    select id::text, slug from companies where slug = any(${rows.map((r) => r.slug)})`
  return new Map(found.map((r) => [r.slug, r.id]))
}

/** The stored companies of these slugs, as a feed would give them, with their ids. */
export async function findCompanies(db: Db, slugs: string[]): Promise<Map<string, CompanyRow & { id: string }>> {
  if (slugs.length === 0) return new Map()
  const rows = await db<(CompanyRow & { id: string })[]>`
    select id::text, ${db(companyColumns as unknown as string[])} from companies where slug = any(${slugs})`
  return new Map(rows.map((r) => [r.slug, r]))
}

export type SourceKey = { job_board: string; source_key: string }

export type KnownSource = SourceKey & { job_id: string; md5_hash: string; content_hash: string; primary: boolean }

/** Sources already known by one of these (board, source id) pairs, with their job. */
export async function findJobsBySource(db: Db, keys: SourceKey[]) {
  if (keys.length === 0) return []
  return db<KnownSource[]>`
    select s.job_board, s.source_key, s.content_hash, j.id::text as job_id, j.md5_hash,
           (j.job_board = s.job_board and j.source_key = s.source_key) as primary
    from job_sources s
    join jobs j on j.id = s.job_id
    join unnest(${keys.map((k) => k.job_board)}::text[], ${keys.map((k) => k.source_key)}::text[]) as k (job_board, source_key)
      on k.job_board = s.job_board and k.source_key = s.source_key`
}

export type GroupJob = {
  job_id: string
  md5_hash: string
  live: boolean
  /** YYYY-MM-DD */
  date_posted: string
  date_expired: string | null
  /** expired, but not past its valid_through at `seenAt`: touchJobs would bring it back */
  revivable: boolean
}

/**
 * The jobs of these duplicate groups (md5_hash), live and expired: a group holds a live
 * job at most and one expired job per past posting period (docs/ingest.md, Re-posted jobs).
 */
export async function findJobsByHash(db: Db, hashes: string[], seenAt: Date) {
  if (hashes.length === 0) return []
  return db<GroupJob[]>`
    select id::text as job_id, md5_hash, not expired as live, to_char(date_posted, 'YYYY-MM-DD') as date_posted,
           to_char(date_expired, 'YYYY-MM-DD') as date_expired,
           expired and not coalesce(valid_through <= ${seenAt}, false) as revivable
    from jobs where md5_hash = any(${hashes})
    order by id`
}

export type JobRow = Record<(typeof jobColumns)[number], unknown>

export const jobColumns = [
  'company_id', 'job_slug', 'md5_hash', 'source_key', 'job_title', 'job_title_raw', 'description', 'description_raw',
  'location_raw', 'locations', 'location_type', 'remote_countries', 'place_keys', 'job_type', 'salary_min', 'salary_max',
  'salary_currency', 'salary_period', 'salary_annual_min', 'salary_annual_max', 'yoe_min', 'yoe_max',
  'experience_level', 'education_level', 'language', 'team', 'requirements_summary', 'job_categories', 'skills',
  'technologies', 'benefits', 'visa_sponsored', 'recruiter_agency', 'offers_equity', 'date_posted', 'job_board',
  'job_board_link', 'application_link', 'platform_job_id', 'contact_email', 'contact_phone', 'coolness_score',
  'flexibility_score', 'compensation_value_score', 'benefits_score', 'impact_autonomy_score', 'prestige_score',
  'growth_score', 'meta_completeness', 'meta_targetability', 'valid_through', 'expired', 'date_expired',
  'first_seen_at', 'last_seen_at',
] as const

export async function insertJobs(db: Db, rows: JobRow[]) {
  if (rows.length === 0) return []
  return db<{ id: string; md5_hash: string; job_slug: string }[]>`
    insert into jobs ${db(rows as Record<string, any>[], ...jobColumns)}
    returning id::text, md5_hash, job_slug`
}

/** The posting changed at its source: rewrite the job, keeping its identity and first sighting. */
export async function updateJob(db: Db, id: string, row: JobRow) {
  const { first_seen_at: _first, job_slug: _slug, ...changes } = row
  const c = changes as Record<string, any>
  // The fields a job's vector embeds, as the trigger jobs_embedding_stale lists them. A
  // vector of the old text goes in this same write: left to the trigger, the row would be
  // written twice, and the stale vector indexed in between.
  const sameText = () => db`
    (job_title, company_id, locations, location_type, remote_countries, skills, technologies, job_categories, description)
    is not distinct from (${c.job_title}::text, ${c.company_id}::bigint, ${c.locations}::jsonb, ${c.location_type}::text,
      ${c.remote_countries}::text[], ${c.skills}::text[], ${c.technologies}::text[], ${c.job_categories}::text[], ${c.description}::text)`
  // on the right of each =, a column is the job's before this update
  await db`
    update jobs set ${db(c, ...jobColumns.filter((c) => c !== 'first_seen_at' && c !== 'job_slug'))},
      expired_at = case when ${c.expired}::boolean then coalesce(expired_at, now()) end,
      embedding = case when ${sameText()} then embedding end,
      embedding_model = case when ${sameText()} then embedding_model end,
      updated_at = now()
    where id = ${id}`
}

/**
 * Seen again, unchanged. A job that had expired only because its board stopped
 * listing it comes back; one past its valid_through stays expired.
 */
export async function touchJobs(db: Db, ids: string[], seenAt: Date) {
  if (ids.length === 0) return
  await db`
    update jobs set
      last_seen_at = ${seenAt},
      expired = expired and coalesce(valid_through <= ${seenAt}, false),
      date_expired = case when expired and coalesce(valid_through <= ${seenAt}, false) then date_expired end,
      expired_at = case when expired and coalesce(valid_through <= ${seenAt}, false) then expired_at end
    where id = any(${ids}::bigint[])`
}

/** Seen again by a posting that has ended too: only when, never back to live. */
export async function markSeen(db: Db, ids: string[], seenAt: Date) {
  if (ids.length === 0) return
  await db`update jobs set last_seen_at = ${seenAt} where id = any(${ids}::bigint[])`
}

export type LocationRow = {
  job_id: string
  position: number
  city: string | null
  region: string | null
  country: string | null
  lat: number | null
  lng: number | null
}

export async function replaceLocations(db: Db, jobIds: string[], rows: LocationRow[]) {
  if (jobIds.length) await db`delete from job_locations where job_id = any(${jobIds}::bigint[])`
  if (rows.length) await db`insert into job_locations ${db(rows, 'job_id', 'position', 'city', 'region', 'country', 'lat', 'lng')}`
}

export type SourceRow = SourceKey & {
  job_id: string
  content_hash: string
  job_board_link: string | null
  application_link: string | null
  first_seen_at: Date
  last_seen_at: Date
}

export async function upsertSources(db: Db, rows: SourceRow[]) {
  if (rows.length === 0) return
  await db`
    insert into job_sources ${db(rows, 'job_id', 'job_board', 'source_key', 'content_hash', 'job_board_link', 'application_link', 'first_seen_at', 'last_seen_at')}
    on conflict (job_board, source_key) do update set
      job_id = excluded.job_id,
      content_hash = excluded.content_hash,
      job_board_link = coalesce(excluded.job_board_link, job_sources.job_board_link),
      application_link = coalesce(excluded.application_link, job_sources.application_link),
      last_seen_at = excluded.last_seen_at`
}

export async function markBoardsIngested(db: Db, boards: string[], at: Date) {
  if (boards.length === 0) return
  await db`
    insert into job_boards (name, last_ingest_at)
    select name, ${at} from unnest(${boards}::text[]) as name
    on conflict (name) do update set last_ingest_at = greatest(job_boards.last_ingest_at, excluded.last_ingest_at)`
}

export type RunCounts = {
  read: number
  inserted: number
  updated: number
  duplicates: number
  unchanged: number
  rejected: number
  expired_on_arrival: number
}

export async function insertIngestRun(db: Db, source: string, startedAt: Date) {
  const [run] = await db<{ id: string }[]>`
    insert into ingest_runs (source, started_at) values (${source}, ${startedAt}) returning id::text`
  return run.id
}

/**
 * Whether an ingest is writing now: a run started and not finished. A run whose process
 * died is never finished; after an hour it no longer counts.
 */
export async function ingestInProgress(db: Db) {
  const [row] = await db<{ running: boolean }[]>`
    select exists (select 1 from ingest_runs where finished_at is null and started_at > now() - interval '1 hour') as running`
  return row.running
}

export async function finishIngestRun(db: Db, id: string, counts: RunCounts) {
  await db`
    update ingest_runs set ${db(counts, 'read', 'inserted', 'updated', 'duplicates', 'unchanged', 'rejected', 'expired_on_arrival')}, finished_at = now()
    where id = ${id}`
}
