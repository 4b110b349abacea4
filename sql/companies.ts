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
}

export async function findCompanyBySlug(db: Db, slug: string) {
  const [company] = await db<CompanyProfile[]>`
    select
      id::text,
      slug as company_slug,
      name as company_name,
      logo as company_logo,
      job_board,
      linkedin_link,
      link as company_link,
      description_summary,
      case when size_min is null and size_max is null then null
        else jsonb_build_object('min', size_min, 'max', size_max) end as size_range,
      size_bucket,
      industries,
      subindustries,
      careers_url,
      technologies,
      remote_policy,
      hiring_region
    from companies where slug = ${slug}`
  return company ?? null
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
