/**
 * A small pool of worker threads running one module, one message at a time each: work
 * beyond `size` queues. A thread starts on first use, is unref'd while idle (so a server
 * or a test can exit without closing it), and a job that runs past its time limit has
 * its thread terminated, since a parser stuck in a loop never yields to be asked. The
 * next job starts a fresh thread.
 */
import { Worker } from 'node:worker_threads'

export class ThreadTimeout extends Error {}
export class ThreadDied extends Error {}

type Job<Res> = {
  message: object
  transfer: ArrayBuffer[]
  timeoutMs: number
  resolve: (r: Res) => void
  reject: (e: unknown) => void
}
type Slot<Res> = { worker: Worker; job: Job<Res> | null; timer?: NodeJS.Timeout }

export class Threads<Res> {
  private slots: Slot<Res>[] = []
  private queue: Job<Res>[] = []
  private next = 0

  /**
   * `preload`: modules the thread imports before tsx's hooks are registered. tsx reads and
   * maps every module it loads, and for pdfjs (1.5 MB of JavaScript with a 3 MB source map)
   * that costs about 200 MB a thread; imported first, the module is cached as Node loads it.
   */
  constructor(
    private readonly module: URL,
    private readonly size: number,
    private readonly options: { resourceLimits?: { maxOldGenerationSizeMb: number }; preload?: string[] } = {},
  ) {}

  /** Runs `message` (given an `id`) on a thread; the time limit starts when a thread takes it. */
  run(message: object, { transfer = [], timeoutMs }: { transfer?: ArrayBuffer[]; timeoutMs: number }): Promise<Res> {
    return new Promise<Res>((resolve, reject) => {
      this.queue.push({ message, transfer, timeoutMs, resolve, reject })
      this.dispatch()
    })
  }

  private dispatch() {
    while (this.queue.length) {
      let slot = this.slots.find((s) => s.job === null)
      if (!slot) {
        if (this.slots.length >= this.size) return
        slot = this.start()
      }
      const job = this.queue.shift()!
      slot.job = job
      slot.worker.ref()
      slot.timer = setTimeout(() => this.kill(slot!, new ThreadTimeout(`no answer within ${job.timeoutMs} ms`)), job.timeoutMs)
      slot.worker.postMessage({ ...job.message, id: this.next++ }, job.transfer)
    }
  }

  private start(): Slot<Res> {
    // Module hooks (tsx) are per thread: the thread registers them itself, after the
    // preloads. execArgv is empty so that it does not inherit `--import tsx` from the
    // process (V8 flags are process-wide and stay).
    const preload = (this.options.preload ?? []).map((m) => `await import(${JSON.stringify(m)})`).join('\n')
    const worker = new Worker(
      `(async () => {
         ${preload}
         const { register } = await import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))})
         register()
         await import(${JSON.stringify(this.module.href)})
       })()`,
      { eval: true, execArgv: [], resourceLimits: this.options.resourceLimits },
    )
    const slot: Slot<Res> = { worker, job: null }
    worker.on('message', (m: Res) => {
      const job = slot.job
      clearTimeout(slot.timer)
      slot.job = null
      worker.unref()
      job?.resolve(m)
      this.dispatch()
    })
    worker.on('error', (e) => this.kill(slot, new ThreadDied(`the thread failed: ${e.message}`, { cause: e })))
    worker.on('exit', (code) => this.kill(slot, new ThreadDied(`the thread exited with code ${code}`)))
    worker.unref()
    this.slots.push(slot)
    return slot
  }

  /** A thread that failed or overran takes only its own job with it. */
  private kill(slot: Slot<Res>, e: Error) {
    if (!this.slots.includes(slot)) return
    this.slots = this.slots.filter((s) => s !== slot)
    clearTimeout(slot.timer)
    slot.worker.removeAllListeners('exit')
    void slot.worker.terminate()
    slot.job?.reject(e)
    slot.job = null
    this.dispatch()
  }

  async close() {
    for (const job of this.queue.splice(0)) job.reject(new Error('the resume readers are closed'))
    const slots = this.slots.splice(0)
    for (const s of slots) {
      clearTimeout(s.timer)
      s.worker.removeAllListeners('exit')
      s.job?.reject(new Error('the resume readers are closed'))
    }
    await Promise.all(slots.map((s) => s.worker.terminate()))
  }
}
