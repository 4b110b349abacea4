/**
 * read → normalize → load, in batches of BATCH_SIZE postings per transaction. While
 * one batch is being written the next is normalized, so CPU and database overlap.
 * A batch the database refuses is retried posting by posting, so one bad row costs
 * only itself.
 */
import type { Sql } from '../sql/db.ts'
import { finishIngestRun, insertIngestRun, markBoardsIngested } from '../sql/postings.ts'
import { loadBatch, type BatchCounts } from './load.ts'
import { normalizePosting } from './normalize.ts'
import type { ReadItem } from './read.ts'
import type { Posting } from './types.ts'

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

type Numbered = { line: number; posting: Posting }

export async function ingest(sql: Sql, items: AsyncIterable<ReadItem> | Iterable<ReadItem>, opts: IngestOptions): Promise<Summary> {
  const started = Date.now()
  const seenAt = opts.now ?? new Date()
  const batchSize = opts.batchSize ?? 500
  const summary: Summary = { read: 0, inserted: 0, updated: 0, duplicates: 0, unchanged: 0, rejected: 0, seconds: 0 }
  const boards = new Set<string>()
  const runId = await insertIngestRun(sql, opts.source, seenAt)

  const reject = (line: number, reason: string) => {
    summary.rejected++
    opts.onRejected?.(line, reason)
  }
  const add = (c: BatchCounts) => {
    summary.inserted += c.inserted
    summary.updated += c.updated
    summary.duplicates += c.duplicates
    summary.unchanged += c.unchanged
    summary.seconds = (Date.now() - started) / 1000
    opts.onBatch?.(summary)
  }
  const write = async (batch: Numbered[]) => {
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
  }

  let batch: Numbered[] = []
  let writing: Promise<void> = Promise.resolve()
  for await (const item of items) {
    summary.read++
    // Normalizing is synchronous; yielding now and then lets the batch being written
    // issue its next statement instead of waiting for this whole batch.
    if (summary.read % 25 === 0) await new Promise((resolve) => setImmediate(resolve))
    if ('error' in item) {
      reject(item.line, item.error)
      continue
    }
    const result = normalizePosting(item.raw, { now: seenAt })
    if ('reason' in result) {
      reject(item.line, result.reason)
      continue
    }
    boards.add(result.job_board)
    batch.push({ line: item.line, posting: result })
    if (batch.length >= batchSize) {
      await writing
      writing = write(batch)
      batch = []
    }
  }
  await writing
  if (batch.length) await write(batch)

  await markBoardsIngested(sql, [...boards], seenAt)
  summary.seconds = (Date.now() - started) / 1000
  await finishIngestRun(sql, runId, summary)
  return summary
}
