/**
 * EXPLAIN (ANALYZE, BUFFERS) of each search of the bench's mix (search-mix.ts) on a
 * kept corpus, its page query and its count, to read why a query costs what it does:
 *   BENCH_SEARCH_JOBS=1000000 node --import tsx test/bench/explain-mix.ts [label substring]
 * BENCH_SHAPES=1 explains the search-shape bench's wider mix (search-mix.ts shapes) instead.
 */
import { jobSearchBody } from '../../api/schemas/search.ts'
import { toSearch } from '../../api/search-filters.ts'
import { connect } from '../../sql/db.ts'
import { COUNT_CAP, jobsFor, pageIds, whereClause } from '../../sql/search.ts'
import { corpusName, queries, shapes } from './search-mix.ts'

const JOBS = Number(process.env.BENCH_SEARCH_JOBS ?? 100_000)
const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const sql = connect(Object.assign(new URL(serverUrl), { pathname: `/${corpusName(JOBS)}` }).toString(), 1)
const only = process.argv[2]
for (const [label, body] of process.env.BENCH_SHAPES === '1' ? await shapes(sql) : queries) {
  if (only && !label.includes(only)) continue
  const { filters, page } = toSearch(await jobSearchBody.validate(body, { strict: true }).then(() => jobSearchBody.cast(body)))
  const { ids } = await pageIds(sql, filters, page, whereClause(sql, filters))
  const where = whereClause(sql, filters)
  const count = sql`select count(*) from (select j.company_id from ${jobsFor(sql, filters)} where ${where} limit ${COUNT_CAP + 1}) m`
  for (const [part, query] of [['page', ids], ['count', count]] as const) {
    const rows = await sql<{ 'QUERY PLAN': string }[]>`explain (analyze, buffers) ${query}`
    console.log(`\n### ${label}: ${part}\n${rows.map((r) => r['QUERY PLAN']).join('\n')}`)
  }
}
await sql.end()
