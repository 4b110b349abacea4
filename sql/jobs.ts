/** Reads of jobs as the spec's job records. */
import type { Db } from './db.ts'

export type JobRecord = Record<string, unknown> & { _id: string }

export type RecordOptions = {
  /** description_raw too (return_raw_description) */
  raw?: boolean
  /**
   * The fields only neural-search output carries (spec: Job record): job_title_raw,
   * experience_level as an object, days_ago, md5_hash, platform_job_id, contact_email
   * and contact_phone as {value} objects (docs/scores.md), the seven scores, meta_completeness,
   * meta_targetability, and company_data's type, is_recruiting_agency and
   * is_3rd_party_agency (the posting came through a third-party agency:
   * recruiter_agency).
   */
  neural?: boolean
}

/**
 * The select list of a job record, in the spec's names, so rows go straight to
 * responses. Expects jobs as j and companies as c.
 */
export function jobRecord(db: Db, { raw = false, neural = false }: RecordOptions = {}) {
  return db`
    j.id::text as _id,
    c.name as company_name,
    j.job_title,
    ${neural ? db`j.job_title_raw,` : db``}
    j.description,
    ${raw ? db`j.description_raw,` : db``}
    j.application_link,
    j.location_raw,
    j.job_categories,
    j.job_type,
    j.location_type,
    ${shownLocations(db)} as locations,
    j.remote_countries,
    case when j.salary_min is null and j.salary_max is null then null
      else jsonb_build_object('min', j.salary_min, 'max', j.salary_max, 'currency', j.salary_currency, 'period', j.salary_period)
    end as salary_range,
    case when j.yoe_min is null and j.yoe_max is null then null
      else jsonb_build_object('min', j.yoe_min, 'max', j.yoe_max)
    end as yoe_range,
    ${neural ? db`jsonb_build_object('level', j.experience_level, 'yoe_min', j.yoe_min, 'yoe_max', j.yoe_max)` : db`j.experience_level`} as experience_level,
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
    ${companyData(db)} ${neural ? db`|| jsonb_build_object('type', c.type, 'is_recruiting_agency', c.is_recruiting_agency, 'is_3rd_party_agency', j.recruiter_agency)` : db``} as company_data,
    j.expired,
    to_char(j.date_expired, 'YYYY-MM-DD') as date_expired,
    j.salary_currency as currency
    ${neural ? neuralFields(db) : db``}`
}

/**
 * A job record's `locations`, from jobs as j: the places it is in, then one country-only
 * entry for each country of its remote scope that none of those places is in, so a remote
 * job open only to one country ("Remote - US": remote_countries ["United States"]) shows
 * where it is open, and why a country filter found it (docs/search.md, "Geo filters").
 * e.g. [] + ["United States"] -> [{city: null, region: null, country: "United States"}];
 *      [New York, NY, United States] + ["United States", "Canada"] -> [New York …, {country: "Canada"}]
 * Search, vsearch, neural-search, the job and company lookups and exports all use it.
 */
export function shownLocations(db: Db) {
  return db`case when cardinality(j.remote_countries) = 0 then j.locations else j.locations || coalesce((
      select jsonb_agg(jsonb_build_object('city', null, 'region', null, 'country', r.country) order by r.n)
      from unnest(j.remote_countries) with ordinality as r(country, n)
      where not exists (select 1 from jsonb_array_elements(j.locations) l where l->>'country' = r.country)
    ), '[]'::jsonb) end`
}

/** A job record's company_data, from companies as c. */
export function companyData(db: Db) {
  return db`jsonb_build_object(
      'description_summary', c.description_summary,
      'linkedin_link', c.linkedin_link,
      'services', c.services,
      'size_range', case when c.size_min is null and c.size_max is null then null
        else jsonb_build_object('min', c.size_min, 'max', c.size_max) end,
      'industries', c.industries,
      'subindustries', c.subindustries
    )`
}

function neuralFields(db: Db) {
  return db`,
    current_date - j.date_posted as days_ago,
    j.md5_hash,
    j.platform_job_id,
    case when j.contact_email is null then null else jsonb_build_object('value', j.contact_email) end as contact_email,
    case when j.contact_phone is null then null else jsonb_build_object('value', j.contact_phone) end as contact_phone,
    j.coolness_score,
    j.flexibility_score,
    j.compensation_value_score,
    j.benefits_score,
    j.impact_autonomy_score,
    j.prestige_score,
    j.growth_score,
    j.meta_completeness,
    j.meta_targetability`
}

export type Viewer = { accountId: string; userId: string }

/**
 * A job by id. With a viewer, the view is recorded in the same statement (for
 * neural-search's hide_seen_jobs): only a job that exists is recorded, and only once.
 */
export async function findJob(db: Db, id: string, opts: { raw?: boolean; viewer?: Viewer } = {}) {
  if (!/^\d{1,18}$/.test(id)) return null
  const { viewer } = opts
  const [job] = await db<JobRecord[]>`
    with job as (
      select ${jobRecord(db, opts)}
      from jobs j join companies c on c.id = j.company_id
      where j.id = ${id}
    )
    ${viewer ? db`, viewed as (
      insert into job_views (account_id, user_id, job_id)
      select ${viewer.accountId}, ${viewer.userId}, _id::bigint from job
      on conflict do nothing
    )` : db``}
    select * from job`
  return job ?? null
}

/** Records that a viewer fetched a job by id, for a lookup read on a replica (api/routes/jobs.ts); findJob's viewer does it in the same statement. */
export async function insertJobView(db: Db, viewer: Viewer, jobId: string) {
  await db`
    insert into job_views (account_id, user_id, job_id)
    values (${viewer.accountId}, ${viewer.userId}, ${jobId})
    on conflict do nothing`
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
