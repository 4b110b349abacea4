/**
 * POST /v2/jobs/vsearch over postings whose vectors are set by hand (vector-fixtures.ts):
 * the query is axis 0, and each fixture job sits at a known cosine to it, so orders,
 * scores, filters and paging are exact. Every status code and detail shape, on both
 * databases.
 */
import anyTest, { type TestFn } from 'ava'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import pino from 'pino'
import { randomUUID } from 'node:crypto'
import { modelId } from '../../sql/embeddings.ts'
import { createAccountWithKey } from '../helpers/factories.ts'
import { spend } from '../billing/fixtures.ts'
import { EmbedderUnavailable, type Embedder } from '../../ingest/embed/embedder.ts'
import { startTestApp, testEmbedder, type TestApp } from '../helpers/app.ts'
import { buildApp } from '../../api/app.ts'
import { buildOpenApi } from '../../api/openapi/document.ts'
import { loadConfig } from '../../sql/config.ts'
import { axis, cosine, insertResume, okSchema, planar, seedPostings, setJobVectors, undocumented } from './vector-fixtures.ts'

type Ctx = TestApp & { ids: Map<string, string>; vectors: Map<string, number[]> }
const test = anyTest as TestFn<Ctx>

const plain = (text: string) => `<p>${text}. Friendly team.</p>`
const acme = { name: 'Vector Acme', size_range: '51-200', industries: ['Finance'], subindustries: ['Banking'] }

/** title → [similarity to axis 0, posting fields] */
const fixture: [string, number, Record<string, unknown>][] = [
  ['Vector Echo Expired Engineer', 0.99, { location_raw: 'Berlin, Germany', company: acme }],
  ['Vector Alpha Backend Engineer', 0.95, {
    location_raw: 'Berlin, Germany', salary_range: { min: 70000, max: 90000, currency: 'EUR', period: 'yearly' }, yoe_range: { min: 3, max: 5 },
    experience_level: 'Senior', job_type: 'Full Time', date_posted: '2026-11-01', job_board: 'Greenhouse', company: acme,
  }],
  ['Vector Bravo Data Scientist', 0.9, {
    location_raw: 'Austin, TX', salary_range: { min: 120000, max: 150000, currency: 'USD', period: 'yearly' }, yoe_range: { min: 5, max: 8 },
    experience_level: 'Mid', job_type: 'Part Time', visa_sponsored: true, date_posted: '2026-11-10', job_board: 'Lever',
    company: { name: 'Vector Beta Health', size_range: '10000+', industries: ['Healthcare'], subindustries: ['Biotechnology'] },
  }],
  ['Vector Charlie Nurse', 0.85, { location_raw: 'Munich, Germany', salary_range: undefined, job_type: 'Contract', experience_level: 'Junior', date_posted: '2026-10-15', company: acme }],
  ['Vector Delta Designer', 0.8, {
    location_raw: 'Remote - US', location_type: 'Remote', job_type: 'Internship', yoe_range: { min: 0, max: 1 }, experience_level: 'Entry',
    date_posted: '2026-11-15', salary_range: { min: 20, max: 25, currency: 'USD', period: 'hourly' },
    company: { name: 'Vector Delta Design', size_range: '11-50', industries: ['Design'], subindustries: ['Architecture'] },
  }],
  ...[0.6, 0.55, 0.5, 0.45, 0.4, 0.35].map((sim, i): [string, number, Record<string, unknown>] => [
    `Vector Filler ${i + 1}`, sim, { location_raw: 'Paris, France', date_posted: '2026-09-01', experience_level: 'Senior', company: { name: 'Vector Filler Co' } },
  ]),
]
const live = fixture.map(([title]) => title).filter((t) => !t.includes('Expired'))

const generous = { limit: 100_000, windowSeconds: 60 }

