/**
 * Search reads the companies table only when the filters or the sort read it
 * (sql/search.ts, jobsFor): the results are the same either way, since every job has
 * its company, and a search without company conditions reads the jobs alone.
 */
import anyTest, { type TestFn } from 'ava'
import { ingest } from '../../ingest/pipeline.ts'
import { parse } from '../../sql/query-syntax.ts'
import { estimateSearch, explainSearch, searchJobs, type SearchFilters, type SearchPage } from '../../sql/search.ts'
import { rawPosting, readItems } from '../helpers/factories.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'

const test = anyTest as TestFn<{ db: TestDb }>

const companies = [
  { name: 'Zeta Health', industries: ['Healthcare'] },
  { name: 'alpha Freight', industries: ['Logistics'] },
  { name: 'Mid Care', industries: ['Healthcare'] },
]

test.before(async (t) => {
  const db = await testDatabase()
  await ingest(db.sql, readItems(Array.from({ length: 12 }, (_, i) => rawPosting({
    job_title: i % 2 ? `Nurse ${i}` : `Driver ${i}`,
    date_posted: `2026-11-${String(i + 1).padStart(2, '0')}`,
    company: { ...companies[i % 3], link: `https://c${i % 3}.example.test` },
  }, 900 + i))), { source: 'company-join-test' })
  t.context = { db }
})

test.after.always(async (t) => {
  await t.context.db?.close()
})

const page = (over: Partial<SearchPage> = {}): SearchPage => ({ page: 1, limit: 20, sortBy: 'date_posted', sortOrder: null, raw: false, ...over })

test('without company conditions the page reads the jobs alone, and finds what the join finds', async (t) => {
  const { sql } = t.context.db
  const filters: SearchFilters = { titles: parse(['nurse']) }
  t.notRegex(await explainSearch(sql, filters, page()), /companies/)
  const result = await searchJobs(sql, filters, page())
  const want = await sql<{ id: string }[]>`
    select j.id::text from jobs j join companies c on c.id = j.company_id
    where not j.expired and j.title_tsv @@ to_tsquery('english', 'nurse')
    order by j.date_posted desc, j.id desc`
  t.deepEqual(result.jobs.map((j) => j._id), want.map((r) => r.id))
  t.is(result.total, 6)
  t.is(result.companies, 3)
  t.deepEqual(await estimateSearch(sql, filters), { total: 6, companies: 3, exact: true })
})

test('a company condition or a sort by company joins the companies', async (t) => {
  const { sql } = t.context.db
  const healthcare: SearchFilters = { industries: ['Healthcare'] }
  t.regex(await explainSearch(sql, healthcare, page()), /companies/)
  const found = await searchJobs(sql, healthcare, page())
  t.is(found.total, 8)
  t.true(found.jobs.every((j) => j.company_name !== 'alpha Freight'))
  const byCompany = await searchJobs(sql, { titles: parse(['driver']) }, page({ sortBy: 'company' }))
  t.regex(await explainSearch(sql, { titles: parse(['driver']) }, page({ sortBy: 'company' })), /companies/)
  // names case aside, then newest first
  t.deepEqual([...new Set(byCompany.jobs.map((j) => j.company_name))], ['alpha Freight', 'Mid Care', 'Zeta Health'])
})
