/**
 * `make embed` / `npm run embed`: gives every job and every parsed resume a vector of the configured model
 * (EMBEDDING_PROVIDER, EMBEDDING_MODEL): jobs that have none (ingested while the model
 * was unavailable, or with EMBEDDING_PROVIDER=none) and jobs whose vector another
 * model made (after a change of model, so that queries, embedded by the new model,
 * find them). Pages of PAGE jobs in id order, with a progress bar on a terminal and a
 * summary; texts in the embedding cache are not embedded again, so an interrupted run
 * resumes where it stopped. Then the same for stored resumes that are parsed: those parsed
 * while no model was configured and those another model embedded, their vectors made from
 * the parsed data (ingest/resume/embed-resume.ts), never from the file again. Exits 1 when
 * jobs or resumes are left without a vector.
 *
 * `npm run embed -- --write-demo-vectors` rewrites ingest/embed/demo-vectors.bin: the
 * demo postings, ingested into a scratch in-memory database and embedded from scratch.
 */
import { parseArgs } from 'node:util'
import cliProgress from 'cli-progress'
import { loadConfig } from '../sql/config.ts'
import { connect, openDatabase, type Sql } from '../sql/db.ts'
import { startEmbedded } from '../sql/embedded.ts'
import { countEmbeddingBacklog, listJobsToEmbed, modelId } from '../sql/embeddings.ts'
import { migrate } from '../sql/migrate.ts'
import { countResumeEmbeddingBacklog, listResumesToEmbed, setResumeVector } from '../sql/resumes.ts'
import { demoPostings } from '../ingest/demo-data.ts'
import { createEmbedder } from '../ingest/embed/create.ts'
import { DEMO_VECTORS, writeDemoVectors } from '../ingest/embed/demo-vectors.ts'
import { embedJobs } from '../ingest/embed/embed-jobs.ts'
import { EmbedderUnavailable, type Embedder } from '../ingest/embed/embedder.ts'
import { ingest } from '../ingest/pipeline.ts'
import { resumeVectors } from '../ingest/resume/embed-resume.ts'
import type { ParsedResume } from '../ingest/resume/types.ts'

/** Jobs read, embedded and written per round: the texts of a page are embedded together. */
const PAGE = 500
/** Resumes per round */
const RESUME_PAGE = 100

const { values } = parseArgs({ options: { 'write-demo-vectors': { type: 'boolean' } } })
const config = loadConfig()
const embedder = createEmbedder(config.embedding)
if (!embedder) {
  console.error('embed: EMBEDDING_PROVIDER is none; set it to use, transformers or openai')
  process.exit(2)
}

async function backfill(sql: Sql, embedder: Embedder) {
  const started = Date.now()
  const model = await modelId(sql, embedder.info)
  const { missing, other_model } = await countEmbeddingBacklog(sql, model)
  const { provider, model_name, model_version } = embedder.info
  console.log(`embedding ${missing + other_model} jobs with ${provider} ${model_name} ${model_version}: ${missing} without a vector, ${other_model} with another model's`)
  const bar = progressBar(missing + other_model, 'jobs', 'texts')
  bar?.start(missing + other_model, 0, { rate: 0 })
  let written = 0
  let computed = 0
  let left = 0
  let stopped: unknown = null
  for (let after = '0'; ; ) {
    const rows = await listJobsToEmbed(sql, model, { after, limit: PAGE })
    if (rows.length === 0) break
    after = rows[rows.length - 1].id
    const counts = await embedJobs(sql, embedder, model, rows, {
      batch: config.embedding.batch,
      onProgress: (n) => {
        computed += n
        bar?.update(written, { rate: Math.round(computed / Math.max((Date.now() - started) / 1000, 0.001)) })
      },
    })
    written += counts.written
    left += rows.length - counts.written
    bar?.update(written)
    if (counts.error) {
      bar?.stop()
      console.error(`embed: ${(counts.error as Error).message ?? counts.error}`)
      if (counts.error instanceof EmbedderUnavailable) {
        stopped = counts.error
        break
      }
    }
  }
  bar?.stop()
  const seconds = (Date.now() - started) / 1000
  const remaining = await countEmbeddingBacklog(sql, model)
  console.log(
    `embedded ${written} jobs (${computed} texts by the model, the others from the cache) in ${seconds.toFixed(1)} s ` +
      `(${Math.round(written / Math.max(seconds, 0.001))} jobs/s); ${remaining.missing + remaining.other_model} jobs left without a vector of this model`,
  )
  return stopped === null && left === 0
}

