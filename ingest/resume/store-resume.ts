/**
 * Storing an uploaded resume takes two writes to two systems: the file to the file store
 * (a directory or S3) and the record to the database. No crash between them may leave a
 * file that no record names, because a file nobody knows of is personal data that nothing
 * would ever delete. So the upload is written down first (resume_uploads, migration 0034):
 *
 *   1. a row in resume_uploads names the file's key; it is not a resume and is served nowhere
 *   2. the file is stored
 *   3. one transaction inserts the resume, deletes the upload's row and queues the parse
 *
 * A crash after 1 or 2 leaves the upload's row. sweepResumeUploads claims rows older than
 * a grace period, deletes their files (a missing file is no error) and then the rows;
 * a sweep that stops half way leaves rows the next one takes again. An upload whose row
 * the sweep claimed cannot finish step 3: it deletes its own file and fails. Only an upload
 * still writing its file when the grace period ends, then stopped between the file landing
 * and its own clean-up, could leave a file: hence a grace period far beyond any upload
 * (UPLOAD_GRACE_SECONDS, an hour; a resume is at most 5 MB).
 */
import type { Db, Sql } from '../../sql/db.ts'
import { beginResumeUpload, claimStaleResumeUploads, dropResumeUpload, findResumeFile, finishResumeUpload, insertResume, type NewResume, type ResumeRow } from '../../sql/resumes.ts'

/** What the upload needs of the file store (jobs/files/store.ts) */
export type ResumeFiles = {
  putBytes(key: string, bytes: Buffer, contentType: string): Promise<void>
  delete(key: string): Promise<void>
}

/** An upload begun this long ago and not finished was stopped by a crash. */
export const UPLOAD_GRACE_SECONDS = 3600

export class UploadSwept extends Error {
  constructor() {
    super('The upload took too long and was abandoned; upload the resume again')
  }
}

export type StoreResumeOptions = {
  /** runs a database step, e.g. in one of the API's slots; the default runs it as is */
  inSlot?: <T>(step: () => Promise<T>) => Promise<T>
  /** queues the parse inside the transaction that inserts the record */
  enqueue: (tx: Db, id: string) => Promise<void>
}

/** Stores the file and inserts its record (steps 1 to 3 above); on failure neither is left behind. */
export async function storeResume(sql: Sql, files: ResumeFiles, r: NewResume, bytes: Buffer, { inSlot = (step) => step(), enqueue }: StoreResumeOptions): Promise<ResumeRow> {
  await inSlot(() => beginResumeUpload(sql, r.id, r.file_key))
  try {
    await files.putBytes(r.file_key, bytes, r.content_type)
    return await inSlot(() => sql.begin(async (tx) => {
      if (!(await finishResumeUpload(tx, r.id))) throw new UploadSwept()
      const row = await insertResume(tx, r)
      await enqueue(tx, r.id)
      return row
    }))
  } catch (e) {
    // The file, then the row; if either fails, the row is left for the sweep. Unless the
    // record was committed after all (the connection failed after the commit): then the
    // record names the file and both stay. A database that cannot say leaves it to the sweep.
    const committed = e instanceof UploadSwept ? Promise.resolve(false) : inSlot(() => findResumeFile(sql, r.id)).then((row) => row !== null)
    await committed
      .then(async (yes) => {
        if (yes) return
        await files.delete(r.file_key)
        await inSlot(() => dropResumeUpload(sql, r.id))
      })
      .catch(() => {})
    throw e
  }
}

/**
 * Deletes the files of uploads a crash stopped (begun more than `graceSeconds` ago), then
 * their rows, `limit` at a time; returns how many it removed.
 */
export async function sweepResumeUploads(sql: Sql, files: Pick<ResumeFiles, 'delete'>, { graceSeconds = UPLOAD_GRACE_SECONDS, limit = 100 } = {}) {
  let removed = 0
  for (;;) {
    const claimed = await claimStaleResumeUploads(sql, graceSeconds, limit)
    for (const u of claimed) {
      await files.delete(u.file_key)
      await dropResumeUpload(sql, u.id)
      removed++
    }
    if (claimed.length < limit) return removed
  }
}
