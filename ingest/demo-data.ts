/**
 * A newcomer's first start: an empty embedded database gets generated demo postings,
 * embedded with the configured model (from the shipped vectors, embed/demo-vectors.ts,
 * when that model is the default one).
 */
import { ingest } from './pipeline.ts'
import type { ReadItem } from './read.ts'
import type { RawPosting } from './types.ts'
import { generatePostings } from './generator/postings.ts'
import type { Sql } from '../sql/db.ts'
import { deferIndex, restoreIndexes } from '../sql/deferred-indexes.ts'
import { importDemoVectors } from './embed/demo-vectors.ts'
import type { Embedder } from './embed/embedder.ts'

export type DemoOptions = { embedder?: Embedder | null; embedBatch?: number; onEmbedError?: (message: string) => void }

/**
 * The jobs' HNSW indexes (every job's graph and each category's, migration 0031), built
 * once after the demo postings rather than grown with each (sql/deferred-indexes.ts).
 */
async function vectorIndexes(sql: Sql) {
  const rows = await sql<{ indexname: string }[]>`
    select indexname from pg_indexes
    where schemaname = current_schema() and tablename = 'jobs' and indexdef like '% USING hnsw %'
    order by indexname`
  return rows.map((r) => r.indexname)
}

export async function loadDemoData(sql: Sql, jobs: number, { embedder = null, embedBatch, onEmbedError }: DemoOptions = {}) {
  const [{ any }] = await sql<{ any: boolean }[]>`select exists (select 1 from jobs) as any`
  if (any) return null
  if (embedder) await importDemoVectors(sql, embedder.info)
  for (const name of await vectorIndexes(sql)) await deferIndex(sql, name)
  try {
    return await ingest(sql, demoPostings(jobs), { source: `demo:${jobs}`, embedder, embedBatch, onEmbedError })
  } finally {
    await restoreIndexes(sql)
  }
}

export function* demoPostings(jobs: number): Generator<ReadItem> {
  let line = 0
  for (const raw of generatePostings({ jobs, seed: 42 })) yield { line: ++line, raw: raw as RawPosting }
}
