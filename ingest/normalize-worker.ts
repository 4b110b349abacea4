/** Runs normalizePosting off the main thread, which is busy writing (and, embedded, running Postgres). */
import { parentPort } from 'node:worker_threads'
import { normalizePosting } from './normalize.ts'
import { parseLine } from './read.ts'
import type { RawPosting } from './types.ts'

export type WorkerRequest = { id: number; now: number; board: string | null; items: ({ line: number; raw: RawPosting } | { line: number; text: string })[] }
/** A rejected item comes back with what was read, for the errors file: the record, or the text that was not one. */
export type WorkerResult = { line: number; result: ReturnType<typeof normalizePosting>; record?: RawPosting; text?: string }
export type WorkerResponse = { id: number; results: WorkerResult[] }

parentPort!.on('message', ({ id, now, board, items }: WorkerRequest) => {
  const when = new Date(now)
  const results = items.map((item): WorkerResult => {
    const parsed = 'text' in item ? parseLine(item.text) : { raw: item.raw }
    if ('error' in parsed) return { line: item.line, result: { reason: parsed.error }, text: (item as { text: string }).text }
    const result = normalizePosting(parsed.raw, { now: when, board })
    return 'reason' in result ? { line: item.line, result, record: parsed.raw } : { line: item.line, result }
  })
  parentPort!.postMessage({ id, results } satisfies WorkerResponse)
})
