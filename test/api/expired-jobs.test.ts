/**
 * GET /v2/jobs/expired-jobs through the app: the sign-in 401, since's 400s, paging and
 * its depth cap, the order and the since window, billing at cost 0, and a job that
 * comes back leaving the feed. The tests that read the feed are serial and each stamps
 * its jobs later than the tests before it, so a window never holds another test's jobs.
 */
import anyTest, { type TestFn } from 'ava'
import { ingest } from '../../ingest/pipeline.ts'
import { readExpiredFeed } from '../../api/routes/expired-jobs.ts'
import { FEED_DEPTH, FEED_DEPTH_NOTE, MAX_FEED_LIMIT } from '../../api/schemas/expired-jobs.ts'
import { responseSchemas } from '../../api/schemas/responses.ts'
import { expireJobs } from '../../sql/expiry.ts'
import type { Sql } from '../../sql/db.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { createAccountWithKey, rawPosting, readItems } from '../helpers/factories.ts'
import { periodOf, spend, usage } from '../billing/fixtures.ts'

const test = anyTest as TestFn<TestApp>

test.before(async (t) => {
  const roomy = { limit: 100_000, windowSeconds: 60 }
  t.context = await startTestApp({ config: { rateLimits: { key: roomy, search: roomy, anonymous: roomy } }, embedder: null })
})
test.after.always(async (t) => {
  await t.context?.close()
})

type Feed = {
  jobs: { _id: string; job_slug: string; company_slug: string; date_expired: string; expired_at: string }[]
  since: string | null
  page: number
  limit: number
  count_on_page: number
  has_more: boolean
  note?: string
}

async function feed(t: { context: TestApp }, query: string, headers?: Record<string, string>) {
  const res = await t.context.get(`/v2/jobs/expired-jobs${query}`, headers)
  return { res, status: res.status, body: await res.json() }
}

/** A company of the test's own and expired jobs of it, stamped at these times (expired_at), in this order. */
async function seedExpired(sql: Sql, tag: string, stamps: string[], dateExpired = '2030-01-15') {
  const [company] = await sql<{ id: string; slug: string }[]>`
    insert into companies (slug, name) values (${`expired-feed-${tag}`}, ${`Expired Feed ${tag}`}) returning id::text, slug`
  const ids: string[] = []
  for (const [i, at] of stamps.entries()) {
    const [row] = await sql<{ id: string }[]>`
      insert into jobs (company_id, job_slug, md5_hash, source_key, job_title, job_title_raw, description, description_raw,
                        date_posted, job_board, expired, date_expired, expired_at)
      values (${company.id}, ${`xf-${tag}-${i}`}, ${`xf-md5-${tag}-${i}`}, ${`xf-${tag}-${i}`}, 'Gone Job', 'Gone Job', '', '',
              '2030-01-01', 'TestBoard', true, ${dateExpired}, ${new Date(at)})
      returning id::text`
    ids.push(row.id)
  }
  return { companySlug: company.slug, ids }
}

const ids = (body: { jobs: { _id: string }[] }) => body.jobs.map((j) => j._id)

// --- authentication and input --------------------------------------------------------

test('no key: 401 "Sign in to access this endpoint" with X-Billing-Code auth_required; a bad key is the invalid-key 401', async (t) => {
  const missing = await feed(t, '', {})
  t.is(missing.status, 401)
  t.deepEqual(missing.body, { detail: 'Sign in to access this endpoint' })
  t.is(missing.res.headers.get('x-billing-code'), 'auth_required')
  t.is(missing.res.headers.get('x-ratelimit-limit'), null, 'rejected before any rate limiting')
  const bad = await feed(t, '?since=garbage', { 'x-api-key': 'jds_never-issued' })
  t.is(bad.status, 401)
  t.deepEqual(bad.body, { detail: 'Invalid or revoked API key' })
})

