/**
 * The vector search benchmark: vsearch recall@10 against exact nearest neighbours
 * under filters that keep from 0.1 % to 100 % of the live jobs (each plan of
 * docs/vector-search.md forced, and as the rule chooses), and vsearch and
 * neural-search latency over HTTP, over BENCH_VECTOR_JOBS (100,000) generated postings
 * embedded by EMBEDDING_PROVIDER's model (the default, USE lite), on the machine's
 * Postgres (BENCH_DATABASE_URL). docs/performance.md has what it measures and the
 * figures. BENCH_EXPLAIN=1 adds EXPLAIN (ANALYZE, BUFFERS) of a search per plan;
 * BENCH_FILTERS='two categories,five categories' measures only those filters.
 *
 * The corpus is built once, through the ingest pipeline with the embedder (so its
 * throughput is the ingest embedding throughput), as jds_bench_vector_<jobs>, and kept:
 * reruns skip ingest and embedding. A build that stopped part way is finished by the
 * next run (the pipeline re-reads the postings, finds the landed ones unchanged and
 * embeds only what lacks a vector). BENCH_BUILD_ONLY=1 builds the corpus and stops.
 *
 *   node --max-semi-space-size=64 --import tsx test/bench/vector.ts
 */
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import { toSql } from 'pgvector'
import pino from 'pino'
import postgres from 'postgres'
import { buildApp } from '../../api/app.ts'
import { neuralSearchBody, vsearchBody, type NeuralSearchBody, type VsearchBody } from '../../api/schemas/vector-search.ts'
import { lexicalSearch, neuralSlice, vsearchFilters } from '../../api/vector-search-input.ts'
import { createEmbedder } from '../../ingest/embed/create.ts'
import { embedJobs } from '../../ingest/embed/embed-jobs.ts'
import type { Embedder } from '../../ingest/embed/embedder.ts'
import { jobTexts } from '../../ingest/embed/job-text.ts'
import { ingest, type Summary } from '../../ingest/pipeline.ts'
import { generatePostings } from '../../ingest/generator/postings.ts'
import { createAccount, createKey } from '../../sql/accounts.ts'
import { loadConfig } from '../../sql/config.ts'
import { connect, connectAdmission, type Sql } from '../../sql/db.ts'
import { countEmbeddingBacklog, listJobsToEmbed, modelId } from '../../sql/embeddings.ts'
import { migrate } from '../../sql/migrate.ts'
import { whereClause, type SearchFilters } from '../../sql/search.ts'
import { EF_SEARCH, neuralSearch, vectorSearch, type Accuracy, type VectorPlan } from '../../sql/vector-search.ts'
import { keepAlivePost } from './search-mix.ts'

const JOBS = Number(process.env.BENCH_VECTOR_JOBS ?? 100_000)
/** corpus jobs whose vectors are queries (search_type job); the QUERY_TEXTS below are the other half */
const QUERIES = Number(process.env.BENCH_QUERIES ?? 50)
/** rounds over the queries, per HTTP case */
const REPS = Number(process.env.BENCH_REPS ?? 3)
const BUILD_ONLY = process.env.BENCH_BUILD_ONLY === '1'
const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const name = `jds_bench_vector_${JOBS}`
const dbUrl = Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString()

