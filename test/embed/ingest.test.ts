/**
 * Ingest computes embeddings: new and changed texts are embedded with the model and
 * cached by their hash, unchanged and returning texts are not embedded again, the
 * database records the model, and postings land without vectors when no model can run.
 */
import anyTest, { type TestFn } from 'ava'
import { fromSql } from 'pgvector'
import { embedJobs, WRITE_JOBS } from '../../ingest/embed/embed-jobs.ts'
import { jobTexts } from '../../ingest/embed/job-text.ts'
import { OpenAIEmbedder } from '../../ingest/embed/openai.ts'
import { ingest } from '../../ingest/pipeline.ts'
import { listJobsToEmbed, modelId, storedModels } from '../../sql/embeddings.ts'
import { jobColumns, updateJob, type JobRow } from '../../sql/postings.ts'
import { generatePostings } from '../../ingest/generator/postings.ts'
import { testEmbedder } from '../helpers/app.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'
import { rawPosting, readItems } from '../helpers/factories.ts'
import { Counting } from './counting.ts'
import type PgBoss from 'pg-boss'
import pino from 'pino'
import * as embedVectors from '../../jobs/embed-vectors.ts'
import { pacer } from '../../jobs/pace.ts'
import { startFakeOpenAI } from './openai-server.ts'

const test = anyTest as TestFn<{ db: TestDb }>

test.before(async (t) => {
  t.context = { db: await testDatabase() }
})
test.after.always(async (t) => {
  await t.context.db?.close()
})

const now = new Date('2026-11-20T12:00:00Z')
const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0)

async function vectorsOf(t: { context: { db: TestDb } }, sourceIds: string[]) {
  return t.context.db.sql<{ source_id: string; embedding: string | null; embedding_model: number | null }[]>`
    select s.source_key as source_id, j.embedding::text, j.embedding_model
    from job_sources s join jobs j on j.id = s.job_id where s.source_key = any(${sourceIds})`
}

test.serial('new postings are embedded in batches and the model recorded; unchanged ones embed nothing', async (t) => {
  const { sql } = t.context.db
  const embedder = new Counting(testEmbedder())
  const postings = [...generatePostings({ jobs: 12, seed: 11, now: '2026-11-20' })]
  const batches: number[] = []
  const first = await ingest(sql, readItems(postings), { source: 'embed-a', now, embedder, embedBatch: 5, onBatch: (s) => batches.push(s.embedded_by_model) })
  t.true(first.inserted > 0)
  t.is(first.embedded, first.inserted)
  // two texts a job, its title and its body, each embedded once however many jobs share it
  const hashes = (await sql<{ md5_hash: string }[]>`select md5_hash from jobs where source_key = any(${postings.map((p) => p.source_id as string)})`).map((r) => r.md5_hash)
  const distinct = new Set((await listJobsToEmbed(sql, -1, { md5Hashes: hashes })).flatMap((j) => Object.values(jobTexts(j))))
  t.true(distinct.size > first.inserted)
  t.is(first.embedded_by_model, distinct.size)
  t.is(first.not_embedded, 0)
  t.is(embedder.texts, distinct.size)
  t.true(embedder.calls >= Math.ceil(distinct.size / 5), 'batches of EMBEDDING_BATCH')
  t.true(batches.includes(5), 'progress after each model batch')

  const model = await modelId(sql, embedder.info)
  const rows = await sql<{ id: string; embedding: string; embedding_model: number; expired: boolean }[]>`
    select id::text, embedding::text, embedding_model, expired from jobs where source_key = any(${postings.map((p) => p.source_id as string)})`
  t.is(rows.length, first.inserted)
  t.true(rows.every((r) => r.embedding_model === model))
  // the stored vector points halfway between the model's embeddings of the job's title and body as stored
  const [job] = await listJobsToEmbed(sql, -1, { md5Hashes: (await sql`select md5_hash from jobs where id = ${rows[0].id}`).map((r) => r.md5_hash) })
  const [title, body] = await testEmbedder().embed(Object.values(jobTexts(job)))
  const sum = title.map((x, i) => x + body[i])
  const norm = Math.hypot(...sum)
  t.true(dot(fromSql(rows[0].embedding) as number[], sum.map((x) => x / norm)) > 0.99999)
  const stored = (await storedModels(sql)).find((m) => m.id === model)!
  t.deepEqual({ ...stored, jobs: undefined }, { id: model, ...embedder.info, jobs: undefined })
  t.true(stored.jobs >= rows.filter((r) => !r.expired).length)

  const again = await ingest(sql, readItems(postings), { source: 'embed-a', now, embedder, embedBatch: 5 })
  t.is(again.unchanged, postings.length)
  t.is(again.embedded, 0)
  t.is(again.not_embedded, 0)
  t.is(embedder.texts, distinct.size, 'nothing embedded the second time')
})

