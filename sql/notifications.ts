/**
 * The task notification's claim. notified_at is set before the email goes out, so of
 * two workers that race on one task only the one whose update returns the row sends;
 * a failed send gives the claim back so a retry can send it.
 */
import type { Db } from './db.ts'

export type TaskToNotify = {
  id: string
  type: string
  state: string
  result: Record<string, unknown> | null
  error: string | null
  refunded_units: number | null
  /** the owning account's address */
  email: string
}

/** The task and its account's address, or null when there is nothing to send. */
export async function claimTaskNotification(db: Db, taskId: string) {
  const [row] = await db<TaskToNotify[]>`
    update tasks t set notified_at = now()
    from accounts a
    where t.id = ${taskId} and a.id = t.account_id
      and t.notify and t.notified_at is null and t.state in ('finished', 'failed')
    returning t.id::text, t.type, t.state, t.result, t.error, t.refunded_units, a.email`
  return row ?? null
}

export async function releaseTaskNotification(db: Db, taskId: string) {
  await db`update tasks set notified_at = null where id = ${taskId}`
}
