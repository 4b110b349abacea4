/**
 * POST /v2/platform/companies/search: each filter, ranking (relevance, then live
 * postings), typos, every status and detail shape (400 limit, LinkedIn URL and unsafe
 * strings, 422, 401, both 429s), billing per company, the Bearer header, the meters'
 * independence, and company_types as ingest derives them.
 *
 * Each test makes its own companies, named with a random tag that its searches
 * include, so the tests of this file run side by side on one database.
 */
import anyTest, { type TestFn } from 'ava'
import pino from 'pino'
import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { buildApp } from '../../api/app.ts'
import { ingestCompanies, type CompanyItem } from '../../ingest/companies.ts'
import { ingest } from '../../ingest/pipeline.ts'
import { loadConfig } from '../../sql/config.ts'
import { expireJobs } from '../../sql/expiry.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { createAccountWithKey, rawPosting, readItems } from '../helpers/factories.ts'
import { spend, usage } from '../billing/fixtures.ts'

const test = anyTest as TestFn<TestApp>
const roomy = { limit: 1_000_000, windowSeconds: 60 }

test.before(async (t) => {
  Object.assign(t.context, await startTestApp({ embedder: null, config: { rateLimits: { key: roomy, search: roomy, anonymous: roomy } } }))
})
test.after.always(async (t) => {
  await t.context?.close?.()
})

const SEARCH = '/v2/platform/companies/search'
const tagOf = () => `zq${randomBytes(4).toString('hex')}`

type Hit = { company_slug: string; company_name: string; live_jobs: number; score: number; company_types: string[] } & Record<string, unknown>

/** A scale-plan key (200,000 companies): searches that are not about the quota never meet it. */
async function roomyKey(t: { context: TestApp }) {
  return (await createAccountWithKey(t.context.db.sql, 'scale')).key
}

async function search(t: { context: TestApp }, body: unknown, key?: string) {
  const res = await t.context.post(SEARCH, body, { 'x-api-key': key ?? (await roomyKey(t)) })
  const json = await res.json()
  return { res, json, slugs: ((json.companies ?? []) as Hit[]).map((c) => c.company_slug) }
}

/** `n` postings of a company, through the ingest pipeline; `each` overrides fields of posting i. */
async function postings(t: { context: TestApp }, company: Record<string, unknown>, n: number, each: (i: number) => Record<string, unknown> = () => ({})) {
  const rows = Array.from({ length: n }, (_, i) => rawPosting({ company, ...each(i) }))
  const s = await ingest(t.context.db.sql, readItems(rows), { source: 'company-search-test' })
  if (s.rejected) throw new Error(JSON.stringify(s.reject_reasons))
}

/** Company profiles, as make ingest-companies reads them. */
async function profiles(t: { context: TestApp }, records: Record<string, unknown>[]) {
  async function* items(): AsyncIterable<CompanyItem> {
    let line = 0
    for (const company of records) yield { line: ++line, company }
  }
  const s = await ingestCompanies(t.context.db.sql, items())
  if (s.rejected) throw new Error('a profile was rejected')
}

const slugOf = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')

// --- the response and billing ------------------------------------------------------------

test('the response: company profiles with company_types, live_jobs and score, the page envelope; 1 unit per company returned', async (t) => {
  const tag = tagOf()
  for (const [i, n] of [[1, 1], [2, 2], [3, 1]]) await postings(t, { name: `Envelope ${tag} ${i}`, description_summary: `We do ${tag} things` }, n)
  const { key } = await createAccountWithKey(t.context.db.sql, 'free')
  const { res, json } = await search(t, { query: tag, limit: 2 }, key)
  t.is(res.status, 200)
  t.deepEqual(Object.keys(json).sort(), ['companies', 'limit', 'page', 'total_count', 'total_pages'])
  t.like(json, { total_count: 3, page: 1, limit: 2, total_pages: 2 })
  t.is(json.companies.length, 2)
  for (const c of json.companies as Hit[]) {
    for (const field of ['company_slug', 'company_name', 'company_logo', 'job_board', 'linkedin_link', 'company_link', 'description_summary', 'size_range', 'industries', 'subindustries', 'company_types']) {
      t.true(field in c, field)
    }
    t.true(Array.isArray(c.company_types))
    t.true(typeof c.score === 'number' && c.score > 0)
  }
  t.like(usage(res), { meter: 'm_company_api_calls', unit: 'companies', 'included-limit': '50', 'included-used': '2', 'total-used': '2' })
  const page2 = await t.context.post(SEARCH, { query: tag, limit: 2, page: 2 }, { 'x-api-key': key })
  t.is((await page2.json()).companies.length, 1)
  t.is(usage(page2)['total-used'], '3', 'billed what the page returned, not the limit')
  const none = await t.context.post(SEARCH, { query: `${tag}nothing` }, { 'x-api-key': key })
  t.like(await none.json(), { companies: [], total_count: 0, total_pages: 0 })
  t.is(usage(none)['total-used'], '3', 'an empty page costs nothing')
})