/** Natural-language queries, each with a title term for neural-search's text rank (RRF). */
export const QUERY_TEXTS: [query: string, title: string][] = [
  ['senior backend engineer python', 'engineer'],
  ['frontend developer react typescript', 'developer'],
  ['machine learning engineer, deep learning and NLP', 'engineer'],
  ['devops engineer kubernetes terraform aws', 'devops'],
  ['security engineer penetration testing', 'security'],
  ['IT support technician help desk', 'support'],
  ['QA automation tester selenium', 'qa'],
  ['data analyst SQL and Tableau dashboards', 'analyst'],
  ['product manager for a B2B SaaS platform', 'product'],
  ['program manager leading cross-functional projects', 'manager'],
  ['mechanical engineer CAD design', 'engineer'],
  ['research scientist in a biology lab', 'scientist'],
  ['account executive selling enterprise software', 'account'],
  ['sales representative, commission, field sales', 'sales'],
  ['business development manager partnerships', 'business'],
  ['digital marketing specialist SEO and paid ads', 'marketing'],
  ['content writer and social media', 'writer'],
  ['graphic designer branding and illustration', 'designer'],
  ['UX designer user research and prototyping', 'designer'],
  ['financial analyst forecasting and budgeting', 'analyst'],
  ['accountant payroll and month-end close', 'accountant'],
  ['bank teller customer transactions', 'teller'],
  ['insurance claims adjuster', 'claims'],
  ['compliance officer anti-money laundering', 'compliance'],
  ['corporate lawyer contracts', 'counsel'],
  ['paralegal at a law firm', 'paralegal'],
  ['HR generalist employee relations', 'hr'],
  ['technical recruiter sourcing engineers', 'recruiter'],
  ['office administrator, reception and scheduling', 'administrator'],
  ['executive assistant to the CEO', 'assistant'],
  ['customer success manager onboarding clients', 'customer'],
  ['call center customer service representative', 'customer'],
  ['operations manager warehouse logistics', 'operations'],
  ['strategy consultant management consulting', 'consultant'],
  ['procurement specialist supplier negotiation', 'procurement'],
  ['real estate agent residential property', 'real estate'],
  ['retail store manager', 'store'],
  ['cashier part time weekends', 'cashier'],
  ['hotel front desk receptionist', 'front desk'],
  ['line cook in a busy restaurant', 'cook'],
  ['head chef fine dining', 'chef'],
  ['truck driver CDL long haul', 'driver'],
  ['delivery driver evenings', 'delivery'],
  ['electrician commercial installations', 'electrician'],
  ['plumber apprentice', 'plumber'],
  ['registered nurse night shift hospital', 'nurse'],
  ['pharmacist in a community pharmacy', 'pharmacist'],
  ['physical therapist outpatient clinic', 'therapist'],
  ['high school math teacher', 'teacher'],
  ['social worker child and family services', 'social worker'],
]

/**
 * vsearch's filters, at about 100 %, 30 %, 12 %, 5 %, 1 % and 0.1 % of the live jobs (the
 * bench prints the share each keeps), one field alone and several combined. Job
 * categories are regions of the vector space: a query far from them is the hard case
 * for an HNSW scan, whose graph reaches the matches late. A job board, a seniority or a
 * job type is spread over the whole space, as a filter that does not follow the
 * meaning is.
 */
const ALL_FILTERS: [label: string, share: string, body: Record<string, unknown>][] = [
  ['none', '100 %', {}],
  ['five categories', '30 %', { job_categories: ['Healthcare Services Jobs', 'Data Analyst Jobs', 'Engineering Jobs', 'Operations Jobs', 'Skilled Trade Jobs'] }],
  ['United States + Full Time', '30 %', { locations: { country: 'United States' }, job_types: ['Full Time'] }],
  ['two categories', '12 %', { job_categories: ['Healthcare Services Jobs', 'Data Analyst Jobs'] }],
  ['job board Greenhouse', '12 %', { job_board: 'Greenhouse' }],
  ['Senior + Full Time', '12 %', { experience: ['Senior'], job_types: ['Full Time'] }],
  ['one category (Software Engineer)', '5 %', { job_categories: ['Software Engineer Jobs'] }],
  ['Mid + Part Time', '5 %', { experience: ['Mid'], job_types: ['Part Time'] }],
  ['one category (Recruitment)', '1 %', { job_categories: ['Recruitment Jobs'] }],
  ['Germany + Mid + Full Time', '1 %', { locations: { country: 'Germany' }, experience: ['Mid'], job_types: ['Full Time'] }],
  ['job_title Software Engineer', '0.1 %', { job_title: 'Software Engineer' }],
  ['Germany + Sales Jobs', '0.1 %', { locations: { country: 'Germany' }, job_categories: ['Sales Jobs'] }],
]
/** BENCH_FILTERS (labels, comma-separated) measures those filters alone, for a quicker look at a change that concerns them */
const only = process.env.BENCH_FILTERS?.split(',').map((l) => l.trim())
export const FILTERS = only ? ALL_FILTERS.filter(([label]) => only.includes(label)) : ALL_FILTERS
if (only && FILTERS.length !== only.length) throw new Error(`BENCH_FILTERS: known filters are ${ALL_FILTERS.map(([l]) => l).join(', ')}`)
const ACCURACIES: Accuracy[] = ['low', 'medium', 'high']
const K = 10

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]
}
const median = (xs: number[]) => pct(xs, 50)
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
const fmt = (x: number, d = 1) => x.toFixed(d)
const clock = () => new Date().toISOString().slice(11, 19)
const log = (msg: string) => console.error(`[${clock()}] ${msg}`)

// --- the corpus, built once ---------------------------------------------------------------

type BuildRun = {
  kind: string; started_at: Date; read: number; inserted: number; embedded: number; embedded_by_model: number; seconds: number; threads: number; batch: number; cpus: number
  cpu_seconds: number; load_avg: number
}

