/**
 * POST /v2/jobs/neural-search. Each test seeds a company of its own and filters on it
 * (lexical.company_name), so the ranked lists hold only its jobs and every rank is
 * known: vectors are set by hand (vector-fixtures.ts), and the text rank of titles
 * with one "engineer" each ties on ts_rank and falls to recency.
 */
import anyTest, { type TestFn } from 'ava'
import { randomBytes } from 'node:crypto'
import { buildOpenApi } from '../../api/openapi/document.ts'
import { modelId } from '../../sql/embeddings.ts'
import { NEURAL_DEPTH, RRF_K } from '../../sql/vector-search.ts'
import { startTestApp, testEmbedder, type TestApp } from '../helpers/app.ts'
import { createAccountWithKey } from '../helpers/factories.ts'
import { axis, cosine, insertResume, okSchema, planar, seedPostings, setJobVectors, undocumented } from './vector-fixtures.ts'

const test = anyTest as TestFn<TestApp>

test.before(async (t) => {
  const generous = { limit: 100_000, windowSeconds: 60 }
  Object.assign(t.context, await startTestApp({ config: { rateLimits: { key: generous, search: generous, anonymous: generous } } }))
  await t.context.db.sql`update accounts set plan = 'scale' where id = ${t.context.accountId}`
})
test.after.always(async (t) => {
  await t.context?.close?.()
})

type Seed = [title: string, similarity: number | null, fields?: Record<string, unknown>]

/** A company of its own with these jobs; vectors in the plane of axes a and b. Returns the company name and ids by title. */
async function company(t: { context: TestApp }, jobs: Seed[], { plane = [0, 1], now }: { plane?: [number, number]; now?: Date } = {}) {
  const name = `Neural Co ${randomBytes(4).toString('hex')}`
  const ids = await seedPostings(
    t.context.db.sql,
    jobs.map(([job_title, , fields]) => ({ job_title, description: `<p>${job_title}. Friendly team.</p>`, company: { name }, ...fields })),
    name,
    now,
  )
  const vectors = jobs.filter(([, sim]) => sim !== null).map(([title, sim]): [string, number[]] => [ids.get(title)!, planar(sim!, ...plane)])
  await setJobVectors(t.context.db.sql, vectors)
  return { name, ids }
}

type Meta = { ranking: string; position: number; vector_rank: number | null; text_rank: number | null; text_score: number | null; fused_score: number | null }
type Job = Record<string, unknown> & { _id: string; job_title: string; vector_score: number | null; meta: Meta }

async function neural(t: { context: TestApp }, body: unknown, headers?: Record<string, string>) {
  const res = await t.context.post('/v2/jobs/neural-search', body, headers)
  const json = await res.json()
  return { res, status: res.status, body: json, jobs: (json.jobs ?? []) as Job[], titles: ((json.jobs ?? []) as Job[]).map((j) => j.job_title) }
}

const near = (a: number | null, b: number) => a !== null && Math.abs(a - b) < 1e-5
const rrf = (...ranks: (number | null)[]) => ranks.reduce<number>((acc, r) => acc + (r === null ? 0 : 1 / (RRF_K + r)), 0)

/** The RRF case: the vector list's best (Charlie) and the text list's second (Foxtrot, no vector) both lose to jobs that are good in both. */
const rrfCase: Seed[] = [
  ['Neural Alpha Engineer', 0.6, { date_posted: '2026-11-19' }],
  ['Neural Bravo Engineer', 0.9, { date_posted: '2026-11-10' }],
  ['Neural Charlie Nurse', 0.95, { date_posted: '2026-11-17' }],
  ['Neural Delta Engineer', 0.3, { date_posted: '2026-11-15' }],
  ['Neural Echo Cook', 0.5, { date_posted: '2026-11-16' }],
  ['Neural Foxtrot Engineer', null, { date_posted: '2026-11-18' }],
]

// --- ranking -----------------------------------------------------------------------------------

