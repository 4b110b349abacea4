/**
 * read → normalize → load. Postings are read in chunks of BATCH_SIZE; a worker
 * thread normalizes one chunk while the main thread writes the previous one in a
 * single transaction, so parsing, normalizing and the database all overlap. A batch
 * the database refuses is retried posting by posting, so one bad row costs only itself.
 */
import type { Sql } from '../sql/db.ts'
import { finishIngestRun, insertIngestRun, markBoardsIngested } from '../sql/postings.ts'
import { analyzeSearchTables } from '../sql/search.ts'
import { loadBatch, type BatchCounts } from './load.ts'
import { NormalizeWorker } from './normalize-pool.ts'
import type { ReadItem } from './read.ts'
import type { Posting, RawPosting } from './types.ts'

export type Summary = {
  read: number
  inserted: number
  updated: number
  duplicates: number
  unchanged: number
  rejected: number
  seconds: number
}

export type IngestOptions = {
  source: string
  batchSize?: number
  now?: Date
  onRejected?: (line: number, reason: string) => void
  onBatch?: (summary: Summary) => void
}

type Chunk = ({ line: number; raw: RawPosting } | { line: number; text: string })[]

export async function ingest(sql: Sql, items: AsyncIterable<ReadItem> | Iterable<ReadItem>, opts: IngestOptions): Promise<Summary> {
  const started = Date.now()
  const seenAt = opts.now ?? new Date()
  const batchSize = opts.batchSize ?? 500
  const summary: Summary = { read: 0, inserted: 0, updated: 0, duplicates: 0, unchanged: 0, rejected: 0, seconds: 0 }
  const boards = new Set<string>()
  const runId = await insertIngestRun(sql, opts.source, seenAt)
  const worker = new NormalizeWorker()

  const reject = (line: number, reason: string) => {
    summary.rejected++
    opts.onRejected?.(line, reason)
  }
  const add = (c: BatchCounts) => {
    summary.inserted += c.inserted
    summary.updated += c.updated
    summary.duplicates += c.duplicates
    summary.unchanged += c.unchanged
  }
  const write = async (batch: { line: number; posting: Posting }[]) => {
    try {
      add(await loadBatch(sql, batch.map((b) => b.posting), seenAt))
    } catch {
      for (const { line, posting } of batch) {
        try {
          add(await loadBatch(sql, [posting], seenAt))
        } catch (e) {
          reject(line, `database refused it: ${(e as Error).message}`)
        }
      }
    }
    summary.seconds = (Date.now() - started) / 1000
    opts.onBatch?.(summary)
  }
  const normalizeAndWrite = async (chunk: Chunk) => {
    const results = await worker.normalize(chunk, seenAt)
    const batch: { line: number; posting: Posting }[] = []
    for (const { line, result } of results) {
      if ('reason' in result) reject(line, result.reason)
      else {
        boards.add(result.job_board)
        batch.push({ line, posting: result })
      }
    }
    return batch
  }

  try {
    // one chunk being normalized while the one before it is written
    let writing: Promise<void> = Promise.resolve()
    let normalizing: Promise<{ line: number; posting: Posting }[]> | null = null
    let chunk: Chunk = []
    const flush = async () => {
      const next = normalizeAndWrite(chunk)
      chunk = []
      if (normalizing) {
        const batch = await normalizing
        await writing
        writing = write(batch)
      }
      normalizing = next
    }
    for await (const item of items) {
      summary.read++
      if ('error' in item) reject(item.line, item.error)
      else chunk.push(item)
      if (chunk.length >= batchSize) await flush()
    }
    if (chunk.length) await flush()
    if (normalizing) {
      const batch = await normalizing
      await writing
      writing = write(batch)
    }
    await writing
  } finally {
    await worker.close()
  }

  await markBoardsIngested(sql, [...boards], seenAt)
  // search's total_count estimates follow the data only once the statistics do
  if (summary.inserted + summary.updated > 0) await analyzeSearchTables(sql)
  summary.seconds = (Date.now() - started) / 1000
  await finishIngestRun(sql, runId, summary)
  return summary
}
