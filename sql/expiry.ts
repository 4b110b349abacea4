/**
 * Expiry: a live job becomes expired when it is past valid_through, or when none of
 * its sources was seen by that board's latest ingest and the last sighting is more
 * than `afterDays` old. Then every expired job the archive lacks (including those
 * that arrived already past valid_through) is copied there, in the same transaction.
 *
 * A job is one posting period (a posting listed again after its period ended is a new
 * job: docs/ingest.md, "Re-posted jobs"), so the archive holds one row per period. A
 * row's dates follow its job's: a job that came back and expired again (the same period,
 * ended later), or one whose ended posting was corrected at its source.
 */
import type { Db, Sql } from './db.ts'
import { recordExpiredForMatching } from './saved-searches.ts'
import { refreshCompensationPercentiles } from './scores.ts'
import { analyzeSearchTables } from './search.ts'

export async function expireJobs(sql: Sql, { afterDays, now = new Date() }: { afterDays: number; now?: Date }) {
  const result = await sql.begin(async (tx) => {
    const expired = await markExpired(tx, afterDays, now)
    // company search's live counts and words of the companies whose jobs this run expired
    if (expired > 0) await tx`select refresh_company_stats(array(select distinct company_id from jobs where expired_at = ${now}))`
    // saved searches hear of them (job.expired) once this commits
    if (expired > 0) await recordExpiredForMatching(tx, now)
    const archived = await archiveExpired(tx)
    return { expired, archived }
  })
  if (result.expired > 0) {
    // percentiles rank among live postings, and searches' estimates count live jobs only
    await refreshCompensationPercentiles(sql)
    await analyzeSearchTables(sql)
  }
  return result
}

async function markExpired(db: Db, afterDays: number, now: Date) {
  const result = await db`
    update jobs j set
      expired = true,
      date_expired = least(coalesce(j.valid_through, ${now}), ${now})::date,
      -- when this run marked it: the expired-jobs feed's order (date_expired can lie in the past)
      expired_at = ${now},
      updated_at = now()
    where not j.expired
      and (
        j.valid_through <= ${now}
        or not exists (
          select 1 from job_sources s left join job_boards b on b.name = s.job_board
          where s.job_id = j.id
            and (b.name is null -- its board's first ingest is still running
                 or s.last_seen_at >= b.last_ingest_at
                 or s.last_seen_at > ${now}::timestamptz - make_interval(days => ${afterDays}))
        )
      )`
  return result.count
}

export async function archiveExpired(db: Db) {
  const result = await db`
    insert into job_archive (job_id, job_title, company_name, company_slug, locations, countries, date_posted,
                             date_expired, skills, technologies, benefits, description_kept, description)
    select j.id, j.job_title, c.name, c.slug, j.locations,
           array(select distinct x from unnest(
             array(select l.country from job_locations l where l.job_id = j.id and l.country is not null) || j.remote_countries
           ) as x),
           j.date_posted, j.date_expired, j.skills, j.technologies, j.benefits,
           j.description <> '', nullif(j.description, '')
    from jobs j
    join companies c on c.id = j.company_id
    left join job_archive a on a.job_id = j.id
    where j.expired and (a.job_id is null or (a.date_posted, a.date_expired) is distinct from (j.date_posted, j.date_expired))
    on conflict (job_id) do update set date_posted = excluded.date_posted, date_expired = excluded.date_expired,
      archived_at = now()`
  return result.count
}