test.before(async (t) => {
  const app = await startTestApp({ config: { rateLimits: { key: generous, search: generous, anonymous: generous } } })
  await app.db.sql`update accounts set plan = 'scale' where id = ${app.accountId}`
  const ids = await seedPostings(
    app.db.sql,
    fixture.map(([job_title, , fields]) => ({ job_title, description: plain(job_title), ...fields })),
    'vsearch-test',
  )
  const vectors = new Map(fixture.map(([title, sim]) => [title, planar(sim)]))
  await setJobVectors(app.db.sql, [...vectors].map(([title, v]) => [ids.get(title)!, v]))
  await app.db.sql`update jobs set expired = true, date_expired = '2026-11-19', expired_at = now() where id = ${ids.get('Vector Echo Expired Engineer')!}`
  Object.assign(t.context, app, { ids, vectors })
})
test.after.always(async (t) => {
  await t.context?.close?.()
})

type Job = { _id: string; job_title: string; score: number; expired: boolean; description_raw?: string }
type Page = { jobs: Job[]; total_count: number; company_count: number; page: number; limit: number; total_pages: number; offset: number }

async function vsearch(t: { context: Ctx }, body: unknown, headers?: Record<string, string>) {
  const res = await t.context.post('/v2/jobs/vsearch', body, headers)
  const json = await res.json()
  return { res, status: res.status, body: json as Page & { detail: unknown }, titles: ((json.jobs ?? []) as Job[]).map((j) => j.job_title) }
}

/** A resume of the account with this vector. */
const resume = (t: { context: Ctx }, accountId: string, vector: number[] | null) => insertResume(t.context.db.sql, accountId, vector)

const fromJob = (t: { context: Ctx }, title: string, extra: object = {}) => ({ search_type: 'job', job_id: t.context.ids.get(title), score: 0.2, top_k: 50, ...extra })

// --- search types --------------------------------------------------------------------------

test('search_type job: nearest first by cosine similarity, the job itself and expired jobs left out', async (t) => {
  const { status, body, titles } = await vsearch(t, fromJob(t, 'Vector Alpha Backend Engineer'))
  t.is(status, 200)
  t.deepEqual(titles, live.filter((x) => x !== 'Vector Alpha Backend Engineer'))
  const query = t.context.vectors.get('Vector Alpha Backend Engineer')!
  for (const job of body.jobs) {
    t.true(Math.abs(job.score - cosine(query, t.context.vectors.get(job.job_title)!)) < 1e-5, job.job_title)
    t.false(job.expired)
  }
  t.is(body.total_count, live.length - 1)
  t.is(body.company_count, 4)
  t.like(body, { page: 1, limit: 50, total_pages: 1, offset: 0 })
  const doc = buildOpenApi()
  t.deepEqual(undocumented(doc, okSchema(doc, '/v2/jobs/vsearch'), body), [], 'the body is the documented one')
  t.deepEqual(undocumented(doc, okSchema(doc, '/v2/jobs/vsearch'), { ...body, jobs: [{ ...body.jobs[0], extra: 1 }] }), ['$.jobs[0].extra is not documented'])
  const raw = await vsearch(t, fromJob(t, 'Vector Alpha Backend Engineer', { top_k: 2, return_raw_description: 'true' }))
  t.is(typeof raw.body.jobs[0].description_raw, 'string')
  t.deepEqual(undocumented(doc, okSchema(doc, '/v2/jobs/vsearch'), raw.body), [])
})

test('search_type summary: the query embedded by the server\'s model', async (t) => {
  const embedder = testEmbedder()
  const jobs = ['Senior backend engineer: Python, PostgreSQL, REST APIs', 'Registered nurse, night shift, cardiology ward', 'Pastry chef for a French bakery']
  const titles = jobs.map((text) => `Vector Semantic ${text.split(/[:,]/)[0]}`)
  const company = { name: 'Vector Semantic Co' }
  const ids = await seedPostings(t.context.db.sql, titles.map((job_title, i) => ({ job_title, description: `<p>${jobs[i]}</p>`, company })), 'vsearch-semantic')
  const vectors = await embedder.embed(jobs)
  await setJobVectors(t.context.db.sql, titles.map((title, i): [string, number[]] => [ids.get(title)!, vectors[i]]))
  const query = 'software developer, python, backend'
  const { status, body, titles: found } = await vsearch(t, { query, company_name: company.name })
  t.is(status, 200)
  t.is(found[0], 'Vector Semantic Senior backend engineer')
  const [q] = await embedder.embed([query])
  for (const job of body.jobs) t.true(Math.abs(job.score - cosine(q, vectors[titles.indexOf(job.job_title)])) < 1e-4, job.job_title)
  t.deepEqual((await vsearch(t, { search_type: 'summary', query: 'nurse for a hospital', company_name: company.name })).titles[0], 'Vector Semantic Registered nurse')
})

