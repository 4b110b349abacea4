/**
 * The export_historical_jobs task (POST /v2/jobs/historical/export): the archived
 * postings a historical search matches, most recently posted first, at most
 * max_records of them, as NDJSON (format json) or CSV, with the archive's fields
 * (sql/historical.ts HISTORICAL_EXPORT_FIELDS).
 *
 * No meter is charged (there is no payment provider): the result carries the price
 * quote of the records written, and operators read the quotes of an account's exports
 * in `admin usage:show`.
 */
import { countHistoricalExport, exportQuote, resolveHistorical, writeHistoricalRecords, type HistoricalFilters } from '../sql/historical.ts'
import { CSV, discardExport, JSONL, writeExport, type ExportDeps } from './export-file.ts'
import { pacer } from './pace.ts'
import type { TaskType } from './tasks.ts'

export const TYPE = 'export_historical_jobs'

/** What the route hands the worker: the filters as it resolved them (places, query syntax), and the cap. */
export type HistoricalExportParams = { filters: HistoricalFilters; max: number | null }

export function exportHistorical(deps: ExportDeps): TaskType {
  return {
    name: TYPE,
    discard: discardExport(deps.store),
    run: async ({ task, params, progress, log }) => {
      const q = params as HistoricalExportParams
      const format = task.input.format === 'csv' ? 'csv' : 'json'
      const pace = pacer(deps.dutyCycle, deps.underLoad)
      const finish = await writeExport(deps, task, format === 'csv' ? CSV : JSONL, 'historical-export', async (out, db) => {
        // the dictionaries grow with the archive: the filters pick their ids when the task
        // runs, on the database the archive is read from
        const filters = await resolveHistorical(db, q.filters)
        const total = await countHistoricalExport(db, filters, q.max)
        let written = 0
        return writeHistoricalRecords(db, `historical_${task.id.replaceAll('-', '')}_${task.attempt}`, { filters, max: q.max, format }, out, async (records) => {
          written += records
          await pace()
          await progress(total > 0 ? Math.min(1, written / total) : 1, pace.summary())
        })
      }, log)
      log.info(pace.summary(), 'export paced')
      return { ...finish, result: { ...finish.result, quote: exportQuote(finish.result.record_count) } }
    },
  }
}
