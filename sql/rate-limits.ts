/**
 * Fixed-window counters in the unlogged rate_limits table, shared by every API process.
 * The database's clock decides the window, so processes never disagree on it.
 */
import type { Db } from './db.ts'

export type Hit = { bucket: string; hits: number; reset_ms: number }

/**
 * Counts one request against each bucket (at most a few, all distinct) in one
 * statement. A bucket whose window has ended starts over at 1.
 */
export async function hitRateLimits(db: Db, buckets: { bucket: string; windowSeconds: number }[]) {
  return db<Hit[]>`
    insert into rate_limits as r (bucket, window_end, hits)
    select b, date_bin(make_interval(secs => w), now(), timestamptz '2000-01-01 00:00:00+00') + make_interval(secs => w), 1
    from unnest(${buckets.map((b) => b.bucket)}::text[], ${buckets.map((b) => b.windowSeconds)}::int[]) as t(b, w)
    on conflict (bucket) do update set
      hits = case when excluded.window_end > r.window_end then 1 else r.hits + 1 end,
      window_end = greatest(r.window_end, excluded.window_end)
    returning bucket, hits, (extract(epoch from window_end - now()) * 1000)::float8 as reset_ms`
}
