/**
 * The export_expired_jobs task (POST /v2/jobs/expired-jobs/export): every job of the
 * window since `since`, newest first, with no depth limit, as JSON lines of exactly
 * {_id, company_slug, job_slug, date_expired}. It costs nothing, so there is no charge
 * to refund.
 */
import { reserved } from '../sql/db.ts'
import { countExpiredJobs, expiredJobsQuery, type ExpiredJobLine } from '../sql/expired-feed.ts'
import { readHeld } from '../sql/export.ts'
import { discardExport, JSONL, writeExport, type ExportDeps } from './export-file.ts'
import { pacer } from './pace.ts'
import type { TaskType } from './tasks.ts'

export const TYPE = 'export_expired_jobs'

export function exportExpiredJobs(deps: ExportDeps): TaskType {
  return {
    name: TYPE,
    discard: discardExport(deps.store),
    run: async ({ task, progress, log }) => {
      const since = new Date(String(task.input.since))
      if (Number.isNaN(since.getTime())) throw new Error(`the task's since is not a date: ${JSON.stringify(task.input.since)}`)
      const pace = pacer(deps.dutyCycle, deps.underLoad)
      const finish = await writeExport(deps, task, JSONL, 'expired-jobs', async (out, db) => {
        const total = await countExpiredJobs(db, since)
        let written = 0
        await reserved(db, (conn) =>
          readHeld<ExpiredJobLine>(conn, `expired_${task.id.replaceAll('-', '')}_${task.attempt}`, expiredJobsQuery(conn, since), async (rows) => {
            // the query's columns are the line's fields, in the line's order
            await out(rows.map((r) => JSON.stringify(r)).join('\n') + '\n')
            written += rows.length
            await pace()
            await progress(total > 0 ? Math.min(1, written / total) : 1, pace.summary())
          }),
        )
        return written
      }, log)
      log.info(pace.summary(), 'export paced')
      return finish
    },
  }
}