test('GET /v2/platform/companies/{slug} shows company_types', async (t) => {
  const tag = tagOf()
  const name = `Profile Types ${tag}`
  await profiles(t, [{ title: name, slug: slugOf(name), remote_policy: 'fully-remote', company_size: 'enterprise', sections: {} }])
  const res = await t.context.get(`/v2/platform/companies/${slugOf(name)}`, { 'x-api-key': await roomyKey(t) })
  t.is(res.status, 200)
  t.deepEqual((await res.json()).company.company_types, ['Enterprise', 'Remote-first'])
})

// --- authentication --------------------------------------------------------------------

test('Authorization: Bearer <api key> works like x-api-key; no key or a bad one is a 401', async (t) => {
  const tag = tagOf()
  await postings(t, { name: `Bearer ${tag}` }, 1)
  const key = await roomyKey(t)
  const bearer = await t.context.post(SEARCH, { query: tag }, { authorization: `Bearer ${key}` })
  t.is(bearer.status, 200)
  t.is((await bearer.json()).total_count, 1)
  t.is(usage(bearer)['total-used'], '1', 'billed to the bearer key\'s account')

  const cases: [Record<string, string>, string][] = [
    [{}, 'Missing authorization header'],
    [{ authorization: `Basic ${key}` }, 'Missing authorization header'],
    [{ authorization: 'Bearer not-a-key' }, 'Invalid or revoked API key'],
    [{ 'x-api-key': 'not-a-key' }, 'Invalid or revoked API key'],
  ]
  for (const [headers, detail] of cases) {
    const res = await t.context.post(SEARCH, { query: tag }, headers)
    t.is(res.status, 401, JSON.stringify(headers))
    t.deepEqual(await res.json(), { detail })
  }
  // only this route reads the key from Authorization
  t.is((await t.context.post('/v2/jobs/search', {}, { authorization: `Bearer ${key}` })).status, 401)
})

// --- 400s and 422s -------------------------------------------------------------------------

test('limit above 100 is a 400 with a string detail; 100 is fine; other bad numbers are 422s', async (t) => {
  const key = await roomyKey(t)
  const over = await t.context.post(SEARCH, { limit: 101 }, { 'x-api-key': key })
  t.is(over.status, 400)
  t.deepEqual(await over.json(), { detail: 'limit must be at most 100 (got 101)' })
  t.is(over.headers.get('platform-usage-total-used'), null, 'nothing charged')
  t.is((await t.context.post(SEARCH, { limit: 100 }, { 'x-api-key': key })).status, 200)
  for (const body of [{ limit: 0 }, { limit: 2.5 }, { limit: '10' }, { page: 0 }, { page: 200, limit: 100 }]) {
    const res = await t.context.post(SEARCH, body, { 'x-api-key': key })
    t.is(res.status, 422, JSON.stringify(body))
    const { detail } = await res.json()
    t.true(Array.isArray(detail) && detail.every((i: { loc: unknown[] }) => i.loc[0] === 'body'))
  }
})

