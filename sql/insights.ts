/**
 * Aggregates for POST /v2/jobs/insights (the live postings a job search matches) and
 * POST /v2/platform/companies/{slug}/insights (one company's postings). Salary
 * statistics come from sql/salary-stats.ts, as the salary benchmark's do.
 * docs/market-data.md has the fields.
 *
 * Job insights: exact counts over every match (total, location types, job types,
 * experience levels, categories, companies, the weekly trend and the salaries), and the
 * lists that need each posting's skills, technologies and places (top_skills,
 * top_technologies, top_countries, top_cities) over a sample of at most SAMPLE_POSTINGS
 * of them, their counts scaled to the total. Those arrays are stored out of line (TOAST):
 * reading them costs a look-up per posting, a few microseconds, which for 77,000 matches was
 * 0.4 s for skills alone. The sample is the matches with the lowest hash of their id:
 * uniform, independent of every field, and the same on every call over the same data.
 */
import type { Db } from './db.ts'
import { annualPay, distributionQuery, salaryDistribution, toDistribution, type DistributionRow, type SalaryStats } from './salary-stats.ts'
import { whereClause, type SearchFilters } from './search.ts'

/** The most postings the lists of skills, technologies and places are computed over. */
export const SAMPLE_POSTINGS = 2_000
/** Entries in each top list. */
export const TOP = 10
export const TREND_WEEKS = 12
export const TREND_MONTHS = 12

export type Count = { value: string; count: number }

const day = (d: Date) => d.toISOString().slice(0, 10)

/** A list as [{value, count}], most first, at most `limit`; `values` selects one column named value. */
const top = (db: Db, values: ReturnType<Db>, limit = TOP) => db`
  coalesce((select json_agg(t) from (
    select value, count(*)::int as count from (${values}) v
    where value is not null and value <> ''
    group by value order by count desc, value limit ${limit}) t), '[]'::json)`

/** {value: count} of one column from the grouping sets of `grouped` (g: grouping()'s bit of the other columns); unknown values (null) are left out. */
const counts = (db: Db, column: string, g: number) => db`
  coalesce((select json_object_agg(${db(column)}, n order by ${db(column)}) from grouped where g = ${g} and ${db(column)} is not null), '{}'::json)`

type Counts = {
  total: number
  remote: number
  location_types: Record<string, number>
  job_types: Record<string, number>
  experience_levels: Record<string, number>
  top_job_categories: Count[]
  top_companies: (Count & { company_slug: string })[]
  salary: DistributionRow[]
}

/** The matches, with `cols` of j, read the one way every statement here reads them. */
const matches = (db: Db, where: ReturnType<typeof whereClause>, cols: ReturnType<Db>) => db`
  select ${cols}
  -- every job has its company, so this is the inner join; left, the planner drops it when no filter reads c
  from jobs j left join companies c on c.id = j.company_id
  where ${where}`

/**
 * The exact figures in one statement: the matches are read once (with few filters, an
 * index-only scan of jobs_insights_idx, migration 0018) into `m`, and each figure is
 * computed from it.
 */
function exactCounts(db: Db, where: ReturnType<typeof whereClause>, currency: string) {
  return db<Counts[]>`
    with m as materialized (
      ${matches(db, where, db`j.id, j.company_id, j.location_type, j.job_type, j.experience_level, j.job_categories, ${annualPay(db, currency)} as pay`)}
    ),
    -- one pass for the three columns' counts and the total (g: the bits of the columns not grouped by)
    grouped as materialized (
      select location_type, job_type, experience_level, grouping(location_type, job_type, experience_level) as g, count(*)::int as n
      from m group by grouping sets ((location_type), (job_type), (experience_level), ())
    ),
    salary as (${distributionQuery(db, db`select pay, experience_level from m`, { groups: ['experience_level'] })})
    select
      coalesce((select n from grouped where g = 7), 0) as total,
      coalesce((select n from grouped where g = 3 and location_type = 'Remote'), 0) as remote,
      ${counts(db, 'location_type', 3)} as location_types,
      ${counts(db, 'job_type', 5)} as job_types,
      ${counts(db, 'experience_level', 6)} as experience_levels,
      -- postings share few sets of categories: counting the sets first leaves little to unnest
      coalesce((select json_agg(t) from (
        select value, sum(n)::int as count from (
          select unnest(job_categories) as value, n from (select job_categories, count(*) as n from m group by job_categories) sets) v
        group by value order by count desc, value limit ${TOP}) t), '[]'::json) as top_job_categories,
      coalesce((select json_agg(json_build_object('value', c.name, 'count', t.count, 'company_slug', c.slug) order by t.count desc, c.name)
        from (select company_id, count(*)::int as count from m group by company_id order by count desc, company_id limit ${TOP}) t
        join companies c on c.id = t.company_id), '[]'::json) as top_companies,
      coalesce((select json_agg(salary) from salary), '[]'::json) as salary`
}

