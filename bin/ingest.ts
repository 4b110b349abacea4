/**
 * `make ingest FILE=path` / `npm run ingest -- path [--format NAME] [--company NAME] [--batch N]
 *   [--workers N] [--writers N] [--errors FILE] [--dry-run] [--report] [--wait-for-vectors]`
 *
 * The format is recognized from the file (ingest/formats); --format names it, and
 * --company gives the company of feeds that do not name it (an ATS board's).
 *
 * Rejected rows go to stderr as "line N: reason", and with --errors to FILE as JSONL, one
 * row with all its problems and what was read per line; a progress bar with rate and ETA
 * shows on a terminal; the summary is always printed, ending with the reject reasons
 * grouped and counted. --dry-run normalizes without a database; --report prints per field
 * how often it was filled and the values worth a look (ingest/report.ts). Postings land at
 * ingest speed and are queued for vectors of EMBEDDING_PROVIDER's model, which the running
 * server and `npm run worker` compute in the background (jobs/embed-vectors.ts);
 * --wait-for-vectors also works the queue here and returns once it is empty, with a
 * progress bar. Exits non-zero only when the input is unreadable, nothing could be
 * ingested, or --wait-for-vectors could not embed.
 */
import fs from 'node:fs'
import { parseArgs } from 'node:util'
import cliProgress from 'cli-progress'
import type PgBoss from 'pg-boss'
import pino from 'pino'
import { createBoss, createQueues } from '../jobs/boss.ts'
import * as embedVectors from '../jobs/embed-vectors.ts'
import { loadConfig } from '../sql/config.ts'
import { openDatabase, type Database } from '../sql/db.ts'
import { embeddingStatus, modelId } from '../sql/embeddings.ts'
import { migrate } from '../sql/migrate.ts'
import { createEmbedder } from '../ingest/embed/create.ts'
import { EmbedderUnavailable, type Embedder } from '../ingest/embed/embedder.ts'
import { ingest } from '../ingest/pipeline.ts'
import { ingestCompanies } from '../ingest/companies.ts'
import { companyProfiles } from '../ingest/formats/company-profiles.ts'
import { ADAPTERS, openCompanyFeed, openFeed } from '../ingest/formats/index.ts'
import { IngestReport } from '../ingest/report.ts'

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    format: { type: 'string' }, company: { type: 'string' }, companies: { type: 'boolean' }, batch: { type: 'string' }, workers: { type: 'string' }, writers: { type: 'string' },
    errors: { type: 'string' }, 'dry-run': { type: 'boolean' }, report: { type: 'boolean' }, 'wait-for-vectors': { type: 'boolean' },
  },
})
const dryRun = values['dry-run'] ?? false

/** An integer option within bounds, or the usage error. */
function count(name: string, value: string | undefined, max: number): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (Number.isInteger(n) && n >= 1 && n <= max) return n
  console.error(`ingest: --${name} must be a whole number from 1 to ${max}, got ${JSON.stringify(value)}`)
  process.exit(2)
}
const batchSize = count('batch', values.batch, 10_000)
const normalizeWorkers = count('workers', values.workers, 16)
const writers = count('writers', values.writers, 8)
const file = positionals[0]
if (!file) {
  console.error('usage: npm run ingest -- <file or directory> [--format NAME] [--company NAME] [--companies] [--batch 500] [--workers N] [--writers 2] [--errors FILE] [--dry-run] [--report] [--wait-for-vectors]')
  console.error('formats (recognized from the file when --format is not given):')
  for (const a of [...ADAPTERS, companyProfiles]) console.error(`  ${a.name.padEnd(16)} ${a.summary}`)
  process.exit(2)
}