test('vector and text terms: reciprocal rank fusion (k = 60) of the vector rank and the text rank', async (t) => {
  const { name } = await company(t, rrfCase)
  const { status, body, jobs, titles } = await neural(t, { vector: { vectors: [axis(0)] }, lexical: { company_name: name, job_titles: ['engineer'] } })
  t.is(status, 200)
  // vector ranks: Charlie 1, Bravo 2, Alpha 3, Echo 4, Delta 5; text ranks (recency): Alpha 1, Foxtrot 2, Delta 3, Bravo 4
  const expected: [string, number | null, number | null, number | null][] = [
    ['Neural Alpha Engineer', 3, 1, 0.6],
    ['Neural Bravo Engineer', 2, 4, 0.9],
    ['Neural Delta Engineer', 5, 3, 0.3],
    ['Neural Charlie Nurse', 1, null, 0.95],
    ['Neural Foxtrot Engineer', null, 2, null],
    ['Neural Echo Cook', 4, null, 0.5],
  ]
  t.deepEqual(titles, expected.map(([title]) => title))
  for (const [i, [title, vectorRank, textRank, similarity]] of expected.entries()) {
    const job = jobs[i]
    t.like(job.meta, { ranking: 'rrf', position: i + 1, vector_rank: vectorRank, text_rank: textRank }, title)
    t.true(Math.abs(job.meta.fused_score! - rrf(vectorRank, textRank)) < 1e-9, title)
    t.is(job.meta.text_score === null, textRank === null, title)
    if (similarity === null) t.is(job.vector_score, null, title)
    else t.true(near(job.vector_score, similarity), title)
  }
  t.like(body, { total_count: 6, page: 1, limit: 10, total_pages: 1 })
  t.false('score' in jobs[0], 'vector_score, not score')
})

test('a text match outside the vector list still gets its similarity; score_threshold applies to every fused job', async (t) => {
  const { name } = await company(t, rrfCase)
  const { titles, jobs } = await neural(t, { vector: { vectors: [axis(0)], score_threshold: 0.55 }, lexical: { company_name: name, job_titles: ['engineer'] } })
  t.deepEqual(titles, ['Neural Alpha Engineer', 'Neural Bravo Engineer', 'Neural Charlie Nurse'])
  t.true(jobs.every((j) => j.vector_score! >= 0.55))
})

test('only a vector: similarity order within the lexical filters, text exclusions included', async (t) => {
  const { name } = await company(t, rrfCase)
  const { titles, jobs } = await neural(t, { vector: { vectors: [axis(0)] }, lexical: { company_name: name } })
  t.deepEqual(titles, ['Neural Charlie Nurse', 'Neural Bravo Engineer', 'Neural Alpha Engineer', 'Neural Echo Cook', 'Neural Delta Engineer'])
  t.deepEqual(jobs.map((j) => j.meta.vector_rank), [1, 2, 3, 4, 5])
  t.true(jobs.every((j) => j.meta.ranking === 'vector' && j.meta.text_rank === null && j.meta.fused_score === null))
  const excluded = await neural(t, { vector: { vectors: [axis(0)] }, lexical: { company_name: name, job_titles: ['-nurse', '-cook'] } })
  t.deepEqual(excluded.titles, ['Neural Bravo Engineer', 'Neural Alpha Engineer', 'Neural Delta Engineer'])
  t.is(excluded.jobs[0].meta.ranking, 'vector')
})

test('only lexical: search\'s order, sort_by honoured, no vector score', async (t) => {
  const { name } = await company(t, rrfCase)
  const relevance = await neural(t, { lexical: { company_name: name, job_titles: ['engineer'] } })
  t.is(relevance.status, 200)
  t.deepEqual(relevance.titles, ['Neural Alpha Engineer', 'Neural Foxtrot Engineer', 'Neural Delta Engineer', 'Neural Bravo Engineer'])
  t.deepEqual(relevance.jobs.map((j) => j.meta.text_rank), [1, 2, 3, 4])
  t.true(relevance.jobs.every((j) => j.vector_score === null && j.meta.ranking === 'lexical' && j.meta.text_score! > 0))
  const byDate = await neural(t, { lexical: { company_name: name, sort_by: 'date_posted', sort_order: 'asc' } })
  t.deepEqual(byDate.titles, ['Neural Bravo Engineer', 'Neural Delta Engineer', 'Neural Echo Cook', 'Neural Charlie Nurse', 'Neural Foxtrot Engineer', 'Neural Alpha Engineer'])
  t.true(byDate.jobs.every((j) => j.meta.text_rank === null && j.meta.text_score === null))
  t.is(byDate.body.total_count, 6)
})

