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
  industries: string[]
  subindustries: string[]
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
      industries,
      subindustries
    from companies where slug = ${slug}`
  return company ?? null
}
