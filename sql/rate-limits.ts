/**
 * Fixed-window counters in the unlogged rate_limits table, shared by every API process.
 * The database's clock decides the window, so processes never disagree on it.
 */
import type { Db } from './db.ts'


/** A keyed request's window: its bucket is the prefix and the key's id. */
export type Limit = { prefix: string; limit: number; windowSeconds: number }

/** One bucket's count in its current window, this request included. */
export type Counted = { bucket: string; hits: number; reset_ms: number }

/**
 * The statement that counts requests against each bucket of `buckets`, a query of
 * distinct (bucket, window_seconds, n) rows: n requests on that bucket. The admission
 * statement (sql/meters.ts) runs it as one of its steps. Buckets are counted in name
 * order, so that concurrent statements never deadlock. A bucket whose window has ended
 * starts over. Returns each bucket's count in its window, these requests included, and
 * the milliseconds until the window ends.
 */
export const countHits = (buckets: string) => `
  insert into rate_limits as r (bucket, window_end, hits)
  select b.bucket, date_bin(make_interval(secs => b.window_seconds), now(), timestamptz '2000-01-01 00:00:00+00') + make_interval(secs => b.window_seconds), b.n
  from (${buckets}) b
  order by b.bucket
  on conflict (bucket) do update set
    hits = case when excluded.window_end > r.window_end then excluded.hits else r.hits + excluded.hits end,
    window_end = greatest(r.window_end, excluded.window_end)
  returning bucket, hits, (extract(epoch from window_end - now()) * 1000)::float8 as reset_ms`

/** Counts one request against buckets that need no key (the anonymous per-IP limit), in the order given. */
export async function countRequest(db: Db, buckets: { bucket: string; windowSeconds: number }[]) {
  const rows = await db.unsafe<Counted[]>(
    countHits('select distinct *, 1 as n from unnest($1::text[], $2::int[]) as t(bucket, window_seconds)'),
    [buckets.map((b) => b.bucket), buckets.map((b) => b.windowSeconds)],
    { prepare: true },
  )
  return buckets.map((b) => rows.find((r) => r.bucket === b.bucket)!)
}
