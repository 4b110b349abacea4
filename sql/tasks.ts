/**
 * Tasks: the public row of an asynchronous job (an export, a salary benchmark), always
 * read through its owner, so another account's task does not exist.
 *
 * A task moves queued → processing → finished or failed, and only forward. Each pickup
 * by a worker is an attempt (attempt is bumped, worker_id set); progress, the finish
 * and the attempt's error are written only while the row still belongs to that
 * attempt, so a worker that outlived its expiry cannot touch a task another attempt
 * took over. The finish and the failure are single updates guarded by the state, and
 * the failure's refund is written in the same transaction: a task ends exactly once,
 * and its charge is refunded at most once.
 */
import type { Db } from './db.ts'
import { refundUsage, type Meter, type MeterRow } from './meters.ts'
import { isUuid } from './ids.ts'

export type TaskState = 'queued' | 'processing' | 'finished' | 'failed'

export type Task = {
  id: string
  type: string
  state: TaskState
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
  /** an export's pacing (jobs/pace.ts), as of its last progress; null for tasks that do not pace */
  pacing: Record<string, unknown> | null
}


export function taskRecord(db: Db) {
  return db`
    id::text, type, state, progress, pacing, priority, input, result, error, worker_id, notify,
    account_id::text as user_id, created_at, updated_at, started_at, completed_at`
}

export async function findTask(db: Db, accountId: string, id: string) {
  if (!isUuid(id)) return null
  const [task] = await db<Task[]>`
    select ${taskRecord(db)} from tasks where id = ${id} and account_id = ${accountId}`
  return task ?? null
}

/** The account's tasks, newest first (tasks_account_idx), with their number; optionally of one type. */
export async function listTasks(db: Db, accountId: string, { type, offset, limit }: { type?: string; offset: number; limit: number }) {
  const rows = await db<(Task & { total: number })[]>`
    select ${taskRecord(db)}, count(*) over ()::int as total from tasks
    where account_id = ${accountId} ${type ? db`and type = ${type}` : db``}
    order by created_at desc, id desc
    offset ${offset} limit ${limit}`
  const total = rows[0]?.total ?? (offset > 0 ? (await countTasks(db, accountId, type)) : 0)
  return { rows: rows.map(({ total: _, ...t }) => t), total }
}

async function countTasks(db: Db, accountId: string, type?: string) {
  const [{ n }] = await db<{ n: number }[]>`
    select count(*)::int as n from tasks where account_id = ${accountId} ${type ? db`and type = ${type}` : db``}`
  return n
}

/** What creating the task charged, for the refund if it fails. */
export type TaskCharge = { meter: Meter; units: number; periodStart: Date }

export async function insertTask(
  db: Db,
  task: { account_id: string; type: string; input: Record<string, unknown>; priority?: number; notify?: boolean; charge?: TaskCharge },
) {
  const c = task.charge
  const [row] = await db<Task[]>`
    insert into tasks (account_id, type, input, priority, notify, charged_meter, charged_units, charged_period_start)
    values (${task.account_id}, ${task.type}, ${db.json(task.input as never)}, ${task.priority ?? 0}, ${task.notify ?? false},
      ${c?.meter ?? null}, ${c?.units ?? 0}, ${c?.periodStart ?? null})
    returning ${taskRecord(db)}`
  return row
}

/** A task as its worker sees it: its owner and charge, and the attempt this pickup is. */
export type ClaimedTask = {
  id: string
  type: string
  account_id: string
  input: Record<string, unknown>
  notify: boolean
  attempt: number
  charged_units: number
}

/**
 * Takes the task for a new attempt: null when it already ended (a retry of a job
 * whose task finished or failed before pg-boss heard of it).
 */
export async function claimTask(db: Db, id: string, workerId: string) {
  const [task] = await db<ClaimedTask[]>`
    update tasks set
      state = 'processing',
      attempt = attempt + 1,
      worker_id = ${workerId},
      progress = 0,
      pacing = null,
      started_at = coalesce(started_at, now()),
      updated_at = now()
    where id = ${id} and state in ('queued', 'processing')
    returning id::text, type, account_id::text, input, notify, attempt, charged_units`
  return task ?? null
}

/** false when the attempt no longer holds the task. `pacing` replaces the task's when given. */
export async function setProgress(db: Db, id: string, attempt: number, progress: number, pacing?: Record<string, unknown>) {
  const rows = await db`
    update tasks set progress = ${Math.min(1, Math.max(0, progress))},
      ${pacing ? db`pacing = ${db.json(pacing as never)},` : db``}
      updated_at = now()
    where id = ${id} and attempt = ${attempt} and state = 'processing'`
  return rows.count > 0
}

/** The attempt's error, kept on the row so that the final failure can report it. */
export async function recordAttemptError(db: Db, id: string, attempt: number, message: string) {
  await db`
    update tasks set error = ${message}, updated_at = now()
    where id = ${id} and attempt = ${attempt} and state = 'processing'`
}

export type Finish = {
  result: Record<string, unknown>
  /** the file the result links to, for the download route and the cleanup job */
  file?: { key: string; expiresAt: Date }
  /**
   * units of the charge the result did not use (an export that found fewer jobs than
   * were charged at creation, because some expired meanwhile): refunded with the finish
   */
  unused?: number
}

/**
 * Finishes the attempt's task; false when the attempt no longer holds it (another
 * attempt took over, or it was failed), and then nothing is written. Run it in a
 * transaction: the refund of unused units goes with the finish.
 */
export async function finishTask(tx: Db, id: string, attempt: number, f: Finish) {
  const [row] = await tx<{ account_id: string; charged_meter: Meter | null; charged_period_start: Date | null; unused: number }[]>`
    update tasks set
      state = 'finished',
      progress = 1,
      result = ${tx.json(f.result as never)},
      error = null,
      file_key = ${f.file?.key ?? null},
      file_expires_at = ${f.file?.expiresAt ?? null},
      refunded_units = case when ${f.unused ?? 0}::int > 0 then least(${f.unused ?? 0}::int, charged_units) end,
      completed_at = now(),
      updated_at = now()
    where id = ${id} and attempt = ${attempt} and state = 'processing'
    returning account_id::text, charged_meter, charged_period_start, coalesce(refunded_units, 0) as unused`
  if (!row) return false
  if (row.unused > 0 && row.charged_meter && row.charged_period_start) {
    await refundUsage(tx, chargedRow(row.account_id, row.charged_meter, row.charged_period_start), row.unused, { requestId: id, endpoint: 'task finished short' })
  }
  return true
}

/**
 * Fails the task and refunds its charge, once: a task that already ended is left as
 * it is (false). Run it in a transaction, which the refund joins.
 */
export async function failTask(tx: Db, id: string, fallbackError: string) {
  const [row] = await tx<{ account_id: string; charged_meter: Meter | null; charged_units: number; charged_period_start: Date | null }[]>`
    update tasks set
      state = 'failed',
      error = coalesce(error, ${fallbackError}),
      refunded_units = charged_units,
      completed_at = now(),
      updated_at = now()
    where id = ${id} and state in ('queued', 'processing')
    returning account_id::text, charged_meter, charged_units, charged_period_start`
  if (!row) return false
  if (row.charged_units > 0 && row.charged_meter && row.charged_period_start) {
    await refundUsage(tx, chargedRow(row.account_id, row.charged_meter, row.charged_period_start), row.charged_units, { requestId: id, endpoint: 'task failed' })
  }
  return true
}

const chargedRow = (accountId: string, meter: Meter, start: Date): MeterRow => ({ accountId, meter, period: { start } })