// company profiles (make ingest-companies, or a file whose records are companies) take their own path
const companies = !values.format && !dryRun && (await openCompanyFeed(file, { force: values.companies }).catch((e: Error) => {
  console.error(`ingest: cannot read ${file}: ${e.message}`)
  process.exit(1)
}))
if (companies) {
  const config = loadConfig()
  const db = await openDatabase(config)
  let code = 0
  try {
    await migrate(db.sql)
    const s = await ingestCompanies(db.sql, companies.items, (line, reason) => process.stderr.write(`line ${line}: ${reason}\n`))
    console.log(`companies: read ${s.read}, inserted ${s.inserted}, updated ${s.updated}, unchanged ${s.unchanged}, rejected ${s.rejected}, ${s.seconds.toFixed(1)} s`)
    if (s.read > 0 && s.rejected === s.read) code = 1
  } catch (e) {
    console.error(`ingest: ${(e as Error).message}`)
    code = 1
  } finally {
    await db.close()
  }
  process.exit(code)
}

let size: number
let feed: Awaited<ReturnType<typeof openFeed>>
try {
  fs.accessSync(file, fs.constants.R_OK)
  size = fs.statSync(file).size
  feed = await openFeed(file, { format: values.format, company: values.company })
} catch (e) {
  console.error(`ingest: cannot read ${file}: ${(e as Error).message}`)
  process.exit(1)
}
console.error(`ingest: ${file} as ${feed.adapter.name} (${feed.adapter.summary})`)

const config = loadConfig()
const db = dryRun ? null : await openDatabase(config)
const embedder = dryRun ? null : createEmbedder(config.embedding)
const log = pino({ level: 'warn', base: null }, pino.destination(2))
let vectors: Awaited<ReturnType<typeof openVectorQueue>> | null = null
const report = values.report ? new IngestReport() : null
const errors = values.errors ? fs.createWriteStream(values.errors) : null
const bar = process.stdout.isTTY
  ? new cliProgress.SingleBar(
      { format: 'ingest |{bar}| {percentage}% | {postings} postings | {queued} queued for vectors | {rate}/s | ETA {eta_formatted}', etaBuffer: 50 },
      cliProgress.Presets.shades_classic,
    )
  : null
bar?.start(size, 0, { postings: 0, queued: 0, rate: 0 })

/** pg-boss on the (migrated) database, with the embedding queue, and the model's id: what queueing vectors needs. */
async function openVectorQueue(db: Database, embedder: Embedder) {
  const boss = createBoss(db.url, log)
  await boss.start()
  await createQueues(boss, db.sql, [{ ...embedVectors.options, name: embedVectors.queue }])
  return { boss, model: await modelId(db.sql, embedder.info) }
}

/**
 * --wait-for-vectors: works the queue here too (beside any server or worker) until no
 * batch is left, with a progress bar of the vectors written since it started.
 */
async function waitForVectors(db: Database, boss: PgBoss, embedder: Embedder, model: number, queued: number) {
  const started = Date.now()
  const before = await embeddingStatus(db.sql, model)
  let failure: unknown = null
  const workers = await embedVectors.startEmbedWorkers(boss, db.sql, embedder, log, config.embedding.batch, { onFailure: (e) => (failure = e) })
  const vbar = process.stdout.isTTY
    ? new cliProgress.SingleBar({ format: 'vectors |{bar}| {percentage}% | {value}/{total} jobs | {rate}/s | ETA {eta_formatted}', etaBuffer: 50 }, cliProgress.Presets.shades_classic)
    : null
  vbar?.start(Math.max(queued, 1), 0, { rate: 0 })
  let written = 0
  try {
    for (;;) {
      const [pending, now] = await Promise.all([embedVectors.pendingBatches(boss), embeddingStatus(db.sql, model)])
      written = now.done - before.done
      vbar?.setTotal(Math.max(queued, written, 1))
      vbar?.update(written, { rate: Math.round(written / Math.max((Date.now() - started) / 1000, 0.001)) })
      if (pending === 0) break
      if (failure instanceof EmbedderUnavailable) throw failure
      await new Promise((r) => setTimeout(r, 500))
    }
  } finally {
    vbar?.stop()
    await workers.stop()
  }
  const seconds = (Date.now() - started) / 1000
  const left = await embeddingStatus(db.sql, model)
  console.log(
    `vectors: ${written} jobs embedded in ${seconds.toFixed(1)} s (${Math.round(written / Math.max(seconds, 0.001))} jobs/s); ` +
      `${left.live_pending} live jobs without a vector of this model`,
  )
  return left.live_pending === 0
}

