/**
 * The matcher: turns the inbox's rows (jobs an ingest inserted, an expiry expired, a
 * vector write embedded) into webhook events, in one transaction per claimed row that
 * deletes the row and writes the events, so a crash before it commits leaves the row
 * for the next try and a commit leaves no row to match twice.
 *
 * Matching is set-based: each statement runs a group of searches over all the row's
 * jobs (a UNION ALL of the searches' own whereClause), so 1,000 searches over a batch of
 * 500 new jobs are 20 statements, not 500,000 checks.
 */
import type { Logger } from 'pino'
import type { Db, Sql } from '../sql/db.ts'
import { claimInbox, insertEvents, insertMatches, listMatchers, type EventType, type InboxRow } from '../sql/saved-searches.ts'

/** Searches per statement: enough to make a statement worth its round trip, few enough to plan quickly. */
const SEARCHES_PER_STATEMENT = 50
/** Jobs per statement: an expiry run can expire tens of thousands at once. */
const JOBS_PER_STATEMENT = 2_000

const chunks = <T>(xs: T[], n: number) => Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, (i + 1) * n))

async function matchRow(tx: Db, row: InboxRow) {
  // a vector write matches vsearch searches, and what it finds is new to them
  const type: EventType = row.type === 'job.vector' ? 'job.new' : row.type
  const searches = await listMatchers(tx, row.type)
  let events = 0
  for (const ids of chunks(row.job_ids, JOBS_PER_STATEMENT)) {
    const found = []
    for (const group of chunks(searches, SEARCHES_PER_STATEMENT)) found.push(...(await insertMatches(tx, group, type, ids)))
    events += await insertEvents(tx, type, found)
  }
  return events
}

/** Matches up to `rows` inbox rows, each in its own transaction; returns how many it took and the events made. */
export async function matchInbox(sql: Sql, log: Logger, rows = 4) {
  let taken = 0
  let events = 0
  for (let i = 0; i < rows; i++) {
    const done = await sql.begin(async (tx) => {
      const [row] = await claimInbox(tx, 1)
      if (!row) return null
      return { row, events: await matchRow(tx, row) }
    })
    if (!done) break
    taken++
    events += done.events
    if (done.events) log.info({ inbox_id: done.row.id, type: done.row.type, jobs: done.row.job_ids.length, events: done.events }, 'saved searches matched')
  }
  return { taken, events }
}