async function corpus(embedder: Embedder, embedBatch: number, threads: number) {
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} })
  const [exists] = await admin`select 1 from pg_database where datname = ${name}`
  if (!exists) await admin`create database ${admin(name)}`
  await admin.end()
  const sql = connect(dbUrl, 10, 'bench vector')
  await migrate(sql)
  // the bench's own record of how the corpus was built (throughput is reported from it on every run)
  await sql`
    create table if not exists bench_vector_build (
      kind text not null, started_at timestamptz not null, finished_at timestamptz not null default now(),
      read int not null, embedded int not null, embedded_by_model int not null, seconds float8 not null,
      threads int not null, batch int not null, cpus int not null, model text not null,
      -- CPU time of the bench's process (main thread, normalize worker, model threads); Postgres not included
      cpu_seconds float8 not null, load_avg float8 not null)`
  await sql`alter table bench_vector_build add column if not exists inserted int not null default 0`
  // a run that never finished (the process was stopped) keeps the figures of its last report
  await sql`update bench_vector_build set kind = 'ingest (stopped)' where kind = 'ingest (running)'`
  const model = await modelId(sql, embedder.info)
  const modelName = `${embedder.info.provider} ${embedder.info.model_name} ${embedder.info.model_version}`
  const [done] = await sql`select 1 from bench_vector_build where kind = 'ingest' and model = ${modelName}`
  if (!done) {
    const [{ n }] = await sql<{ n: number }[]>`select count(*)::int as n from jobs`
    log(`${n ? 'finishing' : 'building'} the corpus: ${JOBS} generated postings into ${name}, embedded by ${modelName} (${threads} threads, batches of ${embedBatch}) …`)
    let line = 0
    const items = function* () {
      for (const raw of generatePostings({ jobs: JOBS, seed: 42, now: '2026-11-20' })) yield { line: ++line, raw: raw as never }
    }
    let last = 0
    const loads: number[] = []
    const cpu0 = process.cpuUsage()
    const cpuSeconds = () => {
      const c = process.cpuUsage(cpu0)
      return (c.user + c.system) / 1e6
    }
    const started = new Date()
    await sql`
      insert into bench_vector_build (kind, started_at, read, embedded, embedded_by_model, seconds, threads, batch, cpus, model, cpu_seconds, load_avg)
      values ('ingest (running)', ${started}, 0, 0, 0, 0, ${threads}, ${embedBatch}, ${os.cpus().length}, ${modelName}, 0, ${os.loadavg()[0]})`
    const record = (s: Summary, kind = 'ingest (running)') => sql`
      update bench_vector_build
      set kind = ${kind}, finished_at = now(), read = ${s.read}, inserted = ${s.inserted}, embedded = ${s.embedded}, embedded_by_model = ${s.embedded_by_model},
        seconds = ${s.seconds}, cpu_seconds = ${cpuSeconds()}, load_avg = ${mean(loads)}
      where started_at = ${started}`
    /** Logs progress and records it; the promise settles once the record is written (never rejects). */
    const report = (s: Summary) => {
      loads.push(os.loadavg()[0])
      const recorded = record(s).catch(() => {})
      const rate = s.read / Math.max(s.seconds, 0.001)
      const embedRate = s.embedded_by_model / Math.max(s.seconds, 0.001)
      const eta = (JOBS - s.read) / Math.max(rate, 0.001)
      log(
        `read ${s.read}/${JOBS} (${fmt((100 * s.read) / JOBS, 1)} %), inserted ${s.inserted}, embedded ${s.embedded} jobs ` +
          `(${s.embedded_by_model} texts by the model), not embedded ${s.not_embedded}; ${fmt(s.seconds, 0)} s, ` +
          `${fmt(rate)} postings/s, ${fmt(embedRate)} texts/s; ETA ${fmt(eta / 60, 0)} min; ` +
          `this process ${fmt(cpuSeconds() / Math.max(s.seconds, 0.001), 2)} cores busy, load average ${fmt(os.loadavg()[0], 1)}`,
      )
      return recorded
    }
    const s = await ingest(sql, items(), {
      source: 'bench-vector',
      embedder,
      embedBatch,
      onEmbedError: (m) => log(`embedding failed: ${m}`),
      onBatch: (s) => {
        if (Date.now() - last < 30_000) return
        last = Date.now()
        void report(s)
      },
    })
    // the last progress record written before the one that marks the build done, not after it
    await report(s)
    if (s.not_embedded > 0) throw new Error(`${s.not_embedded} jobs were left without a vector; rerun to finish them`)
    await record(s, 'ingest')
    const t = performance.now()
    for (const table of ['jobs', 'job_locations', 'companies', 'embedding_cache']) await sql.unsafe(`vacuum analyze ${table}`)
    log(`vacuum analyze: ${fmt((performance.now() - t) / 1000, 0)} s`)
  }
  const backlog = await countEmbeddingBacklog(sql, model)
  if (backlog.missing + backlog.other_model > 0) {
    // jobs the model could not embed (a model error): embed them as `make embed` would
    log(`embedding ${backlog.missing + backlog.other_model} jobs left without a vector …`)
    for (let after = '0'; ; ) {
      const rows = await listJobsToEmbed(sql, model, { after, limit: 1000 })
      if (rows.length === 0) break
      const c = await embedJobs(sql, embedder, model, rows, { batch: embedBatch })
      if (c.error) throw c.error
      after = rows[rows.length - 1].id
    }
  }
  const runs = await sql<BuildRun[]>`
    select kind, started_at, read, inserted, embedded, embedded_by_model, seconds, threads, batch, cpus, cpu_seconds, load_avg
    from bench_vector_build where model = ${modelName} order by started_at`
  return { sql, model, modelName, runs }
}