let exitCode = 0
try {
  if (db) await migrate(db.sql)
  if (db && embedder) vectors = await openVectorQueue(db, embedder)
  const queue = vectors
  const summary = await ingest(db?.sql ?? null, feed.items, {
    source: file,
    dryRun,
    batchSize,
    normalizeWorkers,
    // the embedded database runs one transaction at a time: a second writer would only wait its turn
    writers: writers ?? (config.databaseUrl ? undefined : 1),
    queueVectors: queue ? (tx, md5Hashes) => embedVectors.enqueueVectors(tx, queue.boss, queue.model, md5Hashes, config.embedding) : null,
    onRejected: (line, reason, { problems, record, text }) => {
      process.stderr.write(`line ${line}: ${reason}\n`)
      errors?.write(JSON.stringify({ line, problems, ...(record ? { record } : {}), ...(text !== undefined ? { text } : {}) }) + '\n')
    },
    onNormalized: report ? (batch) => report.add(batch) : undefined,
    onBatch: (s) => bar?.update(feed.bytes(), { postings: s.read, queued: s.queued_for_vectors, rate: Math.round(s.read / Math.max(s.seconds, 0.001)) }),
  })
  bar?.update(size)
  bar?.stop()
  const rate = `${summary.seconds.toFixed(1)} s (${Math.round(summary.read / Math.max(summary.seconds, 0.001))} postings/s)`
  const landed = dryRun ? summary.read - summary.rejected : summary.inserted + summary.updated + summary.duplicates + summary.unchanged
  if (dryRun) console.log(`dry run, nothing written: read ${summary.read}, would land ${landed}, rejected ${summary.rejected}, ${rate}`)
  else {
    console.log(
      `read ${summary.read}, inserted ${summary.inserted}, updated ${summary.updated}, duplicates ${summary.duplicates}, ` +
        `unchanged ${summary.unchanged}, rejected ${summary.rejected}, expired on arrival ${summary.expired_on_arrival}, ${rate}`,
    )
    console.log(
      embedder
        ? `queued ${summary.queued_for_vectors} jobs for vectors of ${embedder.info.provider} ${embedder.info.model_name}` +
            (values['wait-for-vectors'] ? '' : ': the running server and workers embed them in the background (npm run admin -- embeddings:status)')
        : `not embedded ${summary.not_embedded} (EMBEDDING_PROVIDER=none)`,
    )
    if (values['wait-for-vectors'] && queue && embedder && db) {
      if (!(await waitForVectors(db, queue.boss, embedder, queue.model, summary.queued_for_vectors))) exitCode = 1
    }
  }
  const reasons = Object.entries(summary.reject_reasons).sort((a, b) => b[1] - a[1])
  if (reasons.length) {
    console.log(`rejected rows by problem (a row may have several)${values.errors ? `; every rejected row is in ${values.errors}` : ''}:`)
    for (const [reason, count] of reasons) console.log(`  ${String(count).padStart(7)}  ${reason}`)
  }
  if (report) console.log(`\n${report.format()}`)
  if (landed === 0) {
    console.error('ingest: nothing could be ingested')
    exitCode = 1
  }
} catch (e) {
  bar?.stop()
  console.error(`ingest: ${(e as Error).message}`)
  exitCode = 1
} finally {
  await vectors?.boss.stop({ graceful: true, wait: true, timeout: 10_000 }).catch(() => {})
  await embedder?.close()
  await db?.close()
  if (errors) await new Promise((resolve) => errors.end(resolve))
}
process.exit(exitCode)