// --- vector sources -----------------------------------------------------------------------------

test('vector sources: raw vectors are normalized, job_ids averaged, an artifact_id is the account\'s resume, several are averaged', async (t) => {
  const { name, ids } = await company(t, rrfCase)
  const lexical = { company_name: name }
  const scaled = await neural(t, { vector: { vectors: [axis(0).map((x) => x * 7)] }, lexical })
  t.deepEqual(scaled.titles.slice(0, 2), ['Neural Charlie Nurse', 'Neural Bravo Engineer'])
  t.true(near(scaled.jobs[0].vector_score, 0.95), 'a scaled vector has the same direction')

  // the mean of the reference jobs' directions; the references themselves stay in the results
  const refs: [string, number][] = [['Neural Delta Engineer', 0.3], ['Neural Echo Cook', 0.5], ['Neural Bravo Engineer', 0.9]]
  const mean = axis(0).map((_, i) => refs.reduce((acc, [, sim]) => acc + planar(sim)[i], 0))
  const byJobs = await neural(t, { vector: { job_ids: refs.map(([r]) => ids.get(r)) }, lexical })
  const similarity = (title: string) => cosine(mean, planar(rrfCase.find(([x]) => x === title)![1]!))
  t.is(byJobs.jobs.length, 5)
  for (const job of byJobs.jobs) t.true(near(job.vector_score, similarity(job.job_title)), job.job_title)
  t.true(byJobs.jobs.every((job, i) => i === 0 || job.vector_score! <= byJobs.jobs[i - 1].vector_score!), 'most similar first')

  const resume = { id: await insertResume(t.context.db.sql, t.context.accountId, axis(1)) }
  const byResume = await neural(t, { vector: { artifact_id: resume.id }, lexical })
  t.deepEqual(byResume.titles[0], 'Neural Delta Engineer', 'axis 1: the least like axis 0 comes first')

  const both = await neural(t, { vector: { artifact_id: resume.id, vectors: [axis(0)] }, lexical })
  const diagonal = axis(0).map((x, i) => x + axis(1)[i])
  for (const job of both.jobs) t.true(near(job.vector_score, cosine(diagonal, planar(rrfCase.find(([x]) => x === job.job_title)![1]!))), job.job_title)
})

test('vector.query is embedded by the server\'s model, and averages with other sources', async (t) => {
  const embedder = testEmbedder()
  const texts = ['Senior backend engineer: Python, PostgreSQL, REST APIs', 'Registered nurse, night shift, cardiology ward', 'Pastry chef for a French bakery']
  const titles = ['Neural Semantic Engineer', 'Neural Semantic Nurse', 'Neural Semantic Chef']
  const { name, ids } = await company(t, titles.map((title): Seed => [title, null]))
  const vectors = await embedder.embed(texts)
  await setJobVectors(t.context.db.sql, titles.map((title, i): [string, number[]] => [ids.get(title)!, vectors[i]]))
  const query = 'software developer, python, backend'
  const [q] = await embedder.embed([query])
  const alone = await neural(t, { vector: { query }, lexical: { company_name: name } })
  t.is(alone.status, 200)
  t.is(alone.titles[0], 'Neural Semantic Engineer')
  for (const job of alone.jobs) t.true(Math.abs(job.vector_score! - cosine(q, vectors[titles.indexOf(job.job_title)])) < 1e-4, job.job_title)
  // with the nurse's own vector as a second source: the mean of the two directions
  const both = await neural(t, { vector: { query, vectors: [vectors[1]] }, lexical: { company_name: name } })
  const mean = q.map((x, i) => x + vectors[1][i])
  for (const job of both.jobs) t.true(Math.abs(job.vector_score! - cosine(mean, vectors[titles.indexOf(job.job_title)])) < 1e-4, job.job_title)
  // and with text terms: fused
  const fused = await neural(t, { vector: { query }, lexical: { company_name: name, job_titles: ['nurse'] } })
  t.is(fused.jobs[0].meta.ranking, 'rrf')
  t.deepEqual(fused.titles.slice(0, 2).sort(), ['Neural Semantic Engineer', 'Neural Semantic Nurse'])
})