/** The app on the same database with another embedder (none: undefined); no second database to start. */
async function appWith(t: { context: Ctx }, embedder: Embedder | undefined) {
  const config = { ...loadConfig(), rateLimits: { key: generous, search: generous, anonymous: generous } }
  const app = buildApp({ sql: t.context.db.sql, config, log: pino({ level: 'silent' }), embedder })
  const server = app.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  // a key of its own: the first app's admission holds claims on its key's rate-limit window
  const { key } = await createAccountWithKey(t.context.db.sql)
  return {
    post: (path: string, body: unknown) =>
      fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify(body) }),
    close: async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
      await app.context.admission!.close()
    },
  }
}

test('a query\'s words in a title count in the ranking: cosine + 0.5 × the (rarity-weighted) share of the words; score stays the cosine', async (t) => {
  // a model that puts every query on axis 5; these jobs sit in the plane of axes 5 and 6,
  // orthogonal to the shared fixtures on axis 0, so tests running alongside never see them
  const onAxis: Embedder = { info: testEmbedder().info, embed: async (texts) => texts.map(() => axis(5)), close: async () => {} }
  const company = { name: 'Vector Words Co' }
  const jobs: [string, number][] = [
    ['Vector Words Software Engineer', 0.8],
    ['Vector Words Product Manager', 0.6], // 0.6 + 0.5 × 1 = 1.1
    ['Vector Words Product Owner', 0.1], // 0.1 + 0.5 × the share of "product" (about 1/2 before the table is analyzed): far from the query, still found by its title
    ['Vector Words Nurse', 0.45],
    ...Array.from({ length: 12 }, (_, i): [string, number] => [`Vector Words Filler ${i}`, 0.5 - i * 0.01]),
  ]
  const ids = await seedPostings(t.context.db.sql, jobs.map(([job_title]) => ({ job_title, description: plain(job_title), company })), 'vsearch-words')
  await setJobVectors(t.context.db.sql, jobs.map(([title, sim]): [string, number[]] => [ids.get(title)!, planar(sim, 5, 6)]))
  const app = await appWith(t, onAxis)
  try {
    const res = await app.post('/v2/jobs/vsearch', { query: 'product manager', company_name: company.name, top_k: 20, limit: 20 })
    t.is(res.status, 200)
    const body = (await res.json()) as Page
    const titles = body.jobs.map((j) => j.job_title)
    t.deepEqual(titles.slice(0, 3), ['Vector Words Product Manager', 'Vector Words Software Engineer', 'Vector Words Filler 0'])
    t.true(Math.abs(body.jobs[0].score - 0.6) < 1e-5, 'the cosine similarity')
    t.true(titles.indexOf('Vector Words Product Owner') > titles.indexOf('Vector Words Nurse'), 'the owner (about 0.35) below the nurse (0.45)')
    t.is(titles.length, jobs.length)
    // stop words count for nothing: "the" and "for" change no title's share
    const stop = (await (await app.post('/v2/jobs/vsearch', { query: 'the product manager for', company_name: company.name, top_k: 3 })).json()) as Page
    t.deepEqual(stop.jobs.map((j) => j.job_title), titles.slice(0, 3))
    // neural-search's vector list ranks alike
    const neural = await app.post('/v2/jobs/neural-search', { vector: { query: 'product manager' }, lexical: { company_name: company.name }, limit: 3 })
    t.deepEqual(((await neural.json()) as Page).jobs.map((j) => j.job_title), titles.slice(0, 3))
    // a job's own vector has no words: similarity alone
    const similar = await vsearch(t, { search_type: 'job', job_id: ids.get('Vector Words Software Engineer'), company_name: company.name, top_k: 2 })
    t.deepEqual(similar.titles, ['Vector Words Product Manager', 'Vector Words Filler 0'])
  } finally {
    await app.close()
  }
})

