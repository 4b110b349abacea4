/**
 * The expired-jobs feed underneath the route: parseSince, expired_at as the expiry run
 * and ingest leave it (their statements, and migration 0008's insert trigger), and the page
 * and export queries.
 */
import anyTest, { type TestFn } from 'ava'
import fc from 'fast-check'
import { ingest } from '../../ingest/pipeline.ts'
import { expiredJobsQuery, listExpiredJobs, parseSince } from '../../sql/expired-feed.ts'
import { expireJobs } from '../../sql/expiry.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'
import { rawPosting, readItems } from '../helpers/factories.ts'

const test = anyTest as TestFn<TestDb>
test.before(async (t) => {
  t.context = await testDatabase()
})
test.after.always(async (t) => {
  await t.context?.close()
})

const day = 86_400_000
const iso = (d: Date | null) => d?.toISOString() ?? null

// --- parseSince ---------------------------------------------------------------------

test('parseSince: dates, datetimes with and without seconds, fraction and offset', (t) => {
  const cases: [string, string][] = [
    ['2026-01-31', '2026-01-31T00:00:00.000Z'],
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
    ['2026-01-31T08:30', '2026-01-31T08:30:00.000Z'],
    ['2026-01-31T08:30:15', '2026-01-31T08:30:15.000Z'],
    ['2026-01-31T08:30:15.25', '2026-01-31T08:30:15.250Z'],
    ['2026-01-31T08:30:15.123456789', '2026-01-31T08:30:15.123Z'], // cut, never later than asked
    ['2026-01-31T08:30:15.9999Z', '2026-01-31T08:30:15.999Z'],
    ['2026-01-31T08:30:00Z', '2026-01-31T08:30:00.000Z'],
    ['2026-01-31t08:30:00z', '2026-01-31T08:30:00.000Z'],
    ['2026-01-31T10:30:00+02:00', '2026-01-31T08:30:00.000Z'],
    ['2026-01-31T10:30+0200', '2026-01-31T08:30:00.000Z'],
    ['2026-01-31T10:30+02', '2026-01-31T08:30:00.000Z'],
    ['2026-01-31T01:00:00-05:30', '2026-01-31T06:30:00.000Z'],
    ['2026-01-01T00:30:00+01:00', '2025-12-31T23:30:00.000Z'],
    ['0001-01-01', '0001-01-01T00:00:00.000Z'],
    ['0099-06-01', '0099-06-01T00:00:00.000Z'], // not read as 1999
    ['9999-12-31T23:59:59.999', '9999-12-31T23:59:59.999Z'],
  ]
  for (const [text, want] of cases) t.is(iso(parseSince(text)), want, text)
})

test('parseSince: anything else is null', (t) => {
  const bad = [
    '', ' ', 'garbage', 'yesterday', '1706659200', '2026', '2026-01', '2026-1-31', '26-01-31', '+2026-01-31', '20260131',
    '2026-02-31', '2025-02-29', '1900-02-29', '2026-04-31', '2026-13-01', '2026-00-10', '2026-01-00', '0000-01-01',
    '2026-01-31T', '2026-01-31T8:30', '2026-01-31T24:00', '2026-01-31T23:60', '2026-01-31T23:59:60', '2026-01-31T08:30:15.',
    '2026-01-31 08:30:00', // a space for the T: what an unescaped + leaves too
    '2026-01-31T10:30:00 02:00', '2026-01-31T10:30:00+2:00', '2026-01-31T10:30:00+24:00', '2026-01-31T10:30:00+02:60',
    '2026-01-31Z', '2026-01-31T08:30:00ZZ', ' 2026-01-31', '2026-01-31 ', '2026-01-31\n', '2026-01-31T08:30:00,5',
    '0001-01-01T00:30+01:00', // before year 1 in UTC
    '9999-12-31T23:30-01:00', // after 9999 in UTC
    '２０２６-01-31', '2026-01-31T08:30:00.000+00:00:00',
  ]
  for (const text of bad) t.is(parseSince(text), null, JSON.stringify(text))
})