// --- helpers ------------------------------------------------------------------------------

/** A request body as the route sees it once validated. */
async function asVsearch(body: unknown): Promise<VsearchBody> {
  await vsearchBody.validate(body, { strict: true })
  return vsearchBody.cast(body) as VsearchBody
}
async function asNeural(body: unknown): Promise<NeuralSearchBody> {
  await neuralSearchBody.validate(body, { strict: true })
  return neuralSearchBody.cast(body) as NeuralSearchBody
}

const ids = (r: { jobs: { _id: string }[] }) => r.jobs.map((j) => j._id)

/** The last statement of a vector search, as sent (debug), to EXPLAIN it. */
type Captured = { query: string; params: unknown[] }

// --- run ----------------------------------------------------------------------------------

const config = loadConfig()
const embedder = createEmbedder(config.embedding)
if (!embedder) throw new Error('EMBEDDING_PROVIDER=none: the vector bench needs an embedding model')
const { sql, model, modelName, runs } = await corpus(embedder, config.embedding.batch, config.embedding.threads)
if (BUILD_ONLY) {
  await embedder.close()
  await sql.end()
  log('corpus built')
  process.exit(0)
}

const [{ live, embedded }] = await sql<{ live: number; embedded: number }[]>`
  select count(*) filter (where not expired)::int as live, count(*) filter (where not expired and embedding_model = ${model})::int as embedded from jobs`

// the embedder alone: short queries, and posting texts as ingest makes them (not cached: embed() is the model)
const short = QUERY_TEXTS.map(([q]) => q)
await embedder.embed(short.slice(0, 2)) // loads the model
const queryTimes: number[] = []
for (let i = 0; i < 40; i++) {
  const t = performance.now()
  await embedder.embed([short[i % short.length]])
  queryTimes.push(performance.now() - t)
}
let t0 = performance.now()
const textVectors = await embedder.embed(short)
const shortRate = short.length / ((performance.now() - t0) / 1000)
// the first 320 jobs' texts, title and body (model -1 is no model: every job is listed)
const postingTexts = (await listJobsToEmbed(sql, -1, { after: '0', limit: 320 })).flatMap((j) => Object.values(jobTexts(j)))
t0 = performance.now()
await embedder.embed(postingTexts)
const postingRate = postingTexts.length / ((performance.now() - t0) / 1000)
const meanChars = mean(postingTexts.map((t) => Math.min(t.length, 1000)))

// query jobs: live, embedded, spread over the table in a fixed pseudo-random order
const queryJobs = await sql<{ id: string; embedding: string }[]>`
  select id::text, embedding::text from jobs
  where not expired and embedding_model = ${model}
  order by md5('bench' || id::text)
  limit ${QUERIES}`
const jobVector = (e: string) => JSON.parse(e) as number[]

type Q = { label: string; vector: number[]; exclude?: string[] }
const queries: Q[] = [
  ...queryJobs.map((j) => ({ label: `job ${j.id}`, vector: jobVector(j.embedding), exclude: [j.id] })),
  ...QUERY_TEXTS.map(([q], i) => ({ label: q, vector: textVectors[i] })),
]

// the machine's load while the bench runs (other work on it slows every figure)
const loads: number[] = [os.loadavg()[0]]
const sampler = setInterval(() => loads.push(os.loadavg()[0]), 5_000)

// exact nearest neighbours, on connections whose planner may not use an index scan (the
// only way the HNSW index can serve a query: it has no bitmap scan), nor JIT-compile
const exactSql = postgres(dbUrl, { max: 1, onnotice: () => {}, connection: { application_name: 'bench vector exact', enable_indexscan: 'off', jit: 'off' } as never })

