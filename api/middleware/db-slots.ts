/**
 * At most `slots` keyed requests (middleware/keyed.ts) run their admission, handler and
 * settlement at once; the others wait their turn, in the order they came. The app sizes
 * it to its database pool, so the queries in flight stay about at the pool's
 * connections (a search's page and count, run side by side, may briefly take two). Far
 * past that, postgres.js pipelines each new query behind a busy connection, and while
 * its queue of busy connections never empties, that queue grows a slot per query, which
 * every later query scans (docs/performance.md, "The database pool under load").
 *
 * A slot is taken after the request's JSON body is read (jsonBody runs before keyed), so
 * a client that sends its body slowly holds none; a response body that streams (a
 * download) goes out after the slot is released. A resume upload is read inside the
 * slot (the key is checked before the file is accepted).
 */
import type { Context } from 'koa'
import pLimit, { type LimitFunction } from 'p-limit'

/** Runs work in a slot; `activeCount` and `pendingCount` say how many run and wait. */
export type DbSlots = LimitFunction

export const dbSlots = (slots: number): DbSlots => pLimit(slots)

declare module 'koa' {
  interface DefaultContext {
    dbSlots?: DbSlots
  }
}

/** Runs `work` in one of the app's slots; a router served outside buildApp runs unslotted. */
export function inSlot<T>(ctx: Context, work: () => Promise<T>): Promise<T> {
  return ctx.dbSlots ? ctx.dbSlots(work) : work()
}
