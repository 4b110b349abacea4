/**
 * What every export task shares: the file is written to DATA_DIR/tmp as it streams,
 * then handed to the file store (DOWNLOADS_DIR, or S3), and the task's result links to
 * it through a signed download URL that works until the file's expiry.
 *
 * Each attempt writes a file of its own (the key carries the attempt), so an attempt
 * that lost its task to another can discard its file without touching the winner's.
 *
 * An export's reads run on a read replica when one is usable (`reads`, sql/replicas.ts;
 * DATABASE_REPLICA_URLS), its task's progress and finish on the primary. A replica that
 * fails the export part-way (it went away, or cancelled a statement for a conflict with
 * recovery) leaves a partial file: the export is then read again on the primary from the
 * start into an emptied file, so the file is one database's answer whole, and the task
 * does not fail. What the replica read is read again: the batches are rendered by the
 * reads themselves, and a read resumed at a batch of another database's cursor could
 * skip or repeat a job that changed in between.
 */
import { once } from 'node:events'
import { createWriteStream } from 'node:fs'
import { mkdir, rm } from 'node:fs/promises'
import path from 'node:path'
import type { Logger } from 'pino'
import type { Sql } from '../sql/db.ts'
import type { Reads } from '../sql/replicas.ts'
import type { ClaimedTask, Finish } from '../sql/tasks.ts'
import { downloadUrl } from './files/signing.ts'
import type { FileStore } from './files/store.ts'
import type { UnderLoad } from './pace.ts'

export type ExportDeps = {
  /** the workers' pool on the primary: the task's progress and finish */
  sql: Sql
  /** where the export's reads run: a replica when one is usable, else `sql` (sql/replicas.ts) */
  reads: Reads
  store: FileStore
  /** the download links' HMAC key (jobs/files/signing.ts) */
  signingKey: () => Promise<string>
  publicUrl: string
  dataDir: string
  ttlDays: number
  /** the share of the time an export keeps busy (jobs/pace.ts) */
  dutyCycle: number
  /** what the API has waiting on the service now, which alone earns a rest (jobs/pace.ts) */
  underLoad: UnderLoad
}

export type ExportFormat = { extension: 'csv' | 'jsonl'; contentType: string }
export const CSV: ExportFormat = { extension: 'csv', contentType: 'text/csv; charset=utf-8' }
export const JSONL: ExportFormat = { extension: 'jsonl', contentType: 'application/x-ndjson' }

/** Appends to the file, waiting while the disk catches up. */
export type Write = (chunk: string | Buffer) => Promise<void>

/**
 * Runs `write` into a fresh file, with the pool its reads run on (`db`: a replica's, or
 * the primary's), stores the file and returns the task's finish: the result
 * (download_url, file_size, record_count, expiry_time) and the stored file. `write` runs
 * again on the primary, into the emptied file, when a replica fails it part-way.
 */
export async function writeExport(
  deps: ExportDeps,
  task: ClaimedTask,
  format: ExportFormat,
  filePrefix: string,
  write: (out: Write, db: Sql) => Promise<number>,
  log?: Logger,
): Promise<Finish & { result: { record_count: number } }> {
  const tmpDir = path.join(deps.dataDir, 'tmp')
  await mkdir(tmpDir, { recursive: true })
  const part = (attempt: number) => path.join(tmpDir, `${task.id}-${attempt}.${format.extension}.part`)
  // what earlier attempts of this task left when their worker died
  for (let a = 1; a < task.attempt; a++) await rm(part(a), { force: true })
  const tmp = part(task.attempt)
  let file = createWriteStream(tmp)
  try {
    let runs = 0
    const records = await deps.reads.run(async (db) => {
      const run = ++runs
      if (run > 1) {
        log?.warn({ task_id: task.id }, 'export read again on the primary: a read replica failed it part-way')
        // the partial file's writes end before it is emptied: none lands in the new one
        if (!file.closed) await new Promise<void>((resolve) => file.once('close', () => resolve()).destroy())
        file = createWriteStream(tmp)
      }
      // a run on a replica that went away is not waited for (sql/replicas.ts); should it go on, it writes nothing more
      const out: Write = async (chunk) => {
        if (run !== runs) throw new Error('superseded: the export is read again on the primary')
        if (!file.write(chunk)) await once(file, 'drain')
      }
      return write(out, db)
    })
    file.end()
    await once(file, 'finish')

    const key = `${task.id}-${task.attempt}.${format.extension}`
    const { size } = await deps.store.put(key, tmp, format.contentType)
    const expiresAt = new Date(Date.now() + deps.ttlDays * 86_400_000)
    const filename = `${filePrefix}-${task.id.slice(0, 8)}.${format.extension}`
    return {
      result: {
        download_url: downloadUrl(await deps.signingKey(), deps.publicUrl, task.id, expiresAt, filename),
        file_size: size,
        record_count: records,
        expiry_time: expiresAt.toISOString(),
      },
      file: { key, expiresAt },
    }
  } finally {
    file.destroy()
    await rm(tmp, { force: true })
  }
}

/** Deletes the file of an attempt whose finish did not count. */
export const discardExport = (store: FileStore) => async (finish: Finish) => {
  if (finish.file) await store.delete(finish.file.key)
}