test('unknown job ids and another account\'s resume are 400s; unembedded ones 409s; bad vectors 422s', async (t) => {
  const { name, ids } = await company(t, rrfCase)
  const lexical = { company_name: name }
  const unknownJob = await neural(t, { vector: { job_ids: [ids.get('Neural Alpha Engineer'), '999999999', 'x'] }, lexical })
  t.is(unknownJob.status, 400)
  t.deepEqual(unknownJob.body, { detail: 'Unknown job_ids: 999999999, x' })
  const unembedded = await neural(t, { vector: { job_ids: [ids.get('Neural Foxtrot Engineer')] }, lexical })
  t.is(unembedded.status, 409)
  t.deepEqual(unembedded.body, { detail: `job ${ids.get('Neural Foxtrot Engineer')} has no embedding yet: run make embed` })

  const other = await createAccountWithKey(t.context.db.sql)
  const theirs = { id: await insertResume(t.context.db.sql, other.accountId, axis(0)) }
  const denied = await neural(t, { vector: { artifact_id: theirs.id }, lexical })
  t.is(denied.status, 400)
  t.deepEqual(denied.body, { detail: `Unknown artifact_id: ${theirs.id}` })

  const cancel = await neural(t, { vector: { vectors: [axis(0), axis(0).map((x) => -x)] }, lexical })
  t.is(cancel.status, 400)
  t.regex(cancel.body.detail, /cancel out/)

  const cases: [unknown, { type: string; loc: (string | number)[] }][] = [
    [{ vector: { vectors: [[1, 2, 3]] } }, { type: 'value_error', loc: ['body', 'vector', 'vectors', 0] }],
    [{ vector: { vectors: [axis(0), axis(0).slice(1)] } }, { type: 'value_error', loc: ['body', 'vector', 'vectors', 1] }],
    [{ vector: { vectors: [axis(0).map(() => 0)] } }, { type: 'value_error', loc: ['body', 'vector', 'vectors', 0] }],
    [{ vector: { vectors: [axis(0).map((x, i) => (i === 3 ? 'a' : x))] } }, { type: 'float_type', loc: ['body', 'vector', 'vectors', 0, 3] }],
    [{ vector: {} }, { type: 'missing', loc: ['body', 'vector'] }],
    [{ vector: { query: '  ' } }, { type: 'value_error', loc: ['body', 'vector', 'query'] }],
    [{ vector: { score_threshold: 0.5 } }, { type: 'missing', loc: ['body', 'vector'] }],
    [{ vector: { job_ids: 'x' } }, { type: 'list_type', loc: ['body', 'vector', 'job_ids'] }],
    [{ vector: { vectors: [axis(0)], score_threshold: -2 } }, { type: 'greater_than_equal', loc: ['body', 'vector', 'score_threshold'] }],
  ]
  for (const [body, item] of cases) {
    const res = await neural(t, body)
    t.is(res.status, 422, JSON.stringify(item))
    t.is(res.body.detail.length, 1, JSON.stringify(res.body.detail).slice(0, 300))
    t.like(res.body.detail[0], item)
  }
})