test('property: a datetime written with any offset is that instant; a date is its UTC midnight', (t) => {
  const pad = (n: number, w = 2) => String(n).padStart(w, '0')
  fc.assert(
    fc.property(
      fc.date({ min: new Date('1000-01-02T00:00:00Z'), max: new Date('9999-12-30T00:00:00Z'), noInvalidDate: true }),
      fc.integer({ min: -23 * 60 - 59, max: 23 * 60 + 59 }),
      (at, offset) => {
        const local = new Date(at.getTime() + offset * 60_000)
        const sign = offset < 0 ? '-' : '+'
        const zone = `${sign}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`
        const text = local.toISOString().slice(0, 23) + zone
        t.is(parseSince(text)?.getTime(), at.getTime(), text)
        t.is(parseSince(at.toISOString().slice(0, 23))?.getTime(), at.getTime(), 'naive is UTC')
        t.is(parseSince(at.toISOString().slice(0, 10))?.getTime(), Date.parse(at.toISOString().slice(0, 10)), 'a date is 00:00 UTC')
      },
    ),
    { numRuns: 300 },
  )
})

test('property: parseSince agrees with Postgres on which days exist', async (t) => {
  const sql = t.context.sql
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 1, max: 9999 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 27, max: 31 }), async (y, m, d) => {
      const text = `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`
      const exists = await sql`select make_date(${y}::int, ${m}::int, ${d}::int)`.then(() => true, () => false)
      t.is(parseSince(text) !== null, exists, text)
    }),
    { numRuns: 200 },
  )
})

// --- expired_at: who sets it ----------------------------------------------------------

/** The company's newest job: a posting re-listed after its job ended is a job of its own (docs/ingest.md, "Re-posted jobs"). */
async function jobOf(sql: TestDb['sql'], companyName: string) {
  const [job] = await sql<{ id: string; expired: boolean; expired_at: Date | null; date_expired: string | null }[]>`
    select j.id::text, j.expired, j.expired_at, j.date_expired::text
    from jobs j join companies c on c.id = j.company_id where c.name = ${companyName}
    order by j.id desc limit 1`
  return job
}

test.serial('the expiry run stamps its time; a job seen again leaves the feed; expired again it returns, newer', async (t) => {
  const sql = t.context.sql
  const t0 = new Date('2031-03-01T00:00:00Z')
  const posting = rawPosting({ job_board: 'FeedBoard', source_id: 'back', company: { name: 'Comeback Co' } }, 801)
  const deadline = rawPosting({ job_board: 'OtherFeedBoard', source_id: 'deadline', company: { name: 'Deadline Feed Co' }, valid_through: '2031-03-05T00:00:00Z' }, 802)
  await ingest(sql, readItems([posting, deadline]), { source: 'feed-0', now: t0 })
  t.is((await jobOf(sql, 'Comeback Co')).expired_at, null, 'a live job has none')

  // the board is ingested 40 days later without the posting; the run marks both
  await ingest(sql, readItems([rawPosting({ job_board: 'FeedBoard', source_id: 'other', company: { name: 'Other Feed Co' } }, 803)]), { source: 'feed-40', now: new Date(t0.getTime() + 40 * day) })
  const run = new Date(t0.getTime() + 41 * day + 3_600_000)
  await expireJobs(sql, { afterDays: 30, now: run })
  const gone = await jobOf(sql, 'Comeback Co')
  const deadlined = await jobOf(sql, 'Deadline Feed Co')
  t.like(gone, { expired: true, date_expired: '2031-04-11' })
  t.is(iso(gone.expired_at), run.toISOString())
  // date_expired is clamped to valid_through, a month before the run; expired_at is the run
  t.like(deadlined, { expired: true, date_expired: '2031-03-05' })
  t.is(iso(deadlined.expired_at), run.toISOString())
  const since = new Date(run.getTime() - 60_000)
  const feed = await listExpiredJobs(sql, { since, offset: 0, limit: 10 })
  t.deepEqual(feed.jobs.map((j) => j._id).sort(), [gone.id, deadlined.id].sort(), 'both are in a window that starts after the deadline')

  // its board lists it again: live, no expired_at, out of the feed
  await ingest(sql, readItems([posting]), { source: 'feed-42', now: new Date(t0.getTime() + 42 * day) })
  t.like(await jobOf(sql, 'Comeback Co'), { expired: false, expired_at: null, date_expired: null })
  t.deepEqual((await listExpiredJobs(sql, { since, offset: 0, limit: 10 })).jobs.map((j) => j._id), [deadlined.id])

  // and gone again (its board's next ingest lacks it, as it lacks the other posting):
  // back in the feed with the later run's time, so first; one run's jobs tie on the time
  // and go by id, newest first
  await ingest(sql, readItems([rawPosting({ job_board: 'FeedBoard', source_id: 'third', company: { name: 'Third Feed Co' } }, 804)]), { source: 'feed-50', now: new Date(t0.getTime() + 50 * day) })
  const later = new Date(t0.getTime() + 90 * day)
  await expireJobs(sql, { afterDays: 30, now: later })
  const again = await jobOf(sql, 'Comeback Co')
  const other = await jobOf(sql, 'Other Feed Co')
  t.is(iso(again.expired_at), later.toISOString())
  t.is(iso(other.expired_at), later.toISOString())
  t.true(BigInt(other.id) > BigInt(again.id))
  t.deepEqual((await listExpiredJobs(sql, { since, offset: 0, limit: 10 })).jobs.map((j) => j._id), [other.id, gone.id, deadlined.id])
})

