/**
 * read → normalize → load → embed. Postings are read in chunks of BATCH_SIZE; worker
 * threads (one by default) normalize chunks while the main thread writes the ones before
 * them, each in a single transaction, so parsing, normalizing and the database all overlap.
 * A batch the database refuses is retried posting by posting, so one bad row costs only
 * itself. A dry run stops after normalizing: nothing is written or recorded.
 *
 * Writers: two batches are written at once (`writers`), on two connections, so that a
 * server's second core works too (most of a batch's time is Postgres's, building the
 * search columns and indexes of its rows). A posting that shares a key (postingKeys: its
 * source, its duplicate group, the group of the job its source shows, a company its batch
 * creates or changes) with a batch in flight is held back for the next batch. Apart from
 * those, two batches read and change different rows, so writing them at once stores what
 * writing them in file order stores (docs/ingest.md).
 *
 * Vectors: with `queueVectors` (make ingest, the default), the transaction that writes a
 * batch also queues its jobs that lack a vector for the background embedding
 * (jobs/embed-vectors.ts), so ingest never waits for the model. With `embedder`
 * instead (the demo data, whose vectors are cached, and benchmarks), each written
 * batch's jobs are embedded before the next is written (embed/embed-jobs.ts); once the
 * embedder reports itself unavailable the rest land without vectors. Either way a
 * vector embeds the job as stored: a posting that joins another board's job has that
 * job's text. Without either, the summary counts the jobs left without a vector, and
 * `make embed` gives them one later.
 */
import type { Db, Sql } from '../sql/db.ts'
import { countUnembedded, listJobsToEmbed, modelId } from '../sql/embeddings.ts'
import { finishIngestRun, insertIngestRun, markBoardsIngested, type RunCounts } from '../sql/postings.ts'
import { refreshCompensationPercentiles } from '../sql/scores.ts'
import { analyzeSearchTables, statisticsAsJobsGrow } from '../sql/search.ts'
import { refreshCompanyStats } from '../sql/companies.ts'
import { archiveExpired } from '../sql/expiry.ts'
import { embedJobs } from './embed/embed-jobs.ts'
import { EmbedderUnavailable, type Embedder } from './embed/embedder.ts'
import { loadBatch, postingKeys, type BatchCounts } from './load.ts'
import { NormalizePool } from './normalize-pool.ts'
import type { WorkerResult } from './normalize-worker.ts'
import type { ReadItem } from './read.ts'
import type { Posting, RawPosting } from './types.ts'

/**
 * The run's counts as ingest_runs records them (expired_on_arrival: of the postings that landed,
 * those already past their valid_through, stored as expired and archived), and more.
 */
export type Summary = RunCounts & {
  /** the problems of the rejected rows, each with the number of rows that have it (reasonGroup) */
  reject_reasons: Record<string, number>
  /** jobs given a vector of the embedder's model */
  embedded: number
  /** texts the model embedded for them; the other vectors came from the embedding cache */
  embedded_by_model: number
  /** jobs of this run left without a vector (of the embedder's model, when there is one) */
  not_embedded: number
  /** jobs of this run queued for the background embedding (queueVectors) */
  queued_for_vectors: number
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
  /** the fewest jobs written between refreshes of the tables' statistics during the run (statisticsAsJobsGrow) */
  analyzeEvery?: number
  /** worker threads normalizing (1) */
  normalizeWorkers?: number
  /** batches written at once (2; 1 with `embedder`, whose batches are embedded in turn) */
  writers?: number
  now?: Date
  /**
   * queues a written batch's jobs that lack a vector, in the transaction that wrote them
   * (enqueueVectors); returns how many it queued
   */
  queueVectors?: ((tx: Db, md5Hashes: string[]) => Promise<number>) | null
  /** without queueVectors: makes the vectors of each written batch before the next; without either, postings land with none */
  embedder?: Embedder | null
  /** texts per model call (EMBEDDING_BATCH) */
  embedBatch?: number
  onRejected?: (line: number, reason: string, detail: RejectedDetail) => void
  /** each batch of postings as normalized, before it is written */
  onNormalized?: (batch: Normalized[]) => void
  /** normalize only: nothing is written or embedded, and no ingest run is recorded (`sql` may be null) */
  dryRun?: boolean
  /** after each written batch, and after each model call while a batch is embedded */
  onBatch?: (summary: Summary) => void
  /** why embedding failed; after an EmbedderUnavailable the run embeds nothing more */
  onEmbedError?: (message: string) => void
}

/** All the problems of a rejected row, and what was read: the record as the adapter gave it, or the text that was not one. */
export type RejectedDetail = { problems: string[]; record?: RawPosting; text?: string }
export type Normalized = { line: number; posting: Posting }
type Chunk = ({ line: number; raw: RawPosting } | { line: number; text: string })[]