test('sources of two models are a 409; raw vectors take the other sources\' model', async (t) => {
  const { name, ids } = await company(t, rrfCase)
  const other = await modelId(t.context.db.sql, { provider: 'transformers', model_name: 'other-model', model_version: '2' })
  const lexical = { company_name: name }
  const { ids: otherIds } = await company(t, [['Neural Other Model Engineer', 0.9]])
  await setJobVectors(t.context.db.sql, [[otherIds.get('Neural Other Model Engineer')!, axis(0)]], other)
  const mixed = await neural(t, { vector: { job_ids: [ids.get('Neural Alpha Engineer'), otherIds.get('Neural Other Model Engineer')] }, lexical })
  t.is(mixed.status, 409)
  t.deepEqual(mixed.body, { detail: 'the jobs of job_ids were embedded by different models; run make embed to embed everything with one' })
  const resume = await insertResume(t.context.db.sql, t.context.accountId, axis(0))
  const crossed = await neural(t, { vector: { artifact_id: resume, job_ids: [otherIds.get('Neural Other Model Engineer')] }, lexical })
  t.is(crossed.status, 409)
  t.deepEqual(crossed.body, { detail: 'the vector sources were embedded by different models; run make embed to embed everything with one' })
  // raw vectors with the other model's job: compared with that model's vectors only
  const adopted = await neural(t, { vector: { job_ids: [otherIds.get('Neural Other Model Engineer')], vectors: [axis(0)] } })
  t.is(adopted.status, 200)
  t.true(adopted.titles.includes('Neural Other Model Engineer'))
  t.false(adopted.titles.some((x) => rrfCase.some(([title]) => title === x)), 'no fixture-model job')
})

// --- request shape ------------------------------------------------------------------------------

test('neither vector nor lexical, two different page values, or a page too deep: 422', async (t) => {
  const cases: [unknown, { type: string; loc: (string | number)[] }][] = [
    [{}, { type: 'missing', loc: ['body', 'vector'] }],
    [{ page: 2, limit: 5 }, { type: 'missing', loc: ['body', 'vector'] }],
    [{ lexical: { page: 2 }, page: 3 }, { type: 'value_error', loc: ['body', 'lexical', 'page'] }],
    [{ lexical: { limit: 20 }, limit: 30 }, { type: 'value_error', loc: ['body', 'lexical', 'limit'] }],
    [{ lexical: {}, page: 5, limit: 100 }, { type: 'value_error', loc: ['body', 'page'] }],
    [{ lexical: { page: 41, limit: 10 } }, { type: 'value_error', loc: ['body', 'page'] }],
    [{ lexical: { limit: 101 } }, { type: 'less_than_equal', loc: ['body', 'lexical', 'limit'] }],
    [{ lexical: 'engineer' }, { type: 'dict_type', loc: ['body', 'lexical'] }],
    [{ lexical: { location_group: 'Atlantis' } }, { type: 'value_error', loc: ['body', 'lexical', 'location_group'] }],
    [{ lexical: { date_posted: 'yesterday' } }, { type: 'date_parsing', loc: ['body', 'lexical', 'date_posted'] }],
    [{ lexical: { date_posted: '2026-02-30' } }, { type: 'date_parsing', loc: ['body', 'lexical', 'date_posted'] }],
    [{ lexical: { month: '2026-13' } }, { type: 'date_parsing', loc: ['body', 'lexical', 'month'] }],
    [{ lexical: { month: '1899-12' } }, { type: 'date_parsing', loc: ['body', 'lexical', 'month'] }],
    [{ lexical: { include_expired: true } }, { type: 'string_type', loc: ['body', 'lexical', 'include_expired'] }],
    [{ lexical: { hide_seen_jobs: 'yes' } }, { type: 'enum', loc: ['body', 'lexical', 'hide_seen_jobs'] }],
    [{ lexical: { user_id: '' } }, { type: 'string_too_short', loc: ['body', 'lexical', 'user_id'] }],
    [{ lexical: { industry: 'Basket Weaving' } }, { type: 'value_error', loc: ['body', 'lexical', 'industry'] }],
    [{ lexical: { geofilter_params: { mode: 'nope' } }, accuracy: 'max' }, { type: 'enum', loc: ['body', 'accuracy'] }],
  ]
  for (const [body, item] of cases) {
    const res = await neural(t, body)
    t.is(res.status, 422, JSON.stringify(body))
    t.is(res.body.detail.length, 1, JSON.stringify(res.body.detail).slice(0, 300))
    t.like(res.body.detail[0], item, JSON.stringify(body))
  }
  const atLimit = await neural(t, { lexical: { page: 4, limit: 100 } })
  t.is(atLimit.status, 200, `page × limit = ${NEURAL_DEPTH} is allowed`)
})

