/**
 * Saved searches and webhooks on the machine's Postgres (BENCH_DATABASE_URL):
 *
 * 1. `make ingest` speed of BENCH_JOBS (10,000) generated postings into a fresh database
 *    with no saved search, and with 1,000 (titles, places, salary, remote; 50 of them
 *    vsearch), the matcher running beside the ingest as a worker would; rounds alternate.
 * 2. How long after the ingest ends every event of it exists (the inbox drained).
 * 3. Delivery of 10,000 events (100 searches, 100 events each) to a local receiver.
 *
 * `node --import tsx test/bench/webhooks.ts` prints a table.
 */
import http from 'node:http'
import os from 'node:os'
import type { AddressInfo } from 'node:net'
import pino from 'pino'
import postgres from 'postgres'
import { toSearch } from '../../api/search-filters.ts'
import type { JobSearchBody } from '../../api/schemas/search.ts'
import { ingest } from '../../ingest/pipeline.ts'
import { startWebhookWorkers } from '../../jobs/webhooks.ts'
import { generatePostings } from '../../ingest/generator/postings.ts'
import { createAccount } from '../../sql/accounts.ts'
import { upsertAllowance } from '../../sql/billing.ts'
import { loadConfig } from '../../sql/config.ts'
import { connect, type Sql } from '../../sql/db.ts'
import { modelId } from '../../sql/embeddings.ts'
import { migrate } from '../../sql/migrate.ts'
import { insertSavedSearch, type NewSavedSearch } from '../../sql/saved-searches.ts'
import type { ReadItem } from '../../ingest/read.ts'

const jobs = Number(process.env.BENCH_JOBS ?? 10_000)
const rounds = Number(process.env.BENCH_ROUNDS ?? 2)
const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const log = pino({ level: 'warn' })
const base = loadConfig()
const config = { ...base.webhooks, allowPrivate: true, allowHttp: true, pollMs: 100 }
const admin = postgres(serverUrl, { max: 1, onnotice: () => {} })
const postings = [...generatePostings({ jobs, seed: 43, now: '2026-11-20' })]
const items = (): ReadItem[] => postings.map((raw, i) => ({ line: i + 1, raw: raw as never }))

async function freshDatabase(name: string) {
  await admin`drop database if exists ${admin(name)} with (force)`
  await admin`create database ${admin(name)}`
  const u = new URL(serverUrl)
  u.pathname = `/${name}`
  const sql = connect(u.toString(), 8)
  await migrate(sql)
  return { sql, drop: async () => (await sql.end({ timeout: 5 }), await admin`drop database if exists ${admin(name)} with (force)`) }
}

const TITLES = ['engineer', 'nurse', 'manager', 'designer', 'analyst', 'accountant', 'teacher', 'developer', 'sales', 'marketing', 'data', 'product', 'auditor', 'administrator', 'consultant', 'support', 'operations', 'recruiter', 'scientist', 'technician']
const PLACES = [{ city: 'Berlin', country: 'Germany' }, { city: 'Austin', region: 'TX', country: 'United States' }, { city: 'London', country: 'United Kingdom' }, { country: 'United States' }, { country: 'Canada' }, { city: 'Paris', country: 'France' }, { country: 'India' }, { city: 'Sydney', country: 'Australia' }]

/** The i-th search of a realistic mix: a title or two, half with a place, a third with pay, a quarter remote. */
function searchBody(i: number): Record<string, unknown> {
  const b: Record<string, unknown> = { job_titles: [TITLES[i % TITLES.length], ...(i % 3 === 0 ? [TITLES[(i * 7) % TITLES.length]] : [])] }
  if (i % 2 === 0) b.geo_locations = [PLACES[i % PLACES.length]]
  if (i % 3 === 1) b.salary = { min: 40_000 + (i % 5) * 20_000, max: null }
  if (i % 4 === 3) b.location_types = ['Remote']
  if (i % 10 === 5) b.keywords = ['python']
  return b
}

const unitVector = (seed: number) => {
  const v = Array.from({ length: 768 }, (_, k) => Math.sin(seed * 31 + k))
  const n = Math.hypot(...v)
  return v.map((x) => x / n)
}

/** 1,000 saved searches over 10 accounts, 50 of them vsearch; `status` paused so that only matching runs. */
async function saveSearches(sql: Sql, n: number, url: string, status: 'active' | 'paused') {
  const accounts: string[] = []
  for (let a = 0; a < 10; a++) {
    const id = await createAccount(sql, `bench-${a}-${Date.now()}@example.test`, 'scale')
    await upsertAllowance(sql, id, { meter: 'm_jobs_api_calls', included: 1e9, overage_mode: 'meter', overage_cents_per_unit: '0' })
    accounts.push(id)
  }
  const model = await modelId(sql, { provider: 'bench', model_name: 'bench', model_version: '1' })
  for (let i = 0; i < n; i++) {
    const vsearch = i % 20 === 19
    const filters = vsearch ? { query: `search ${i}`, min_similarity: 0.6 } : searchBody(i)
    const s: NewSavedSearch = {
      accountId: accounts[i % accounts.length], name: `bench ${i}`, kind: vsearch ? 'vsearch' : 'search', filters, events: ['job.new'], url,
      compiled: { filters: vsearch ? {} : toSearch({ ...filters, page: 1, limit: 10 } as JobSearchBody).filters },
      ...(vsearch ? { vector: { embedding: unitVector(i), model, minSimilarity: 0.6 } } : {}),
    }
    await insertSavedSearch(sql, s, 10_000)
  }
  await sql`update saved_searches set status = ${status}`
  return accounts
}

