import { connect } from '../../sql/db.ts'
import { vectorSearch } from '../../sql/vector-search.ts'
const sql = connect('postgres://postgres@127.0.0.1:5432/jds_bench_vector_100000')
const [{ model }] = await sql<{ model: number }[]>`select max(embedding_model) as model from jobs`
const jobs = await sql<{ id: string; embedding: string }[]>`
  select id::text, embedding::text from jobs where not expired and embedding_model = ${model} order by md5('x' || id::text) limit 300`
const slice = { offset: 0, limit: 10, raw: false }
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)]
for (const [label, f] of [['Senior+FT', { experience: ['Senior'], jobTypes: ['Full Time'] }], ['Mid+PT', { experience: ['Mid'], jobTypes: ['Part Time'] }]] as const) {
  const plans = new Map<string, number>(); const ms: number[] = []; let recall = 0
  for (const j of jobs) {
    const q = { vector: JSON.parse(j.embedding) as number[], model, accuracy: 'medium' as const, exclude: [j.id] }
    const t = performance.now()
    const r = await vectorSearch(sql, q, f as any, 10, slice)
    ms.push(performance.now() - t)
    plans.set(r.plans.join(' → '), (plans.get(r.plans.join(' → ')) ?? 0) + 1)
    const truth = new Set((await vectorSearch(sql, { ...q, plan: 'scan' }, f as any, 10, slice)).jobs.map((x) => x._id))
    recall += r.jobs.filter((x) => truth.has(x._id)).length / Math.max(1, truth.size)
  }
  console.log(label, [...plans].map(([k, v]) => `${k} ${v}`).join(', '), 'recall vs scan', (recall / jobs.length).toFixed(3), 'median', pct(ms, 0.5).toFixed(1), 'p95', pct(ms, 0.95).toFixed(1))
}
await sql.end()
