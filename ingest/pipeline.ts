/**
 * read → normalize → load → embed. Postings are read in chunks of BATCH_SIZE; a worker
 * thread normalizes one chunk while the main thread writes the previous one in a
 * single transaction, so parsing, normalizing and the database all overlap. A batch
 * the database refuses is retried posting by posting, so one bad row costs only itself.
 *
 * Each written batch's jobs that lack a vector of the embedder's model then get one
 * (embed/embed-jobs.ts). Embedding follows the write because a vector embeds the job
 * as stored: a posting that joins another board's job has that job's text. Postings
 * land whether or not they can be embedded: without an embedder, or once it reports
 * itself unavailable, the summary counts the jobs left without a vector, and
 * `make embed` gives them one later.
 */
import type { Sql } from '../sql/db.ts'
import { countUnembedded, listJobsToEmbed, modelId } from '../sql/embeddings.ts'
import { finishIngestRun, insertIngestRun, markBoardsIngested } from '../sql/postings.ts'
import { refreshCompensationPercentiles } from '../sql/scores.ts'
import { analyzeSearchTables } from '../sql/search.ts'
import { embedJobs } from './embed/embed-jobs.ts'
import { EmbedderUnavailable, type Embedder } from './embed/embedder.ts'
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
  /** of the postings that landed, those already past their valid_through: stored as expired (and archived) */
  expired_on_arrival: number
  /** jobs given a vector of the embedder's model */
  embedded: number
  /** texts the model embedded for them; the other vectors came from the embedding cache */
  embedded_by_model: number
  /** jobs of this run left without a vector (of the embedder's model, when there is one) */
  not_embedded: number
  seconds: number
}

export type IngestOptions = {
  source: string
  /**
   * The board of postings that name none: the source's name (an adapter's, such as "NHS Jobs").
   * Without it such a posting takes the board its link names (formats/board-name.ts).
   */
  board?: string | null
  batchSize?: number
  now?: Date
  /** makes the vectors; without one, postings land with none */
  embedder?: Embedder | null
  /** texts per model call (EMBEDDING_BATCH) */
  embedBatch?: number
  onRejected?: (line: number, reason: string) => void
  /** after each written batch, and after each model call while a batch is embedded */
  onBatch?: (summary: Summary) => void
  /** why embedding failed; after an EmbedderUnavailable the run embeds nothing more */
  onEmbedError?: (message: string) => void
}

type Chunk = ({ line: number; raw: RawPosting } | { line: number; text: string })[]

export async function ingest(sql: Sql, items: AsyncIterable<ReadItem> | Iterable<ReadItem>, opts: IngestOptions): Promise<Summary> {
  const started = Date.now()
  const seenAt = opts.now ?? new Date()
  const batchSize = opts.batchSize ?? 500
  const summary: Summary = {
    read: 0, inserted: 0, updated: 0, duplicates: 0, unchanged: 0, rejected: 0, expired_on_arrival: 0, embedded: 0, embedded_by_model: 0,
    not_embedded: 0, seconds: 0,
  }
  // the sources this run has written (load.ts): a later line of one of them is a duplicate
  const written = new Set<string>()
  let embedder = opts.embedder ?? null
  const boards = new Set<string>()
  const runId = await insertIngestRun(sql, opts.source, seenAt)
  const worker = new NormalizeWorker()

  const reject = (line: number, reason: string) => {
    summary.rejected++
    opts.onRejected?.(line, reason)
  }
  const add = (c: BatchCounts & { sources: string[] }) => {
    summary.inserted += c.inserted
    summary.updated += c.updated
    summary.duplicates += c.duplicates
    summary.unchanged += c.unchanged
    summary.expired_on_arrival += c.expired_on_arrival
    for (const s of c.sources) written.add(s)
  }
  const progress = () => {
    summary.seconds = (Date.now() - started) / 1000
    opts.onBatch?.(summary)
  }
  const embed = async (md5Hashes: string[]) => {
    if (!embedder) {
      summary.not_embedded += await countUnembedded(sql, md5Hashes)
      return
    }
    const model = await modelId(sql, embedder.info)
    const rows = await listJobsToEmbed(sql, model, { md5Hashes })
    const counts = await embedJobs(sql, embedder, model, rows, {
      batch: opts.embedBatch ?? 32,
      onProgress: (texts) => {
        summary.embedded_by_model += texts
        progress()
      },
    })
    summary.embedded += counts.written
    summary.not_embedded += rows.length - counts.written
    if (counts.error) {
      opts.onEmbedError?.((counts.error as Error).message ?? String(counts.error))
      if (counts.error instanceof EmbedderUnavailable) embedder = null
    }
  }
  const write = async (batch: { line: number; posting: Posting }[]) => {
    try {
      add(await loadBatch(sql, batch.map((b) => b.posting), seenAt, written))
    } catch {
      for (const { line, posting } of batch) {
        try {
          add(await loadBatch(sql, [posting], seenAt, written))
        } catch (e) {
          reject(line, `database refused it: ${(e as Error).message}`)
        }
      }
    }
    progress()
    await embed([...new Set(batch.map((b) => b.posting.md5_hash))])
    progress()
  }
  const normalizeAndWrite = async (chunk: Chunk) => {
    const results = await worker.normalize(chunk, seenAt, opts.board ?? null)
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
  if (summary.inserted + summary.updated > 0) {
    // compensation_value_score ranks a salary among the other live postings (docs/scores.md)
    await refreshCompensationPercentiles(sql)
    // search's total_count estimates follow the data only once the statistics do
    await analyzeSearchTables(sql)
  }
  summary.seconds = (Date.now() - started) / 1000
  await finishIngestRun(sql, runId, summary)
  return summary
}