test('page and limit at the top level or inside lexical page the same ranking, without overlap', async (t) => {
  const { name } = await company(t, rrfCase)
  const body = { vector: { vectors: [axis(0)] }, lexical: { company_name: name, job_titles: ['engineer'] } }
  const all = (await neural(t, body)).titles
  const pages = await Promise.all([1, 2, 3].map((page) => neural(t, { ...body, page, limit: 2 })))
  t.deepEqual(pages.map((p) => p.titles), [all.slice(0, 2), all.slice(2, 4), all.slice(4, 6)])
  for (const [i, p] of pages.entries()) t.like(p.body, { total_count: 6, page: i + 1, limit: 2, total_pages: 3 })
  t.deepEqual(pages[1].jobs.map((j) => j.meta.position), [3, 4])
  const inside = await neural(t, { ...body, lexical: { ...body.lexical, page: 2, limit: 2 } })
  t.deepEqual(inside.titles, pages[1].titles)
  const same = await neural(t, { ...body, page: 2, lexical: { ...body.lexical, page: 2, limit: 2 } })
  t.deepEqual(same.titles, pages[1].titles, 'the same value in both places is fine')
})

// --- lexical fields -----------------------------------------------------------------------------

test('location_group is one more location filter, AND-ed with geo_locations', async (t) => {
  const { name } = await company(t, [
    ['Neural Berlin Engineer', 0.9, { location_raw: 'Berlin, Germany' }],
    ['Neural Zurich Engineer', 0.8, { location_raw: 'Zurich, Switzerland' }],
    ['Neural Paris Engineer', 0.7, { location_raw: 'Paris, France' }],
    ['Neural Oakland Engineer', 0.6, { location_raw: 'Oakland, CA' }],
    ['Neural Austin Engineer', 0.5, { location_raw: 'Austin, TX' }],
  ])
  const search = async (lexical: object) => (await neural(t, { vector: { vectors: [axis(0)] }, lexical: { company_name: name, ...lexical } })).titles
  t.deepEqual(await search({ location_group: 'DACH' }), ['Neural Berlin Engineer', 'Neural Zurich Engineer'])
  t.deepEqual(await search({ location_group: 'bay area' }), ['Neural Oakland Engineer'])
  t.deepEqual(await search({ location_group: 'Europe' }), ['Neural Berlin Engineer', 'Neural Zurich Engineer', 'Neural Paris Engineer'])
  t.deepEqual(await search({ location_group: 'Europe', geo_locations: [{ country: 'France' }] }), ['Neural Paris Engineer'])
  t.deepEqual(await search({ location_group: 'DACH', geo_locations: [{ country: 'France' }] }), [])
})

test('date_posted as a day or today / last_week / last_month; month is that calendar month', async (t) => {
  const now = new Date()
  const daysAgo = (n: number) => new Date(now.getTime() - n * 86_400_000).toISOString().slice(0, 10)
  const { name } = await company(
    t,
    [
      ['Neural Today Engineer', 0.9, { date_posted: daysAgo(0) }],
      ['Neural Week Engineer', 0.8, { date_posted: daysAgo(5) }],
      ['Neural Month Engineer', 0.7, { date_posted: daysAgo(20) }],
      ['Neural Old Engineer', 0.6, { date_posted: '2026-03-15' }],
      ['Neural Older Engineer', 0.5, { date_posted: '2026-02-28' }],
    ],
    { now },
  )
  const search = async (lexical: object) => (await neural(t, { vector: { vectors: [axis(0)] }, lexical: { company_name: name, ...lexical } })).titles
  t.deepEqual(await search({ date_posted: 'today' }), ['Neural Today Engineer'])
  t.deepEqual(await search({ date_posted: 'last_week' }), ['Neural Today Engineer', 'Neural Week Engineer'])
  t.deepEqual(await search({ date_posted: 'last_month' }), ['Neural Today Engineer', 'Neural Week Engineer', 'Neural Month Engineer'])
  t.deepEqual(await search({ date_posted: '2026-03-01' }), ['Neural Today Engineer', 'Neural Week Engineer', 'Neural Month Engineer', 'Neural Old Engineer'])
  t.deepEqual(await search({ month: '2026-03' }), ['Neural Old Engineer'])
  t.deepEqual(await search({ month: '2026-02' }), ['Neural Older Engineer'])
  t.deepEqual(await search({ month: '2026-03', date_posted: '2026-03-16' }), [])
})