test('a query to embed without an embedding model is a 503; a failing model too; stored vectors still search', async (t) => {
  const failing: Embedder = {
    info: { provider: 'openai', model_name: 'unreachable', model_version: '1' },
    embed: async () => {
      throw new EmbedderUnavailable('the embeddings endpoint is unreachable')
    },
    close: async () => {},
  }
  const alpha = t.context.ids.get('Vector Alpha Backend Engineer')
  for (const [embedder, detail] of [
    [undefined, 'The embedding model is unavailable (none is configured); search with stored vectors (job_id, artifact_id, vectors) or retry later'],
    [failing, 'The embedding model is unavailable (the embeddings endpoint is unreachable); search with stored vectors (job_id, artifact_id, vectors) or retry later'],
  ] as const) {
    const app = await appWith(t, embedder)
    try {
      const res = await app.post('/v2/jobs/vsearch', { query: 'backend engineer' })
      const got = await res.json()
      t.is(res.status, 503, JSON.stringify(got))
      t.deepEqual(got, { detail })
      const neural = await app.post('/v2/jobs/neural-search', { vector: { query: 'backend engineer' } })
      t.is(neural.status, 503)
      const stored = await app.post('/v2/jobs/vsearch', { search_type: 'job', job_id: alpha, score: 0.2 })
      t.is(stored.status, 200, 'searches from stored vectors do not need the model')
      t.is((await stored.json()).jobs[0].job_title, 'Vector Bravo Data Scientist')
    } finally {
      await app.close()
    }
  }
})

test('search_type resume: the account\'s stored resume vector; another account\'s resume is unknown (400)', async (t) => {
  const id = await resume(t, t.context.accountId, axis(0))
  const { status, body, titles } = await vsearch(t, { search_type: 'resume', artifact_id: id, top_k: 3 })
  t.is(status, 200)
  t.deepEqual(titles, live.slice(0, 3))
  t.true(Math.abs(body.jobs[0].score - 0.95) < 1e-5)

  const other = await createAccountWithKey(t.context.db.sql)
  const theirs = await resume(t, other.accountId, axis(0))
  const denied = await vsearch(t, { search_type: 'resume', artifact_id: theirs })
  t.is(denied.status, 400)
  t.deepEqual(denied.body, { detail: `Unknown artifact_id: ${theirs}` })
  for (const unknown of [randomUUID(), 'not-a-uuid']) {
    const res = await vsearch(t, { search_type: 'resume', artifact_id: unknown })
    t.is(res.status, 400, unknown)
    t.deepEqual(res.body, { detail: `Unknown artifact_id: ${unknown}` })
  }
})

test('a resume or job without a vector yet is a 409 that says to run make embed', async (t) => {
  const id = await resume(t, t.context.accountId, null)
  const res = await vsearch(t, { search_type: 'resume', artifact_id: id })
  t.is(res.status, 409)
  t.deepEqual(res.body, { detail: `resume ${id} has no embedding yet: it was parsed without an embedding model; an operator gives it one with make embed, or upload it again` })

  const ids = await seedPostings(t.context.db.sql, [{ job_title: 'Vector Unembedded Job', description: plain('x') }], 'vsearch-unembedded')
  const job = await vsearch(t, { search_type: 'job', job_id: ids.get('Vector Unembedded Job') })
  t.is(job.status, 409)
  t.regex(String(job.body.detail), /^job \d+ has no embedding yet: run make embed$/)
})

// --- models ---------------------------------------------------------------------------------

