/**
 * Vectors in the background (jobs/embed-vectors.ts), as an operator meets them: `make
 * ingest` in a process of its own returns without waiting for the model, its jobs are
 * queued in pg-boss, workers fill every vector once, a worker killed in the middle of a
 * batch leaves it to another, and --wait-for-vectors waits for them. The model is an
 * OpenAI-compatible endpoint the test serves (openai-server.ts), so the test can hold
 * its answers and count every text it was asked for.
 */
import anyTest, { type TestFn } from 'ava'
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import pino from 'pino'
import { buildApp } from '../../api/app.ts'
import type { Embedder } from '../../ingest/embed/embedder.ts'
import { loadConfig } from '../../sql/config.ts'
import { createAccountWithKey } from '../helpers/factories.ts'
import { createBoss, createQueues } from '../../jobs/boss.ts'
import * as embedVectors from '../../jobs/embed-vectors.ts'
import { jobTexts } from '../../ingest/embed/job-text.ts'
import { OpenAIEmbedder } from '../../ingest/embed/openai.ts'
import { generatePostings } from '../../ingest/generator/postings.ts'
import { countLiveWithoutVector, listJobsToEmbed, modelId } from '../../sql/embeddings.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'
import { eventually } from '../helpers/eventually.ts'
import { startFakeOpenAI, type FakeOpenAI } from './openai-server.ts'

const run = promisify(execFile)
const test = anyTest as TestFn<{ db: TestDb; dir: string; fake: FakeOpenAI; children: ChildProcess[] }>

test.beforeEach(async (t) => {
  t.context = { db: await testDatabase(), dir: fs.mkdtempSync(path.join(os.tmpdir(), 'bg-embed-')), fake: await startFakeOpenAI(), children: [] }
})
test.afterEach.always(async (t) => {
  for (const c of t.context.children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  await t.context.fake?.close()
  await t.context.db?.close()
  fs.rmSync(t.context.dir, { recursive: true, force: true })
})

const MODEL = 'text-embedding-3-small'
const env = (t: { context: { db: TestDb; fake: FakeOpenAI } }, more: Record<string, string> = {}) => ({
  ...process.env,
  DATABASE_URL: t.context.db.url,
  EMBEDDING_PROVIDER: 'openai',
  OPENAI_BASE_URL: t.context.fake.url,
  OPENAI_API_KEY: 'sk-test',
  EMBEDDING_MODEL: MODEL,
  LOG_LEVEL: 'warn',
  ...more,
})
const info = { provider: 'openai' as const, model_name: MODEL, model_version: 'dimensions-768' }

async function cli(t: { context: { db: TestDb; fake: FakeOpenAI } }, script: string, args: string[], more: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run('node', ['--import', 'tsx', script, ...args], { env: env(t, more), timeout: 120_000 })
    return { code: 0, stdout, stderr }
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string }
    return { code: err.code, stdout: err.stdout, stderr: err.stderr }
  }
}

function feed(t: { context: { dir: string } }, jobs: number, seed: number) {
  const file = path.join(t.context.dir, `feed-${seed}.jsonl`)
  fs.writeFileSync(file, [...generatePostings({ jobs, seed, now: '2026-11-20' })].map((p) => JSON.stringify(p)).join('\n'))
  return file
}


const allTexts = (fake: FakeOpenAI) => fake.requests.flatMap((r) => r.input)
const jobsWithoutVector = async (db: TestDb) => (await db.sql<{ n: number }[]>`select count(*)::int as n from jobs where embedding is null`)[0].n