test('an unparseable since is a 400 whose detail shows the accepted forms', async (t) => {
  const cases = [
    'garbage', '2026-02-31', '', '2026-13-01', '2026-01-31T24:00', '31.01.2026', '2026-01-31T10:00:00 02:00',
    // a + left unescaped reaches the server as a space
    '2026-01-31T10:00:00+02:00', '1706659200',
  ]
  for (const since of cases) {
    const { status, body, res } = await feed(t, `?since=${since}`)
    t.is(status, 400, since)
    t.is(typeof body.detail, 'string', since)
    t.true(body.detail.startsWith(`Invalid since: ${JSON.stringify(decodeURIComponent(since.replaceAll('+', ' ')))}.`), body.detail)
    t.regex(body.detail, /ISO 8601 date \(2026-01-31.*%2B/)
    t.is(res.headers.get('platform-usage-meter'), null, 'no usage headers on a refusal')
  }
  t.is((await feed(t, '?since=2026-01-31%00')).status, 422, 'a control character is screened as in any query value')
  const long = await feed(t, `?since=${'9'.repeat(5000)}`)
  t.is(long.status, 400)
  t.true(long.body.detail.length < 400, 'the echo is clipped')
})

test('page and limit: 422 items at their loc', async (t) => {
  const cases: [string, string, string][] = [
    ['?page=0', 'page', 'greater_than_equal'],
    ['?page=abc', 'page', 'float_type'],
    ['?page=1.5', 'page', 'int_type'],
    ['?limit=0', 'limit', 'greater_than_equal'],
    [`?limit=${MAX_FEED_LIMIT + 1}`, 'limit', 'less_than_equal'],
    ['?limit=', 'limit', 'float_type'],
    ['?since=2026-01-01&since=2026-02-01', 'since', 'string_type'],
  ]
  for (const [query, field, type] of cases) {
    const { status, body } = await feed(t, query)
    t.is(status, 422, query)
    t.like(body.detail[0], { loc: ['query', field], type }, query)
  }
  // 422 before 400: the query is validated before since is read
  t.is((await feed(t, '?since=garbage&limit=0')).status, 422)
})

// --- the feed ---------------------------------------------------------------------------

test.serial('newest first by expired_at, ties by _id; the identifiers and the envelope', async (t) => {
  const { companySlug, ids: made } = await seedExpired(t.context.db.sql, 'order', [
    '2040-03-01T09:00:00Z', '2040-03-01T12:00:00Z', '2040-03-01T12:00:00Z', '2040-03-02T00:00:00Z',
  ])
  const { status, body, res } = await feed(t, '?since=2040-03-01')
  t.is(status, 200)
  t.deepEqual(ids(body), [made[3], made[2], made[1], made[0]])
  t.deepEqual(body.jobs[0], { _id: made[3], job_slug: 'xf-order-3', company_slug: companySlug, date_expired: '2030-01-15', expired_at: '2040-03-02T00:00:00.000Z' })
  t.deepEqual(Object.keys(body).sort(), ['count_on_page', 'has_more', 'jobs', 'limit', 'page', 'since'])
  t.like(body, { since: '2040-03-01T00:00:00.000Z', page: 1, limit: 100, count_on_page: 4, has_more: false })
  t.regex(res.headers.get('content-type') ?? '', /^application\/json/)

  // the shape the document gives (test/api/openapi.test.ts checks the document itself)
  const page = responseSchemas.ExpiredJobsPage
  t.deepEqual(Object.keys(body).sort(), Object.keys(page.properties!).filter((k) => k !== 'note').sort())
  t.deepEqual(Object.keys(body.jobs[0]).sort(), Object.keys(responseSchemas.ExpiredJob.properties!).sort())
})

test.serial('since: a date is that day from 00:00 UTC; a datetime with an offset is that instant; a naive one is UTC', async (t) => {
  const { ids: [a, b, c, d] } = await seedExpired(t.context.db.sql, 'since', [
    '2041-05-31T23:59:59.999Z', '2041-06-01T00:00:00Z', '2041-06-01T08:30:00Z', '2041-06-01T10:00:00Z',
  ])
  const cases: [string, string[], string][] = [
    ['2041-05-31', [d, c, b, a], '2041-05-31T00:00:00.000Z'],
    ['2041-06-01', [d, c, b], '2041-06-01T00:00:00.000Z'],
    ['2041-06-01T08:30:00Z', [d, c], '2041-06-01T08:30:00.000Z'],
    ['2041-06-01T08:30', [d, c], '2041-06-01T08:30:00.000Z'],
    ['2041-06-01T08:30:00.001', [d], '2041-06-01T08:30:00.001Z'],
    ['2041-06-01T10:30:00%2B02:00', [d, c], '2041-06-01T08:30:00.000Z'],
    ['2041-06-01T03:30:00-05:00', [d, c], '2041-06-01T08:30:00.000Z'],
    ['2041-06-01T02:00-08:00', [d], '2041-06-01T10:00:00.000Z'],
    ['2041-06-01T10:00:00.000001Z', [d], '2041-06-01T10:00:00.000Z'],
    ['2041-06-02', [], '2041-06-02T00:00:00.000Z'],
  ]
  for (const [since, want, echoed] of cases) {
    const { status, body } = await feed(t, `?since=${since}`)
    t.is(status, 200, since)
    t.deepEqual(ids(body), want, since)
    t.is(body.since, echoed, since)
  }
  // without since: every expired job, these the newest so far
  const all = await feed(t, '?limit=1000')
  t.is(all.body.since, null)
  t.deepEqual(ids(all.body).slice(0, 4), [d, c, b, a])
})

test.serial('pages: limit and page walk the window; has_more says whether another page holds jobs', async (t) => {
  const { ids: made } = await seedExpired(t.context.db.sql, 'pages', ['2042-01-01T01:00:00Z', '2042-01-01T02:00:00Z', '2042-01-01T03:00:00Z', '2042-01-01T04:00:00Z', '2042-01-01T05:00:00Z'])
  const newest = [...made].reverse()
  const pages: Feed[] = []
  for (const page of [1, 2, 3, 4]) pages.push((await feed(t, `?since=2042-01-01&limit=2&page=${page}`)).body)
  t.deepEqual(pages.map(ids), [newest.slice(0, 2), newest.slice(2, 4), newest.slice(4), []])
  t.deepEqual(pages.map((p) => [p.page, p.limit, p.count_on_page, p.has_more]), [[1, 2, 2, true], [2, 2, 2, true], [3, 2, 1, false], [4, 2, 0, false]])
  t.true(pages.every((p) => p.note === undefined), 'no note short of the depth cap')
})

test.serial(`past ${FEED_DEPTH} jobs into a window a page is empty, with a note pointing to the export`, async (t) => {
  for (const query of [`?limit=${MAX_FEED_LIMIT}&page=${FEED_DEPTH / MAX_FEED_LIMIT + 1}`, `?page=${FEED_DEPTH / 100 + 1}`, '?page=1000000000000&since=2026-01-01']) {
    const { status, body } = await feed(t, query)
    t.is(status, 200, query)
    t.deepEqual(body.jobs, [], query)
    t.is(body.count_on_page, 0)
    t.false(body.has_more)
    t.is(body.note, FEED_DEPTH_NOTE)
    t.regex(body.note, /POST \/v2\/jobs\/expired-jobs\/export/)
  }
  // the last page within the cap is read as usual (this window is far shallower)
  const last = await feed(t, `?limit=${MAX_FEED_LIMIT}&page=${FEED_DEPTH / MAX_FEED_LIMIT}`)
  t.like(last.body, { jobs: [], has_more: false })
  t.is(last.body.note, undefined)

  // the page that reaches the cap, with jobs beyond it: cut at the cap, has_more false, the note
  const sql = t.context.db.sql
  const { ids: made } = await seedExpired(sql, 'depth', ['2043-01-01T01:00:00Z', '2043-01-01T02:00:00Z', '2043-01-01T03:00:00Z', '2043-01-01T04:00:00Z', '2043-01-01T05:00:00Z'])
  const newest = [...made].reverse()
  const since = new Date('2043-01-01T00:00:00Z')
  const read = (page: number, limit: number, depth: number) => readExpiredFeed(sql, { since, page, limit }, depth)
  t.like(await read(1, 2, 3), { count_on_page: 2, has_more: true })
  const reaching = await read(2, 2, 3)
  t.deepEqual(ids(reaching), [newest[2]])
  t.like(reaching, { page: 2, limit: 2, count_on_page: 1, has_more: false, note: FEED_DEPTH_NOTE })
  t.like(await read(3, 2, 3), { jobs: [], has_more: false, note: FEED_DEPTH_NOTE })
  // a window exactly as deep as the cap ends without a note
  const exact = await read(3, 2, 5)
  t.deepEqual(ids(exact), [newest[4]])
  t.like(exact, { has_more: false })
  t.false('note' in exact)
})

test.serial('a job that comes back leaves the feed; expired again, it is back with a later expired_at', async (t) => {
  const sql = t.context.db.sql
  const t0 = new Date('2044-01-01T00:00:00Z')
  const day = 86_400_000
  const back = rawPosting({ job_board: 'ComebackBoard', source_id: 'back', company: { name: 'Comeback Feed Co' } }, 901)
  const stays = rawPosting({ job_board: 'ComebackBoard', source_id: 'stays', company: { name: 'Steady Feed Co' } }, 902)
  await ingest(sql, readItems([back, stays]), { source: 'comeback-0', now: t0 })
  // the board's next ingest lacks "back"; 31 days on, the expiry run marks it
  await ingest(sql, readItems([stays]), { source: 'comeback-10', now: new Date(t0.getTime() + 10 * day) })
  await expireJobs(sql, { afterDays: 30, now: new Date(t0.getTime() + 31 * day) })
  const [job] = await sql<{ id: string }[]>`select j.id::text from jobs j join companies c on c.id = j.company_id where c.name = 'Comeback Feed Co'`
  const listed = await feed(t, '?since=2044-01-01')
  t.deepEqual(ids(listed.body), [job.id])
  t.like(listed.body.jobs[0], { date_expired: '2044-02-01', expired_at: '2044-02-01T00:00:00.000Z' })

  await ingest(sql, readItems([back, stays]), { source: 'comeback-32', now: new Date(t0.getTime() + 32 * day) })
  t.deepEqual(ids((await feed(t, '?since=2044-01-01')).body), [], 'seen again: live, out of the feed')

  await ingest(sql, readItems([stays]), { source: 'comeback-40', now: new Date(t0.getTime() + 40 * day) })
  const rerun = new Date(t0.getTime() + 70 * day)
  await expireJobs(sql, { afterDays: 30, now: rerun })
  const again = await feed(t, '?since=2044-01-01')
  t.deepEqual(ids(again.body), [job.id])
  t.is(again.body.jobs[0].expired_at, rerun.toISOString())
})

// --- billing ----------------------------------------------------------------------------

test.serial('costs 0: usage headers on every page, nothing charged, and it answers at the meter cap', async (t) => {
  const { db, get, admission } = t.context
  const { accountId, key } = await createAccountWithKey(db.sql, 'free')
  const as = { 'x-api-key': key }
  for (const query of ['', '?since=2040-01-01', '?since=2040-01-01&limit=1&page=2', `?page=${FEED_DEPTH}`]) {
    const res = await get(`/v2/jobs/expired-jobs${query}`, as)
    t.is(res.status, 200, query)
    t.like(usage(res), { meter: 'm_jobs_api_calls', unit: 'jobs', 'included-limit': '500', 'total-used': '0' }, query)
    t.truthy(res.headers.get('x-ratelimit-limit'))
  }
  await admission.sync()
  const period = await periodOf(db.sql, accountId)
  const [row] = await db.sql<{ used: number }[]>`
    select used::int from usage_meters where account_id = ${accountId} and meter = 'm_jobs_api_calls' and period_start = ${period.start}`
  t.is(row?.used ?? 0, 0, 'nothing charged')
  const [ledger] = await db.sql<{ units: number }[]>`select coalesce(sum(units), 0)::int as units from usage_ledger where account_id = ${accountId}`
  t.is(ledger.units, 0)

  // the free plan's 500 jobs used up: search is refused, the feed is not
  await spend(db.sql, accountId, 'm_jobs_api_calls', 500)
  await t.context.sync()
  t.is((await t.context.post('/v2/jobs/search', { limit: 10 }, as)).status, 429)
  const capped = await get('/v2/jobs/expired-jobs?since=2040-01-01', as)
  t.is(capped.status, 200)
  t.like(usage(capped), { 'included-remaining': '0', 'total-used': '500' })
})
