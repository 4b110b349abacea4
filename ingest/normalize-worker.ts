/** Runs normalizePosting off the main thread, which is busy writing (and, embedded, running Postgres). */
import { parentPort } from 'node:worker_threads'
import { normalizePosting } from './normalize.ts'
import { parseLine } from './read.ts'
import type { RawPosting } from './types.ts'

export type WorkerRequest = { id: number; now: number; board: string | null; items: ({ line: number; raw: RawPosting } | { line: number; text: string })[] }
export type WorkerResponse = { id: number; results: { line: number; result: ReturnType<typeof normalizePosting> }[] }

parentPort!.on('message', ({ id, now, board, items }: WorkerRequest) => {
  const when = new Date(now)
  const results = items.map((item) => {
    const parsed = 'text' in item ? parseLine(item.text) : { raw: item.raw }
    return { line: item.line, result: 'error' in parsed ? { reason: parsed.error } : normalizePosting(parsed.raw, { now: when, board }) }
  })
  parentPort!.postMessage({ id, results } satisfies WorkerResponse)
})