/** The K nearest jobs within the filters, every match's distance computed: the truth recall is measured against. */
async function exactNearest(filters: SearchFilters, q: Q) {
  const db = exactSql as Sql
  const rows = await db<{ id: string }[]>`
    select j.id::text from jobs j join companies c on c.id = j.company_id
    where ${whereClause(db, filters)} and j.embedding_model = ${model} ${q.exclude ? db`and j.id <> all(${q.exclude}::bigint[])` : db``}
    order by j.embedding <=> ${toSql(q.vector)}::vector, j.id
    limit ${K}`
  return rows.map((r) => r.id)
}

let statements: Captured[] = []
const captureSql = postgres(dbUrl, { max: 1, onnotice: () => {}, debug: (_c, query, params) => void statements.push({ query, params }) })

/**
 * Runs a search on captureSql, then replays its statements in one transaction on the
 * bench's pool: the set_config ones as they were, the others under EXPLAIN (ANALYZE,
 * BUFFERS), so each plan is the one the search ran.
 */
async function explain(search: (db: Sql) => Promise<unknown>) {
  statements = []
  await search(captureSql as Sql)
  const replayed = statements.filter((s) => !/^\s*(begin|commit)\b/i.test(s.query))
  return sql.begin(async (tx) => {
    const plans: string[] = []
    for (const s of replayed) {
      if (/^\s*select\s+set_config\(/.test(s.query)) await tx.unsafe(s.query, s.params as never[])
      else if (!/^\s*explain\b/i.test(s.query)) {
        const rows = await tx.unsafe(`explain (analyze, buffers) ${s.query}`, s.params as never[])
        plans.push(rows.map((r) => r['QUERY PLAN'] as string).join('\n'))
      }
    }
    return plans.join('\n\n')
  })
}
/** A plan without the query vector's 768 numbers and the id lists' thousands. */
const shortPlan = (plan: string) => plan.replace(/'\[[-0-9.e,]+\]'/g, "'[…]'").replace(/'\{[0-9,]{200,}\}'/g, "'{…}'")

const firstK = { offset: 0, limit: K, raw: false }
/** How often each plan (or sequence of plans: a batch that came back short, then a scan) served. */
const planCounts = (plans: string[]) => {
  const counts = new Map<string, number>()
  for (const p of plans) counts.set(p, (counts.get(p) ?? 0) + 1)
  return [...counts].sort((a, b) => b[1] - a[1]).map(([p, n]) => `${p} ${n}`).join(', ')
}

// --- the filters' shares ------------------------------------------------------------------

const shares = new Map<string, number>()
for (const [label, , body] of FILTERS) {
  const filters = vsearchFilters(await asVsearch(body))
  const [{ n }] = await sql<{ n: number }[]>`
    select count(*)::int as n from jobs j join companies c on c.id = j.company_id where ${whereClause(sql, filters)} and j.embedding_model = ${model}`
  shares.set(label, n)
}
const shareOf = (label: string) => `${fmt((100 * shares.get(label)!) / embedded, 2)} % (${shares.get(label)!.toLocaleString('en-US')})`

// --- recall -------------------------------------------------------------------------------

type RecallRow = { filter: string; accuracy: Accuracy; plan: VectorPlan | 'chosen'; recalls: number[]; short: number; ms: number[]; plans: string[] }
const recallRows: RecallRow[] = []
const exactMs = new Map<string, number[]>()
const PLANS: VectorPlan[] = ['index', 'batch', 'scan']
log(`recall: ${queries.length} queries × ${FILTERS.length} filters, against exact nearest neighbours …`)
for (const [label, , body] of FILTERS) {
  const filters = vsearchFilters(await asVsearch(body))
  const exact: string[][] = []
  exactMs.set(label, [])
  for (const q of queries) {
    const t = performance.now()
    exact.push(await exactNearest(filters, q))
    exactMs.get(label)!.push(performance.now() - t)
  }
  // as chosen, at each accuracy; then each plan forced, at medium: what the rule chose from
  const runs: [Accuracy, VectorPlan | 'chosen'][] = [...ACCURACIES.map((a): [Accuracy, 'chosen'] => [a, 'chosen']), ...PLANS.map((p): [Accuracy, VectorPlan] => ['medium', p])]
  for (const [accuracy, plan] of runs) {
    const row: RecallRow = { filter: label, accuracy, plan, recalls: [], short: 0, ms: [], plans: [] }
    for (const [i, q] of queries.entries()) {
      const t = performance.now()
      const r = await vectorSearch(sql, { vector: q.vector, model, accuracy, exclude: q.exclude, plan: plan === 'chosen' ? undefined : plan }, filters, K, firstK)
      row.ms.push(performance.now() - t)
      row.plans.push(r.plans.join(' → '))
      const got = new Set(ids(r))
      if (r.jobs.length < exact[i].length) row.short++
      row.recalls.push(exact[i].length ? exact[i].filter((id) => got.has(id)).length / exact[i].length : 1)
    }
    recallRows.push(row)
    log(`  ${label}, ${accuracy}, ${plan}: recall@10 ${fmt(mean(row.recalls), 3)}, median ${fmt(median(row.ms))} ms`)
  }
}

// --- latency over HTTP --------------------------------------------------------------------

const roomy = { limit: 1_000_000, windowSeconds: 60 }
const admissionSql = connectAdmission(dbUrl)
const app = buildApp({ sql, config: { ...config, rateLimits: { key: roomy, search: roomy, anonymous: roomy } }, log: pino({ level: 'silent' }), admissionSql, embedder })
const server = app.listen(0, '127.0.0.1')
await new Promise((r) => server.once('listening', r))
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
const account = await createAccount(sql, `bench-vector-${Date.now()}@example.test`, 'scale')
const key = await createKey(sql, account)

const { post, close: closeClient } = keepAlivePost(base, key)

type Case = {
  route: 'vsearch' | 'neural-search'
  label: string
  /** the vsearch filter of FILTERS this case searches within */
  filter?: string
  /** query embedding inside the request (reported apart; not in the targets) */
  embeds?: boolean
  bodies: Record<string, unknown>[]
  /** each body's query vector, for the same search as SQL */
  vectors: number[][]
}
const jobVectors = queries.slice(0, queryJobs.length).map((q) => q.vector)
const byJob = (label: string, body: (id: string, i: number) => Record<string, unknown>, route: Case['route'] = 'vsearch'): Case =>
  ({ route, label, bodies: queryJobs.map((j, i) => body(j.id, i)), vectors: jobVectors })
const byText = (label: string, body: (v: number[], i: number) => Record<string, unknown>, route: Case['route'] = 'neural-search'): Case =>
  ({ route, label, bodies: textVectors.map((v, i) => body(v, i)), vectors: textVectors })
const cases: Case[] = [
  ...FILTERS.map(([label, , filter]) => ({ ...byJob(`job, ${label}`, (id) => ({ search_type: 'job', job_id: id, ...filter })), filter: label })),
  byJob('job, top_k 100, limit 100', (id) => ({ search_type: 'job', job_id: id, top_k: 100, limit: 100 })),
  byText('vectors only', (v) => ({ vector: { vectors: [v] } })),
  byText('vectors + job_titles (RRF)', (v, i) => ({ vector: { vectors: [v] }, lexical: { job_titles: [QUERY_TEXTS[i][1]] } })),
  byText('vectors + job_titles + US (RRF)', (v, i) => ({ vector: { vectors: [v] }, lexical: { job_titles: [QUERY_TEXTS[i][1]], geo_locations: [{ country: 'United States' }] } })),
  byText('vectors + job_titles + one category (RRF)', (v, i) => ({ vector: { vectors: [v] }, lexical: { job_titles: [QUERY_TEXTS[i][1]], job_category: ['Software Engineer Jobs'] } })),
  byJob('job_ids + keywords (RRF)', (id, i) => ({ vector: { job_ids: [id] }, lexical: { keywords: [QUERY_TEXTS[i % QUERY_TEXTS.length][1]] } }), 'neural-search'),
  { ...byText('summary (embeds the query)', (_v, i) => ({ search_type: 'summary', query: QUERY_TEXTS[i][0] }), 'vsearch'), embeds: true },
  { ...byText('query + job_titles (embeds the query)', (_v, i) => ({ vector: { query: QUERY_TEXTS[i][0] }, lexical: { job_titles: [QUERY_TEXTS[i][1]] } })), embeds: true },
]

/** The same search as SQL: the route's own mapping, with the query vector in hand. */
async function direct(c: Case, body: Record<string, unknown>, vector: number[], db: Sql = sql) {
  if (c.route === 'vsearch') {
    const b = await asVsearch(body)
    const exclude = b.search_type === 'job' ? [b.job_id!] : undefined
    const limit = b.limit ?? Math.min(b.top_k, 100)
    return vectorSearch(db, { vector, model, accuracy: 'medium', exclude }, vsearchFilters(b), b.top_k, { offset: 0, limit, raw: false })
  }
  const b = await asNeural(body)
  const slice = neuralSlice(b)
  const { filters } = lexicalSearch(b.lexical ?? {}, account, slice, false)
  return neuralSearch(db, { vector, model, accuracy: 'medium' }, filters, slice)
}

type LatencyRow = { c: Case; http: number[]; direct: number[]; results: number[]; plans: string[] }
const latencyRows: LatencyRow[] = []
log(`latency: ${cases.length} cases × ${queries.length / 2} queries × ${REPS} rounds over HTTP, and as SQL …`)
for (const c of cases) {
  const row: LatencyRow = { c, http: [], direct: [], results: [], plans: [] }
  const path = `/v2/jobs/${c.route}`
  for (const body of c.bodies.slice(0, 3)) {
    const res = await post(path, body) // warm-up
    if (res.status !== 200) throw new Error(`${c.route} ${c.label}: ${res.status} ${res.body}`)
  }
  for (let rep = 0; rep < REPS; rep++) {
    for (const [i, body] of c.bodies.entries()) {
      let t = performance.now()
      const res = await post(path, body)
      const ms = performance.now() - t
      if (res.status !== 200) throw new Error(`${c.route} ${c.label}: ${res.status} ${res.body}`)
      row.http.push(ms)
      if (rep === 0) row.results.push((JSON.parse(res.body) as { jobs: unknown[] }).jobs.length)
      if (!c.embeds) {
        t = performance.now()
        const r = await direct(c, body, c.vectors[i])
        row.direct.push(performance.now() - t)
        if (rep === 0) row.plans.push(r.plans.join(' → '))
      }
    }
  }
  latencyRows.push(row)
  log(`  ${c.route} ${c.label}: median ${fmt(median(row.http))} ms, p95 ${fmt(pct(row.http, 95))} ms`)
}
closeClient()
server.close()
await app.context.admission!.close()
await admissionSql.end()

// --- EXPLAIN ANALYZE of one search per plan, for the docs (BENCH_EXPLAIN=1) ----------------
const explained: [string, string][] = []
if (process.env.BENCH_EXPLAIN === '1') {
  const q = queries[queries.length - 1] // a text query: far from most categories
  for (const label of ['none', 'two categories', 'job board Greenhouse', 'Germany + Sales Jobs']) {
    const body = ALL_FILTERS.find(([l]) => l === label)![2]
    const filters = vsearchFilters(await asVsearch(body))
    explained.push([`vsearch, ${label}`, await explain((db) => vectorSearch(db, { vector: q.vector, model, accuracy: 'medium' }, filters, K, firstK))])
  }
  const keywords = latencyRows.find((r) => r.c.label === 'job_ids + keywords (RRF)')!.c
  explained.push(['neural-search, job_ids + keywords', await explain((db) => direct(keywords, keywords.bodies[0], keywords.vectors[0], db))])
}

clearInterval(sampler)
await embedder.close()
await exactSql.end()
await captureSql.end()
await sql.end()

// --- report -------------------------------------------------------------------------------

const date = new Date().toISOString().slice(0, 10)
console.log(`\nVector search, ${JOBS.toLocaleString('en-US')} postings (${live.toLocaleString('en-US')} live, ${embedded.toLocaleString('en-US')} of them with a vector) on ${new URL(serverUrl).host}, ${os.cpus().length} cores, ${date}`)
console.log(`model: ${modelName}`)
console.log(`load average (1 min) during the run: ${fmt(Math.min(...loads), 1)} to ${fmt(Math.max(...loads), 1)}, ${fmt(mean(loads), 1)} on average\n`)

console.log('Corpus build (ingest with embedding, once):\n')
console.log('| run | started | postings read | jobs embedded | texts by the model | seconds | postings/s | texts/s | threads × batch | CPU s of the process per posting | load average |')
console.log('|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|')
for (const r of runs) {
  console.log(
    `| ${r.kind} | ${r.started_at.toISOString().slice(0, 16).replace('T', ' ')} | ${r.read} | ${r.embedded} | ${r.embedded_by_model} | ${fmt(r.seconds, 0)} | ` +
      `${fmt(r.read / r.seconds)} | ${fmt(r.embedded_by_model / r.seconds)} | ${r.threads} × ${r.batch} | ${fmt((1000 * r.cpu_seconds) / r.read, 0)} ms | ${fmt(r.load_avg, 1)} |`,
  )
}
console.log('\nThe embedder alone (this run):\n')
console.log('| what | figure |')
console.log('|---|---:|')
console.log(`| one short query, embed() (query-embedding time): median | ${fmt(median(queryTimes))} ms |`)
console.log(`| the same: p95 | ${fmt(pct(queryTimes, 95))} ms |`)
console.log(`| ${short.length} short queries in one call | ${fmt(shortRate)} texts/s |`)
console.log(`| ${postingTexts.length} posting texts in one call (${fmt(meanChars, 0)} characters read on average) | ${fmt(postingRate)} texts/s |`)

console.log(`\nvsearch recall@${K} against exact nearest neighbours (every match's distance computed), ${queryJobs.length} job vectors (search_type job) + ${QUERY_TEXTS.length} embedded query texts; "chosen" is the plan rule (docs/vector-search.md, Plans), the other rows force one plan:\n`)
console.log('| filter | live jobs it keeps | accuracy (ef_search) | plan | recall@10 mean | job queries | text queries | worst query | queries short of 10 | SQL median ms | SQL p95 ms | plans that served |')
console.log('|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---|')
const nj = queryJobs.length
for (const r of recallRows) {
  const strong = r.accuracy === 'medium' && r.plan === 'chosen' ? (x: string) => `**${x}**` : (x: string) => x
  console.log(
    `| ${r.filter} | ${shareOf(r.filter)} | ${r.accuracy} (${EF_SEARCH[r.accuracy]}) | ${r.plan} | ${strong(fmt(mean(r.recalls), 3))} | ${fmt(mean(r.recalls.slice(0, nj)), 3)} | ` +
      `${fmt(mean(r.recalls.slice(nj)), 3)} | ${fmt(Math.min(...r.recalls), 2)} | ${r.short} | ${fmt(median(r.ms))} | ${fmt(pct(r.ms, 95))} | ${planCounts(r.plans)} |`,
  )
}
console.log('\nThe exact search itself (the truth above; no index scan), per filter: SQL median and p95 ms\n')
console.log('| filter | median ms | p95 ms |')
console.log('|---|---:|---:|')
for (const [label, ms] of exactMs) console.log(`| ${label} | ${fmt(median(ms))} | ${fmt(pct(ms, 95))} |`)

console.log(`\nLatency over HTTP (accuracy medium, ${REPS} rounds over the queries, kept-alive socket) and the same search as SQL:\n`)
console.log('| route | case | requests | results (median) | HTTP median ms | HTTP p95 ms | SQL median ms | HTTP / SQL | plans that served |')
console.log('|---|---|---:|---:|---:|---:|---:|---:|---|')
for (const r of latencyRows) {
  const sqlMed = r.direct.length ? median(r.direct) : NaN
  console.log(
    `| ${r.c.route} | ${r.c.label} | ${r.http.length} | ${median(r.results)} | ${fmt(median(r.http))} | ${fmt(pct(r.http, 95))} | ` +
      `${r.direct.length ? fmt(sqlMed) : ''} | ${r.direct.length ? fmt(median(r.http) / sqlMed, 2) : ''} | ${planCounts(r.plans)} |`,
  )
}

console.log('\nTargets (100,000 postings, accuracy medium; a target the machine\'s noise straddles is met when the measured interval covers it):\n')
console.log('| measure | figure | target | |')
console.log('|---|---:|---:|---|')
const target = (label: string, figure: string, goal: string, met: boolean) => console.log(`| ${label} | ${figure} | ${goal} | ${met ? 'met' : 'MISSED'} |`)
for (const [label] of FILTERS) {
  const recall = mean(recallRows.find((r) => r.filter === label && r.accuracy === 'medium' && r.plan === 'chosen')!.recalls)
  const http = latencyRows.find((r) => r.c.filter === label)!.http
  target(`vsearch, ${label} (${shareOf(label)}): recall@10`, fmt(recall, 3), '≥ 0.95', recall >= 0.95)
  target(`vsearch, ${label}: median over HTTP`, `${fmt(median(http))} ms`, '≤ 25 ms', median(http) <= 25)
  target(`vsearch, ${label}: p95 over HTTP`, `${fmt(pct(http, 95))} ms`, '≤ 80 ms', pct(http, 95) <= 80)
}
for (const r of latencyRows.filter((r) => r.c.route === 'neural-search' && !r.c.embeds)) {
  target(`neural-search, ${r.c.label}: median over HTTP`, `${fmt(median(r.http))} ms`, '≤ 50 ms', median(r.http) <= 50)
  target(`neural-search, ${r.c.label}: p95 over HTTP`, `${fmt(pct(r.http, 95))} ms`, '≤ 100 ms', pct(r.http, 95) <= 100)
}

for (const [label, plan] of explained) console.log(`\nEXPLAIN (ANALYZE, BUFFERS), ${label}, medium: every statement of the search\n\n${shortPlan(plan)}`)
