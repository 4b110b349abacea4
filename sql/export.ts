/**
 * Job export (POST /v2/jobs/export): the search's matches in its order, page and
 * limit, read through a server-side cursor a batch at a time, so memory stays flat
 * whatever the size.
 *
 * The cursor holds ids and scores only, declared WITH HOLD on a reserved connection:
 * Postgres runs the selection once and keeps the result, and each FETCH is a statement
 * of its own. Other queries go on between fetches, on a server and on the embedded
 * database alike (which serves every connection from one session, so a cursor left
 * open inside a transaction there would hold up all of them).
 *
 * Postgres renders each record as a line of text (renderRecords): a JSON line is
 * `row_to_json(…)::text`, and a CSV row's nested fields are their JSON text, quoted into
 * the row, so the worker never parses a value into an object only to serialize it again
 * (docs/performance.md, "Exports"), and only joins the lines.
 */
import { stringify } from 'csv-stringify/sync'
import type { PendingQuery, ReservedSql, Row } from 'postgres'
import { reserved, type Db, type Sql } from './db.ts'
import { companyData, shownLocations } from './jobs.ts'
import { jobsFor, pageIds, whereClause, type SearchFilters, type SearchPage } from './search.ts'

export const FETCH_ROWS = 1000
/** batches read ahead of the one being rendered (writeExportRecords) */
export const READ_AHEAD = 4

/** The records an export of this page and limit would hold: min(limit, matches past the page's offset). */
export async function countExport(db: Db, f: SearchFilters, p: Pick<SearchPage, 'page' | 'limit'>) {
  const offset = (p.page - 1) * p.limit
  const [row] = await db<{ n: number }[]>`
    select greatest(0, count(*) - ${offset})::int as n from (
      select 1 from ${jobsFor(db, f)}
      where ${whereClause(db, f)}
      limit ${offset + p.limit}
    ) matched`
  return row.n
}

/** How Postgres writes an export's records: CSV rows or JSON lines. */
export type RecordFormat = 'csv' | 'json'

/**
 * The spec's export record of each job of the batch b. For CSV every value is text:
 * nested fields and arrays as their JSON text, booleans as true/false, so the driver
 * hands the worker strings it writes as they are.
 */
export function exportRecord(db: Db, raw: boolean, format: RecordFormat) {
  const text = (value: PendingQuery<Row[]>) => (format === 'csv' ? db`(${value})::text` : value)
  return db`
    j.id::text as _id,
    j.application_link,
    ${text(companyData(db))} as company_data,
    c.link as company_link,
    c.logo as company_logo,
    c.name as company_name,
    c.slug as company_slug,
    to_char(j.date_posted, 'YYYY-MM-DD') as date_posted,
    j.description,
    ${raw ? db`j.description_raw,` : db``}
    j.education_level,
    j.job_board,
    j.job_board_link,
    ${text(db`to_jsonb(j.job_categories)`)} as job_categories,
    j.job_slug,
    j.job_title,
    j.job_type,
    j.language,
    j.location_raw,
    j.location_type,
    ${text(shownLocations(db))} as locations,
    ${text(db`jsonb_build_object('position', b.position, 'task_id', b.task_id)`)} as meta,
    ${text(db`j.meta_completeness`)} as meta_completeness,
    ${text(db`j.recruiter_agency`)} as recruiter_agency,
    j.requirements_summary,
    ${text(db`b.score`)} as score,
    ${text(db`to_jsonb(j.skills)`)} as skills,
    ${text(db`to_jsonb(j.technologies)`)} as technologies,
    ${text(db`j.visa_sponsored`)} as visa_sponsored,
    ${text(db`case when j.yoe_min is null and j.yoe_max is null then null
      else jsonb_build_object('min', j.yoe_min, 'max', j.yoe_max)
    end`)} as yoe_range`
}

/**
 * Every variable-length value an export record reads (exportRecord, companyData,
 * shownLocations), the jobs' and their companies': any of them may live in TOAST, and
 * the export's read-ahead (writeExportRecords) reads them all so that rendering finds
 * their pages in memory. Reading only the descriptions left the companies' links and
 * logos: on a cold cache a batch's render then read about a thousand pages of the
 * companies' TOAST from the disk in its working time, and rested for it too.
 * test/search/export-read-ahead.test.ts keeps this list in step with the record.
 */
export function toastedValues(db: Db, raw: boolean) {
  return db`
    length(j.description) + ${raw ? db`length(j.description_raw)` : db`0`} + length(j.application_link)
    + length(j.education_level) + length(j.job_board) + length(j.job_board_link) + length(j.job_slug)
    + length(j.job_title) + length(j.job_type) + length(j.language) + length(j.location_raw)
    + length(j.location_type) + length(j.requirements_summary) + length(j.locations::text)
    + cardinality(j.job_categories) + cardinality(j.skills) + cardinality(j.technologies) + cardinality(j.remote_countries)
    + length(c.name) + length(c.link) + length(c.logo) + length(c.slug) + length(c.description_summary)
    + length(c.linkedin_link) + cardinality(c.services) + cardinality(c.industries) + cardinality(c.subindustries)`
}

/** A CSV field that holds one of these is quoted, as csv-stringify quotes it. */
const CSV_QUOTED = '[",\r\n]'