test('include_expired adds expired jobs, flagged', async (t) => {
  const { name, ids } = await company(t, [['Neural Live Engineer', 0.9], ['Neural Gone Engineer', 0.95]])
  await t.context.db.sql`update jobs set expired = true, date_expired = current_date, expired_at = now() where id = ${ids.get('Neural Gone Engineer')!}`
  const body = { vector: { vectors: [axis(0)] }, lexical: { company_name: name } }
  t.deepEqual((await neural(t, body)).titles, ['Neural Live Engineer'])
  const all = await neural(t, { ...body, lexical: { ...body.lexical, include_expired: 'true' } })
  t.deepEqual(all.titles, ['Neural Gone Engineer', 'Neural Live Engineer'])
  t.deepEqual(all.jobs.map((j) => j.expired), [true, false])
  const lexicalOnly = await neural(t, { lexical: { company_name: name, include_expired: 'true' } })
  t.is(lexicalOnly.body.total_count, 2)
})

test('hide_seen_jobs leaves out what user_id fetched by id (the account by default), per account', async (t) => {
  const { name, ids } = await company(t, [['Neural Seen Engineer', 0.9], ['Neural Unseen Engineer', 0.8], ['Neural Mine Engineer', 0.7]])
  const seen = ids.get('Neural Seen Engineer')!
  t.is((await t.context.get(`/v2/jobs/${seen}?user_id=alice`)).status, 200)
  t.is((await t.context.get(`/v2/jobs/${seen}?user_id=alice`)).status, 200, 'a second view is fine')
  t.is((await t.context.get(`/v2/jobs/${ids.get('Neural Mine Engineer')}`)).status, 200)
  const other = await createAccountWithKey(t.context.db.sql)
  t.is((await t.context.get(`/v2/jobs/${ids.get('Neural Unseen Engineer')}?user_id=alice`, { 'x-api-key': other.key })).status, 200)

  const search = async (lexical: object) => (await neural(t, { vector: { vectors: [axis(0)] }, lexical: { company_name: name, ...lexical } })).titles
  const all = ['Neural Seen Engineer', 'Neural Unseen Engineer', 'Neural Mine Engineer']
  t.deepEqual(await search({}), all)
  t.deepEqual(await search({ hide_seen_jobs: 'true', user_id: 'alice' }), ['Neural Unseen Engineer', 'Neural Mine Engineer'])
  t.deepEqual(await search({ hide_seen_jobs: 'true', user_id: 'bob' }), all)
  t.deepEqual(await search({ hide_seen_jobs: 'true' }), ['Neural Seen Engineer', 'Neural Unseen Engineer'])
  t.deepEqual(await search({ hide_seen_jobs: 'false', user_id: 'alice' }), all)
  t.deepEqual((await neural(t, { lexical: { company_name: name, hide_seen_jobs: 'true', user_id: 'alice', sort_by: 'date_posted' } })).titles.sort(), ['Neural Mine Engineer', 'Neural Unseen Engineer'])
  const views = await t.context.db.sql`select 1 from job_views where job_id = ${seen}`
  t.is(views.length, 1, 'one row per user and job')
  t.is((await t.context.get('/v2/jobs/424242424?user_id=alice')).status, 404)
  t.is((await t.context.get(`/v2/jobs/${seen}?user_id=`)).status, 422)
})

