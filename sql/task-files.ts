/** The files finished export tasks leave in the file store (jobs/files/store.ts): serving them and deleting them once expired. */
import type { Db } from './db.ts'
import { isUuid } from './ids.ts'

export type TaskFile = {
  id: string
  state: string
  file_key: string | null
  file_expires_at: Date | null
  file_deleted_at: Date | null
}


/** A task's file as the download route needs it, whoever owns the task: the signed link is the credential. */
export async function findDownload(db: Db, taskId: string) {
  if (!isUuid(taskId)) return null
  const [row] = await db<TaskFile[]>`
    select id::text, state, file_key, file_expires_at, file_deleted_at
    from tasks where id = ${taskId}`
  return row ?? null
}

/** Files past their expiry and not deleted yet, oldest first (tasks_file_expiry_idx). */
export async function listExpiredFiles(db: Db, limit: number) {
  return db<{ id: string; file_key: string }[]>`
    select id::text, file_key from tasks
    where file_key is not null and file_deleted_at is null and file_expires_at < now()
    order by file_expires_at
    limit ${limit}`
}

/** Records that the store no longer holds these tasks' files; the number of tasks marked. */
export async function markFilesDeleted(db: Db, taskIds: string[]) {
  if (!taskIds.length) return 0
  const { count } = await db`
    update tasks set file_deleted_at = now()
    where id = any(${taskIds}::uuid[]) and file_deleted_at is null`
  return count
}
