/**
 * Worker threads that normalize chunks of postings, so normalizing overlaps with writing
 * even when Postgres is the embedded one on the main thread. NormalizePool hands chunks
 * to its workers in turn.
 */
import { Worker } from 'node:worker_threads'
import type { WorkerRequest, WorkerResponse } from './normalize-worker.ts'

export class NormalizeWorker {
  // Module hooks (tsx, which runs the TypeScript) are per thread, so the worker
  // registers them before importing its module.
  private worker = new Worker(
    `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))})
       .then(({ register }) => { register(); return import(${JSON.stringify(new URL('./normalize-worker.ts', import.meta.url).href)}) })`,
    { eval: true },
  )
  private next = 0
  private waiting = new Map<number, { resolve: (r: WorkerResponse['results']) => void; reject: (e: unknown) => void }>()

  constructor() {
    this.worker.on('message', ({ id, results }: WorkerResponse) => {
      this.waiting.get(id)?.resolve(results)
      this.waiting.delete(id)
    })
    this.worker.on('error', (e) => this.failAll(e))
    this.worker.on('exit', (code) => this.failAll(new Error(`normalize worker exited with ${code}`)))
  }

  /** `board`: the board of postings that name none (IngestOptions.board) */
  normalize(items: WorkerRequest['items'], now: Date, board: string | null = null) {
    const id = this.next++
    return new Promise<WorkerResponse['results']>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject })
      this.worker.postMessage({ id, now: now.getTime(), board, items } satisfies WorkerRequest)
    })
  }

  private failAll(e: unknown) {
    for (const w of this.waiting.values()) w.reject(e)
    this.waiting.clear()
  }

  async close() {
    this.worker.removeAllListeners('exit')
    await this.worker.terminate()
  }
}

export class NormalizePool {
  private workers: NormalizeWorker[]
  private turn = 0

  constructor(readonly size = 1) {
    this.workers = Array.from({ length: Math.max(1, size) }, () => new NormalizeWorker())
  }

  normalize(items: WorkerRequest['items'], now: Date, board: string | null = null) {
    const worker = this.workers[this.turn++ % this.workers.length]
    return worker.normalize(items, now, board)
  }

  async close() {
    await Promise.all(this.workers.map((w) => w.close()))
  }
}