test.serial('a changed text is embedded again, a text changed back comes from the cache, other changes keep the vector', async (t) => {
  const { sql } = t.context.db
  const embedder = new Counting(testEmbedder())
  const original = rawPosting({ source_id: 'cache-1', job_title: 'Pastry Chef', description: '<p>Laminated doughs and viennoiserie for our bakery.</p>' }, 1)
  const edited = { ...original, description: '<p>Sourdough and rye breads for our bakery, early shifts.</p>' }
  const ingestOne = (raw: unknown) => ingest(sql, readItems([raw]), { source: 'cache', now, embedder })

  t.like(await ingestOne(original), { inserted: 1, embedded: 1, embedded_by_model: 2 })
  const [v1] = await vectorsOf(t, ['cache-1'])
  // the title is unchanged and cached: only the body is embedded
  t.like(await ingestOne(edited), { updated: 1, embedded: 1, embedded_by_model: 1 })
  const [v2] = await vectorsOf(t, ['cache-1'])
  t.not(v2.embedding, v1.embedding)
  t.like(await ingestOne(original), { updated: 1, embedded: 1, embedded_by_model: 0 })
  const [v3] = await vectorsOf(t, ['cache-1'])
  t.is(v3.embedding, v1.embedding, 'the cached vectors of the original texts')
  t.is(embedder.texts, 3)

  // a salary is not part of the text: the job is rewritten and keeps its vector
  t.like(await ingestOne({ ...original, salary_range: { min: 50000, max: 60000, currency: 'EUR', period: 'yearly' } }), { updated: 1, embedded: 0, not_embedded: 0 })
  t.is((await vectorsOf(t, ['cache-1']))[0].embedding, v1.embedding)
  t.is(embedder.texts, 3)
})

test.serial('a rewrite of the text drops the vector in its own write: the row is written once', async (t) => {
  const { sql } = t.context.db
  const original = rawPosting({ source_id: 'once-1', job_title: 'Night Porter', description: '<p>Front desk through the night.</p>' }, 1)
  t.like(await ingest(sql, readItems([original]), { source: 'once', now, embedder: testEmbedder() }), { inserted: 1, embedded: 1 })
  const [{ id }] = await sql<{ id: string }[]>`select job_id::text as id from job_sources where source_key = 'once-1'`
  const [row] = await sql<JobRow[]>`select ${sql(jobColumns as unknown as string[])} from jobs where id = ${id}`
  const written = await sql.begin(async (tx) => {
    // the backend's counts not yet flushed to the shared statistics, before and after; the
    // trigger would add a second version of the row
    const updates = async () => (await tx<{ n: number }[]>`select n_tup_upd::int as n from pg_stat_xact_user_tables where relid = 'jobs'::regclass`)[0].n
    const before = await updates()
    await updateJob(tx, id, { ...row, description: 'Front desk and breakfast service.' })
    return (await updates()) - before
  })
  t.is(written, 1)
  t.like((await vectorsOf(t, ['once-1']))[0], { embedding: null, embedding_model: null })

  // the same row again, text unchanged: the vector stays
  await ingest(sql, readItems([original]), { source: 'once', now, embedder: testEmbedder() })
  const [again] = await sql<JobRow[]>`select ${sql(jobColumns as unknown as string[])} from jobs where id = ${id}`
  await updateJob(sql, id, { ...again, salary_min: 1 })
  t.not((await vectorsOf(t, ['once-1']))[0].embedding, null)
})

test.serial('without an available model, postings land with no vector and the summary counts them', async (t) => {
  const { sql } = t.context.db
  const fake = await startFakeOpenAI()
  await fake.close() // nothing listens there any more
  const unreachable = new OpenAIEmbedder({ baseUrl: fake.url, apiKey: 'sk-test', model: 'text-embedding-3-small', batch: 32, modelVersion: null })
  const postings = Array.from({ length: 6 }, (_, i) => rawPosting({ source_id: `down-${i}`, job_title: `Warehouse Operative ${i}` }, 100 + i))
  const errors: string[] = []
  const s = await ingest(sql, readItems(postings), { source: 'down', now, embedder: unreachable, batchSize: 3, onEmbedError: (m) => errors.push(m) })
  t.like(s, { inserted: 6, embedded: 0, not_embedded: 6 })
  t.is(errors.length, 1, 'reported once; the run stops asking')
  t.regex(errors[0], /unreachable/)
  t.true((await vectorsOf(t, postings.map((p) => p.source_id))).every((r) => r.embedding === null && r.embedding_model === null))

  const none = await ingest(sql, readItems([rawPosting({ source_id: 'none-1', job_title: 'Courier' }, 200)]), { source: 'none', now })
  t.like(none, { inserted: 1, embedded: 0, not_embedded: 1 })
})

