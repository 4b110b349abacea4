/**
 * The export_job_data task (POST /v2/jobs/export): the search's matches, in its order,
 * page and limit, as NDJSON (format json: one job per line) or CSV (a header, one row
 * per job, nested fields as JSON text), with the spec's export fields and
 * description_raw when return_raw_description is "true".
 *
 * The search arrives in the job's params as the route resolved it when the task was
 * created (the same filters, the same "days ago"), with the number of records charged:
 * the export never holds more than that. If fewer match by the time it runs (jobs
 * expired meanwhile), the units it did not use are refunded with the finish.
 */
import { stringify } from 'csv-stringify/sync'
import { readExport, type ExportRow } from '../sql/export.ts'
import type { SearchFilters, SearchPage } from '../sql/search.ts'
import { CSV, discardExport, JSONL, writeExport, type ExportDeps, type Write } from './export-file.ts'
import type { TaskType } from './tasks.ts'

export const TYPE = 'export_job_data'

/** What the route hands the worker: the resolved search and the records charged. */
export type ExportParams = { filters: SearchFilters; page: SearchPage; rows: number }

/** CSV columns, in the spec's order of export fields; description_raw follows description when asked for. */
const COLUMNS = [
  '_id', 'application_link', 'company_data', 'company_link', 'company_logo', 'company_name', 'company_slug',
  'date_posted', 'description', 'education_level', 'job_board', 'job_board_link', 'job_categories', 'job_slug',
  'job_title', 'job_type', 'language', 'location_raw', 'location_type', 'locations', 'meta', 'meta_completeness',
  'recruiter_agency', 'requirements_summary', 'score', 'skills', 'technologies', 'visa_sponsored', 'yoe_range',
]
export const csvColumns = (raw: boolean) => (raw ? COLUMNS.flatMap((c) => (c === 'description' ? [c, 'description_raw'] : [c])) : COLUMNS)

const csvCast = { object: (v: object) => JSON.stringify(v), boolean: (v: boolean) => String(v) }

export function exportJobData(deps: ExportDeps): TaskType {
  return {
    name: TYPE,
    discard: discardExport(deps.store),
    run: async ({ task, params, progress }) => {
      const q = params as ExportParams
      const csv = task.input.format === 'csv'
      const offset = (q.page.page - 1) * q.page.limit
      const columns = csvColumns(q.page.raw)
      const finish = await writeExport(deps, task, csv ? CSV : JSONL, 'jobs-export', async (out: Write) => {
        let written = 0
        if (csv) await out(stringify([columns]))
        await readExport(deps.sql, `export_${task.id.replaceAll('-', '')}_${task.attempt}`, q, async (records: ExportRow[]) => {
          const rows = records.map((r, i) => ({ ...r, meta: { position: offset + written + i + 1, task_id: task.id } }))
          await out(csv ? stringify(rows, { columns, cast: csvCast }) : rows.map((r) => JSON.stringify(r)).join('\n') + '\n')
          written += rows.length
          await progress(q.rows > 0 ? written / q.rows : 1)
        })
        return written
      })
      return { ...finish, unused: Math.max(0, task.charged_units - finish.result.record_count) }
    },
  }
}
