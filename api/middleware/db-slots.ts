/**
 * At most `slots` requests run past this point at once; the others wait their turn, in
 * the order they came. The app sizes it to its database pool, so the queries in flight
 * stay about at the pool's connections (a search's page and count, run side by side,
 * may briefly take two). Far past that, postgres.js pipelines each new query behind a
 * busy connection, and while its queue of busy connections never empties, that queue
 * grows a slot per query, which every later query scans (docs/performance.md, "The
 * database pool under load").
 *
 * A response body that streams (a download) goes out after the slot is released.
 */
import type { Middleware } from 'koa'
import pLimit from 'p-limit'

export function dbSlots(slots: number): Middleware {
  const limit = pLimit(slots)
  return (ctx, next) => limit(next)
}