test.serial('a job rewritten while it is embedded keeps no vector of its old text', async (t) => {
  const { sql } = t.context.db
  await ingest(sql, readItems([rawPosting({ source_id: 'race-1', job_title: 'Night Porter' }, 300)]), { source: 'race', now })
  const embedder = testEmbedder()
  const model = await modelId(sql, embedder.info)
  const [{ md5_hash }] = await sql`select md5_hash from jobs where source_key = 'race-1'`
  const rows = await listJobsToEmbed(sql, model, { md5Hashes: [md5_hash] })
  t.is(rows.length, 1)
  await sql`update jobs set description = '<p>Reception at night.</p>', updated_at = now() + interval '1 second' where source_key = 'race-1'`
  const counts = await embedJobs(sql, embedder, model, rows, { batch: 32 })
  t.like(counts, { written: 0, computed: 1, error: null })
  t.is((await vectorsOf(t, ['race-1']))[0].embedding, null)
})

test.serial('the background embedding paces each model call and each write of WRITE_JOBS jobs\' vectors', async (t) => {
  const { sql } = t.context.db
  const postings = Array.from({ length: WRITE_JOBS + 4 }, (_, i) => rawPosting({ source_id: `paced-${i}`, job_title: `Paced Role ${i}` }, 400 + i))
  await ingest(sql, readItems(postings), { source: 'paced', now })
  const embedder = testEmbedder()
  const model = await modelId(sql, embedder.info)
  const hashes = (await sql<{ md5_hash: string }[]>`select md5_hash from jobs where source_key = any(${postings.map((p) => p.source_id)})`).map((r) => r.md5_hash)
  const rows = await listJobsToEmbed(sql, model, { md5Hashes: hashes })
  t.is(rows.length, postings.length)
  // each pacer embedJobs asks for, with the vectors stored when it was called
  const pacers: number[][] = []
  const stored = async () => (await sql<{ n: number }[]>`select count(*)::int as n from jobs where source_key = any(${postings.map((p) => p.source_id)}) and embedding is not null`)[0].n
  const pace = () => {
    const calls: number[] = []
    pacers.push(calls)
    return async () => void calls.push(await stored())
  }
  const counts = await embedJobs(sql, embedder, model, rows, { batch: 8, pace })
  t.like(counts, { written: postings.length, error: null })
  const writes = pacers.at(-1)!
  t.deepEqual(writes, [WRITE_JOBS, postings.length], 'the writes rest after each WRITE_JOBS jobs, not once for all of them')
  t.is(pacers.slice(0, -1).flat().length, Math.ceil(counts.computed / 8), 'the model calls after each call')
  t.true(pacers.slice(0, -1).flat().every((n) => n === 0), 'before any job is written')
})

test.serial('a queued batch of the background embedding rests only while the API is under load, and its output says so', async (t) => {
  const { sql } = t.context.db
  const embedder = testEmbedder()
  const model = await modelId(sql, embedder.info)
  const batch = async (tag: string, load: string | null) => {
    const postings = Array.from({ length: WRITE_JOBS + 2 }, (_, i) => rawPosting({ source_id: `${tag}-${i}`, job_title: `${tag} Role ${i}` }, 500 + i))
    await ingest(sql, readItems(postings), { source: tag, now })
    const ids = (await sql<{ id: string }[]>`select id::text from jobs where source_key = any(${postings.map((p) => p.source_id)})`).map((r) => r.id)
    const handle = embedVectors.handler(sql, embedder, pino({ level: 'silent' }), 8, { pace: () => pacer(0.5, async () => load) })
    return handle([{ id: tag, data: { ids } } as PgBoss.Job<{ ids: string[] }>])
  }
  const idle = await batch('bg-idle', null)
  t.like(idle, { written: WRITE_JOBS + 2, pacing: { resting: false, load: null, steps_rested: 0, rested_ms: 0 } })
  t.true(idle.pacing!.steps >= 3, 'model calls and two writes, none rested')
  const loaded = await batch('bg-loaded', 'searches in flight')
  t.like(loaded, { written: WRITE_JOBS + 2, pacing: { resting: true, load: 'searches in flight' } })
  t.is(loaded.pacing!.steps_rested, loaded.pacing!.steps, 'every step rested')
})

test('modelId registers a model once and names it by provider, name and version', async (t) => {
  const { sql } = t.context.db
  const a = { provider: 'openai', model_name: 'text-embedding-3-small', model_version: 'dimensions-768' }
  const id = await modelId(sql, a)
  t.is(await modelId(sql, { ...a }), id)
  t.not(await modelId(sql, { ...a, model_version: 'dimensions-768-b' }), id)
  const [row] = await sql`select provider, model_name, model_version, dim from embedding_models where id = ${id}`
  t.deepEqual({ ...row }, { ...a, dim: 768 })
})
