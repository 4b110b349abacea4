/** Expiry: past valid_through, or unseen by the board's latest ingest for N days; both archived. */
import anyTest, { type TestFn } from 'ava'
import { ingest } from '../../ingest/pipeline.ts'
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

test.serial('expires past valid_through and stale postings, archives each once', async (t) => {
  const sql = t.context.sql
  const t0 = new Date('2026-10-01T00:00:00Z')
  await ingest(sql, readItems([
    rawPosting({ job_board: 'ExpBoard', source_id: 'keep', company: { name: 'Keeper Co' } }, 11),
    rawPosting({ job_board: 'ExpBoard', source_id: 'gone', company: { name: 'Gone Co' }, skills: ['Kubernetes'] }, 12),
    rawPosting({ job_board: 'OtherBoard', source_id: 'valid', company: { name: 'Deadline Co' }, valid_through: '2026-10-05T00:00:00Z' }, 13),
  ]), { source: 'day0', now: t0 })

  // 40 days later the board is ingested again without "gone"
  const t40 = new Date(t0.getTime() + 40 * day)
  await ingest(sql, readItems([rawPosting({ job_board: 'ExpBoard', source_id: 'keep', company: { name: 'Keeper Co' } }, 11)]), { source: 'day40', now: t40 })

  const result = await expireJobs(sql, { afterDays: 30, now: new Date(t40.getTime() + day) })
  t.deepEqual(result, { expired: 2, archived: 2 })
  const rows = await sql`
    select c.name, j.expired, to_char(j.date_expired, 'YYYY-MM-DD') as date_expired
    from jobs j join companies c on c.id = j.company_id where c.name in ('Keeper Co', 'Gone Co', 'Deadline Co') order by c.name`
  t.deepEqual(rows.map((r) => [r.name, r.expired, r.date_expired]), [
    ['Deadline Co', true, '2026-10-05'],
    ['Gone Co', true, '2026-11-11'],
    ['Keeper Co', false, null],
  ])
  const archive = await sql`
    select company_name, date_posted::text, date_expired::text, skills, countries, description_kept from job_archive order by company_name`
  t.deepEqual(archive.map((a) => a.company_name), ['Deadline Co', 'Gone Co'], 'each expired job archived once')
  t.is(archive[1].company_name, 'Gone Co')
  t.true(archive[1].skills.includes('Kubernetes'))
  t.deepEqual(archive[1].countries, ['Germany'])
  t.true(archive[1].description_kept)

  // a second run finds nothing new
  t.deepEqual(await expireJobs(sql, { afterDays: 30, now: new Date(t40.getTime() + 2 * day) }), { expired: 0, archived: 0 })
})

test.serial('a posting unseen for fewer than N days stays live', async (t) => {
  const sql = t.context.sql
  const t0 = new Date('2026-11-01T00:00:00Z')
  await ingest(sql, readItems([rawPosting({ job_board: 'FreshBoard', source_id: 'recent', company: { name: 'Recent Co' } }, 21)]), { source: 'a', now: t0 })
  await ingest(sql, readItems([rawPosting({ job_board: 'FreshBoard', source_id: 'other', company: { name: 'Other Co' } }, 22)]), { source: 'b', now: new Date(t0.getTime() + 5 * day) })
  await expireJobs(sql, { afterDays: 30, now: new Date(t0.getTime() + 6 * day) })
  const [row] = await sql`select j.expired from jobs j join companies c on c.id = j.company_id where c.name = 'Recent Co'`
  t.false(row.expired)
})

test.serial('a posting that arrives past its valid_through is expired and archived by the ingest itself', async (t) => {
  const sql = t.context.sql
  const now = new Date('2026-11-10T00:00:00Z')
  await ingest(sql, readItems([rawPosting({ source_id: 'late', company: { name: 'Late Co' }, valid_through: '2026-11-01T00:00:00Z' }, 31)]), { source: 'late', now })
  const [job] = await sql`select j.id, j.expired, j.date_expired::text from jobs j join companies c on c.id = j.company_id where c.name = 'Late Co'`
  t.true(job.expired)
  t.is(job.date_expired, '2026-11-01')
  const [archived] = await sql`select date_expired::text from job_archive where job_id = ${job.id}`
  t.is(archived.date_expired, '2026-11-01', 'in the archive before any expiry run')
  const result = await expireJobs(sql, { afterDays: 30, now })
  const [again] = await sql`select count(*)::int as n from job_archive where job_id = ${job.id}`
  t.is(again.n, 1, 'the next run archives it no second time')
  t.is(result.expired, 0)
})
