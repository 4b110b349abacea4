/** Reads of companies as the spec's company profile. */
import type { Db } from './db.ts'

export type CompanyProfile = {
  id: string
  company_slug: string
  company_name: string
  company_logo: string | null
  job_board: string | null
  linkedin_link: string | null
  company_link: string | null
  description_summary: string | null
  size_range: { min: number | null; max: number | null } | null
  size_bucket: string | null
  industries: string[]
  subindustries: string[]
  careers_url: string | null
  technologies: string[]
  remote_policy: string | null
  hiring_region: string | null
  /** derived at ingest (company_types_of in sql/migrations/0016; docs/companies.md) */
  company_types: string[]
}

/** The company profile's fields of `companies c`, as the API shows them (GET /v2/platform/companies/{slug}, company search). */
export const companyProfileFields = (db: Db) => db`
  c.slug as company_slug,
  c.name as company_name,
  c.logo as company_logo,
  c.job_board,
  c.linkedin_link,
  c.link as company_link,
  c.description_summary,
  case when c.size_min is null and c.size_max is null then null
    else jsonb_build_object('min', c.size_min, 'max', c.size_max) end as size_range,
  c.size_bucket,
  c.industries,
  c.subindustries,
  c.careers_url,
  c.technologies,
  c.remote_policy,
  c.hiring_region,
  c.company_types`

export async function findCompanyBySlug(db: Db, slug: string) {
  const [company] = await db<CompanyProfile[]>`
    select c.id::text, ${companyProfileFields(db)}
    from companies c where c.slug = ${slug}`
  return company ?? null
}

/**
 * Recomputes what company search reads from a company's postings (live_jobs,
 * live_terms, live_boards) and its company_types, for these companies
 * (refresh_company_stats in sql/migrations/0016). Ingest calls it once a run for the
 * companies the run wrote, expiry for those whose jobs it expired.
 */
export async function refreshCompanyStats(db: Db, ids: string[]) {
  if (ids.length === 0) return 0
  const [{ written }] = await db<{ written: number }[]>`select refresh_company_stats(${ids}::bigint[]) as written`
  return written
}

/** refreshCompanyStats for companies named by slug (company profiles carry no id). */
export async function refreshCompanyStatsBySlug(db: Db, slugs: string[]) {
  if (slugs.length === 0) return 0
  const [{ written }] = await db<{ written: number }[]>`
    select refresh_company_stats(array(select id from companies where slug = any(${slugs}))) as written`
  return written
}

/** What a company profile sets (ingest/companies.ts); null and empty leave the stored value. */
export type CompanyProfileRow = {
  slug: string
  name: string
  link: string | null
  careers_url: string | null
  description_summary: string | null
  size_min: number | null
  size_max: number | null
  size_bucket: string | null
  technologies: string[]
  remote_policy: string | null
  hiring_region: string | null
}

const profileColumns = [
  'slug', 'name', 'link', 'careers_url', 'description_summary', 'size_min', 'size_max', 'size_bucket', 'technologies', 'remote_policy', 'hiring_region',
] as const

/** Creates or updates companies by slug; counts what was inserted, changed and already so. */
export async function upsertCompanyProfiles(db: Db, rows: CompanyProfileRow[]) {
  const written = await db<{ inserted: boolean }[]>`
    insert into companies ${db(rows, ...profileColumns)}
    on conflict (slug) do update set
      name = excluded.name,
      link = coalesce(excluded.link, companies.link),
      careers_url = coalesce(excluded.careers_url, companies.careers_url),
      description_summary = coalesce(excluded.description_summary, companies.description_summary),
      size_min = coalesce(excluded.size_min, companies.size_min),
      size_max = coalesce(excluded.size_max, companies.size_max),
      size_bucket = coalesce(excluded.size_bucket, companies.size_bucket),
      technologies = case when cardinality(excluded.technologies) > 0 then excluded.technologies else companies.technologies end,
      remote_policy = coalesce(excluded.remote_policy, companies.remote_policy),
      hiring_region = coalesce(excluded.hiring_region, companies.hiring_region),
      profile_updated_at = now(),
      updated_at = now()
    where (companies.name, companies.link, companies.careers_url, companies.description_summary, companies.size_min,
           companies.size_max, companies.size_bucket, companies.technologies, companies.remote_policy, companies.hiring_region)
      is distinct from
          (excluded.name, coalesce(excluded.link, companies.link), coalesce(excluded.careers_url, companies.careers_url),
           coalesce(excluded.description_summary, companies.description_summary),
           coalesce(excluded.size_min, companies.size_min), coalesce(excluded.size_max, companies.size_max),
           coalesce(excluded.size_bucket, companies.size_bucket),
           case when cardinality(excluded.technologies) > 0 then excluded.technologies else companies.technologies end,
           coalesce(excluded.remote_policy, companies.remote_policy), coalesce(excluded.hiring_region, companies.hiring_region))
    returning (xmax = 0) as inserted`
  const inserted = written.filter((r) => r.inserted).length
  return { inserted, updated: written.length - inserted, unchanged: rows.length - written.length }
}
