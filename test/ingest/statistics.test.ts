/**
 * A long load refreshes the planner's statistics of the tables it fills as they grow
 * (sql/search.ts, statisticsAsJobsGrow), where no autovacuum does: without them its own
 * lookups by hash were planned as sequential scans of every job.
 */
import test from 'ava'
import { ingest } from '../../ingest/pipeline.ts'
import { generatePostings } from '../../ingest/generator/postings.ts'
import { testDatabase } from '../helpers/db.ts'
import { readItems } from '../helpers/factories.ts'

test('statistics are refreshed during the load, each time it has doubled the jobs they counted', async (t) => {
  const db = await testDatabase()
  try {
    const { sql } = db
    // autovacuum analyzes a growing table of its own accord on a server; this test watches the load's refreshes
    await sql`alter table jobs set (autovacuum_enabled = false)`
    const counted = async () => (await sql<{ n: number }[]>`select reltuples::float8 as n from pg_class where oid = 'jobs'::regclass`)[0].n
    t.true(await counted() <= 0, 'a new database has never analyzed jobs')
    // after each batch: the jobs written so far, and what the statistics count then
    const seen: Promise<[number, number]>[] = []
    const summary = await ingest(sql, readItems([...generatePostings({ jobs: 1_000, seed: 11, now: '2026-11-20' })]), {
      source: 'statistics',
      now: new Date('2026-11-20T12:00:00Z'),
      batchSize: 50,
      analyzeEvery: 100,
      onBatch: (s) => void seen.push(counted().then((n) => [s.inserted, n])),
    })
    const during = await Promise.all(seen)
    t.true(summary.inserted > 800)
    // each refresh waited for at least as many jobs again as the last one counted
    const refreshes = [...new Set(during.map(([, n]) => n).filter((n) => n > 0))]
    t.true(refreshes.length >= 2 && refreshes.length <= 5, `refreshed at ${refreshes.join(', ')}`)
    for (const [written, n] of during) if (written >= 200 && written < summary.inserted) t.true(n >= 100, `${n} counted after ${written} written`)
    for (let i = 1; i < refreshes.length; i++) t.true(refreshes[i] >= 2 * refreshes[i - 1] * 0.9, `${refreshes[i - 1]} then ${refreshes[i]}`)
  } finally {
    await db.close()
  }
})
