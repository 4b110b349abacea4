/**
 * The matcher: turns the inbox's rows (jobs an ingest inserted, an expiry expired, a
 * vector write embedded) into webhook events, in one transaction per claim that deletes
 * the rows it took and writes the events, so a crash before it commits leaves the rows
 * for the next try and a commit leaves no row to match twice.
 *
 * Matching is set-based: each statement runs a group of searches over a chunk of jobs (a
 * UNION ALL of the searches' own whereClause), so 1,000 searches over 2,000 new jobs are
 * 20 statements, not 2,000,000 checks. An ingest writes a row a batch (500 jobs); while
 * it runs (ingest_runs) the matcher waits, as the deliveries do (webhooks-deliver.ts),
 * though never longer than MAX_WAIT_MS after the oldest row, and then for the inbox to be
 * still for QUIET_MS; then it matches the rows together. The ingest keeps the machine's
 * cores to itself meanwhile, and its jobs take a quarter of the statements (10,000 jobs
 * against 1,000 searches: 2.5-3 s together, 8-14 s row by row; docs/webhooks.md).
 */
import type { Logger } from 'pino'
import type { Db, Sql } from '../sql/db.ts'
import { ingestInProgress } from '../sql/postings.ts'
import { claimInbox, inboxAges, insertEvents, insertMatches, listMatchers, type EventType, type InboxRow } from '../sql/saved-searches.ts'

/** Searches per statement: enough to make a statement worth its round trip, few enough to plan quickly. */
const SEARCHES_PER_STATEMENT = 50
/** Jobs per statement: an expiry run can expire tens of thousands at once. */
const JOBS_PER_STATEMENT = 2_000
/** Inbox rows one claim takes: 20,000 jobs of ingest batches. */
const ROWS_PER_CLAIM = 40
/** The inbox has been still this long: whoever writes it has finished, or paused. */
export const QUIET_MS = 2_000
/** The oldest row (or due delivery) has waited this long: it goes now, even while an ingest runs. */
export const MAX_WAIT_MS = 60_000

const chunks = <T>(xs: T[], n: number) => Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, (i + 1) * n))

async function matchRows(tx: Db, rows: InboxRow[]) {
  // a vector write matches vsearch searches, and what it finds is new to them
  const type: EventType = rows[0].type === 'job.vector' ? 'job.new' : rows[0].type
  const searches = await listMatchers(tx, rows[0].type)
  const ids = [...new Set(rows.flatMap((r) => r.job_ids))]
  let events = 0
  for (const part of chunks(ids, JOBS_PER_STATEMENT)) {
    const found = []
    for (const group of chunks(searches, SEARCHES_PER_STATEMENT)) found.push(...(await insertMatches(tx, group, type, part)))
    events += await insertEvents(tx, type, found)
  }
  return events
}

/**
 * Matches what the inbox holds once no ingest runs and it has been still for QUIET_MS,
 * or once its oldest row has waited MAX_WAIT_MS: a claim of rows of one type at a time,
 * each in its own transaction. Returns how many rows it took and the events made.
 */
export async function matchInbox(sql: Sql, log: Logger, claims = 4) {
  let taken = 0
  let events = 0
  const ages = await inboxAges(sql)
  if (ages.newest_ms === null) return { taken, events }
  if (ages.oldest_ms! < MAX_WAIT_MS && (ages.newest_ms < QUIET_MS || (await ingestInProgress(sql)))) return { taken, events }
  for (let i = 0; i < claims; i++) {
    const done = await sql.begin(async (tx) => {
      const rows = await claimInbox(tx, ROWS_PER_CLAIM)
      if (rows.length === 0) return null
      return { rows, events: await matchRows(tx, rows) }
    })
    if (!done) break
    taken += done.rows.length
    events += done.events
    const jobs = done.rows.reduce((n, r) => n + r.job_ids.length, 0)
    if (done.events) log.info({ inbox_ids: done.rows.map((r) => r.id), type: done.rows[0].type, jobs, events: done.events }, 'saved searches matched')
  }
  return { taken, events }
}
