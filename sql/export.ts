/**
 * Job export (POST /v2/jobs/export): the search's matches in its order, page and
 * limit, read through a server-side cursor and built into the spec's export records
 * a batch at a time, so memory stays flat whatever the size.
 *
 * The cursor holds ids and scores only, declared WITH HOLD on a reserved connection:
 * Postgres runs the selection once and keeps the result, and each FETCH is a statement
 * of its own. Other queries go on between fetches, on a server and on the embedded
 * database alike (which serves every connection from one session, so a cursor left
 * open inside a transaction there would hold up all of them).
 */
import type { PendingQuery, Row } from 'postgres'
import type { Db, Sql } from './db.ts'
import { companyData } from './jobs.ts'
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

/** The spec's export record; meta is added by the writer. */
function exportRecord(db: Db, raw: boolean) {
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
    j.job_categories,
    j.job_slug,
    j.job_title,
    j.job_type,
    j.language,
    j.location_raw,
    j.location_type,
    j.locations,
    j.meta_completeness,
    j.recruiter_agency,
    j.requirements_summary,
    b.score,
    j.skills,
    j.technologies,
    j.visa_sponsored,
    case when j.yoe_min is null and j.yoe_max is null then null
      else jsonb_build_object('min', j.yoe_min, 'max', j.yoe_max)
    end as yoe_range`
}

export type ExportRow = Record<string, unknown> & { _id: string; score: number }

/**
 * Reads `query`'s rows FETCH_ROWS at a time through a cursor WITH HOLD named `name`
 * (unique among the cursors open at once), calling `onBatch` with each batch; returns
 * the number of rows.
 */
export async function readHeld<T extends object>(sql: Sql, name: string, query: PendingQuery<T[]> | PendingQuery<Row[]>, onBatch: (rows: T[]) => Promise<void>) {
  const cursor = sql(name)
  const conn = await sql.reserve()
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
    conn.release()
  }
  return count
}

/**
 * Calls `onBatch` with each batch of records, in the export's order, and returns how
 * many there were. `rows` caps the export below the page's limit (what was charged).
 */
export async function readExport(
  sql: Sql,
  name: string,
  q: { filters: SearchFilters; page: SearchPage; rows: number },
  onBatch: (records: ExportRow[]) => Promise<void>,
) {
  const { ids } = pageIds(sql, q.filters, q.page, whereClause(sql, q.filters), Math.min(q.page.limit, q.rows))
  return readHeld<{ id: string; score: number }>(sql, name, ids, async (batch) => {
    const records = await sql<ExportRow[]>`
      select ${exportRecord(sql, q.page.raw)}
      from unnest(${batch.map((r) => r.id)}::bigint[], ${batch.map((r) => r.score)}::float8[]) with ordinality as b(id, score, n)
      join jobs j on j.id = b.id
      join companies c on c.id = j.company_id
      order by b.n`
    await onBatch(records)
  })
}
