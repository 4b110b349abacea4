/**
 * Deletes export files past their expiry (FILES_CLEANUP_CRON, hourly by default) as a
 * pg-boss queue: the cron only enqueues, a worker does the work. Each file is deleted
 * from the store before its task is marked, so a run that dies in between leaves the
 * task unmarked and the next run deletes again, which a missing file allows. Each run
 * also sweeps the files of resume uploads a crash stopped (sweepResumeUploads), which
 * uploads sweep too, so that a service nobody uploads to still sweeps them.
 */
import type PgBoss from 'pg-boss'
import type { Logger } from 'pino'
import type { Sql } from '../sql/db.ts'
import { sweepResumeUploads } from '../ingest/resume/store-resume.ts'
import { listExpiredFiles, markFilesDeleted } from '../sql/task-files.ts'
import type { FileStore } from './files/store.ts'

export const queue = 'files.cleanup'
export const options: PgBoss.Queue = { name: queue, retryLimit: 3, retryDelay: 60, retryBackoff: true, policy: 'singleton' }

/** Files deleted at once: one S3 request each, so a batch stays well within a job's expiry. */
export const BATCH = 100

/** Deletes every expired file; throws after marking what it could when the store refused some. */
export async function cleanupFiles(sql: Sql, store: FileStore, batch = BATCH) {
  let deleted = 0
  for (;;) {
    const files = await listExpiredFiles(sql, batch)
    const settled = await Promise.allSettled(files.map((f) => store.delete(f.file_key)))
    deleted += await markFilesDeleted(sql, files.filter((_, i) => settled[i].status === 'fulfilled').map((f) => f.id))
    const failed = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as Error] : []))
    // stop here: the refused files would be listed again at once; pg-boss retries the run later
    if (failed.length) throw new Error(`${failed.length} expired files could not be deleted (${deleted} were): ${failed[0].message}`)
    if (files.length < batch) return { deleted }
  }
}

export const handler =
  (sql: Sql, store: FileStore, log: Logger) =>
  async ([job]: PgBoss.Job<object>[]) => {
    const result = await cleanupFiles(sql, store).catch((err: Error) => {
      log.warn({ job_id: job.id, store: store.kind, err: { message: err.message } }, 'expired files not all deleted; the retry goes on')
      throw err
    })
    const swept = await sweepResumeUploads(sql, store)
    log.info({ job_id: job.id, store: store.kind, ...result, swept_uploads: swept }, 'expired files deleted')
    return { ...result, swept_uploads: swept }
  }
