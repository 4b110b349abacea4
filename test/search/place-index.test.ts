/**
 * Radius and box filters read their places from job_locations_latlng_idx alone, the
 * job id included (sql/migrations/0030): an index-only scan, with no read of the places'
 * rows. On a table this small the planner would rather read it whole, so sequential and
 * bitmap scans are priced out for the EXPLAIN.
 */
import anyTest, { type TestFn } from 'ava'
import { ingest } from '../../ingest/pipeline.ts'
import { jobsFor, place, whereClause, type PlaceFilter } from '../../sql/search.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'
import { rawPosting } from '../helpers/factories.ts'

const test = anyTest as TestFn<{ db: TestDb }>

test.before(async (t) => {
  const db = await testDatabase()
  await ingest(db.sql, Array.from({ length: 30 }, (_, i) => ({ line: i + 1, raw: rawPosting({ source_id: `place-${i}`, location_raw: i % 2 ? 'London, United Kingdom' : 'Leeds, United Kingdom' }, i) as never })), { source: 'place-index' })
  await db.sql`vacuum analyze job_locations`
  t.context = { db }
})

test.after.always(async (t) => {
  await t.context.db?.close()
})

const filters: [string, PlaceFilter][] = [
  ['radius', { kind: 'radius', lat: 51.5072, lng: -0.1276, meters: 40_000 }],
  ['box', { kind: 'box', bbox: [-0.6, 51.2, 0.4, 51.8], countryKey: null }],
]

for (const [label, filter] of filters) {
  test.serial(`a ${label} filter reads its places and their jobs from the index alone`, async (t) => {
    const { sql } = t.context.db
    const f = { places: [filter] }
    const [found] = await sql<{ n: number }[]>`select count(*)::int as n from ${jobsFor(sql, f)} where ${whereClause(sql, f)}`
    t.true(found.n >= 1, 'the filter finds the London postings')
    const plan = await sql.begin(async (tx) => {
      await tx`set local enable_seqscan = off`
      await tx`set local enable_bitmapscan = off`
      const rows = await tx<{ 'QUERY PLAN': string }[]>`explain select j.id from jobs j where ${place(tx, filter)}`
      return rows.map((r) => r['QUERY PLAN']).join('\n')
    })
    t.regex(plan, /Index Only Scan using job_locations_latlng_idx on job_locations/, plan)
  })
}