test.serial('ingest: a posting that arrives expired, or is rewritten as expired or live, keeps expired_at in step', async (t) => {
  const sql = t.context.sql
  const before = (await sql<{ now: Date }[]>`select now() as now`)[0].now
  const now = new Date('2031-06-10T00:00:00Z')
  await ingest(sql, readItems([rawPosting({ source_id: 'late-feed', company: { name: 'Late Feed Co' }, valid_through: '2031-06-01T00:00:00Z' }, 811)]), { source: 'late', now })
  const late = await jobOf(sql, 'Late Feed Co')
  t.true(late.expired)
  t.true(late.expired_at !== null && late.expired_at.getTime() >= before.getTime(), 'stamped when ingest stored it')

  // rewritten: a new valid_through in the future is a new period, live, beside the ended
  // one, which keeps its stamp; a past one expires the new period
  await ingest(sql, readItems([rawPosting({ source_id: 'late-feed', company: { name: 'Late Feed Co' }, valid_through: '2031-07-01T00:00:00Z', job_title: 'Renewed' }, 811)]), { source: 'late-2', now })
  const renewed = await jobOf(sql, 'Late Feed Co')
  t.like(renewed, { expired: false, expired_at: null })
  t.not(renewed.id, late.id)
  const [ended] = await sql<{ expired: boolean; expired_at: Date }[]>`select expired, expired_at from jobs where id = ${late.id}`
  t.true(ended.expired)
  t.is(iso(ended.expired_at), iso(late.expired_at))
  await ingest(sql, readItems([rawPosting({ source_id: 'late-feed', company: { name: 'Late Feed Co' }, valid_through: '2031-06-05T00:00:00Z', job_title: 'Closed' }, 811)]), { source: 'late-3', now })
  const closed = await jobOf(sql, 'Late Feed Co')
  t.true(closed.expired)
  t.not(closed.expired_at, null)
})

/** A company of the test's own, and expired jobs of it stamped at these times (oldest first given). */
async function seedStamped(sql: TestDb['sql'], tag: string, stamps: string[]) {
  const [company] = await sql<{ id: string; slug: string }[]>`
    insert into companies (slug, name) values (${`feed-co-${tag}`}, ${`Feed Co ${tag}`}) returning id::text, slug`
  const ids: string[] = []
  for (const [i, at] of stamps.entries()) {
    const [row] = await sql<{ id: string }[]>`
      insert into jobs (company_id, job_slug, md5_hash, source_key, job_title, job_title_raw, description, description_raw,
                        date_posted, job_board, expired, date_expired, expired_at)
      values (${company.id}, ${`feed-${tag}-${i}`}, ${`feed-md5-${tag}-${i}`}, ${`feed-${tag}-${i}`}, 'Feed Job', 'Feed Job', '', '',
              '2032-04-01', 'TestBoard', true, '2032-04-30', ${new Date(at)})
      returning id::text`
    ids.push(row.id)
  }
  return { companySlug: company.slug, ids }
}

test.serial('a live job cannot carry expired_at, nor an expired one lack it', async (t) => {
  const sql = t.context.sql
  const { ids: [id] } = await seedStamped(sql, 'check', ['2020-01-01T00:00:00Z'])
  await t.throwsAsync(sql`update jobs set expired_at = null where id = ${id}`, { message: /jobs_expired_at_check/ })
  await sql`update jobs set expired = false, expired_at = null where id = ${id}`
  await t.throwsAsync(sql`update jobs set expired_at = now() where id = ${id}`, { message: /jobs_expired_at_check/ })
  await sql`delete from jobs where id = ${id}`
})