test('a query vector is compared only with its own model\'s vectors; none of them stored is a 409 naming the models', async (t) => {
  const { db, accountId } = t.context
  const other = await modelId(db.sql, { provider: 'transformers', model_name: 'other-model', model_version: '2' })
  const absent = await modelId(db.sql, { provider: 'openai', model_name: 'absent-model', model_version: '3' })
  // one job whose vector the other model made: axis 0 exactly, closer than any fixture job
  const ids = await seedPostings(db.sql, [{ job_title: 'Vector Other Model Job', description: '<p>x</p>' }], 'vsearch-other-model')
  await setJobVectors(db.sql, [[ids.get('Vector Other Model Job')!, axis(0)]], other)

  const ofModel = async (model: number) => {
    const id = await resume(t, accountId, axis(0))
    await db.sql`update resumes set embedding_model = ${model} where id = ${id}`
    return vsearch(t, { search_type: 'resume', artifact_id: id, top_k: 50 })
  }
  const fixtures = await vsearch(t, { search_type: 'resume', artifact_id: await resume(t, accountId, axis(0)), top_k: 50 })
  t.false(fixtures.titles.includes('Vector Other Model Job'), 'never compared with another model\'s vector')
  t.deepEqual((await ofModel(other)).titles, ['Vector Other Model Job'])

  const mismatch = await ofModel(absent)
  t.is(mismatch.status, 409)
  t.regex(
    String(mismatch.body.detail),
    /^No job has a vector of the query's model \(openai absent-model 3\); the stored vectors are from use universal-sentence-encoder-lite use-lite-\S+ \(\d+ jobs\), transformers other-model 2 \(1 jobs\)\. Run make embed to re-embed the jobs with the query's model$/,
  )
  // filters that leave nothing are an empty answer, not a 409
  const filtered = await vsearch(t, { search_type: 'resume', artifact_id: await resume(t, accountId, axis(0)), company_name: 'Nobody' })
  t.is(filtered.status, 200)
  t.is(filtered.body.total_count, 0)

  const unknown = await resume(t, accountId, axis(0))
  await db.sql`update resumes set embedding_model = null where id = ${unknown}`
  const res = await vsearch(t, { search_type: 'resume', artifact_id: unknown })
  t.is(res.status, 409)
  t.deepEqual(res.body, { detail: `resume ${unknown} has a vector of an unknown model: run make embed to re-embed it` })
})

// --- 400s and 422s -------------------------------------------------------------------------

test('an invalid search_type, or a search_type without its field, is a 400; an unknown job_id too', async (t) => {
  const cases: [unknown, string][] = [
    [{ search_type: 'semantic', query: 'x' }, 'Invalid search_type: semantic. Use summary, job or resume'],
    [{ search_type: '' }, 'Invalid search_type: . Use summary, job or resume'],
    [{}, 'query is required when search_type is summary'],
    [{ search_type: 'summary', query: '   ' }, 'query is required when search_type is summary'],
    [{ search_type: 'job' }, 'job_id is required when search_type is job'],
    [{ search_type: 'resume', query: 'x' }, 'artifact_id is required when search_type is resume'],
    [{ search_type: 'job', job_id: '999999999' }, 'Unknown job_id: 999999999'],
    [{ search_type: 'job', job_id: 'abc' }, 'Unknown job_id: abc'],
  ]
  for (const [body, detail] of cases) {
    const res = await vsearch(t, body)
    t.is(res.status, 400, JSON.stringify(body))
    t.deepEqual(res.body, { detail }, JSON.stringify(body))
  }
})

