/** The search benchmark's fixed mix of 20 realistic searches and its corpus, shared by the search and export benches. */
import http from 'node:http'
import postgres from 'postgres'
import { ingest } from '../../ingest/pipeline.ts'
import { generatePostings } from '../../ingest/generator/postings.ts'
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

/**
 * The wider mix of the search-shape bench (search-shapes.ts): every job search filter
 * alone, with a common and a rare value where the corpus has both, and in the
 * combinations clients send. The company and job names are read from the corpus: its
 * company with the most live jobs, one with a single live job, and a live job's slug.
 */
export async function shapes(sql: postgres.Sql): Promise<[string, Record<string, unknown>][]> {
  const [common] = await sql<{ name: string; slug: string }[]>`
    select c.name, c.slug from companies c join jobs j on j.company_id = c.id and not j.expired
    group by c.id order by count(*) desc limit 1`
  const [rare] = await sql<{ name: string; slug: string }[]>`
    select c.name, c.slug from companies c join jobs j on j.company_id = c.id and not j.expired
    group by c.id having count(*) = 1 order by c.id limit 1`
  const [job] = await sql<{ job_slug: string }[]>`select job_slug from jobs where not expired order by id desc limit 1`
  return [
    ['no filters', {}],
    ['title, common', { job_titles: ['manager'] }],
    ['title, rare', { job_titles: ['chauffeur'] }],
    ['title phrase', { job_titles: ['"software engineer"'] }],
    ['titles OR', { job_titles: ['nurse', 'pharmacist', 'physician'] }],
    ['title with exclusions', { job_titles: ['engineer', '-senior', '-intern'] }],
    ['keywords, one term', { keywords: ['python'] }],
    ['keywords, two terms', { keywords: ['customer', 'service'] }],
    ['keywords, two terms + location type + experience', { keywords: ['data', 'cloud'], location_types: ['Remote'], experience: ['Senior'] }],
    ['keywords phrase + days_ago', { keywords: ['"machine learning"'], days_ago: 30 }],
    ['company keywords, common', { company_keywords: ['logistics'] }],
    ['company keywords, rare', { company_keywords: ['maritime'] }],
    ['company name, most jobs', { company_name: common.name }],
    ['company name, one job', { company_name: rare.name }],
    ['company slug', { company_slug: common.slug }],
    ['job slug', { job_slug: job.job_slug }],
    ['location type', { location_types: ['Hybrid'] }],
    ['country', { geo_locations: [{ country: 'Germany' }] }],
    ['country + days_ago', { geo_locations: [{ country: 'United States' }], days_ago: 30 }],
    ['city, 25 mi', { geo_locations: [{ city: 'London', country: 'United Kingdom' }] }],
    ['small city, 50 km', { geo_locations: [{ city: 'Boise', region: 'ID', country: 'United States' }], geofilter_params: { radius: 50, unit: 'km' } }],
    ['title phrase + city radius + salary floor', { job_titles: ['"software engineer"'], geo_locations: [{ city: 'San Francisco', region: 'CA' }], geofilter_params: { radius: 50 }, salary: { min: 100000 }, currency: 'USD' }],
    ['region box', { geo_locations: [{ region: 'California' }], geofilter_params: { mode: 'box' } }],
    ['experience', { experience: ['Executive'] }],
    ['years of experience + title', { yoe: { min: 2, max: 5 }, job_titles: ['analyst'] }],
    ['years of experience, include none stated', { yoe: { min: 8 }, include_yoe: 'true' }],
    ['salary floor, USD', { salary: { min: 150000 }, currency: 'USD' }],
    ['salary range, EUR, include none stated', { salary: { min: 40000, max: 60000 }, currency: 'EUR', include_no_salary: 'true' }],
    ['job type, rare', { job_types: ['Internship'] }],
    ['category', { job_category: ['Legal Jobs'] }],
    ['categories + job type, by date', { job_category: ['Software Engineer Jobs', 'Data Analyst Jobs'], job_types: ['Full Time'], sort_by: 'date_posted' }],
    ['industry + company sizes', { industry: ['Healthcare'], company_types: ['1001-5000', '5001-10000', '10000+'] }],
    ['sub-industry', { sub_industry: ['Air Transportation'] }],
    ['job boards', { job_board: ['Ashby', 'Workable'] }],
    ['posted on or after', { date_posted: '2026-11-15' }],
    ['visa + remote + country', { visa: 'true', geo_locations: [{ country: 'United States' }], location_types: ['Remote'] }],
    ['hide agencies + part time', { hide_recruiting_agencies: 'true', job_types: ['Part Time'] }],
    ['raw descriptions', { job_titles: ['designer'], return_raw_description: 'true' }],
    ['by salary, desc', { salary: { min: 50000 }, sort_by: 'salary', sort_order: 'desc' }],
    ['by company', { job_titles: ['designer'], sort_by: 'company' }],
    ['by date, ascending', { job_category: ['Sales Jobs'], sort_by: 'date_posted', sort_order: 'asc' }],
    ['page 50', { job_titles: ['manager'], page: 50, limit: 10 }],
    ['page of 100, common title', { job_titles: ['engineer'], limit: 100 }],
    ['many filters at once', { job_titles: ['engineer'], keywords: ['python'], geo_locations: [{ country: 'United States' }], location_types: ['Remote', 'Hybrid'], experience: ['Mid', 'Senior'], salary: { min: 90000 }, currency: 'USD', job_types: ['Full Time'], days_ago: 60, hide_recruiting_agencies: 'true' }],
  ]
}