async function receiver() {
  let count = 0
  const server = http.createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      count++
      res.writeHead(204).end()
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, count: () => count, close: () => new Promise((r) => server.close(r)) }
}

const until = async (check: () => Promise<boolean>, ms = 300_000) => {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) if (await check()) return true
  return false
}

type Row = { what: string; value: string }
const rows: Row[] = []
const rx = await receiver()

// 1 and 2: ingest with and without saved searches, the matcher running beside it
const times: Record<'none' | 'with', number[]> = { none: [], with: [] }
for (let round = 0; round < rounds; round++) {
  for (const kind of ['none', 'with'] as const) {
    const db = await freshDatabase(`jds_bench_webhooks_${kind}`)
    if (kind === 'with') await saveSearches(db.sql, 1000, rx.url, 'active')
    const workerSql = connect(new URL(`/jds_bench_webhooks_${kind}`, serverUrl).toString(), 4)
    const workers = startWebhookWorkers({ sql: workerSql, log, config, mailer: null, publicUrl: 'http://localhost' })
    const s = await ingest(db.sql, items(), { source: 'bench' })
    times[kind].push(s.seconds)
    if (kind === 'with') {
      const end = performance.now()
      await until(async () => (await db.sql`select 1 from saved_search_inbox limit 1`).length === 0)
      const drained = (performance.now() - end) / 1000
      const [{ events, jobs: matched }] = await db.sql<{ events: number; jobs: number }[]>`select count(*)::int as events, coalesce(sum(cardinality(job_ids)), 0)::int as jobs from webhook_events`
      rows.push({ what: `round ${round + 1}: every event of the ingest exists, after its end`, value: `${drained.toFixed(1)} s (${events} events, ${matched} job matches)` })
    }
    await workers.stop()
    await workerSql.end({ timeout: 5 })
    await db.drop()
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const none = median(times.none)
const withSearches = median(times.with)
rows.unshift(
  { what: `ingest of ${jobs.toLocaleString('en')} postings, no saved search (runs)`, value: `${times.none.map((s) => s.toFixed(1)).join(', ')} s` },
  { what: `the same with 1,000 saved searches (50 vsearch), matcher running (runs)`, value: `${times.with.map((s) => s.toFixed(1)).join(', ')} s` },
  { what: 'slower by (medians)', value: `${(((withSearches - none) / none) * 100).toFixed(1)} %` },
)

// 3: 10,000 events to a local receiver
{
  const db = await freshDatabase('jds_bench_webhooks_delivery')
  await ingest(db.sql, items().slice(0, 100), { source: 'bench' })
  await saveSearches(db.sql, 100, rx.url, 'paused')
  await db.sql`delete from saved_searches where kind = 'vsearch'`
  await db.sql`
    insert into webhook_events (saved_search_id, account_id, type, job_ids)
    select s.id, s.account_id, 'job.new', array[(select min(id) from jobs) + (n % 100)]
    from saved_searches s cross join generate_series(1, ${Math.ceil(10_000 / 95)}) n
    order by n, s.id
    limit 10000`
  const [{ total }] = await db.sql<{ total: number }[]>`select count(*)::int as total from webhook_events`
  await db.sql`update saved_searches set status = 'active'`
  const before = rx.count()
  const workerSql = connect(new URL('/jds_bench_webhooks_delivery', serverUrl).toString(), 8)
  const t0 = performance.now()
  const workers = startWebhookWorkers({ sql: workerSql, log, config, mailer: null, publicUrl: 'http://localhost' })
  await until(async () => (await db.sql`select 1 from webhook_events where status <> 'delivered' limit 1`).length === 0)
  const seconds = (performance.now() - t0) / 1000
  await workers.stop()
  rows.push({ what: `delivery of ${total.toLocaleString('en')} events (95 searches) to a local receiver, 1 process`, value: `${seconds.toFixed(1)} s (${Math.round(total / seconds)} events/s, ${rx.count() - before} requests)` })
  await workerSql.end({ timeout: 5 })
  await db.drop()
}

await rx.close()
await admin.end()
console.log(`\nSaved searches and webhooks, Postgres ${new URL(serverUrl).host}, ${os.cpus().length} cores, ${new Date().toISOString().slice(0, 10)}\n`)
console.log('| measure | figure |')
console.log('|---|---|')
for (const r of rows) console.log(`| ${r.what} | ${r.value} |`)
process.exit(0)