test('malformed fields are 422s with one item each, in the spec\'s shape', async (t) => {
  const cases: [unknown, { type: string; loc: (string | number)[] }][] = [
    [{ search_type: 1 }, { type: 'string_type', loc: ['body', 'search_type'] }],
    [{ top_k: 0 }, { type: 'greater_than_equal', loc: ['body', 'top_k'] }],
    [{ top_k: 1001 }, { type: 'less_than_equal', loc: ['body', 'top_k'] }],
    [{ top_k: 2.5 }, { type: 'int_type', loc: ['body', 'top_k'] }],
    [{ score: 1.5 }, { type: 'less_than_equal', loc: ['body', 'score'] }],
    [{ limit: 101 }, { type: 'less_than_equal', loc: ['body', 'limit'] }],
    [{ page: 2, offset: 10 }, { type: 'value_error', loc: ['body', 'offset'] }],
    [{ visa_sponsored: true }, { type: 'string_type', loc: ['body', 'visa_sponsored'] }],
    [{ accuracy: 'max' }, { type: 'enum', loc: ['body', 'accuracy'] }],
    [{ salary_from: 10, salary_to: 5 }, { type: 'value_error', loc: ['body', 'salary_to'] }],
    [{ years_from: 101 }, { type: 'less_than_equal', loc: ['body', 'years_from'] }],
    [{ locations: [{ country: 'Germany' }] }, { type: 'dict_type', loc: ['body', 'locations'] }],
    [{ locations: {} }, { type: 'value_error', loc: ['body', 'locations'] }],
    [{ industries: ['Basket Weaving'] }, { type: 'value_error', loc: ['body', 'industries'] }],
    [{ date_posted: '2026-02-31' }, { type: 'date_parsing', loc: ['body', 'date_posted'] }],
    [{ job_types: ['Gig'] }, { type: 'enum', loc: ['body', 'job_types'] }],
  ]
  for (const [body, item] of cases) {
    const res = await vsearch(t, { search_type: 'job', job_id: t.context.ids.get('Vector Alpha Backend Engineer'), ...(body as object) })
    t.is(res.status, 422, JSON.stringify(body))
    const detail = res.body.detail as { type: string; loc: (string | number)[]; msg: string }[]
    t.is(detail.length, 1, JSON.stringify(detail))
    t.like(detail[0], item, JSON.stringify(body))
    t.is(typeof detail[0].msg, 'string')
  }
})

// --- filters -------------------------------------------------------------------------------

test('every filter narrows the results', async (t) => {
  const { db, ids } = t.context
  const [beta] = await db.sql<{ slug: string }[]>`select slug from companies where name = 'Vector Beta Health'`
  const [alpha] = await db.sql<{ job_slug: string; job_categories: string[] }[]>`
    select job_slug, job_categories from jobs where id = ${ids.get('Vector Alpha Backend Engineer')!}`
  const category = alpha.job_categories[0]
  const inCategory = await db.sql<{ job_title: string }[]>`
    select job_title from jobs where job_title = any(${live}) and ${category} = any(job_categories)`
  const cases: [object, string[]][] = [
    [{ industries: ['Healthcare'] }, ['Vector Bravo Data Scientist']],
    [{ industries: 'Healthcare' }, ['Vector Bravo Data Scientist']],
    [{ subindustries: ['Architecture'] }, ['Vector Delta Designer']],
    [{ job_title: 'vector bravo DATA scientist' }, ['Vector Bravo Data Scientist']],
    [{ job_types: ['Part Time'] }, ['Vector Bravo Data Scientist']],
    [{ job_types: ['Contract'] }, ['Vector Charlie Nurse']],
    [{ experience: ['Entry', 'Junior'] }, ['Vector Charlie Nurse', 'Vector Delta Designer']],
    [{ company_types: ['10000+'] }, ['Vector Bravo Data Scientist']],
    [{ job_categories: [category] }, live.filter((x) => inCategory.some((r) => r.job_title === x))],
    [{ job_slug: alpha.job_slug }, ['Vector Alpha Backend Engineer']],
    [{ job_board: ['Lever'] }, ['Vector Bravo Data Scientist']],
    [{ company_name: 'vector acme' }, ['Vector Alpha Backend Engineer', 'Vector Charlie Nurse']],
    [{ company_slug: beta.slug }, ['Vector Bravo Data Scientist']],
    [{ locations: { country: 'Germany' } }, ['Vector Alpha Backend Engineer', 'Vector Charlie Nurse']],
    [{ locations: { city: 'Austin', region: 'TX' } }, ['Vector Bravo Data Scientist']],
    [{ date_posted: '2026-11-10' }, ['Vector Bravo Data Scientist', 'Vector Delta Designer']],
    [{ visa_sponsored: 'true' }, ['Vector Bravo Data Scientist']],
    [{ salary_from: 100000 }, ['Vector Bravo Data Scientist']],
    [{ salary_to: 60000 }, ['Vector Delta Designer']],
    [{ salary_from: 60000, salary_to: 95000 }, live.filter((x) => !['Vector Bravo Data Scientist', 'Vector Charlie Nurse', 'Vector Delta Designer'].includes(x))],
    [{ years_from: 6 }, ['Vector Bravo Data Scientist']],
    [{ years_to: 2 }, ['Vector Delta Designer']],
    [{ years_from: 4, years_to: 6 }, ['Vector Alpha Backend Engineer', 'Vector Bravo Data Scientist']],
    [{ company_name: 'Vector Acme', job_types: ['Contract'] }, ['Vector Charlie Nurse']],
    // the singular job_type is not vsearch's field: ignored
    [{ job_type: ['Part Time'] }, live],
  ]
  for (const [filter, expected] of cases) {
    t.true(expected.length > 0, JSON.stringify(filter))
    const { status, titles } = await vsearch(t, { search_type: 'resume', artifact_id: await resume(t, t.context.accountId, axis(0)), score: 0.2, top_k: 50, ...filter })
    t.is(status, 200, JSON.stringify(filter))
    t.deepEqual(titles, expected, JSON.stringify(filter))
  }
  t.true(inCategory.length < live.length, 'the category filter has something to leave out')
})