// --- the page and export queries -------------------------------------------------------

test.serial('pages: newest first with id breaking ties, since inclusive, offset and more', async (t) => {
  const sql = t.context.sql
  // stamped as two runs would: three at 12:00, two at 18:00
  const stamps = ['2032-05-01T12:00:00Z', '2032-05-01T12:00:00Z', '2032-05-01T12:00:00Z', '2032-05-01T18:00:00Z', '2032-05-01T18:00:00Z']
  const { companySlug, ids: made } = await seedStamped(sql, 'pages', stamps)
  const since = new Date('2032-05-01T12:00:00Z')
  const want = [made[4], made[3], made[2], made[1], made[0]]
  const all = await listExpiredJobs(sql, { since, offset: 0, limit: 10 })
  t.deepEqual(all.jobs.map((j) => j._id), want)
  t.false(all.more)
  t.deepEqual(all.jobs[0], { _id: made[4], job_slug: 'feed-pages-4', company_slug: companySlug, date_expired: '2032-04-30', expired_at: new Date('2032-05-01T18:00:00Z') })

  const first = await listExpiredJobs(sql, { since, offset: 0, limit: 2 })
  const second = await listExpiredJobs(sql, { since, offset: 2, limit: 2 })
  const third = await listExpiredJobs(sql, { since, offset: 4, limit: 2 })
  t.deepEqual([first.more, second.more, third.more], [true, true, false])
  t.deepEqual([...first.jobs, ...second.jobs, ...third.jobs].map((j) => j._id), want)

  t.deepEqual((await listExpiredJobs(sql, { since: new Date('2032-05-01T12:00:00.001Z'), offset: 0, limit: 10 })).jobs.map((j) => j._id), want.slice(0, 2))
  t.deepEqual((await listExpiredJobs(sql, { since: new Date('2032-05-01T18:00:00.001Z'), offset: 0, limit: 10 })).jobs, [])
  const everything = await listExpiredJobs(sql, { since: null, offset: 0, limit: 1000 })
  t.deepEqual(everything.jobs.slice(0, 5).map((j) => j._id), want, 'without since: every expired job, these newest')
  t.true(everything.jobs.length > 5)
  t.true(everything.jobs.every((j, i, a) => i === 0 || a[i - 1].expired_at.getTime() >= j.expired_at.getTime()))

  // the export: the same order, exactly the line's four fields in its order, walked by a cursor
  const lines: Record<string, unknown>[] = []
  for await (const rows of expiredJobsQuery(sql, since).cursor(2)) lines.push(...rows)
  t.deepEqual(lines.map((l) => l._id), want)
  t.deepEqual(Object.keys(lines[0]), ['_id', 'company_slug', 'job_slug', 'date_expired'])
  t.deepEqual(lines[0], { _id: made[4], company_slug: companySlug, job_slug: 'feed-pages-4', date_expired: '2032-04-30' })
  const whole: Record<string, unknown>[] = []
  for await (const rows of expiredJobsQuery(sql, new Date('0001-01-01T00:00:00Z')).cursor(1000)) whole.push(...rows)
  t.deepEqual(whole.map((l) => l._id), everything.jobs.map((j) => j._id), 'from year 1: every expired job, as the page lists them')
})

test.serial('the page query skips its offset over jobs_expired_at_idx, with no sort', async (t) => {
  // on a table this small the planner would rather sort, or read another index of the
  // expired jobs; with sorts and sequential scans off, only an index in the feed's order serves
  await t.context.sql.begin(async (tx) => {
    await tx`set local enable_seqscan = off`
    await tx`set local enable_bitmapscan = off`
    await tx`set local enable_sort = off`
    const [plan] = await tx<{ 'QUERY PLAN': unknown }[]>`
      explain (format json) select j.id from jobs j
      where j.expired and j.expired_at >= ${new Date('2026-01-01T00:00:00Z')}
      order by j.expired_at desc, j.id desc offset 100 limit 101`
    const text = JSON.stringify(plan['QUERY PLAN'])
    t.regex(text, /jobs_expired_at_idx/)
    t.notRegex(text, /"Node Type":"Sort"/)
  })
})
