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
import { writeExportRecords } from '../sql/export.ts'
import type { SearchFilters, SearchPage } from '../sql/search.ts'
import { CSV, discardExport, JSONL, writeExport, type ExportDeps, type Write } from './export-file.ts'
import { pacer } from './pace.ts'
import type { TaskType } from './tasks.ts'

export const TYPE = 'export_job_data'

/** What the route hands the worker: the resolved search and the records charged. */
export type ExportParams = { filters: SearchFilters; page: SearchPage; rows: number }

export function exportJobData(deps: ExportDeps): TaskType {
  return {
    name: TYPE,
    discard: discardExport(deps.store),
    run: async ({ task, params, progress, log }) => {
      const q = params as ExportParams
      const format = task.input.format === 'csv' ? 'csv' : 'json'
      const pace = pacer(deps.dutyCycle, deps.underLoad)
      const finish = await writeExport(deps, task, format === 'csv' ? CSV : JSONL, 'jobs-export', async (out: Write, db) => {
        let written = 0
        return writeExportRecords(db, `export_${task.id.replaceAll('-', '')}_${task.attempt}`, { ...q, taskId: task.id, format }, out, async (records, waitedMs) => {
          written += records
          await pace(waitedMs)
          await progress(q.rows > 0 ? written / q.rows : 1, pace.summary())
        })
      }, log)
      log.info(pace.summary(), 'export paced')
      return { ...finish, unused: Math.max(0, task.charged_units - finish.result.record_count) }
    },
  }
}
