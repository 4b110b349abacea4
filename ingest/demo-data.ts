/** A newcomer's first start: an empty embedded database gets generated demo postings. */
import { ingest } from './pipeline.ts'
import type { ReadItem } from './read.ts'
import type { RawPosting } from './types.ts'
import { generatePostings } from '../seeds/generate.ts'
import type { Sql } from '../sql/db.ts'

export async function loadDemoData(sql: Sql, jobs: number) {
  const [{ any }] = await sql<{ any: boolean }[]>`select exists (select 1 from jobs) as any`
  if (any) return null
  const items = function* (): Generator<ReadItem> {
    let line = 0
    for (const raw of generatePostings({ jobs, seed: 42 })) yield { line: ++line, raw: raw as RawPosting }
  }
  return ingest(sql, items(), { source: `demo:${jobs}` })
}
