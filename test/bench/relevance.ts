/**
 * Semantic search on real postings: the judged query set (relevance-queries.ts) over
 * HTTP, and the background embedding's rate, alone and while searches run.
 *
 * The corpus is the real files of DATASETS (default ../shared/datasets beside the
 * repository; not part of it): the remote boards, the new-grad listings (the inactive
 * ones are expired) and the first 3,000 NHS postings, which all closed in 2020: the
 * bench marks those live, since it measures ranking, not expiry. About 4,000 live jobs.
 * Built once as jds_bench_relevance on BENCH_DATABASE_URL's server and kept.
 *
 *   1. drain, quiet: every vector and the model's cache dropped, the jobs queued as
 *      ingest queues them, and the background workers (jobs/embed-vectors.ts) with
 *      EMBEDDING_THREADS threads drain the queue: postings and texts per second;
 *   2. precision@10 of each judged query: vsearch {query}, neural-search {vector:
 *      {query}}, the same with lexical job_titles [query], and search {job_titles:
 *      [query]}; a query with fewer than 10 results counts the missing ones as misses;
 *   3. drain under load: the same again while searches (lexical, vsearch and
 *      neural-search in turn, judged queries) arrive at SEARCH_RPS (10) a second;
 *      their latency is reported too.
 *
 *   node --max-semi-space-size=64 --import tsx test/bench/relevance.ts
 *   BENCH_RELEVANCE_DRAIN=0 …   precision only, on the vectors already there
 */
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import zlib from 'node:zlib'
import pino from 'pino'
import postgres from 'postgres'
import { buildApp } from '../../api/app.ts'
import { createBoss, createQueues } from '../../jobs/boss.ts'
import * as embedVectors from '../../jobs/embed-vectors.ts'
import { createEmbedder } from '../../ingest/embed/create.ts'
import { openFeed } from '../../ingest/formats/index.ts'
import { ingest } from '../../ingest/pipeline.ts'
import { createAccount, createKey } from '../../sql/accounts.ts'
import { loadConfig } from '../../sql/config.ts'
import { connect, connectAdmission, type Sql } from '../../sql/db.ts'
import { countLiveWithoutVector, modelId } from '../../sql/embeddings.ts'
import { migrate } from '../../sql/migrate.ts'
import { RELEVANCE_QUERIES, precisionAt } from './relevance-queries.ts'

const K = 10
const NHS_ROWS = 3000
const SEARCH_RPS = Number(process.env.SEARCH_RPS ?? 10)
/** BENCH_RELEVANCE_DRAIN=0: precision only, on the vectors already there */
const DRAIN = process.env.BENCH_RELEVANCE_DRAIN !== '0'
const DATASETS = path.resolve(process.env.DATASETS ?? path.join(import.meta.dirname, '../../../shared/datasets'))
const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const name = 'jds_bench_relevance'
const dbUrl = Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString()
const clock = () => new Date().toISOString().slice(11, 19)
const log = (msg: string) => console.error(`[${clock()}] ${msg}`)
const fmt = (x: number, d = 1) => x.toFixed(d)
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1)
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN

const FILES = ['remote-boards-2025.jsonl.gz', 'newgrad-listings.json.gz', 'nhs-jobs-2020.jsonl.gz']
if (!FILES.every((f) => fs.existsSync(path.join(DATASETS, f)))) {
  console.log(`relevance bench skipped: the real postings are not in ${DATASETS} (set DATASETS to the shared datasets' folder)`)
  process.exit(0)
}
const config = loadConfig()
const embedder = createEmbedder(config.embedding)
if (!embedder) throw new Error('EMBEDDING_PROVIDER is none: the bench needs a model')

// --- the corpus --------------------------------------------------------------------------

/** The first `n` lines of a gzipped JSONL file, as a file of their own. */
async function head(file: string, n: number) {
  const out = path.join(os.tmpdir(), `bench-relevance-${path.basename(file, '.gz')}`)
  const lines = readline.createInterface({ input: fs.createReadStream(file).pipe(zlib.createGunzip()), crlfDelay: Infinity })
  const rows: string[] = []
  for await (const line of lines) if (rows.push(line) >= n) break
  lines.close()
  fs.writeFileSync(out, rows.join('\n') + '\n')
  return out
}

