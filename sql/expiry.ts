/**
 * Expiry: a live job becomes expired when it is past valid_through, or when none of
 * its sources was seen by that board's latest ingest and the last sighting is more
 * than `afterDays` old. Every job that expires is copied to the archive in the same
 * statement, so the two never disagree.
 */
import type { Db } from './db.ts'

export async function expireJobs(db: Db, { afterDays, now = new Date() }: { afterDays: number; now?: Date }) {
  const [result] = await db<{ expired: number; archived: number }[]>`
    with stale as (
      select j.id from jobs j
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
        )
      for update of j skip locked
    ),
    expired as (
      update jobs j set
        expired = true,
        date_expired = least(coalesce(j.valid_through, ${now}), ${now})::date,
        updated_at = now()
      from stale where j.id = stale.id
      returning j.*
    ),
    archived as (
      insert into job_archive (job_id, job_title, company_name, company_slug, locations, countries, date_posted,
                               date_expired, skills, technologies, benefits, description_kept, description)
      select e.id, e.job_title, c.name, c.slug, e.locations,
             array(select distinct x from unnest(
               array(select l.country from job_locations l where l.job_id = e.id and l.country is not null) || e.remote_countries
             ) as x),
             e.date_posted, e.date_expired, e.skills, e.technologies, e.benefits,
             e.description <> '', nullif(e.description, '')
      from expired e join companies c on c.id = e.company_id
      on conflict (job_id) do update set
        date_expired = excluded.date_expired, archived_at = now()
      returning 1
    )
    select (select count(*)::int from expired) as expired, (select count(*)::int from archived) as archived`
  return result
}
