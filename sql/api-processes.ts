/**
 * API processes acknowledge billing changes through the database. Each process (its
 * Admission) polls the billing_epoch sequence; when it moves, the process drops its
 * cached keys, marks its leases for a fresh grant, and then records the epoch it saw
 * here. An admin change waits for every live process to record an epoch past it.
 *
 * The epoch an admin waits for is taken after its change has committed: the triggers
 * move the sequence inside the changing transaction, and a process that polled
 * between that and the commit would have read the old rows again.
 */
import type { Db } from './db.ts'

/** A process that has not written for this long is dead (or cut off from the database). */
export const LIVE_SECONDS = 10

/** Records that process `id` has applied every billing change up to `epoch`. */
export async function recordEpoch(db: Db, id: string, epoch: string) {
  await db`
    insert into api_processes (id, epoch) values (${id}, ${epoch})
    on conflict (id) do update set epoch = excluded.epoch, seen_at = now()`
}

/** A process that stops cleanly is not waited for. */
export async function forgetProcess(db: Db, id: string) {
  await db`delete from api_processes where id = ${id}`
}

/** Moves billing_epoch past every change committed so far, and returns where it stands. */
export async function publishBillingChange(db: Db) {
  const [row] = await db<{ epoch: string }[]>`select nextval('billing_epoch')::text as epoch`
  return row.epoch
}

/** Live processes that have not yet applied `epoch`. */
export async function processesBehind(db: Db, epoch: string) {
  return db<{ id: string; epoch: string }[]>`
    select id::text, epoch::text from api_processes
    where epoch < ${epoch}::bigint and seen_at > now() - make_interval(secs => ${LIVE_SECONDS})
    order by id`
}

/**
 * Publishes the committed billing changes and returns once every live API process has
 * applied them. Processes that stop writing meanwhile drop out after LIVE_SECONDS, so
 * this waits at most about that long; it throws only if one stays live and behind.
 */
export async function awaitBillingChange(db: Db, { pollMs = 20, timeoutMs = 3 * LIVE_SECONDS * 1000 } = {}) {
  const epoch = await publishBillingChange(db)
  const started = Date.now()
  for (;;) {
    const behind = await processesBehind(db, epoch)
    if (behind.length === 0) return { epoch, waitedMs: Date.now() - started }
    if (Date.now() - started > timeoutMs) {
      throw new Error(`API processes ${behind.map((p) => p.id).join(', ')} have not applied billing change ${epoch} after ${timeoutMs} ms`)
    }
    await new Promise((r) => setTimeout(r, pollMs))
  }
}