test('linkedin_url: a LinkedIn company URL or a 400; matches with or without www, a trailing slash or a query string', async (t) => {
  const tag = tagOf()
  await postings(t, { name: `Linked ${tag}`, linkedin_link: `https://www.linkedin.com/company/linked-${tag}/` }, 1)
  await postings(t, { name: `Linked Other ${tag}`, linkedin_link: `https://www.linkedin.com/company/linked-${tag}-other` }, 1)
  const key = await roomyKey(t)
  for (const url of [
    `https://www.linkedin.com/company/linked-${tag}`, `https://linkedin.com/company/linked-${tag}/`,
    `https://www.linkedin.com/company/Linked-${tag.toUpperCase()}?trk=abc`, `https://www.linkedin.com/company/linked-${tag}/about/`,
  ]) {
    const { res, slugs } = await search(t, { linkedin_url: url }, key)
    t.is(res.status, 200, url)
    t.deepEqual(slugs, [`linked-${tag}`], url)
  }
  for (const url of [
    `http://www.linkedin.com/company/linked-${tag}`, `https://example.com/company/linked-${tag}`, `https://www.linkedin.com/in/linked-${tag}`,
    'https://www.linkedin.com/company/', 'https://www.linkedin.com/company/?x=1', `www.linkedin.com/company/linked-${tag}`, `https://evil.example/https://linkedin.com/company/x`,
  ]) {
    const res = await t.context.post(SEARCH, { linkedin_url: url }, { 'x-api-key': key })
    t.is(res.status, 400, url)
    const body = await res.json()
    t.deepEqual(Object.keys(body), ['detail'])
    t.regex(body.detail, /^linkedin_url must be a LinkedIn company URL starting with https:\/\/www\.linkedin\.com\/company\/ or https:\/\/linkedin\.com\/company\//)
  }
})

test('unsafe strings are 400s with a string detail, in any field, and cost nothing', async (t) => {
  const key = await roomyKey(t)
  const cases: [string, string | RegExp][] = [
    ['{"company_name": "Acme\\u0000"}', 'Unsafe string: the string at body.company_name holds a control character (U+0000 at position 4)'],
    ['{"query": "rust\\u001b[31m"}', 'Unsafe string: the string at body.query holds a control character (U+001B at position 4)'],
    ['{"industries": ["Finance", "x\\u007f"]}', 'Unsafe string: the string at body.industries[1] holds a control character (U+007F at position 1)'],
    ['{"locations": [{"city": "Berlin\\u0001"}]}', 'Unsafe string: the string at body.locations[0].city holds a control character (U+0001 at position 6)'],
    ['{"not_a_field": "a\\u0000"}', 'Unsafe string: the string at body.not_a_field holds a control character (U+0000 at position 1)'],
    ['{"query": "\\ud800rust"}', 'Unsafe string: the string at body.query holds a lone UTF-16 surrogate (U+D800 at position 0); send well-formed Unicode'],
    ['{"company_name": "a\\udfffb"}', 'Unsafe string: the string at body.company_name holds a lone UTF-16 surrogate (U+DFFF at position 1); send well-formed Unicode'],
    [JSON.stringify({ company_name: 'x'.repeat(301) }), 'Unsafe string: the string at body.company_name is 301 characters long; at most 300 are accepted'],
    [JSON.stringify({ query: 'x'.repeat(501) }), 'Unsafe string: the string at body.query is 501 characters long; at most 500 are accepted'],
    [JSON.stringify({ job_board: ['ok', 'y'.repeat(400)] }), /^Unsafe string: the string at body\.job_board\[1\] is 400 characters long/],
  ]
  for (const [body, detail] of cases) {
    const res = await t.context.post(SEARCH, body, { 'x-api-key': key })
    t.is(res.status, 400, body.slice(0, 60))
    const json = await res.json()
    t.deepEqual(Object.keys(json), ['detail'])
    if (typeof detail === 'string') t.is(json.detail, detail)
    else t.regex(json.detail, detail)
    t.is(res.headers.get('platform-usage-total-used'), null)
  }
  // a surrogate pair is a character, and a query of 500 is within bounds
  t.is((await t.context.post(SEARCH, '{"query": "\\ud83d\\ude00 rust"}', { 'x-api-key': key })).status, 200)
  t.is((await t.context.post(SEARCH, { query: 'x'.repeat(500) }, { 'x-api-key': key })).status, 200)
})

test('a lone surrogate is the same 400 on every route that takes a JSON body (job search answered 200)', async (t) => {
  const key = await roomyKey(t)
  const routes = [
    '/v2/jobs/search', '/v2/jobs/estimate', '/v2/jobs/vsearch', '/v2/jobs/neural-search', '/v2/jobs/export',
    '/v2/jobs/expired-jobs/export', '/v2/embed', SEARCH,
  ]
  for (const path of routes) {
    for (const [body, at] of [['{"keywords": ["a\\ud800"]}', 'body.keywords[0]'], ['{"x": {"\\udc00": 1}}', 'body.x.\udc00']] as const) {
      const res = await t.context.post(path, body, { 'x-api-key': key })
      t.is(res.status, 400, `${path} ${body}`)
      const json = await res.json()
      t.deepEqual(Object.keys(json), ['detail'])
      t.regex(json.detail, /^Unsafe string: the (string|key) at body.* holds a lone UTF-16 surrogate \(U\+D[89A-F][0-9A-F]{2} at position \d+\); send well-formed Unicode$/, path)
      if (!at.includes('\udc00')) t.true(json.detail.includes(at), path)
    }
  }
  // an escaped backslash before "ud800" is no surrogate
  t.is((await t.context.post('/v2/jobs/search', '{"keywords": ["\\\\ud800"]}', { 'x-api-key': key })).status, 200)
})

test('industries, subindustries and company_types take reference values; an unknown one is a 422 naming it', async (t) => {
  const key = await roomyKey(t)
  const cases: [unknown, string, RegExp][] = [
    [{ industries: ['Finance', 'Spaceships'] }, 'industries', /Unknown industries value: Spaceships\. See GET \/v2\/jobs\/data\/industries/],
    [{ industries: 'Spaceships' }, 'industries', /Spaceships/],
    [{ subindustries: ['Fintech', 'Warp Drives'] }, 'subindustries', /Unknown subindustries values?: .*Warp Drives.*See GET \/v2\/jobs\/data\/subindustries/],
    [{ company_types: ['Startup', 'Unicorn'] }, 'company_types', /Startup.*Remote-first/],
  ]
  for (const [body, field, msg] of cases) {
    const res = await t.context.post(SEARCH, body, { 'x-api-key': key })
    t.is(res.status, 422, JSON.stringify(body))
    const { detail } = await res.json()
    t.is(detail.length, 1)
    t.is(detail[0].loc[0], 'body')
    t.is(detail[0].loc[1], field)
    t.regex(detail[0].msg, msg)
    t.true('input' in detail[0] && typeof detail[0].type === 'string')
  }
  for (const body of [{ hiring: 'yes' }, { query: 3 }, { locations: [{}] }, { job_board: [1] }]) {
    t.is((await t.context.post(SEARCH, body, { 'x-api-key': key })).status, 422, JSON.stringify(body))
  }
})

// --- limits and meters ----------------------------------------------------------------------

test('the search rate limit applies (4 a second by default): over it, a 429 with Retry-After and no X-Billing-Code', async (t) => {
  t.deepEqual(loadConfig().rateLimits.search, { limit: 4, windowSeconds: 1 })
  // an hour-long window, so the three requests cannot straddle one
  const app = buildApp({
    sql: t.context.db.sql,
    config: { ...loadConfig(), rateLimits: { key: roomy, search: { limit: 2, windowSeconds: 3600 }, anonymous: roomy } },
    log: pino({ level: 'silent' }),
  })
  const server = app.listen(0, '127.0.0.1')
  await new Promise((r) => server.once('listening', r))
  t.teardown(async () => {
    server.closeAllConnections()
    await new Promise((r) => server.close(r))
    await app.context.admission!.close()
  })
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const key = await roomyKey(t)
  const statuses: number[] = []
  let last: Response | null = null
  for (let i = 0; i < 3; i++) {
    last = await fetch(base + SEARCH, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: '{}' })
    statuses.push(last.status)
  }
  t.deepEqual(statuses, [200, 200, 429])
  t.truthy(last!.headers.get('retry-after'))
  t.is(last!.headers.get('x-billing-code'), null)
  t.deepEqual(await last!.json(), { detail: `Rate limit exceeded: 2 requests per 3600 seconds. Retry after ${last!.headers.get('retry-after')} seconds.` })
  // job search is not a search endpoint for this limit
  t.is((await fetch(`${base}/v2/jobs/search`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: '{"limit": 1}' })).status, 200)
})

