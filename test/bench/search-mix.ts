/** The search benchmark's fixed mix of 20 realistic searches and its corpus, shared by the search and export benches. */
import http from 'node:http'
import postgres from 'postgres'
import { ingest } from '../../ingest/pipeline.ts'
import { generatePostings } from '../../seeds/generate.ts'
import { connect } from '../../sql/db.ts'
import { migrate } from '../../sql/migrate.ts'

/** The database holding `postings` generated postings (seed 42) on the server at `serverUrl`: built once, then kept. */
export function corpusName(postings: number) {
  return `jds_bench_search_${postings}`
}

/** Connects to the corpus of `postings` postings, creating and filling it on first use. */
export async function searchCorpus(serverUrl: string, postings: number, log: (msg: string) => void) {
  const name = corpusName(postings)
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} })
  const [exists] = await admin`select 1 from pg_database where datname = ${name}`
  if (!exists) await admin`create database ${admin(name)}`
  await admin.end()
  const sql = connect(Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString(), 10)
  await migrate(sql)
  const [{ n }] = await sql<{ n: number }[]>`select count(*)::int as n from jobs`
  if (n === 0) {
    log(`ingesting ${postings} generated postings into ${name} (once) …`)
    let line = 0
    const items = function* () {
      for (const raw of generatePostings({ jobs: postings, seed: 42, now: '2026-11-20' })) yield { line: ++line, raw: raw as never }
    }
    const s = await ingest(sql, items(), { source: 'bench' })
    log(`ingested in ${s.seconds.toFixed(0)} s (${Math.round(s.read / s.seconds)} postings/s)`)
    const t = performance.now()
    await sql`vacuum analyze jobs`
    await sql`vacuum analyze job_locations`
    await sql`vacuum analyze companies`
    log(`vacuum analyze in ${((performance.now() - t) / 1000).toFixed(0)} s`)
  }
  console.log(await corpusReport(sql, name))
  return sql
}

/**
 * The corpus's build (its ingest run: postings read, seconds, rate) and sizes: the
 * database, and each table of jobs and companies with its TOAST and every index, as a
 * table.
 */
export async function corpusReport(sql: postgres.Sql, name: string) {
  const [run] = await sql<{ read: number; seconds: number }[]>`
    select read, extract(epoch from finished_at - started_at)::float8 as seconds
    from ingest_runs where finished_at is not null order by id limit 1`
  const [{ db }] = await sql<{ db: string }[]>`select pg_size_pretty(pg_database_size(current_database())) as db`
  const parts = await sql<{ part: string; size: string }[]>`
    select relname as part, pg_size_pretty(pg_relation_size(c.oid)) as size
    from pg_class c
    where c.relname in ('jobs', 'job_locations', 'companies')
    union all
    select t.relname || ' (TOAST)', pg_size_pretty(pg_total_relation_size(t.reltoastrelid))
    from pg_class t
    where t.relname in ('jobs', 'companies') and t.reltoastrelid <> 0
    union all
    select i.indexrelid::regclass::text, pg_size_pretty(pg_relation_size(i.indexrelid))
    from pg_index i join pg_class t on t.oid = i.indrelid
    where t.relname in ('jobs', 'job_locations', 'companies')
    order by 1`
  const build = run ? `built from ${run.read.toLocaleString('en-US')} postings in ${run.seconds.toFixed(0)} s (${Math.round(run.read / run.seconds)} postings/s, its end-of-run work included)` : 'no finished ingest run'
  return [`\nCorpus ${name}: ${build}; database ${db}\n`, '| relation | size |', '|---|---:|', ...parts.map((p) => `| ${p.part} | ${p.size} |`), ''].join('\n')
}

export const queries: [string, Record<string, unknown>][] = [
  ['title phrase + radius + salary', { job_titles: ['"software engineer"'], geo_locations: [{ city: 'San Francisco', region: 'CA' }], geofilter_params: { radius: 50 }, salary: { min: 100000 }, currency: 'USD' }],
  ['keywords + remote + experience', { keywords: ['python'], location_types: ['Remote'], experience: ['Senior', 'Mid'] }],
  ['filters only, by date', { job_category: ['Software Engineer Jobs'], job_types: ['Full Time'], sort_by: 'date_posted' }],
  ['page 50', { job_titles: ['manager'], page: 50, limit: 10 }],
  ['no filters', {}],
  ['title OR titles', { job_titles: ['nurse', 'pharmacist', 'physician'] }],
  ['title with exclusion', { job_titles: ['engineer', '-senior', '-intern'] }],
  ['country strict + category', { geo_locations: [{ country: 'Germany' }], job_category: ['Sales Jobs'] }],
  ['city weak 25 mi', { geo_locations: [{ city: 'London', country: 'United Kingdom' }] }],
  ['region box', { geo_locations: [{ region: 'California' }], geofilter_params: { mode: 'box' } }],
  ['industry + size', { industry: ['Healthcare'], company_types: ['1001-5000', '5001-10000', '10000+'] }],
  ['salary sort desc', { salary: { min: 50000 }, sort_by: 'salary', sort_order: 'desc' }],
  ['yoe range', { yoe: { min: 2, max: 5 }, job_titles: ['analyst'] }],
  ['visa + remote US', { visa: 'true', geo_locations: [{ country: 'United States' }], location_types: ['Remote'] }],
  ['company keywords', { company_keywords: ['logistics'] }],
  ['keywords phrase + days_ago', { keywords: ['"machine learning"'], days_ago: 30 }],
  ['hide agencies + part time', { hide_recruiting_agencies: 'true', job_types: ['Part Time'] }],
  ['company sort', { job_titles: ['designer'], sort_by: 'company' }],
  ['job board + date', { job_board: ['Greenhouse', 'Lever'], date_posted: '2026-10-01' }],
  ['limit 100', { job_titles: ['engineer'], limit: 100 }],
]

/**
 * POST with a JSON body over node:http and one kept-alive socket, as a production client
 * would; fetch (undici) adds 2–3 ms of its own to each call, more than some queries take.
 */
export function keepAlivePost(base: string, key: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const post = (path: string, body: unknown) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(base + path, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'x-api-key': key } }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }))
      })
      req.on('error', reject)
      req.end(JSON.stringify(body))
    })
  return { post, close: () => agent.destroy() }
}