/**
 * The group a problem is counted in: the problem with its numbers and quoted values left out
 * ("invalid JSON: Unexpected token } in JSON at position 37" -> "invalid JSON").
 */
export function reasonGroup(reason: string): string {
  const parse = /^(invalid JSON|invalid CSV)\b/.exec(reason)
  if (parse) return parse[1]
  return reason.replace(/"[^"]*"|'[^']*'/g, '"…"').replace(/\d+(?:\.\d+)?/g, 'N').slice(0, 160)
}

/**
 * The read items as batches of normalized postings, in order; rejected rows go to `reject`.
 * Each worker normalizes a chunk while the caller works on the batch before them.
 */
async function* normalizedBatches(
  items: AsyncIterable<ReadItem> | Iterable<ReadItem>,
  workers: NormalizePool,
  opts: { now: Date; board: string | null; batchSize: number; onRead: () => void; reject: (line: number, reason: string, detail: RejectedDetail) => void },
): AsyncGenerator<Normalized[]> {
  // results are taken in the order of the chunks, so rejected rows are reported in line order
  const take = async (results: Promise<WorkerResult[]>) => {
    const batch: Normalized[] = []
    for (const { line, result, record, text } of await results) {
      if ('reason' in result) opts.reject(line, result.reason, { problems: result.problems ?? [result.reason], record, text })
      else batch.push({ line, posting: result })
    }
    return batch
  }
  const pending: Promise<WorkerResult[]>[] = []
  const send = (chunk: Chunk) => {
    const results = workers.normalize(chunk, opts.now, opts.board)
    results.catch(() => {}) // awaited in take; a caller that stops early must not leave it unhandled
    pending.push(results)
  }
  let chunk: Chunk = []
  for await (const item of items) {
    opts.onRead()
    if ('error' in item) opts.reject(item.line, item.error, { problems: [item.error] })
    else chunk.push(item)
    if (chunk.length >= opts.batchSize) {
      send(chunk)
      chunk = []
      if (pending.length > workers.size) yield await take(pending.shift()!)
    }
  }
  if (chunk.length) send(chunk)
  while (pending.length) yield await take(pending.shift()!)
}

