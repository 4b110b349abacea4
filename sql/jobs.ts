/** Reads of jobs as the spec's job records. */
import type { Db } from './db.ts'

export type JobRecord = Record<string, unknown> & { _id: string }

/**
 * The select list of a job record, in the spec's names, so rows go straight to
 * responses. Expects jobs as j and companies as c.
 */
export function jobRecord(db: Db, { raw = false }: { raw?: boolean } = {}) {
  return db`
    j.id::text as _id,
    c.name as company_name,
    j.job_title,
    j.description,
    ${raw ? db`j.description_raw,` : db``}
    j.application_link,
    j.location_raw,
    j.job_categories,
    j.job_type,
    j.location_type,
    j.locations,
    case when j.salary_min is null and j.salary_max is null then null
      else jsonb_build_object('min', j.salary_min, 'max', j.salary_max, 'currency', j.salary_currency, 'period', j.salary_period)
    end as salary_range,
    case when j.yoe_min is null and j.yoe_max is null then null
      else jsonb_build_object('min', j.yoe_min, 'max', j.yoe_max)
    end as yoe_range,
    j.experience_level,
    j.education_level,
    j.skills,
    j.technologies,
    j.benefits,
    j.requirements_summary,
    j.team,
    j.language,
    j.visa_sponsored,
    j.recruiter_agency,
    j.offers_equity,
    to_char(j.date_posted, 'YYYY-MM-DD') as date_posted,
    j.job_board,
    j.job_board_link,
    j.job_slug,
    c.slug as company_slug,
    c.link as company_link,
    c.logo as company_logo,
    jsonb_build_object(
      'description_summary', c.description_summary,
      'linkedin_link', c.linkedin_link,
      'services', c.services,
      'size_range', case when c.size_min is null and c.size_max is null then null
        else jsonb_build_object('min', c.size_min, 'max', c.size_max) end,
      'industries', c.industries,
      'subindustries', c.subindustries
    ) as company_data,
    j.expired,
    to_char(j.date_expired, 'YYYY-MM-DD') as date_expired,
    j.salary_currency as currency`
}

export async function findJob(db: Db, id: string, opts: { raw?: boolean } = {}) {
  if (!/^\d{1,18}$/.test(id)) return null
  const [job] = await db<JobRecord[]>`
    select ${jobRecord(db, opts)}
    from jobs j join companies c on c.id = j.company_id
    where j.id = ${id}`
  return job ?? null
}

export async function findCompanyJob(db: Db, companyId: string, jobSlug: string, opts: { raw?: boolean } = {}) {
  const [job] = await db<JobRecord[]>`
    select ${jobRecord(db, opts)}
    from jobs j join companies c on c.id = j.company_id
    where j.company_id = ${companyId} and j.job_slug = ${jobSlug}`
  return job ?? null
}

/** A company's jobs, newest first; live ones only unless includeExpired. */
export async function listCompanyJobs(
  db: Db,
  companyId: string,
  { limit, offset, includeExpired = false }: { limit: number; offset: number; includeExpired?: boolean },
) {
  const [{ total }] = await db<{ total: number }[]>`
    select count(*)::int as total from jobs j
    where j.company_id = ${companyId} ${includeExpired ? db`` : db`and not j.expired`}`
  const jobs = await db<JobRecord[]>`
    select ${jobRecord(db)}
    from jobs j join companies c on c.id = j.company_id
    where j.company_id = ${companyId} ${includeExpired ? db`` : db`and not j.expired`}
    order by j.date_posted desc, j.id desc
    limit ${limit} offset ${offset}`
  return { total, jobs }
}

export async function listCompanyCategories(db: Db, companyId: string) {
  return db<{ category: string }[]>`
    select distinct unnest(job_categories) as category from jobs
    where company_id = ${companyId} and not expired
    order by category`
}