test('the lexical filter set narrows as in search (salary, yoe, job_types, industry)', async (t) => {
  const { name } = await company(t, [
    ['Neural Rich Engineer', 0.9, { salary_range: { min: 150000, max: 180000, currency: 'USD', period: 'yearly' }, yoe_range: { min: 8, max: 12 }, job_type: 'Full Time' }],
    ['Neural Modest Engineer', 0.8, { salary_range: { min: 50000, max: 60000, currency: 'USD', period: 'yearly' }, yoe_range: { min: 1, max: 2 }, job_type: 'Part Time' }],
  ])
  const search = async (lexical: object) => (await neural(t, { vector: { vectors: [axis(0)] }, lexical: { company_name: name, ...lexical } })).titles
  t.deepEqual(await search({ salary: { min: 100000 } }), ['Neural Rich Engineer'])
  t.deepEqual(await search({ yoe: { max: 3 } }), ['Neural Modest Engineer'])
  t.deepEqual(await search({ job_types: ['Part Time'] }), ['Neural Modest Engineer'])
  t.deepEqual(await search({ keywords: ['friendly'] }), ['Neural Rich Engineer', 'Neural Modest Engineer'])
  t.deepEqual(await search({ company_name: 'Nobody' }), [])
})

// --- output, billing ----------------------------------------------------------------------------

test('records carry the neural-search fields and match the documented schema', async (t) => {
  const { name, ids } = await company(t, [
    ['Neural Full Engineer', 0.9, {
      description: '<p>Neural Full Engineer. Send your CV to jobs@neural.example.test or call +49 30 1234567.</p>', recruiter_agency: true,
      yoe_range: { min: 3, max: 6 }, experience_level: 'Senior', date_posted: '2026-11-10',
    }],
    ['Neural Sparse Engineer', 0.8],
  ])
  const hybrid = await neural(t, { vector: { vectors: [axis(0)] }, lexical: { company_name: name, job_titles: ['engineer'] }, return_raw_description: 'true' })
  const vectorOnly = await neural(t, { vector: { vectors: [axis(0)] }, lexical: { company_name: name } })
  const lexicalOnly = await neural(t, { lexical: { company_name: name } })
  const full = hybrid.jobs.find((j) => j._id === ids.get('Neural Full Engineer'))!
  t.like(full, {
    job_title_raw: 'Neural Full Engineer',
    experience_level: { level: 'Senior', yoe_min: 3, yoe_max: 6 },
    contact_email: { value: 'jobs@neural.example.test' },
    contact_phone: { value: '+49 30 1234567' },
    company_data: { type: null, is_recruiting_agency: false, is_3rd_party_agency: true },
  })
  const [{ days }] = await t.context.db.sql<{ days: number }[]>`select current_date - '2026-11-10'::date as days`
  t.is(full.days_ago, days)
  t.is(typeof full.md5_hash, 'string')
  for (const f of ['coolness_score', 'flexibility_score', 'compensation_value_score', 'benefits_score', 'impact_autonomy_score', 'prestige_score', 'growth_score', 'meta_targetability']) {
    t.is(typeof full[f], 'number', f)
  }
  t.is(typeof full.meta_completeness, 'boolean')
  t.is(typeof full.description_raw, 'string')
  t.is(hybrid.jobs.find((j) => j._id === ids.get('Neural Sparse Engineer'))!.contact_email, null)

  const doc = buildOpenApi()
  for (const res of [hybrid, vectorOnly, lexicalOnly]) t.deepEqual(undocumented(doc, okSchema(doc, '/v2/jobs/neural-search'), res.body), [])
})

test('billing: 1 unit per job returned; a refused request costs nothing', async (t) => {
  const { name } = await company(t, rrfCase)
  const { accountId: _, key } = await createAccountWithKey(t.context.db.sql)
  const headers = { 'x-api-key': key }
  const first = await neural(t, { vector: { vectors: [axis(0)] }, lexical: { company_name: name }, limit: 3 }, headers)
  t.is(first.jobs.length, 3)
  t.is(first.res.headers.get('platform-usage-meter'), 'm_jobs_api_calls')
  t.is(first.res.headers.get('platform-usage-total-used'), '3')
  const second = await neural(t, { lexical: { company_name: name, job_titles: ['engineer'], limit: 50 } }, headers)
  t.is(second.jobs.length, 4)
  t.is(second.res.headers.get('platform-usage-total-used'), '7')
  t.is((await neural(t, {}, headers)).status, 422)
  const after = await neural(t, { lexical: { company_name: 'Nobody at all' } }, headers)
  t.is(after.res.headers.get('platform-usage-total-used'), '7')
})
