/**
 * Gives stored jobs their vectors, for the background embedding (a queued batch), ingest
 * with an inline embedder (the demo data) and `make embed` (a page of the backlog):
 *   1. each job's two texts, its title and its body (job-text.ts), and their sha256;
 *   2. texts whose hash the cache holds for the model are not embedded again;
 *   3. the others are embedded once each, in batches of EMBEDDING_BATCH, as many at a
 *      time as the embedder serves, and cached as each batch returns, so a run that
 *      stops keeps what it made;
 *   4. a statement for each WRITE_JOBS jobs gives them the normalized sum of their two
 *      texts' cached vectors, unless a job was rewritten meanwhile (its new texts are the
 *      next run's).
 * When the model fails, step 4 still runs for the jobs whose texts were embedded or
 * cached before the failure, and the failure is returned with the counts for the
 * caller to report.
 */
import { toSql } from 'pgvector'
import type { Db } from '../../sql/db.ts'
import { findCachedHashes, insertCachedEmbeddings, updateJobEmbeddingsFromCache, type JobTextRow } from '../../sql/embeddings.ts'
import { batches, type Embedder } from './embedder.ts'
import { jobTexts, textSha256 } from './job-text.ts'

export type EmbedCounts = {
  /** jobs given a vector */
  written: number
  /** texts the model embedded (the others came from the cache) */
  computed: number
  /** why the model stopped, if it did */
  error: unknown
}

export type EmbedOptions = {
  batch: number
  /** after each model batch, with the number of texts it embedded */
  onProgress?: (texts: number) => void
  /**
   * one for each lane of model calls, and one for the writes of the jobs' vectors: called
   * after each model call and each write, and the lane's next step waits for it (the
   * background embedding rests there while the API is under load: jobs/pace.ts)
   */
  pace?: () => () => Promise<void>
}

/**
 * Jobs whose vectors one statement writes. Each job's vector goes into the HNSW indexes
 * (the whole corpus's and its categories'), a few milliseconds of the server's CPU a job,
 * which the pacer counts as the step's busy time: a write of a whole queued batch (64
 * jobs) was several hundred milliseconds that no rest made up for.
 */
export const WRITE_JOBS = 16

export async function embedJobs(db: Db, embedder: Embedder, model: number, rows: JobTextRow[], opts: EmbedOptions): Promise<EmbedCounts> {
  if (rows.length === 0) return { written: 0, computed: 0, error: null }
  const texts = new Map<string, string>() // sha → text, each text once
  const jobs = rows.map((r) => {
    const hashed = (text: string) => {
      const sha = textSha256(text)
      texts.set(sha, text)
      return sha
    }
    const { title, body } = jobTexts(r)
    return { id: r.id, version: r.version, title: hashed(title), body: hashed(body) }
  })
  const cached = await findCachedHashes(db, model, [...texts.keys()])
  const todo = [...texts].filter(([sha]) => !cached.has(sha))
  let computed = 0
  let error: unknown = null
  await embedTexts(embedder, todo, opts, async (done) => {
    await insertCachedEmbeddings(db, model, done.map(([sha, vector]) => ({ sha, vector: toSql(vector) })))
    computed += done.length
  }).catch((e) => (error = e))
  const pace = opts.pace?.()
  let written = 0
  for (const chunk of batches(jobs, WRITE_JOBS)) {
    written += (await updateJobEmbeddingsFromCache(db, model, chunk)).length
    await pace?.()
  }
  return { written, computed, error }
}

/**
 * Embeds [key, text] pairs in batches, up to embedder.parallelism batches at a time,
 * handing each batch's [key, vector] pairs to `store` before counting it done. The
 * first failure stops the batches not yet started and is thrown once the others end.
 */
export async function embedTexts(
  embedder: Embedder,
  items: [string, string][],
  opts: EmbedOptions,
  store: (done: [string, number[]][]) => Promise<void>,
) {
  const queue = batches(items, opts.batch)
  let failure: unknown = null
  const lane = async () => {
    const pace = opts.pace?.()
    for (let b = queue.shift(); b && failure === null; b = queue.shift()) {
      try {
        const vectors = await embedder.embed(b.map(([, text]) => text))
        await store(b.map(([key], i) => [key, vectors[i]]))
        opts.onProgress?.(b.length)
        await pace?.()
      } catch (e) {
        failure ??= e
      }
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, embedder.parallelism ?? 1) }, lane))
  if (failure !== null) throw failure
}
