/**
 * `make bench` (resume part): POST /v2/resumes/embed over HTTP with the default model,
 * on a scratch database (TEST_DATABASE_URL's server, else the embedded one):
 *   - a two-page PDF with a text layer, one request at a time (median, p95);
 *   - a one-page scanned PDF (OCR), one at a time;
 *   - 20 requests at once (16 text PDFs, 4 scans): the process's peak RSS, reader and
 *     OCR threads included, and the longest the event loop was held.
 * Prints a table. BENCH_RESUME_RUNS sets the sequential runs (default 15 text, 5 scans).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { createEmbedder } from '../../ingest/embed/create.ts'
import { closeResumeReaders } from '../../ingest/resume/read.ts'
import { loadConfig } from '../../sql/config.ts'
import { startTestApp } from '../helpers/app.ts'
import { multipart, scannedPdf, textPdf, TYPES } from '../helpers/resume-files.ts'

const runs = Number(process.env.BENCH_RESUME_RUNS ?? 15)

const config = loadConfig()
const embedder = createEmbedder(config.embedding)
if (!embedder) throw new Error('bench/resumes: needs an embedding model (EMBEDDING_PROVIDER is none)')
const generous = { limit: 1_000_000, windowSeconds: 60 }
// one key sends all 20 at once: its share of the CPU queue (CPU_QUEUE_PER_KEY, 8) would
// answer the rest 503, which is the fairness between keys, not what this bench measures
const queues = { ...config.queues, cpu: { ...config.queues.cpu, perKey: 20 } }
const app = await startTestApp({ embedder, config: { rateLimits: { key: generous, search: generous, anonymous: generous }, queues } })

const [text, scan] = await Promise.all([textPdf(undefined, { pages: 2 }), scannedPdf()])

async function embed(bytes: Buffer) {
  const { body, contentType } = multipart([{ name: 'file', bytes, type: TYPES.pdf, filename: 'r.pdf' }])
  const started = performance.now()
  const res = await fetch(`${app.base}/v2/resumes/embed`, { method: 'POST', headers: { 'x-api-key': app.key, 'content-type': contentType }, body })
  const json = await res.json()
  if (res.status !== 200) throw new Error(`bench/resumes: ${res.status} ${JSON.stringify(json).slice(0, 200)}`)
  return performance.now() - started
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]
}

async function sequential(bytes: Buffer, n: number) {
  await embed(bytes) // warm: threads, model, tesseract
  const times: number[] = []
  for (let i = 0; i < n; i++) times.push(await embed(bytes))
  return { median: quantile(times, 0.5), p95: quantile(times, 0.95), n }
}

const mb = (b: number) => Math.round(b / 1024 / 1024)

try {
  const textTimes = await sequential(text, runs)
  const scanTimes = await sequential(scan, Math.max(3, Math.round(runs / 3)))

  const before = process.memoryUsage().rss
  let peak = before
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20)
  const loop = monitorEventLoopDelay({ resolution: 10 })
  loop.enable()
  const started = performance.now()
  await Promise.all(Array.from({ length: 20 }, (_, i) => embed(i % 5 === 4 ? scan : text)))
  const wall = performance.now() - started
  loop.disable()
  clearInterval(sampler)

  console.log(`\nPOST /v2/resumes/embed, ${embedder.info.model_name}, ${app.db.kind} database, ${new Date().toISOString().slice(0, 10)}`)
  console.table({
    'two-page PDF, text layer': { runs: textTimes.n, 'median ms': Math.round(textTimes.median), 'p95 ms': Math.round(textTimes.p95) },
    'one-page scanned PDF (OCR)': { runs: scanTimes.n, 'median ms': Math.round(scanTimes.median), 'p95 ms': Math.round(scanTimes.p95) },
  })
  console.table({
    '20 at once (16 text, 4 scans)': {
      'wall ms': Math.round(wall),
      'RSS before MB': mb(before),
      'peak RSS MB': mb(peak),
      'longest event-loop stall ms': Math.round(loop.max / 1e6),
    },
  })
} finally {
  await app.close()
  await embedder.close()
  await closeResumeReaders()
}