test('quota: a block-mode meter that cannot cover limit is a 429 with X-Billing-Code; a limit within what remains works', async (t) => {
  const { db } = t.context
  const tag = tagOf()
  await postings(t, { name: `Quota ${tag}` }, 1)
  const { accountId, key } = await createAccountWithKey(db.sql, 'free')
  await spend(db.sql, accountId, 'm_company_api_calls', 45)
  await t.context.sync()
  const over = await t.context.post(SEARCH, { query: tag }, { 'x-api-key': key })
  t.is(over.status, 429)
  t.is(over.headers.get('x-billing-code'), 'limit_exceeded')
  t.is(over.headers.get('retry-after'), null)
  t.like(usage(over), { meter: 'm_company_api_calls', 'included-remaining': '5' })
  t.regex((await over.json()).detail, /Usage limit reached for m_company_api_calls: your plan includes 50 companies per period and 5 remain, but this request could use up to 10\. Lower limit to 5/)
  const fits = await t.context.post(SEARCH, { query: tag, limit: 5 }, { 'x-api-key': key })
  t.is(fits.status, 200)
  t.is(usage(fits)['total-used'], '46')
})

test('the meters are independent: company search works when the jobs meter is exhausted', async (t) => {
  const { db } = t.context
  const tag = tagOf()
  await postings(t, { name: `Meters ${tag}` }, 1)
  const { accountId, key } = await createAccountWithKey(db.sql, 'free')
  await spend(db.sql, accountId, 'm_jobs_api_calls', 500)
  await t.context.sync()
  const jobs = await t.context.post('/v2/jobs/search', { limit: 1 }, { 'x-api-key': key })
  t.is(jobs.status, 429)
  t.is(jobs.headers.get('x-billing-code'), 'limit_exceeded')
  const companies = await t.context.post(SEARCH, { query: tag }, { 'x-api-key': key })
  t.is(companies.status, 200)
  t.is((await companies.json()).total_count, 1)
  t.like(usage(companies), { meter: 'm_company_api_calls', 'total-used': '1' })
})