type Sampled = {
  sampled: number
  top_skills: Count[]
  top_technologies: Count[]
  top_countries: Count[]
  top_cities: (Count & { country: string | null })[]
}

/**
 * The lists over the sample, in a statement of their own that runs beside exactCounts:
 * the sample's ids are the matches' lowest hashes (a top-N sort over the same narrow
 * read), and only their rows are read for skills, technologies and places.
 */
function sampledLists(db: Db, where: ReturnType<typeof whereClause>, sample: number) {
  return db<Sampled[]>`
    with s as materialized (
      select j.id, j.skills, j.technologies, j.remote_countries
      from (${matches(db, where, db`j.id`)} order by hashint8(j.id) limit ${sample}) x join jobs j on j.id = x.id
    ),
    -- by the sample's ids: a join would read every place to hash them
    places as materialized (
      select l.job_id, l.city, l.country from job_locations l where l.job_id = any(array(select id from s))
    )
    select
      (select count(*)::int from s) as sampled,
      ${top(db, db`select unnest(skills) as value from s`)} as top_skills,
      ${top(db, db`select unnest(technologies) as value from s`)} as top_technologies,
      -- a posting counts once per country: its places' and, remote, the countries it hires in
      ${top(db, db`select distinct id, value from (
          select job_id as id, country as value from places union all select id, unnest(remote_countries) from s) x`)} as top_countries,
      coalesce((select json_agg(t) from (
        select city as value, country, count(distinct job_id)::int as count from places
        where city is not null and city <> '' group by city, country order by count desc, city limit ${TOP}) t), '[]'::json) as top_cities`
}

/** Postings per week (Monday to Sunday, UTC) over the last `weeks` weeks, the current one last, zero-filled. */
function weekly(db: Db, f: SearchFilters, now: Date, weeks = TREND_WEEKS) {
  return db<{ week_start: string; count: number }[]>`
    with w as (
      select generate_series(date_trunc('week', ${day(now)}::date) - make_interval(weeks => ${weeks - 1}), date_trunc('week', ${day(now)}::date), interval '1 week')::date as week
    )
    select w.week::text as week_start, count(p.week)::int as count
    from w left join (
      select date_trunc('week', j.date_posted)::date as week
      from jobs j left join companies c on c.id = j.company_id
      where ${whereClause(db, { ...f, includeExpired: true })}
        and j.date_posted >= date_trunc('week', ${day(now)}::date) - make_interval(weeks => ${weeks - 1})
    ) p on p.week = w.week
    group by w.week
    order by w.week`
}

/** Scales a count in the sample to the matches, when the sample is not all of them. */
const scaled = (total: number, sampled: number) => (c: Count) => (sampled >= total || sampled === 0 ? c : { ...c, count: Math.round((c.count * total) / sampled) })

export type JobInsights = Omit<Counts, 'remote' | 'salary'> & Omit<Sampled, 'sampled'> & {
  postings_by_week: { week_start: string; count: number }[]
  salary: SalaryStats & { by_experience_level: Record<string, SalaryStats> }
  remote_share: number | null
  sample: { postings: number; of: number }
}

/**
 * Insights over the live postings `f` matches. The weekly trend counts expired postings
 * too (those posted in a week and since expired were still posted then), with the same
 * filters, so that it does not fall off towards older weeks as postings expire.
 */
