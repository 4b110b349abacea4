/**
 * `make bench` (company search part): a mix of 10 company searches over the search
 * bench's corpus (100,000 generated postings and their companies, built once by
 * search-mix.ts on BENCH_DATABASE_URL), timed over HTTP, with the indexes each page
 * query reads. Prints a table; the targets are a median of at most 20 ms and a p95 of
 * at most 80 ms over all of them.
 */
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import pino from 'pino'
import { buildApp } from '../../api/app.ts'
import { toCompanySearch } from '../../api/routes/company-search.ts'
import { companySearchBody } from '../../api/schemas/companies.ts'
import { createAccount, createKey } from '../../sql/accounts.ts'
import { explainCompanySearch } from '../../sql/company-search.ts'
import { loadConfig } from '../../sql/config.ts'
import { connectAdmission } from '../../sql/db.ts'
import { corpusName, keepAlivePost, searchCorpus } from './search-mix.ts'

const JOBS = Number(process.env.BENCH_SEARCH_JOBS ?? 100_000)
const REPS = Number(process.env.BENCH_REPS ?? 15)
const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const dbUrl = Object.assign(new URL(serverUrl), { pathname: `/${corpusName(JOBS)}` }).toString()
const TARGET = { median: 20, p95: 80 }

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]
}

// the corpus, migrated: 0016 derives the companies' live counts and tags on first use
const sql = await searchCorpus(serverUrl, JOBS, (m) => console.error(m))
await sql`analyze companies`

// names and a LinkedIn page from the corpus, so the name and URL searches find something
const [{ name: popular }] = await sql<{ name: string }[]>`select name from companies where live_jobs > 0 order by live_jobs desc, id limit 1 offset 50`
const [{ link }] = await sql<{ link: string }[]>`select linkedin_link as link from companies where linkedin_link is not null order by id limit 1 offset 200`
const firstWord = popular.split(' ')[0]
// two letters swapped in the middle: a typo pg_trgm and the edit distance still match
const mid = Math.floor(popular.length / 2)
const typo = popular.slice(0, mid - 1) + popular[mid] + popular[mid - 1] + popular.slice(mid + 1)

export const companyQueries: [string, Record<string, unknown>][] = [
  ['text', { query: 'logistics' }],
  ['text phrase + hiring', { query: '"machine learning"', hiring: true }],
  ['text with exclusion, limit 50', { query: 'software -consulting', limit: 50 }],
  ['name, partial', { company_name: firstWord }],
  ['name, a typo', { company_name: typo }],
  ['industry + type', { industries: ['Healthcare'], company_types: ['Enterprise'] }],
  ['country + hiring', { locations: [{ country: 'Germany' }], hiring: true }],
  ['city + text', { locations: [{ city: 'London', country: 'United Kingdom' }], query: 'python' }],
  ['linkedin_url', { linkedin_url: `${link}/?trk=bench` }],
  ['no filters, page 5 of 100', { page: 5, limit: 100 }],
]

const roomy = { limit: 1_000_000, windowSeconds: 60 }
const admissionSql = connectAdmission(dbUrl)
const app = buildApp({ sql, config: { ...loadConfig(), rateLimits: { key: roomy, search: roomy, anonymous: roomy } }, log: pino({ level: 'silent' }), admissionSql })
const server = app.listen(0, '127.0.0.1')
await new Promise((r) => server.once('listening', r))
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
const key = await createKey(sql, await createAccount(sql, `bench-companies-${Date.now()}@example.test`, 'scale'))

const { post, close: closeClient } = keepAlivePost(base, key)

type Row = { name: string; total: number; returned: number; http: number[]; plan: string }
const rows: Row[] = []
for (const [label, body] of companyQueries) {
  const valid = companySearchBody.cast(await companySearchBody.validate(body, { strict: true }))
  const plan = await explainCompanySearch(sql, toCompanySearch(valid), { page: valid.page, limit: valid.limit })
  const used = [...new Set([...plan.matchAll(/(?:Index|Bitmap Index) (?:Only )?Scan(?: Backward)? (?:using|on) (\w+)/g)].map((m) => m[1]))]
  const seq = [...new Set([...plan.matchAll(/Seq Scan on (\w+)/g)].map((m) => `seq scan of ${m[1]}`))]
  const row: Row = { name: label, total: 0, returned: 0, http: [], plan: [...seq, ...used].join(', ') }
  for (let i = 0; i < REPS + 2; i++) {
    const t = performance.now()
    const res = await post('/v2/platform/companies/search', body)
    const ms = performance.now() - t
    if (res.status !== 200) throw new Error(`${label}: ${res.status} ${res.body}`)
    const json = JSON.parse(res.body)
    row.total = json.total_count
    row.returned = json.companies.length
    if (i >= 2) row.http.push(ms)
  }
  rows.push(row)
}
closeClient()
server.close()
await app.context.admission!.close()
await admissionSql.end()
const [{ companies }] = await sql<{ companies: number }[]>`select count(*)::int as companies from companies`
await sql.end()

const all = rows.flatMap((r) => r.http)
const median = pct(all, 50)
const p95 = pct(all, 95)
console.log(`\nCompany search, ${companies.toLocaleString('en-US')} companies of ${JOBS.toLocaleString('en-US')} postings on ${new URL(serverUrl).host}, ${REPS} runs each over HTTP, ${os.cpus().length} cores, ${new Date().toISOString().slice(0, 10)}\n`)
console.log('| query | matches | returned | HTTP median ms | HTTP p95 ms | plan |')
console.log('|---|---:|---:|---:|---:|---|')
for (const r of rows) console.log(`| ${r.name} | ${r.total} | ${r.returned} | ${pct(r.http, 50).toFixed(1)} | ${pct(r.http, 95).toFixed(1)} | ${r.plan} |`)
console.log(`| **all ${rows.length} queries** | | | **${median.toFixed(1)}** | **${p95.toFixed(1)}** | |`)
console.log(`\ntargets: median ≤ ${TARGET.median} ms (${median <= TARGET.median ? 'met' : 'MISSED'}), p95 ≤ ${TARGET.p95} ms (${p95 <= TARGET.p95 ? 'met' : 'MISSED'})`)
