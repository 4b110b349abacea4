/**
 * The expired-jobs feed (GET /v2/jobs/expired-jobs) and its export: expired jobs in
 * the order this service marked them expired (jobs.expired_at), newest first, with
 * `since` a lower bound on that time. date_expired cannot order the feed: it is
 * clamped to valid_through, so a job marked expired today may carry last week's date
 * and a client polling with since=<its last poll> would never see it.
 * docs/expired-jobs.md describes the feed for clients.
 */
import type { Db } from './db.ts'

/** A page row: the response's item as is (expired_at becomes ISO 8601 in JSON). */
export type ExpiredJob = { _id: string; job_slug: string; company_slug: string; date_expired: string; expired_at: Date }

/** An export line: exactly these fields, in this order. */
export type ExpiredJobLine = { _id: string; company_slug: string; job_slug: string; date_expired: string }

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i

const daysIn = (year: number, month: number) =>
  month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31

/** Year 1 to 9999 in UTC: what a Date sends to Postgres as timestamptz and it reads back. */
const EARLIEST = Date.parse('0001-01-01T00:00:00.000Z')
const LATEST = Date.parse('9999-12-31T23:59:59.999Z')

/**
 * `since` as an instant, or null when the text is not one. Accepted, as ISO 8601 and
 * RFC 3339 write them:
 *
 *   2026-01-31                       that day from 00:00 UTC
 *   2026-01-31T08:30                 seconds and a fraction optional (08:30:15, 08:30:15.250);
 *                                    without an offset the time is UTC
 *   2026-01-31T10:30:00+02:00        Z, ±hh:mm, ±hhmm or ±hh
 *
 * Refused: a day the calendar lacks (2026-02-31), hour 24 or a leap second, a space for
 * the T (which is also what a `+` unescaped in a query string turns into), anything
 * else around the value, and instants outside years 1 to 9999 UTC. Fractions past
 * milliseconds are cut, not rounded, so the bound never moves later than asked.
 */
export function parseSince(text: string): Date | null {
  const m = ISO.exec(text)
  if (!m) return null
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])]
  const [hour, minute, second] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)]
  const millis = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3))
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null
  if (hour > 23 || minute > 59 || second > 59) return null
  let offsetMinutes = 0
  const zone = m[8]
  if (zone && zone.toUpperCase() !== 'Z') {
    const digits = zone.slice(1).replace(':', '')
    const [h, mm] = [Number(digits.slice(0, 2)), Number(digits.slice(2) || 0)]
    if (h > 23 || mm > 59) return null
    offsetMinutes = (zone[0] === '-' ? -1 : 1) * (h * 60 + mm)
  }
  // setUTCFullYear, because Date.UTC reads years 0 to 99 as 1900 to 1999
  const at = new Date(0)
  at.setUTCFullYear(year, month - 1, day)
  at.setUTCHours(hour, minute, second, millis)
  const ms = at.getTime() - offsetMinutes * 60_000
  return ms >= EARLIEST && ms <= LATEST ? new Date(ms) : null
}

/** The window: expired jobs marked at or after since (all of them without one). */
const inWindow = (db: Db, since: Date | null) => db`j.expired ${since ? db`and j.expired_at >= ${since}` : db``}`

// date_expired is set wherever expired is; the fallback (the day of expired_at, UTC)
// keeps the promised YYYY-MM-DD should a row ever lack it
const dateExpired = (db: Db) => db`to_char(coalesce(j.date_expired, (j.expired_at at time zone 'UTC')::date), 'YYYY-MM-DD')`

/**
 * A page of the window, newest first; `more` says whether a row follows it. The page
 * is found first over jobs_expired_at_idx alone (id is in the index, so skipping a
 * deep offset reads index entries, not a job and its company per skipped row), then
 * only its rows are joined.
 */
export async function listExpiredJobs(db: Db, { since, offset, limit }: { since: Date | null; offset: number; limit: number }) {
  const rows = await db<ExpiredJob[]>`
    with page as (
      select j.id from jobs j
      where ${inWindow(db, since)}
      order by j.expired_at desc, j.id desc
      offset ${offset} limit ${limit + 1}
    )
    select j.id::text as _id, j.job_slug, c.slug as company_slug, ${dateExpired(db)} as date_expired, j.expired_at
    from page p
    join jobs j on j.id = p.id
    join companies c on c.id = j.company_id
    order by j.expired_at desc, j.id desc`
  return { jobs: rows.slice(0, limit), more: rows.length > limit }
}

/**
 * The whole window since `since` as export lines, newest first, not yet run: the
 * export walks it through a held cursor (sql/export.ts readHeld). One statement, so the
 * walk sees one snapshot however long it takes.
 */
export function expiredJobsQuery(db: Db, since: Date) {
  return db<ExpiredJobLine[]>`
    select j.id::text as _id, c.slug as company_slug, j.job_slug, ${dateExpired(db)} as date_expired
    from jobs j
    join companies c on c.id = j.company_id
    where ${inWindow(db, since)}
    order by j.expired_at desc, j.id desc`
}

/** How many jobs the window holds, for an export's progress. */
export async function countExpiredJobs(db: Db, since: Date) {
  const [row] = await db<{ n: number }[]>`select count(*)::int as n from jobs j where ${inWindow(db, since)}`
  return row.n
}