/**
 * `records`' rows as lines of text, rendered by Postgres: JSON lines (row_to_json), or
 * CSV rows of text values, each field quoted as csv-stringify quotes it (in quotes, with
 * quotes doubled, when it holds a comma, a quote or a line break; null is an empty
 * field). Quoting a batch of 1,000 job records (about 4 MB) took csv-stringify 50–130 ms
 * of the event loop, which an export in the API's process shares with every request
 * (docs/tasks.md, "Yielding to the API"); Postgres takes 30–40 ms more of the export's
 * backend, and the worker only joins the lines.
 */
export async function renderRecords(db: Db, records: PendingQuery<Row[]>, format: RecordFormat) {
  const lines =
    format === 'json'
      ? await db<{ line: string }[]>`select row_to_json(r)::text as line from (${records}) r`
      : await db<{ line: string }[]>`
          select (
            select string_agg(case when v is null then '' when v ~ ${CSV_QUOTED} then '"' || replace(v, '"', '""') || '"' else v end, ',' order by o)
            from json_each_text(row_to_json(r)) with ordinality as f(k, v, o)
          ) as line
          from (${records}) r`
  return lines.map((r) => r.line + '\n').join('')
}

/**
 * Reads `query`'s rows `batchRows` at a time through a cursor WITH HOLD named `name`
 * (unique among the cursors open at once), calling `onBatch` with each batch; returns
 * the number of rows.
 */
export async function readHeld<T extends object>(
  conn: ReservedSql,
  name: string,
  query: PendingQuery<T[]> | PendingQuery<Row[]>,
  onBatch: (rows: T[]) => Promise<void>,
  batchRows = FETCH_ROWS,
) {
  const cursor = conn(name)
  let count = 0
  try {
    await conn`declare ${cursor} no scroll cursor with hold for ${query}`
    for (;;) {
      // FETCH takes its count as a literal, not a parameter
      const batch = await conn<T[]>`fetch ${conn.unsafe(String(batchRows))} from ${cursor}`
      if (batch.length === 0) break
      count += batch.length
      await onBatch(batch)
    }
  } finally {
    await conn`close ${cursor}`.catch(() => {})
  }
  return count
}

/**
 * Writes the export's records to `write` in the export's order, a batch at a time (for
 * csv a header first, then CSV rows; for json, JSON lines), calls `onBatch` with each
 * batch's number of records and how long it waited on the disk, and returns how many
 * records there were. Every id the cursor yields becomes a record: jobs are never
 * deleted, and each has its company. `rows` caps the export below the page's limit (what
 * was charged). `name` is unique among the exports running at once.
 *
 * Each batch's rows are read once, on a connection of the pool, before they are
 * rendered, and `readAhead` batches are read ahead of the one being rendered: on a cold
 * cache, the export's reads from the disk then run several at a time, and while the
 * export rests (jobs/pace.ts) rather than one after another in its working time.
 * Rendering finds the same pages in memory. The time a batch's render waits for its read
 * is the batch's wait on the disk, which the export's pacing does not count as work.
 */
export async function writeExportRecords(
  sql: Sql,
  name: string,
  q: { filters: SearchFilters; page: SearchPage; rows: number; taskId: string; format: RecordFormat },
  write: (chunk: string) => Promise<void>,
  onBatch: (records: number, waitedMs: number) => Promise<void>,
  { batchRows = FETCH_ROWS, readAhead = READ_AHEAD } = {},
) {
  const { ids } = await pageIds(sql, q.filters, q.page, whereClause(sql, q.filters), Math.min(q.page.limit, q.rows))
  return reserved(sql, async (conn) => {
    let position = (q.page.page - 1) * q.page.limit
    const records = (batch: { id: string; score: number }[]) => conn`
      select ${exportRecord(conn, q.page.raw, q.format)}
      from (
        select u.id, u.score, ${position}::int + u.n::int as position, ${q.taskId}::uuid as task_id
        from unnest(${batch.map((r) => r.id)}::bigint[], ${batch.map((r) => r.score)}::float8[]) with ordinality as u(id, score, n)
      ) b
      join jobs j on j.id = b.id
      join companies c on c.id = j.company_id
      order by b.position`
    // the pages rendering reads: the rows, their companies, and the values of both in TOAST
    const readRows = (batch: { id: string }[]) => sql`
      select count(${toastedValues(sql, q.page.raw)})::int
      from jobs j join companies c on c.id = j.company_id
      where j.id = any(${batch.map((r) => r.id)}::bigint[])`
    // for CSV every value is text or null (exportRecord), written as it is
    const text = (batch: { id: string; score: number }[]) => renderRecords(conn, records(batch), q.format)
    if (q.format === 'csv') {
      // the columns of a batch of none: the header, whatever the export holds
      const { columns } = await records([])
      await write(stringify([columns.map((c) => c.name)]))
    }
    type Batch = { rows: { id: string; score: number }[]; read: Promise<unknown> }
    const ahead: Batch[] = []
    const render = async ({ rows, read }: Batch) => {
      const t0 = performance.now()
      await read
      const waited = performance.now() - t0
      await write(await text(rows))
      position += rows.length
      await onBatch(rows.length, waited)
    }
    try {
      const count = await readHeld<{ id: string; score: number }>(conn, name, ids, async (rows) => {
        // sent now (postgres.js sends a query when it is awaited), awaited by its render;
        // a failure is observed there, not reported as unhandled before it
        const read = readRows(rows).execute()
        read.catch(() => {})
        ahead.push({ rows, read })
        if (ahead.length > readAhead) await render(ahead.shift()!)
      }, batchRows)
      while (ahead.length > 0) await render(ahead.shift()!)
      return count
    } finally {
      // a failed export ends only once none of its reads is still running
      await Promise.allSettled(ahead.map((b) => b.read))
    }
  })
}
