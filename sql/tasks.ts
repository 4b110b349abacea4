/** Tasks, always read through their owner: another account's task does not exist. */
import type { Db } from './db.ts'

export type Task = {
  id: string
  type: string
  state: string
  progress: number
  created_at: string
  updated_at: string
  started_at: string | null
  completed_at: string | null
  user_id: string
  error: string | null
  worker_id: string | null
  priority: number
  input: Record<string, unknown>
  result: Record<string, unknown> | null
  notify: boolean
}

const isUuid = (id: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)

export function taskRecord(db: Db) {
  return db`
    id::text, type, state, progress, priority, input, result, error, worker_id, notify,
    account_id::text as user_id, created_at, updated_at, started_at, completed_at`
}

export async function findTask(db: Db, accountId: string, id: string) {
  if (!isUuid(id)) return null
  const [task] = await db<Task[]>`
    select ${taskRecord(db)} from tasks where id = ${id} and account_id = ${accountId}`
  return task ?? null
}

export async function insertTask(
  db: Db,
  task: { account_id: string; type: string; input: Record<string, unknown>; priority?: number; notify?: boolean },
) {
  const [row] = await db<Task[]>`
    insert into tasks (account_id, type, input, priority, notify)
    values (${task.account_id}, ${task.type}, ${db.json(task.input as never)}, ${task.priority ?? 0}, ${task.notify ?? false})
    returning ${taskRecord(db)}`
  return row
}
