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
 * Postgres writes the records themselves: each batch's ids are staged in a temporary
 * table and `COPY … TO STDOUT` turns them into CSV rows or JSON lines, which the worker
 * only moves to the file. Parsing rows into objects and serializing them again cost
 * the worker more CPU than Postgres spends writing them (docs/performance.md, "Exports").
 */
import type { PendingQuery, ReservedSql, Row } from 'postgres'
import { reserved, type Db, type Sql } from './db.ts'
import { companyData, shownLocations } from './jobs.ts'
import { pageIds, whereClause, type SearchFilters, type SearchPage } from './search.ts'

export const FETCH_ROWS = 1000

/** The records an export of this page and limit would hold: min(limit, matches past the page's offset). */
export async function countExport(db: Db, f: SearchFilters, p: Pick<SearchPage, 'page' | 'limit'>) {
  const offset = (p.page - 1) * p.limit
  const [row] = await db<{ n: number }[]>`
    select greatest(0, count(*) - ${offset})::int as n from (
      select 1 from jobs j join companies c on c.id = j.company_id
      where ${whereClause(db, f)}
      limit ${offset + p.limit}
    ) matched`
  return row.n
}

/** How Postgres writes an export's records: CSV rows or JSON lines. */
export type RecordFormat = 'csv' | 'json'

/**
 * The spec's export record, from the staged batch as b. Arrays are JSON, so that CSV
 * holds them as JSON text like the other nested fields; booleans are text in CSV, where
 * COPY would write t and f.
 */
function exportRecord(db: Db, raw: boolean, format: RecordFormat) {
  const flag = (column: PendingQuery<Row[]>) => (format === 'csv' ? db`${column}::text` : column)
  return db`
    j.id::text as _id,
    j.application_link,
    ${companyData(db)} as company_data,
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
    to_jsonb(j.job_categories) as job_categories,
    j.job_slug,
    j.job_title,
    j.job_type,
    j.language,
    j.location_raw,
    j.location_type,
    ${shownLocations(db)} as locations,
    jsonb_build_object('position', b.position, 'task_id', b.task_id) as meta,
    ${flag(db`j.meta_completeness`)} as meta_completeness,
    ${flag(db`j.recruiter_agency`)} as recruiter_agency,
    j.requirements_summary,
    b.score,
    to_jsonb(j.skills) as skills,
    to_jsonb(j.technologies) as technologies,
    ${flag(db`j.visa_sponsored`)} as visa_sponsored,
    case when j.yoe_min is null and j.yoe_max is null then null
      else jsonb_build_object('min', j.yoe_min, 'max', j.yoe_max)
    end as yoe_range`
}

/**
 * Reads `query`'s rows FETCH_ROWS at a time through a cursor WITH HOLD named `name`
 * (unique among the cursors open at once), calling `onBatch` with each batch; returns
 * the number of rows.
 */
export async function readHeld<T extends object>(conn: ReservedSql, name: string, query: PendingQuery<T[]> | PendingQuery<Row[]>, onBatch: (rows: T[]) => Promise<void>) {
  const cursor = conn(name)
  let count = 0
  try {
    await conn`declare ${cursor} no scroll cursor with hold for ${query}`
    for (;;) {
      // FETCH takes its count as a literal, not a parameter
      const batch = await conn<T[]>`fetch ${conn.unsafe(String(FETCH_ROWS))} from ${cursor}`
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
 * batch's number of records, and returns how many there were. Every id the cursor
 * yields becomes a record: jobs are never deleted, and each has its company. `rows`
 * caps the export below the page's limit (what was charged). `name` is unique among the
 * exports running at once.
 */
export async function copyExport(
  sql: Sql,
  name: string,
  q: { filters: SearchFilters; page: SearchPage; rows: number; taskId: string; format: RecordFormat },
  write: (chunk: Buffer) => Promise<void>,
  onBatch: (records: number) => Promise<void>,
) {
  const { ids } = pageIds(sql, q.filters, q.page, whereClause(sql, q.filters), Math.min(q.page.limit, q.rows))
  const staged = sql(`${name}_batch`)
  return reserved(sql, async (conn) => {
    await conn`create temporary table ${staged} (position int, id bigint, score float8, task_id uuid)`
    try {
      const records = () => conn`
        select ${exportRecord(conn, q.page.raw, q.format)}
        from ${staged} b
        join jobs j on j.id = b.id
        join companies c on c.id = j.company_id
        order by b.position`
      // JSON text escapes every control character, so with a quote and a delimiter
      // that cannot occur in it, CSV mode writes each line exactly as row_to_json made it
      const copy = async (header: boolean) => {
        const query =
          q.format === 'csv'
            ? conn`copy (${records()}) to stdout (format csv${header ? conn`, header` : conn``})`
            : conn`copy (select row_to_json(r)::text from (${records()}) r) to stdout (format csv, quote e'\\x01', delimiter e'\\x02')`
        for await (const chunk of await query.readable()) await write(chunk as Buffer)
      }
      // the staged table is still empty: the header alone
      if (q.format === 'csv') await copy(true)
      let position = (q.page.page - 1) * q.page.limit
      return await readHeld<{ id: string; score: number }>(conn, name, ids, async (batch) => {
        await conn`
          insert into ${staged} (position, id, score, task_id)
          select ${position} + b.n, b.id, b.score, ${q.taskId}
          from unnest(${batch.map((r) => r.id)}::bigint[], ${batch.map((r) => r.score)}::float8[]) with ordinality as b(id, score, n)`
        await copy(false)
        await conn`truncate ${staged}`
        position += batch.length
        await onBatch(batch.length)
      })
    } finally {
      await conn`drop table if exists ${staged}`.catch(() => {})
    }
  })
}