function progressBar(total: number, noun: string, rate: string) {
  return process.stdout.isTTY && total > 0
    ? new cliProgress.SingleBar({ format: `embed |{bar}| {percentage}% | {value}/{total} ${noun} | {rate} ${rate}/s | ETA {eta_formatted}`, etaBuffer: 50 }, cliProgress.Presets.shades_classic)
    : null
}

/** Parsed resumes without a vector of this model get one; returns whether none is left. */
async function backfillResumes(sql: Sql, embedder: Embedder) {
  const started = Date.now()
  const model = await modelId(sql, embedder.info)
  const { missing, other_model } = await countResumeEmbeddingBacklog(sql, model)
  const { provider, model_name, model_version } = embedder.info
  console.log(`embedding ${missing + other_model} resumes with ${provider} ${model_name} ${model_version}: ${missing} without a vector, ${other_model} with another model's`)
  const bar = progressBar(missing + other_model, 'resumes', 'resumes')
  bar?.start(missing + other_model, 0, { rate: 0 })
  let written = 0
  let done = 0
  let failed: unknown = null
  try {
    for (let after: string | null = null; ; ) {
      const rows = await listResumesToEmbed(sql, model, after, RESUME_PAGE)
      if (rows.length === 0) break
      after = rows[rows.length - 1].id
      const parsed = rows.map((r) => r.parsed_data as ParsedResume)
      const vectors = await resumeVectors(parsed, embedder, { batch: config.embedding.batch })
      done += vectors.length
      for (const [i, row] of rows.entries()) if (await setResumeVector(sql, row.id, row.parsed_data, vectors[i], model)) written++
      bar?.update(written, { rate: Math.round(done / Math.max((Date.now() - started) / 1000, 0.001)) })
    }
  } catch (e) {
    failed = e
  }
  bar?.stop()
  if (failed) console.error(`embed: ${(failed as Error).message ?? failed}`)
  const seconds = (Date.now() - started) / 1000
  const remaining = await countResumeEmbeddingBacklog(sql, model)
  const left = remaining.missing + remaining.other_model
  console.log(`embedded ${written} resumes in ${seconds.toFixed(1)} s; ${left} resumes left without a vector of this model`)
  return failed === null && left === 0
}

async function writeDemo(embedder: Embedder) {
  const scratch = await startEmbedded({ dataDir: null, port: 0 })
  const sql = connect(scratch.url, 4)
  try {
    await migrate(sql)
    const s = await ingest(sql, demoPostings(config.demoJobs), {
      source: 'demo vectors',
      embedder,
      embedBatch: config.embedding.batch,
      onEmbedError: (m) => console.error(`embed: ${m}`),
      onBatch: (s) => process.stderr.write(`\r${s.read} postings read, ${s.embedded} embedded`),
    })
    process.stderr.write('\n')
    if (s.not_embedded > 0) throw new Error(`${s.not_embedded} demo jobs were not embedded`)
    console.log(`wrote ${await writeDemoVectors(sql, embedder.info)} vectors of ${s.inserted} demo jobs to ${DEMO_VECTORS}`)
    return true
  } finally {
    await sql.end({ timeout: 5 })
    await scratch.stop()
  }
}

let ok = false
try {
  if (values['write-demo-vectors']) ok = await writeDemo(embedder)
  else {
    const db = await openDatabase(config)
    try {
      await migrate(db.sql)
      const jobs = await backfill(db.sql, embedder)
      // resumes even when jobs are left: a model that failed on a job may still serve them
      const resumes = await backfillResumes(db.sql, embedder)
      ok = jobs && resumes
    } finally {
      await db.close()
    }
  }
} catch (e) {
  console.error(`embed: ${(e as Error).message}`)
} finally {
  await embedder.close()
}
process.exit(ok ? 0 : 1)