export async function jobInsights(db: Db, f: SearchFilters, currency: string, { now = new Date(), sample = SAMPLE_POSTINGS } = {}): Promise<JobInsights> {
  const where = whereClause(db, f)
  const [[c], [x], weeks] = await Promise.all([exactCounts(db, where, currency), sampledLists(db, where, sample), weekly(db, f, now)])
  const pay = toDistribution(c.salary, currency, ['experience_level'])
  const scale = scaled(c.total, x.sampled)
  return {
    total: c.total,
    postings_by_week: weeks,
    top_job_categories: c.top_job_categories,
    top_skills: x.top_skills.map(scale),
    top_technologies: x.top_technologies.map(scale),
    top_companies: c.top_companies,
    top_countries: x.top_countries.map(scale),
    top_cities: x.top_cities.map((city) => scale(city) as Count & { country: string | null }),
    location_types: c.location_types,
    job_types: c.job_types,
    experience_levels: c.experience_levels,
    salary: { ...pay.salary, by_experience_level: pay.groups.experience_level },
    remote_share: c.total > 0 ? Math.round((c.remote / c.total) * 10_000) / 10_000 : null,
    sample: { postings: x.sampled, of: c.total },
  }
}

export type CompanyInsights = {
  open_roles: { total: number; by_category: Count[] }
  hiring_trend: { month: string; count: number }[]
  locations: { city: string | null; region: string | null; country: string | null; count: number }[]
  location_types: Record<string, number>
  salary: SalaryStats
  salary_by_category: Record<string, SalaryStats>
  posting_lifetime: { median_days: number | null; expired_postings: number }
}

/** At most this many places in a company's locations. */
export const COMPANY_LOCATIONS = 20

/**
 * One company's insights. Open roles, locations and location types are its live
 * postings; the hiring trend counts every posting by the month it was posted (live and
 * expired, the last TREND_MONTHS months including this one, zero-filled); salaries are
 * those of its postings posted in the same months, live or expired, grouped by each
 * posting's first category; the lifetime is the median of date_expired − date_posted
 * over its expired postings.
 */
export async function companyInsights(db: Db, companyId: string, currency: string, now = new Date()): Promise<CompanyInsights> {
  const firstMonth = db`date_trunc('month', ${day(now)}::date) - make_interval(months => ${TREND_MONTHS - 1})`
  const [[live], trend, [lifetime], pay] = await Promise.all([
    db<{ total: number; by_category: Count[]; locations: CompanyInsights['locations']; location_types: Record<string, number> }[]>`
      with m as materialized (
        select j.id, j.location_type, j.job_type, j.experience_level, j.job_categories from jobs j
        where j.company_id = ${companyId} and not j.expired
      )
      select (select count(*)::int from m) as total,
        ${top(db, db`select unnest(job_categories) as value from m`, 100)} as by_category,
        coalesce((select json_agg(t) from (
          select l.city, l.region, l.country, count(distinct l.job_id)::int as count
          from m join job_locations l on l.job_id = m.id
          group by l.city, l.region, l.country
          order by count desc, l.country, l.region, l.city limit ${COMPANY_LOCATIONS}) t), '[]'::json) as locations,
        coalesce((select json_object_agg(location_type, n order by location_type) from (
          select location_type, count(*)::int as n from m where location_type is not null group by 1) t), '{}'::json) as location_types`,
    db<{ month: string; count: number }[]>`
      with months as (
        select generate_series(${firstMonth}, date_trunc('month', ${day(now)}::date), interval '1 month')::date as month
      )
      select to_char(months.month, 'YYYY-MM') as month, count(j.id)::int as count
      from months left join jobs j
        on j.company_id = ${companyId} and date_trunc('month', j.date_posted)::date = months.month
      group by months.month
      order by months.month`,
    db<{ median_days: number | null; expired_postings: number }[]>`
      select percentile_cont(0.5) within group (order by j.date_expired - j.date_posted)::float8 as median_days,
        count(*)::int as expired_postings
      from jobs j
      where j.company_id = ${companyId} and j.expired and j.date_expired >= j.date_posted`,
    salaryDistribution(
      db,
      db`select ${annualPay(db, currency)} as pay, j.job_categories[1] as category from jobs j
         where j.company_id = ${companyId} and j.date_posted >= ${firstMonth}`,
      currency,
      { groups: ['category'], minGroup: 1 },
    ),
  ])
  return {
    open_roles: { total: live.total, by_category: live.by_category },
    hiring_trend: trend,
    locations: live.locations,
    location_types: live.location_types,
    salary: pay.salary,
    salary_by_category: pay.groups.category,
    posting_lifetime: { median_days: lifetime.median_days === null ? null : Math.round(lifetime.median_days * 10) / 10, expired_postings: lifetime.expired_postings },
  }
}