async function corpus(sql: Sql) {
  const [{ n }] = await sql<{ n: number }[]>`select count(*)::int as n from jobs`
  if (n > 0) return n
  for (const file of FILES) {
    const full = path.join(DATASETS, file)
    const feed = await openFeed(file.startsWith('nhs') ? await head(full, NHS_ROWS) : full)
    const s = await ingest(sql, feed.items, { source: `bench-relevance:${file}` })
    log(`${file}: read ${s.read}, inserted ${s.inserted}, duplicates ${s.duplicates}, rejected ${s.rejected}`)
  }
  // ranking, not expiry, is measured: the NHS postings, which all closed in 2020, are live
  await sql`update jobs set expired = false, expired_at = null, date_expired = null where expired and job_board = 'NHS Jobs'`
  await sql`vacuum analyze jobs`
  return (await sql<{ n: number }[]>`select count(*)::int as n from jobs`)[0].n
}

// --- the background embedding's rate -------------------------------------------------------

type Drain = { jobs: number; texts: number; seconds: number; load: number }

/** Drops every vector and the model's cache, queues the jobs as ingest does, and times the workers draining them. */
async function drain(sql: Sql, during?: () => Promise<void>): Promise<Drain> {
  const model = await modelId(sql, embedder!.info)
  await sql`update jobs set embedding = null, embedding_model = null`
  await sql`delete from embedding_cache where model_id = ${model}`
  const boss = createBoss(dbUrl, pino({ level: 'warn' }))
  await boss.start()
  await createQueues(boss, sql, [{ ...embedVectors.options, name: embedVectors.queue }])
  await boss.deleteQueue(embedVectors.queue).catch(() => {})
  await createQueues(boss, sql, [{ ...embedVectors.options, name: embedVectors.queue }])
  const jobs = await embedVectors.queueBacklog(boss, sql, model, config.embedding)
  const loads: number[] = []
  const started = performance.now()
  const workers = await embedVectors.startEmbedWorkers(boss, sql, embedder!, pino({ level: 'warn' }), config.embedding.batch)
  let stop = false
  const load = during ? (async () => { while (!stop) await during() })() : Promise.resolve()
  for (let last = 0; ; ) {
    const left = await countLiveWithoutVector(sql, model)
    loads.push(os.loadavg()[0])
    if (left === 0) break
    if (performance.now() - last > 15_000) {
      last = performance.now()
      log(`  ${jobs - left}/${jobs} embedded, ${fmt((jobs - left) / ((performance.now() - started) / 1000))} jobs/s`)
    }
    await new Promise((r) => setTimeout(r, 200))
  }
  const seconds = (performance.now() - started) / 1000
  stop = true
  await load
  await workers.stop()
  await boss.stop({ graceful: true, wait: true, timeout: 10_000 })
  const [{ texts }] = await sql<{ texts: number }[]>`select count(*)::int as texts from embedding_cache where model_id = ${model}`
  return { jobs, texts, seconds, load: mean(loads) }
}

// --- HTTP ---------------------------------------------------------------------------------

async function serve(sql: Sql) {
  const roomy = { limit: 1_000_000, windowSeconds: 60 }
  const admissionSql = connectAdmission(dbUrl)
  const app = buildApp({ sql, config: { ...config, rateLimits: { key: roomy, search: roomy, anonymous: roomy } }, log: pino({ level: 'silent' }), admissionSql, embedder: embedder! })
  const server = app.listen(0, '127.0.0.1')
  await new Promise((r) => server.once('listening', r))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const key = await createKey(sql, await createAccount(sql, `bench-relevance-${Date.now()}@example.test`, 'scale'))
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 })
  const post = (route: string, body: unknown) =>
    new Promise<{ status: number; json: { jobs?: { job_title: string }[] } }>((resolve, reject) => {
      const req = http.request(base + route, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'x-api-key': key } }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) }))
      })
      req.on('error', reject)
      req.end(JSON.stringify(body))
    })
  return {
    post,
    close: async () => {
      agent.destroy()
      server.closeAllConnections()
      await new Promise((r) => server.close(r))
      await app.context.admission!.close()
      await admissionSql.end({ timeout: 5 })
    },
  }
}

/** The judged ways of asking: each maps a query to a route and a body. */
const ASKS: [label: string, route: string, body: (q: string) => unknown][] = [
  ['vsearch {query}', '/v2/jobs/vsearch', (q) => ({ query: q, top_k: K })],
  ['neural-search {vector: {query}}', '/v2/jobs/neural-search', (q) => ({ vector: { query: q }, limit: K })],
  ['neural-search + lexical job_titles', '/v2/jobs/neural-search', (q) => ({ vector: { query: q }, lexical: { job_titles: [q] }, limit: K })],
  ['search {job_titles} (lexical)', '/v2/jobs/search', (q) => ({ job_titles: [q], limit: K })],
]