test.serial('make ingest returns without waiting for the model; background workers fill every vector, each text embedded once', async (t) => {
  const { db, fake } = t.context
  fake.hold = true // a model that never answers: ingest must not notice
  const r = await cli(t, 'bin/ingest.ts', [feed(t, 150, 7)])
  t.is(r.code, 0, r.stderr)
  const landed = Number(/inserted (\d+)/.exec(r.stdout)![1])
  t.true(landed > 100)
  t.regex(r.stdout, new RegExp(`^queued ${landed} jobs for vectors of openai ${MODEL}: the running server and workers embed them in the background`, 'm'))
  t.is(fake.requests.length, 0, 'ingest never called the model')
  t.is(await jobsWithoutVector(db), landed)

  const [{ live }] = await db.sql<{ live: number }[]>`select count(*)::int as live from jobs where not expired`
  const before = JSON.parse((await cli(t, 'bin/admin.ts', ['embeddings:status'])).stdout)
  t.like(before, { model: info, live_jobs: live, pending: live, done: 0, expired_without_vector: landed - live, jobs_per_second: 0, eta_seconds: null })

  // the API and worker processes run this: here, in the test's process
  fake.hold = false
  const log = pino({ level: 'silent' })
  const boss = createBoss(db.url, log, { maintenanceSeconds: 1 })
  await boss.start()
  t.teardown(() => boss.stop({ graceful: false, wait: true, timeout: 5000 }).catch(() => {}))
  await createQueues(boss, db.sql, [{ ...embedVectors.options, name: embedVectors.queue }])
  t.is(await embedVectors.pendingBatches(boss), Math.ceil(landed / embedVectors.JOB_SIZE), 'batches of JOB_SIZE jobs')
  const embedder = new OpenAIEmbedder({ baseUrl: fake.url, apiKey: 'sk-test', model: MODEL, batch: 16, modelVersion: null })
  const workers = await embedVectors.startEmbedWorkers(boss, db.sql, embedder, log, 16)
  t.teardown(() => workers.stop())
  const model = await modelId(db.sql, info)
  await eventually('every vector', async () => (await countLiveWithoutVector(db.sql, model)) === 0 && (await embedVectors.pendingBatches(boss)) === 0, { ms: 90_000, every: 100 })

  const texts = allTexts(fake)
  t.is(new Set(texts).size, texts.length, 'no text embedded twice')
  const [{ n, models, stamped }] = await db.sql<{ n: number; models: number; stamped: number }[]>`
    select count(*)::int as n, count(distinct embedding_model)::int as models, count(embedded_at)::int as stamped from jobs where embedding is not null`
  t.deepEqual({ n, models, stamped }, { n: landed, models: 1, stamped: landed })
  const jobTextSet = new Set((await listJobsToEmbed(db.sql, -1, { after: '0', limit: 10_000 })).flatMap((j) => Object.values(jobTexts(j))))
  t.deepEqual([...texts].sort(), [...jobTextSet].sort(), 'each job\'s title and body, each text once however many jobs share it')

  const after = JSON.parse((await cli(t, 'bin/admin.ts', ['embeddings:status'])).stdout)
  t.like(after, { live_jobs: live, pending: 0, done: live, expired_without_vector: 0, eta_seconds: 0 })
  t.true(after.jobs_per_second > 0)

  // the same feed again: nothing changed, nothing queued, nothing embedded
  const again = await cli(t, 'bin/ingest.ts', [feed(t, 150, 7)])
  t.regex(again.stdout, /^queued 0 jobs for vectors/m)
  t.is(allTexts(fake).length, texts.length)

  // new postings wait for their vectors: searches say how many live jobs they cannot find yet
  await workers.stop()
  fake.hold = true
  const more = await cli(t, 'bin/ingest.ts', [feed(t, 40, 8)])
  t.is(more.code, 0, more.stderr)
  const [{ waiting }] = await db.sql<{ waiting: number }[]>`select count(*)::int as waiting from jobs where not expired and embedding is null`
  t.true(waiting > 0, more.stdout)
  const api = await serve(db, embedder)
  t.teardown(api.close)
  const [{ id }] = await db.sql<{ id: string }[]>`select id::text from jobs where embedding is not null and not expired limit 1`
  const vsearch = await api.post('/v2/jobs/vsearch', { search_type: 'job', job_id: id })
  t.is(vsearch.status, 200)
  t.deepEqual((await vsearch.json()).meta, { jobs_without_vector: waiting })
  const neural = await api.post('/v2/jobs/neural-search', { vector: { job_ids: [id] } })
  t.deepEqual((await neural.json()).meta, { jobs_without_vector: waiting })
  const lexical = await api.post('/v2/jobs/neural-search', { lexical: { job_titles: ['engineer'] } })
  t.deepEqual((await lexical.json()).meta, { jobs_without_vector: null }, 'no vector compared')
})

/** The API on the test's database, with a key of a plan that has every feature. */
async function serve(db: TestDb, embedder: Embedder) {
  const app = buildApp({ sql: db.sql, config: loadConfig(), log: pino({ level: 'silent' }), embedder })
  const server = app.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const { key } = await createAccountWithKey(db.sql, 'scale')
  return {
    post: (route: string, body: unknown) =>
      fetch(base + route, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify(body) }),
    close: async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
      await app.context.admission!.close()
    },
  }
}