test('visa_sponsored false keeps the jobs that do not sponsor', async (t) => {
  const { titles } = await vsearch(t, fromJob(t, 'Vector Delta Designer', { visa_sponsored: 'false' }))
  const query = t.context.vectors.get('Vector Delta Designer')!
  const nearest = live
    .filter((x) => x !== 'Vector Delta Designer' && x !== 'Vector Bravo Data Scientist')
    .sort((a, b) => cosine(query, t.context.vectors.get(b)!) - cosine(query, t.context.vectors.get(a)!))
  t.deepEqual(titles, nearest)
})

// --- result set, score, paging ------------------------------------------------------------

test('top_k bounds the result set; score is the minimum similarity', async (t) => {
  const id = await resume(t, t.context.accountId, axis(0))
  const top = await vsearch(t, { search_type: 'resume', artifact_id: id, top_k: 3 })
  t.deepEqual(top.titles, live.slice(0, 3))
  t.like(top.body, { total_count: 3, limit: 3, page: 1, total_pages: 1, company_count: 2 })
  const scored = await vsearch(t, { search_type: 'resume', artifact_id: id, score: 0.84, top_k: 50 })
  t.deepEqual(scored.titles, ['Vector Alpha Backend Engineer', 'Vector Bravo Data Scientist', 'Vector Charlie Nurse'])
  t.is(scored.body.total_count, 3)
  const none = await vsearch(t, { search_type: 'resume', artifact_id: id, score: 0.999 })
  const { meta, ...page } = none.body as typeof none.body & { meta: { jobs_without_vector: number } }
  t.deepEqual(page, { jobs: [], total_count: 0, company_count: 0, page: 1, limit: 10, total_pages: 0, offset: 0 })
  t.true(Number.isInteger(meta.jobs_without_vector), 'how many live jobs wait for a vector')
})