// --- matching and ranking ---------------------------------------------------------------------

test('ranking: text relevance first, then more live postings among equal scores', async (t) => {
  const tag = tagOf()
  // the same words, so the same rank; different numbers of live postings
  const same = (i: number) => ({ name: `Ties ${i} Co`, slug: `ties-${i}-${tag}`, description_summary: `Builders of ${tag} pipelines` })
  await postings(t, same(1), 1)
  await postings(t, same(3), 3)
  await postings(t, same(2), 2)
  // the word in the name (weight A) beats it in a description, whatever the postings
  await profiles(t, [{ title: `${tag} Labs`, slug: `labs-${tag}`, sections: {} }])
  const { json, slugs } = await search(t, { query: tag })
  t.deepEqual(slugs, [`labs-${tag}`, `ties-3-${tag}`, `ties-2-${tag}`, `ties-1-${tag}`])
  const hits = json.companies as Hit[]
  t.deepEqual(hits.map((h) => h.live_jobs), [0, 3, 2, 1])
  t.true(hits[0].score > hits[1].score)
  t.is(hits[1].score, hits[3].score, 'the three tie on relevance')
  // without text, every company scores 1 and the order is by live postings
  const all = await search(t, { company_name: 'Ties' })
  const ties = (all.json.companies as Hit[]).filter((c) => c.company_slug.endsWith(tag))
  t.deepEqual(ties.map((c) => c.live_jobs), [3, 2, 1])
})

test('query: the job-search syntax over name, description, services, technologies and the live postings\' words', async (t) => {
  const tag = tagOf()
  await postings(t, { name: `Alpha ${tag}`, description_summary: 'We build payment rails', services: ['Card issuing'] }, 1)
  await postings(t, { name: `Beta ${tag}`, description_summary: 'We build payment dashboards' }, 1, () => ({ technologies: ['Elixir'], benefits: ['Four-day week'] }))
  await profiles(t, [{ title: `Gamma ${tag}`, slug: `gamma-${tag}`, technologies: ['rust'], remote_policy: 'remote-first', sections: { 'Company blurb': 'Dashboards for payment teams' } }])
  const q = async (query: string) => (await search(t, { query: `${tag} ${query}` })).slugs.sort()
  t.deepEqual(await q('payment'), [`alpha-${tag}`, `beta-${tag}`, `gamma-${tag}`])
  t.deepEqual(await q('"payment rails"'), [`alpha-${tag}`])
  t.deepEqual(await q('payment -dashboards'), [`alpha-${tag}`])
  t.deepEqual(await q('card issuing'), [`alpha-${tag}`], 'services')
  t.deepEqual(await q('elixir'), [`beta-${tag}`], 'a live posting\'s technologies')
  t.deepEqual(await q('"four-day week"'), [`beta-${tag}`], 'a live posting\'s benefits')
  t.deepEqual(await q('rust'), [`gamma-${tag}`], 'the profile\'s technologies')
  t.deepEqual(await q('remote'), [`gamma-${tag}`], 'the remote policy')
})

test('company_name: exact, partial and any case; a typo of 1 letter (4–5 letters) or 2 (6 or more) still finds it', async (t) => {
  const tag = tagOf()
  // names no other test uses, so each search here sees only these
  await profiles(t, [
    { title: 'Brightwater Logistics', slug: `brightwater-${tag}`, sections: {} },
    { title: 'Zorb', slug: `zorb-${tag}`, sections: {} },
    { title: 'Quillfeather', slug: `quillfeather-${tag}`, sections: {} },
  ])
  const names = async (company_name: string) => (await search(t, { company_name })).json.companies.map((c: Hit) => c.company_name) as string[]
  t.deepEqual(await names('Brightwater Logistics'), ['Brightwater Logistics'])
  t.deepEqual(await names('BRIGHTWATER'), ['Brightwater Logistics'])
  t.deepEqual(await names('logistics'), ['Brightwater Logistics'])
  t.deepEqual(await names('Brigthwater'), ['Brightwater Logistics'], 'two letters swapped')
  t.deepEqual(await names('Brightwatr'), ['Brightwater Logistics'], 'a letter missing')
  t.deepEqual(await names('Brxghtwxter'), ['Brightwater Logistics'], 'two letters wrong')
  t.deepEqual(await names('Brxghtwxtxr'), [], 'three letters wrong is another name')
  t.deepEqual(await names('Quilfeathr'), ['Quillfeather'])
  t.deepEqual(await names('Zorv'), ['Zorb'], 'one letter in a 4-letter name')
  t.deepEqual(await names('Zxrv'), [], 'two letters in a 4-letter name')
  t.deepEqual(await names('Zob'), [], 'no typos below 4 letters')
  t.deepEqual(await names('%'), [], 'LIKE wildcards are text')
  // a name longer than levenshtein takes (255 characters), as boards' feeds have them
  const long = `Longwinded ${tag} ${'is hiring engineers and designers in many places '.repeat(6)}`.trim()
  await profiles(t, [{ title: long, slug: `long-${tag}`, sections: {} }])
  t.deepEqual(await names(`Longwinded ${tag}`), [long])
  t.deepEqual(await names(`Longwnded ${tag}`), [long], 'a typo at its beginning')
  t.deepEqual((await search(t, { company_name: 'x'.repeat(150) })).res.status, 200)
  // the name as typed ranks above a typo of it
  await profiles(t, [{ title: 'Quillfeathers', slug: `quillfeathers-${tag}`, sections: {} }])
  const ranked = (await search(t, { company_name: 'quillfeather' })).json.companies as Hit[]
  t.deepEqual(ranked.map((c) => c.company_name), ['Quillfeather', 'Quillfeathers'])
  t.is(ranked[0].score, 1)
  t.is(ranked[1].score, 0.9)
})