test.serial('a worker killed in the middle of a batch leaves it to another, which embeds every job', async (t) => {
  const { db, fake } = t.context
  const r = await cli(t, 'bin/ingest.ts', [feed(t, 100, 11)], { EMBED_EXPIRE_SECONDS: '3' })
  t.is(r.code, 0, r.stderr)
  const landed = Number(/inserted (\d+)/.exec(r.stdout)![1])
  const worker = (more: Record<string, string>) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/worker.ts'], {
      env: env(t, { DATA_DIR: t.context.dir, TASK_MAINTENANCE_SECONDS: '1', EMBEDDING_BATCH: '100', ...more }),
      stdio: ['ignore', 'ignore', 'inherit'],
    })
    t.context.children.push(child)
    return child
  }
  fake.hold = true
  const first = worker({})
  await eventually('the first worker to ask the model', async () => fake.requests.length > 0, { ms: 90_000, every: 100 })
  first.kill('SIGKILL')
  await new Promise((resolve) => first.once('exit', resolve))
  const held = fake.requests.length
  const heldTexts = allTexts(fake)
  t.is(await jobsWithoutVector(db), landed, 'the killed worker wrote nothing')

  fake.hold = false
  worker({})
  await eventually('every vector', async () => (await jobsWithoutVector(db)) === 0, { ms: 90_000, every: 100 })
  const later = new Set(fake.requests.slice(held).flatMap((req) => req.input))
  t.true(heldTexts.every((text) => later.has(text)), 'the dead worker\'s batches were embedded by the other')
  const [{ n }] = await db.sql<{ n: number }[]>`select count(*)::int as n from jobs where embedding is not null and embedded_at is not null`
  t.is(n, landed)
})

test.serial('make ingest --wait-for-vectors works the queue itself and returns once every vector is written', async (t) => {
  const r = await cli(t, 'bin/ingest.ts', [feed(t, 80, 13), '--wait-for-vectors'])
  t.is(r.code, 0, r.stderr)
  const landed = Number(/inserted (\d+)/.exec(r.stdout)![1])
  t.regex(r.stdout, new RegExp(`^vectors: ${landed} jobs embedded in [\\d.]+ s \\(\\d+ jobs/s\\); 0 live jobs without a vector of this model$`, 'm'))
  t.is(await jobsWithoutVector(t.context.db), 0)

  // a posting whose text changes at its source loses its vector in the write and is queued again
  const file = feed(t, 80, 13)
  const [first, ...rest] = fs.readFileSync(file, 'utf8').split('\n')
  const edited = JSON.parse(first)
  const [{ id, embedding }] = await t.context.db.sql<{ id: string; embedding: string }[]>`
    select j.id::text, j.embedding::text from job_sources s join jobs j on j.id = s.job_id where s.source_key = ${edited.source_id}`
  fs.writeFileSync(file, [JSON.stringify({ ...edited, job_title: `${edited.job_title} (Nights)` }), ...rest].join('\n'))
  const again = await cli(t, 'bin/ingest.ts', [file, '--wait-for-vectors'])
  t.regex(again.stdout, /^queued 1 jobs for vectors/m)
  t.regex(again.stdout, /^vectors: 1 jobs embedded in /m)
  const [after] = await t.context.db.sql<{ embedding: string }[]>`select embedding::text from jobs where id = ${id}`
  t.not(after.embedding, embedding)
})

test.serial('a process that starts with an empty queue queues the live jobs no ingest queued (another model, EMBEDDING_PROVIDER=none before)', async (t) => {
  const { db, fake } = t.context
  const r = await cli(t, 'bin/ingest.ts', [feed(t, 60, 17)], { EMBEDDING_PROVIDER: 'none' })
  t.regex(r.stdout, /^not embedded \d+ \(EMBEDDING_PROVIDER=none\)$/m)
  const [{ live }] = await db.sql<{ live: number }[]>`select count(*)::int as live from jobs where not expired`
  const log = pino({ level: 'silent' })
  const boss = createBoss(db.url, log, { maintenanceSeconds: 1 })
  await boss.start()
  t.teardown(() => boss.stop({ graceful: false, wait: true, timeout: 5000 }).catch(() => {}))
  await createQueues(boss, db.sql, [{ ...embedVectors.options, name: embedVectors.queue }])
  const model = await modelId(db.sql, info)
  t.is(await embedVectors.queueBacklog(boss, db.sql, model, { expireSeconds: 60 }), live, 'the live jobs, not the expired ones')
  t.is(await embedVectors.queueBacklog(boss, db.sql, model, { expireSeconds: 60 }), 0, 'a queue with batches in it is left alone')
  const embedder = new OpenAIEmbedder({ baseUrl: fake.url, apiKey: 'sk-test', model: MODEL, batch: 16, modelVersion: null })
  const workers = await embedVectors.startEmbedWorkers(boss, db.sql, embedder, log, 16)
  t.teardown(() => workers.stop())
  await eventually('every live vector', async () => (await countLiveWithoutVector(db.sql, model)) === 0, { ms: 90_000, every: 100 })
  const texts = allTexts(fake)
  t.is(new Set(texts).size, texts.length)
})