test('paging within top_k: page with limit, or offset with limit, stable and without overlap', async (t) => {
  const id = await resume(t, t.context.accountId, axis(0))
  const base = { search_type: 'resume', artifact_id: id, top_k: 7 }
  const all = (await vsearch(t, { ...base, limit: 7 })).titles
  t.deepEqual(all, live.slice(0, 7))
  const pages = [1, 2, 3, 4].map((page) => vsearch(t, { ...base, limit: 2, page }))
  const got = await Promise.all(pages)
  t.deepEqual(got.map((p) => p.titles), [all.slice(0, 2), all.slice(2, 4), all.slice(4, 6), all.slice(6)])
  for (const [i, p] of got.entries()) t.like(p.body, { total_count: 7, page: i + 1, limit: 2, total_pages: 4, offset: i * 2 })
  const byOffset = await vsearch(t, { ...base, offset: 3, limit: 3 })
  t.deepEqual(byOffset.titles, all.slice(3, 6))
  t.like(byOffset.body, { offset: 3, page: 2, limit: 3 })
  const past = await vsearch(t, { ...base, page: 5, limit: 2 })
  t.deepEqual(past.body.jobs, [])
  t.is(past.body.total_count, 7)
})

test('each accuracy gives the exact order on a small table', async (t) => {
  for (const accuracy of ['low', 'medium', 'high']) {
    const { status, titles } = await vsearch(t, fromJob(t, 'Vector Filler 1', { accuracy }))
    t.is(status, 200, accuracy)
    t.deepEqual(titles.slice(0, 3), ['Vector Filler 2', 'Vector Filler 3', 'Vector Filler 4'], accuracy)
  }
})

// --- billing ----------------------------------------------------------------------------------

test('billing: 1 unit per job returned, in the usage headers', async (t) => {
  const { accountId, key } = await createAccountWithKey(t.context.db.sql)
  const id = await resume(t, accountId, axis(0))
  const headers = { 'x-api-key': key }
  const first = await vsearch(t, { search_type: 'resume', artifact_id: id, top_k: 4 }, headers)
  t.is(first.status, 200)
  t.is(first.body.jobs.length, 4)
  t.is(first.res.headers.get('platform-usage-meter'), 'm_jobs_api_calls')
  t.is(first.res.headers.get('platform-usage-total-used'), '4')
  const second = await vsearch(t, { search_type: 'resume', artifact_id: id, top_k: 50, score: 0.84 }, headers)
  t.is(second.body.jobs.length, 3)
  t.is(second.res.headers.get('platform-usage-total-used'), '7')
  const empty = await vsearch(t, { search_type: 'resume', artifact_id: id, score: 0.999 }, headers)
  t.is(empty.res.headers.get('platform-usage-total-used'), '7')
  const refused = await vsearch(t, { search_type: 'nope' }, headers)
  t.is(refused.status, 400)
  const after = await vsearch(t, { search_type: 'resume', artifact_id: id, top_k: 1 }, headers)
  t.is(after.res.headers.get('platform-usage-total-used'), '8', 'a 400 costs nothing')
})

test('quota: the reservation is min(limit, top_k); past it a 429 limit_exceeded that names what remains', async (t) => {
  const { db } = t.context
  const { accountId, key } = await createAccountWithKey(db.sql, 'free')
  const headers = { 'x-api-key': key }
  const id = await resume(t, accountId, axis(0))
  // all but 5 of the free plan's 500 jobs
  await spend(db.sql, accountId, 'm_jobs_api_calls', 495)
  await t.context.sync()
  const refused = await vsearch(t, { search_type: 'resume', artifact_id: id, top_k: 10 }, headers)
  t.is(refused.status, 429)
  t.is(refused.res.headers.get('x-billing-code'), 'limit_exceeded')
  t.regex(String(refused.body.detail), /5 remain, but this request could use up to 10\. Lower limit to 5/)
  t.is((await vsearch(t, { search_type: 'resume', artifact_id: id, top_k: 50, limit: 5 }, headers)).status, 200, 'limit within the remainder')
  const neural = await t.context.post('/v2/jobs/neural-search', { vector: { artifact_id: id }, lexical: { limit: 10 } }, headers)
  t.is(neural.status, 429)
  t.regex((await neural.json()).detail, /could use up to 10/)
})

test('no key is a 401', async (t) => {
  const res = await vsearch(t, { query: 'x' }, {})
  t.is(res.status, 401)
  t.deepEqual(res.body, { detail: 'Missing authorization header' })
})