export async function ingest(sql: Sql | null, items: AsyncIterable<ReadItem> | Iterable<ReadItem>, opts: IngestOptions): Promise<Summary> {
  const started = Date.now()
  const seenAt = opts.now ?? new Date()
  const batchSize = opts.batchSize ?? 500
  const summary: Summary = {
    read: 0, inserted: 0, updated: 0, duplicates: 0, unchanged: 0, rejected: 0, reject_reasons: {}, expired_on_arrival: 0, embedded: 0, embedded_by_model: 0,
    not_embedded: 0, queued_for_vectors: 0, seconds: 0,
  }
  // the sources this run has written (load.ts): a later line of one of them is a duplicate
  const written = new Set<string>()
  let embedder = opts.embedder ?? null
  const boards = new Set<string>()
  if (!sql && !opts.dryRun) throw new Error('ingest: a database is needed unless dryRun')
  const db = sql as Sql
  const runId = opts.dryRun ? null : await insertIngestRun(db, opts.source, seenAt)
  const workers = new NormalizePool(opts.normalizeWorkers ?? 1)
  const keepStatistics = opts.dryRun ? null : await statisticsAsJobsGrow(db, opts.analyzeEvery)

  const reject = (line: number, reason: string, detail: RejectedDetail) => {
    summary.rejected++
    for (const group of new Set(detail.problems.map(reasonGroup))) summary.reject_reasons[group] = (summary.reject_reasons[group] ?? 0) + 1
    opts.onRejected?.(line, reason, detail)
  }
  // the companies the run's batches wrote: company search's stats of them are refreshed once, at the end
  const companies = new Set<string>()
  // the batch's writes, with the jobs its transaction queued for vectors once it has committed
  const load = async (postings: Posting[]) => {
    let queued = 0
    const queue = opts.queueVectors
    const counts = await loadBatch(db, postings, seenAt, written, queue ? async (tx, md5Hashes) => void (queued = await queue(tx, md5Hashes)) : undefined)
    add(counts)
    summary.queued_for_vectors += queued
  }
  const add = (c: BatchCounts & { sources: string[]; companies: string[] }) => {
    for (const id of c.companies) companies.add(id)
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
  // the duplicate groups written with no model to embed them: their jobs without a vector are counted once, at the end
  const unembedded = new Set<string>()
  const embed = async (md5Hashes: string[]) => {
    if (!embedder) {
      for (const h of md5Hashes) unembedded.add(h)
      return
    }
    const model = await modelId(db, embedder.info)
    const rows = await listJobsToEmbed(db, model, { md5Hashes })
    const counts = await embedJobs(db, embedder, model, rows, {
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
  const writers = opts.embedder && !opts.queueVectors ? 1 : Math.max(1, opts.writers ?? 2)
  // the batches being written, each with its postings' keys (postingKeys)
  const inFlight = new Map<object, { keys: Set<string>; done: Promise<void> }>()
  // a write's error other than the database refusing its rows (those are rejects)
  const failures: unknown[] = []
  /** Waits until no batch but `me` is being written; true if any was. */
  const alone = async (me: object) => {
    const others = [...inFlight].filter(([w]) => w !== me).map(([, { done }]) => done)
    await Promise.all(others)
    return others.length > 0
  }
  const loaded = (postings: Posting[]) => load(postings).then(() => true, () => false)
  const write = async (batch: Normalized[], me: object) => {
    const postings = batch.map((b) => b.posting)
    // written beside another batch, a batch can fail for that alone (a deadlock): it is tried again whole once it is alone
    if (!(await loaded(postings)) && !((await alone(me)) && (await loaded(postings)))) {
      for (const { line, posting } of batch) {
        try {
          await load([posting])
        } catch (e) {
          const reason = `database refused it: ${(e as Error).message}`
          reject(line, reason, { problems: [reason] })
        }
      }
    }
    await keepStatistics?.(summary.inserted)
    progress()
    if (opts.queueVectors) return
    await embed([...new Set(postings.map((p) => p.md5_hash))])
    progress()
  }
  /** Waits until a batch in flight is done; a write that failed ends the run here. */
  const oneDone = async () => {
    await Promise.race([...inFlight.values()].map((w) => w.done))
    if (failures.length) throw failures[0]
  }
  // postings held back from the last batch started: they go first in the next one
  let carried: Normalized[] = []
  /**
   * Starts writing `batch` (after the postings carried over) once a writer is free. What
   * shares a key (postingKeys) with a batch in flight, or with a posting held back before it,
   * is held back for the next batch, so each group's postings are written in file order; a
   * posting is held back once at most, and otherwise waits here for the batches it shares with.
   */
  const startWrite = async (batch: Normalized[]) => {
    const items = [...carried, ...batch]
    if (items.length === 0) return progress() // a chunk of rejected rows alone
    for (;;) {
      if (inFlight.size >= writers) {
        await oneDone()
        continue
      }
      const keys = writers > 1 ? await postingKeys(db, items.map((i) => i.posting)) : items.map(() => [])
      const held = new Set([...inFlight.values()].flatMap((w) => [...w.keys]))
      const now: Normalized[] = []
      const later: Normalized[] = []
      const nowKeys = new Set<string>()
      items.forEach((item, i) => {
        const mine = keys[i]
        if (mine.some((k) => held.has(k))) {
          later.push(item)
          for (const k of mine) held.add(k)
        } else {
          now.push(item)
          for (const k of mine) nowKeys.add(k)
        }
      })
      const heldBefore = new Set(carried)
      if (now.length === 0 || later.some((item) => heldBefore.has(item))) {
        await oneDone()
        continue
      }
      carried = later
      const me = {}
      const done = write(now, me)
        .catch((e) => void failures.push(e))
        .finally(() => inFlight.delete(me))
      inFlight.set(me, { keys: nowKeys, done })
      return
    }
  }
  try {
    // batches are written while the next ones are read and normalized
    const batches = normalizedBatches(items, workers, { now: seenAt, board: opts.board ?? null, batchSize, reject, onRead: () => summary.read++ })
    for await (const batch of batches) {
      for (const { posting } of batch) boards.add(posting.job_board)
      opts.onNormalized?.(batch)
      if (opts.dryRun) progress()
      else await startWrite(batch)
    }
    while (carried.length > 0) await startWrite([])
  } finally {
    await Promise.all([...inFlight.values()].map((w) => w.done))
    await workers.close()
  }
  if (failures.length) throw failures[0]

  summary.seconds = (Date.now() - started) / 1000
  if (opts.dryRun) return summary
  const groups = [...unembedded]
  for (let i = 0; i < groups.length; i += 10_000) summary.not_embedded += await countUnembedded(db, groups.slice(i, i + 10_000))
  await markBoardsIngested(db, [...boards], seenAt)
  // postings that arrived already past valid_through reach the archive now, not at the next expiry run
  if (summary.expired_on_arrival > 0) await archiveExpired(db)
  // what company search reads of the postings (live counts, their words, the tags): once
  // a run rather than once a batch, which re-read a large company's jobs for every batch
  const ids = [...companies]
  for (let i = 0; i < ids.length; i += 1000) await refreshCompanyStats(db, ids.slice(i, i + 1000))
  if (summary.inserted + summary.updated > 0) {
    // compensation_value_score ranks a salary among the other live postings (docs/scores.md)
    await refreshCompensationPercentiles(db)
    // search's total_count estimates follow the data only once the statistics do
    await analyzeSearchTables(db)
  }
  summary.seconds = (Date.now() - started) / 1000
  await finishIngestRun(db, runId!, summary)
  return summary
}