test('filters: industries, subindustries, company_types, job_board, hiring, locations; combined with AND', async (t) => {
  const tag = tagOf()
  await postings(t, { name: `Fin ${tag}`, industries: ['Finance'], subindustries: ['Banking'], size_range: '1001-5000' }, 2, () => ({ job_board: `Board${tag}`, location_raw: 'Berlin, Germany' }))
  await postings(t, { name: `Health ${tag}`, industries: ['Healthcare'], subindustries: ['Hospitals'], size_range: '11-50' }, 1, () => ({ location_raw: 'Austin, TX' }))
  await profiles(t, [{ title: `Idle ${tag}`, slug: `idle-${tag}`, company_size: 'small', sections: {} }])
  const q = async (body: Record<string, unknown>) => (await search(t, { company_name: tag, ...body })).slugs.sort()
  t.deepEqual(await q({}), [`fin-${tag}`, `health-${tag}`, `idle-${tag}`])
  t.deepEqual(await q({ industries: ['Finance'] }), [`fin-${tag}`])
  t.deepEqual(await q({ industries: 'Healthcare' }), [`health-${tag}`])
  t.deepEqual(await q({ industries: ['Finance', 'Healthcare'] }), [`fin-${tag}`, `health-${tag}`])
  t.deepEqual(await q({ subindustries: ['Hospitals'] }), [`health-${tag}`])
  t.deepEqual(await q({ company_types: ['Enterprise'] }), [`fin-${tag}`])
  t.deepEqual(await q({ job_board: `Board${tag}` }), [`fin-${tag}`])
  t.deepEqual(await q({ job_board: ['TestBoard'] }), [`health-${tag}`])
  t.deepEqual(await q({ hiring: true }), [`fin-${tag}`, `health-${tag}`])
  t.deepEqual(await q({ hiring: 'true' }), [`fin-${tag}`, `health-${tag}`])
  t.deepEqual(await q({ hiring: false }), [`idle-${tag}`])
  t.deepEqual(await q({ locations: [{ country: 'Germany' }] }), [`fin-${tag}`])
  t.deepEqual(await q({ locations: [{ city: 'Austin', region: 'TX' }] }), [`health-${tag}`])
  t.deepEqual(await q({ locations: [{ city: 'Potsdam', country: 'Germany' }] }), [`fin-${tag}`], 'a city is 25 miles around it')
  t.deepEqual(await q({ locations: [{ country: 'Germany' }, { country: 'United States' }] }), [`fin-${tag}`, `health-${tag}`])
  t.deepEqual(await q({ locations: [{ country: 'France' }] }), [])
  t.deepEqual(await q({ industries: ['Finance'], locations: [{ city: 'Austin', region: 'TX' }] }), [])
})