// --- run ------------------------------------------------------------------------------------

const admin = postgres(serverUrl, { max: 1, onnotice: () => {} })
const [exists] = await admin`select 1 from pg_database where datname = ${name}`
if (!exists) await admin`create database ${admin(name)}`
await admin.end()
const sql = connect(dbUrl, 10, 'bench relevance')
await migrate(sql)
await corpus(sql)
const [{ jobs }] = await sql<{ jobs: number }[]>`select count(*)::int as jobs from jobs where not expired`
log(`corpus: ${jobs} live real postings in ${name}; model ${embedder.info.provider} ${embedder.info.model_name}, ${config.embedding.threads} threads, batches of ${config.embedding.batch}`)

const model = await modelId(sql, embedder.info)
let quiet: Drain | null = null
if (DRAIN || (await countLiveWithoutVector(sql, model)) > 0) {
  log('drain, quiet …')
  quiet = await drain(sql)
  log(`  ${quiet.jobs} jobs in ${fmt(quiet.seconds)} s`)
}

const api = await serve(sql)
const table: { label: string; perQuery: number[] }[] = ASKS.map(([label]) => ({ label, perQuery: [] }))
for (const q of RELEVANCE_QUERIES) {
  for (const [i, [, route, body]] of ASKS.entries()) {
    const res = await api.post(route, body(q.query))
    if (res.status !== 200) throw new Error(`${route} ${q.query}: ${res.status} ${JSON.stringify(res.json)}`)
    table[i].perQuery.push(precisionAt(K, (res.json.jobs ?? []).map((j) => j.job_title), q.relevant))
  }
}

console.log(`\n## Relevance: precision@${K} over ${RELEVANCE_QUERIES.length} judged queries, ${jobs} live real postings (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores)\n`)
console.log('| Request | mean precision@10 |')
console.log('|---|---|')
for (const row of table) console.log(`| ${row.label} | ${fmt(mean(row.perQuery), 3)} |`)
console.log('\n| Query | ' + table.map((r) => r.label).join(' | ') + ' |')
console.log('|---|' + table.map(() => '---|').join(''))
RELEVANCE_QUERIES.forEach((q, i) => console.log(`| ${q.query} | ${table.map((r) => fmt(r.perQuery[i], 1)).join(' | ')} |`))

if (DRAIN) {
  log(`drain while searches arrive at ${SEARCH_RPS} a second …`)
  const latencies: Record<string, number[]> = Object.fromEntries(ASKS.map(([label]) => [label, []]))
  const inFlight = new Set<Promise<unknown>>()
  let next = 0
  const loaded = await drain(sql, async () => {
    const [label, route, body] = ASKS[next % ASKS.length]
    const q = RELEVANCE_QUERIES[Math.floor(next / ASKS.length) % RELEVANCE_QUERIES.length].query
    next++
    const started = performance.now()
    const request = api.post(route, body(q)).then(() => latencies[label].push(performance.now() - started))
    inFlight.add(request)
    void request.finally(() => inFlight.delete(request))
    await new Promise((r) => setTimeout(r, 1000 / SEARCH_RPS))
  })
  await Promise.allSettled([...inFlight])
  log(`  ${loaded.jobs} jobs in ${fmt(loaded.seconds)} s, ${next} searches`)
  console.log(`\n## Background embedding (${config.embedding.threads} threads, batches of ${config.embedding.batch}, queued batches of ${embedVectors.JOB_SIZE} jobs)\n`)
  console.log('| Case | jobs | texts by the model | seconds | jobs/s | texts/s | load average |')
  console.log('|---|---|---|---|---|---|---|')
  for (const [label, d] of [['nothing else running', quiet!], [`searches at ${SEARCH_RPS}/s`, loaded]] as const) {
    console.log(`| ${label} | ${d.jobs} | ${d.texts} | ${fmt(d.seconds)} | ${fmt(d.jobs / d.seconds)} | ${fmt(d.texts / d.seconds)} | ${fmt(d.load)} |`)
  }
  console.log(`\n| Search during the drain (${SEARCH_RPS}/s in all) | n | median ms | p95 ms |`)
  console.log('|---|---|---|---|')
  for (const [label, xs] of Object.entries(latencies)) console.log(`| ${label} | ${xs.length} | ${fmt(pct(xs, 50))} | ${fmt(pct(xs, 95))} |`)
}
await api.close()
await sql.end({ timeout: 5 })
await embedder.close()
process.exit(0)
