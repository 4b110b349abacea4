/**
 * Fixed-window counters in the unlogged rate_limits table, shared by every API process.
 * The database's clock decides the window, so processes never disagree on it.
 */
import type { Db } from './db.ts'

export type Claim = { bucket: string; windowSeconds: number; hits: number }
export type Claimed = { bucket: string; hits: number; reset_ms: number }

/**
 * Counts `hits` requests against each bucket (distinct buckets) in one statement, in
 * bucket order so that concurrent claims never deadlock. A bucket whose window has
 * ended starts over. Returns each bucket's count in its window, these hits included,
 * and the milliseconds until the window ends.
 */
export async function claimHits(db: Db, claims: Claim[]) {
  const sorted = [...claims].sort((a, b) => (a.bucket < b.bucket ? -1 : a.bucket > b.bucket ? 1 : 0))
  return db<Claimed[]>`
    insert into rate_limits as r (bucket, window_end, hits)
    select b, date_bin(make_interval(secs => w), now(), timestamptz '2000-01-01 00:00:00+00') + make_interval(secs => w), n
    from unnest(${sorted.map((c) => c.bucket)}::text[], ${sorted.map((c) => c.windowSeconds)}::int[], ${sorted.map((c) => c.hits)}::int[]) as t(b, w, n)
    on conflict (bucket) do update set
      hits = case when excluded.window_end > r.window_end then excluded.hits else r.hits + excluded.hits end,
      window_end = greatest(r.window_end, excluded.window_end)
    returning bucket, hits, (extract(epoch from window_end - now()) * 1000)::float8 as reset_ms`
}