test('live postings: expiry takes a company\'s expired jobs out of live_jobs, hiring, locations and its words', async (t) => {
  const tag = tagOf()
  const name = `Expiring ${tag}`
  await postings(t, { name }, 2, (i) => ({
    valid_through: i === 0 ? '2030-01-01T00:00:00Z' : '2099-01-01T00:00:00Z',
    location_raw: i === 0 ? 'Lyon, France' : 'Berlin, Germany',
    technologies: i === 0 ? [`Cobol${tag}`] : [],
  }))
  const before = (await search(t, { company_name: name, hiring: true })).json.companies as Hit[]
  t.is(before[0]?.live_jobs, 2)
  t.deepEqual((await search(t, { query: `cobol${tag}` })).slugs, [slugOf(name)])
  // only jobs with a valid_through before 2030-06 expire (no other test sets one)
  await expireJobs(t.context.db.sql, { afterDays: 100_000, now: new Date('2030-06-01T00:00:00Z') })
  const after = (await search(t, { company_name: name })).json.companies as Hit[]
  t.is(after[0].live_jobs, 1)
  t.deepEqual((await search(t, { company_name: name, locations: [{ country: 'France' }] })).slugs, [])
  t.deepEqual((await search(t, { company_name: name, locations: [{ country: 'Germany' }] })).slugs, [slugOf(name)])
  t.deepEqual((await search(t, { query: `cobol${tag}` })).slugs, [])
})

// --- company_types ---------------------------------------------------------------------------

test('company_types from what postings say: company type, size, description, the agency flag, remote postings', async (t) => {
  const tag = tagOf()
  const co = (suffix: string, extra: Record<string, unknown>) => ({ name: `${suffix} ${tag}`, ...extra })
  await postings(t, co('Seedling', { type: 'Startup', size_range: '11-50' }), 1)
  await postings(t, co('Listed', { type: 'Public Company', size_range: '10000+' }), 1)
  await postings(t, co('Charity', { description_summary: 'A registered charity helping kids read.' }), 1)
  await postings(t, co('Pixel', { description_summary: 'We are a digital agency for retail brands.' }), 1)
  await postings(t, co('Staffers', { is_recruiting_agency: true, type: 'Staffing Agency' }), 1)
  await postings(t, co('Placers', {}), 3, (i) => ({ recruiter_agency: i < 2 }))
  await postings(t, co('Council', { industries: ['Public Administration'] }), 1)
  await postings(t, co('Nomads', {}), 3, () => ({ location_raw: 'Remote', location_type: 'Remote' }))
  await postings(t, co('Mixed', {}), 3, (i) => ({ location_raw: i ? 'Remote' : 'Berlin, Germany', location_type: i ? 'Remote' : 'Hybrid' }))
  const types = async (suffix: string) => {
    const res = await t.context.get(`/v2/platform/companies/${slugOf(`${suffix} ${tag}`)}`, { 'x-api-key': await roomyKey(t) })
    return (await res.json()).company.company_types as string[]
  }
  t.deepEqual(await types('Seedling'), ['Startup'])
  t.deepEqual(await types('Listed'), ['Public Company', 'Enterprise'])
  t.deepEqual(await types('Charity'), ['Non-Profit'])
  t.deepEqual(await types('Pixel'), ['Agency'])
  t.deepEqual(await types('Staffers'), ['Recruiting Agency'])
  t.deepEqual(await types('Placers'), ['Recruiting Agency'], 'most of its postings are flagged recruiter_agency')
  t.deepEqual(await types('Council'), ['Government'])
  t.deepEqual(await types('Nomads'), ['Remote-first'], 'three postings, all remote')
  t.deepEqual(await types('Mixed'), [])
  const found = (await search(t, { company_name: tag, company_types: ['Agency', 'Government'] })).slugs.sort()
  t.deepEqual(found, [slugOf(`Council ${tag}`), slugOf(`Pixel ${tag}`)])
})

test('company_types from profiles: remote policy, size words, blurb; a profile ingested later changes them', async (t) => {
  const tag = tagOf()
  const slug = (s: string) => `${s}-${tag}`
  await profiles(t, [
    { title: `Remote One ${tag}`, slug: slug('remote-one'), remote_policy: 'fully-remote', company_size: 'small', sections: {} },
    { title: `Remote Two ${tag}`, slug: slug('remote-two'), remote_policy: 'remote-first', sections: {} },
    { title: `Hybrid ${tag}`, slug: slug('hybrid'), remote_policy: 'hybrid', company_size: 'large', sections: {} },
    { title: `Big ${tag}`, slug: slug('big'), remote_policy: 'remote-friendly', company_size: 'enterprise', sections: {} },
    { title: `Young ${tag}`, slug: slug('young'), sections: { 'Company blurb': 'We are a venture-backed team of 12.' } },
    { title: `Funded ${tag}`, slug: slug('funded'), sections: { 'Company blurb': 'A Berlin-based startup building tools for startups.' } },
    { title: `Helpers ${tag}`, slug: slug('helpers'), sections: { 'Company blurb': 'We help startups hire.' } },
    { title: `Traded ${tag}`, slug: slug('traded'), sections: { 'Company blurb': 'Acme (NASDAQ: ACME) makes anvils.' } },
    { title: `Studio ${tag}`, slug: slug('studio'), sections: { 'Company blurb': 'A small design studio; we are fully distributed.' } },
  ])
  const types = async (s: string) => {
    const res = await t.context.get(`/v2/platform/companies/${slug(s)}`, { 'x-api-key': await roomyKey(t) })
    return (await res.json()).company.company_types as string[]
  }
  t.deepEqual(await types('remote-one'), ['Remote-first'])
  t.deepEqual(await types('remote-two'), ['Remote-first'])
  t.deepEqual(await types('hybrid'), [])
  t.deepEqual(await types('big'), ['Enterprise'])
  t.deepEqual(await types('young'), ['Startup'])
  t.deepEqual(await types('funded'), ['Startup'])
  t.deepEqual(await types('helpers'), [], 'helping startups is not being one')
  t.deepEqual(await types('traded'), ['Public Company'])
  t.deepEqual(await types('studio'), ['Agency', 'Remote-first'])
  // the profile changes: so do its tags
  await profiles(t, [{ title: `Hybrid ${tag}`, slug: slug('hybrid'), remote_policy: 'fully-remote', company_size: 'enterprise', sections: {} }])
  t.deepEqual(await types('hybrid'), ['Enterprise', 'Remote-first'])
})

test('company_types_of: each rule, and what it does not take for a tag', async (t) => {
  const of = async (c: Partial<{ name: string; type: string; size: string; description: string; remote: string; agency: boolean; industries: string[]; subindustries: string[]; postings: number; remote_postings: number; agency_postings: number }>) => {
    const [row] = await t.context.db.sql<{ types: string[] }[]>`
      select company_types_of(${c.name ?? 'X'}, ${c.type ?? null}, ${c.size ?? null}, ${c.description ?? null}, ${c.remote ?? null}, ${c.agency ?? false},
        ${c.industries ?? []}::text[], ${c.subindustries ?? []}::text[], ${c.postings ?? 0}, ${c.remote_postings ?? 0}, ${c.agency_postings ?? 0}) as types`
    return row.types
  }
  t.deepEqual(await of({}), [])
  t.deepEqual(await of({ type: 'Startup', size: '10000+' }), ['Enterprise'], 'an enterprise is no startup')
  t.deepEqual(await of({ description: 'Series A funded fintech' }), ['Startup'])
  t.deepEqual(await of({ description: 'Backed by Y Combinator' }), ['Startup'])
  t.deepEqual(await of({ description: 'Our startup culture' }), [])
  t.deepEqual(await of({ description: 'Publicly traded since 1999' }), ['Public Company'])
  t.deepEqual(await of({ description: 'We are a 501(c)(3) organization' }), ['Non-Profit'])
  t.deepEqual(await of({ industries: ['Nonprofit'] }), ['Non-Profit'])
  t.deepEqual(await of({ size: '1001-5000' }), ['Enterprise'])
  t.deepEqual(await of({ size: '501-1000' }), [])
  t.deepEqual(await of({ type: 'Government Agency' }), ['Government'], 'a government agency is not an Agency')
  t.deepEqual(await of({ name: 'City of Springfield' }), ['Government'])
  t.deepEqual(await of({ description: 'A federal agency for roads' }), ['Government'], 'nor is a federal agency')
  t.deepEqual(await of({ type: 'Staffing Agency' }), ['Recruiting Agency'], 'a staffing agency is a Recruiting Agency only')
  t.deepEqual(await of({ subindustries: ['Staffing & Recruiting'] }), ['Recruiting Agency'])
  t.deepEqual(await of({ postings: 4, agency_postings: 2 }), [], 'half the postings is not most')
  t.deepEqual(await of({ postings: 3, agency_postings: 2 }), ['Recruiting Agency'])
  t.deepEqual(await of({ description: 'A marketing agency in Leeds' }), ['Agency'])
  t.deepEqual(await of({ description: 'A travel agency' }), [])
  t.deepEqual(await of({ description: 'An independent consultancy' }), ['Agency'])
  t.deepEqual(await of({ remote: 'fully-remote' }), ['Remote-first'])
  t.deepEqual(await of({ remote: 'remote-friendly' }), [])
  t.deepEqual(await of({ description: 'We have been remote-first since 2015' }), ['Remote-first'])
  t.deepEqual(await of({ postings: 2, remote_postings: 2 }), [], 'two postings are too few to say')
  t.deepEqual(await of({ postings: 3, remote_postings: 3 }), ['Remote-first'])
  t.deepEqual(
    await of({ type: 'Public Company', size: '10000+', description: 'A remote-first digital agency, NYSE: XYZ' }),
    ['Public Company', 'Enterprise', 'Agency', 'Remote-first'],
    'tags combine, in the documented order',
  )
})
