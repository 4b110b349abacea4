/**
 * writeExportRecords reads batches ahead of the one it renders (sql/export.ts): with
 * small batches, the records still come out whole, once each, in the search's order,
 * whatever the read-ahead; and an export that fails mid-way rejects with its error,
 * leaves no read unobserved and its connections usable.
 */
import anyTest, { type TestFn } from 'ava'
import { ingest } from '../../ingest/pipeline.ts'
import { exportRecord, toastedValues, writeExportRecords } from '../../sql/export.ts'
import { searchJobs, type SearchPage } from '../../sql/search.ts'
import { rawPosting } from '../helpers/factories.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'

const test = anyTest as TestFn<{ db: TestDb }>
const JOBS = 25
const TASK = '00000000-0000-4000-8000-000000000001'
const page: SearchPage = { page: 1, limit: JOBS, sortBy: 'date_posted', sortOrder: null, raw: false }

test.before(async (t) => {
  const db = await testDatabase()
  const items = Array.from({ length: JOBS }, (_, i) => ({
    line: i + 1,
    raw: rawPosting({ source_id: `ahead-${i}`, job_title: `Read Ahead Analyst ${i}`, date_posted: `2026-10-${String(i + 1).padStart(2, '0')}` }, i) as never,
  }))
  await ingest(db.sql, items, { source: 'read-ahead-test' })
  t.context = { db }
})

test.after.always(async (t) => {
  await t.context.db?.close()
})

async function exportText(db: TestDb, options: { batchRows: number; readAhead: number }, format: 'json' | 'csv' = 'json', name = `ahead_${options.batchRows}_${options.readAhead}_${format}`) {
  let text = ''
  const batches: number[] = []
  const waited: number[] = []
  const count = await writeExportRecords(
    db.sql,
    name,
    { filters: {}, page, rows: JOBS, taskId: TASK, format },
    async (chunk) => void (text += chunk),
    async (records, waitedMs) => {
      batches.push(records)
      waited.push(waitedMs)
    },
    options,
  )
  return { text, batches, waited, count }
}

for (const readAhead of [0, 1, 4, 20]) {
  test(`json, batches of 3, ${readAhead} read ahead: every record once, in the search's order, positions 1–${JOBS}`, async (t) => {
    const { db } = t.context
    const { text, batches, waited, count } = await exportText(db, { batchRows: 3, readAhead })
    t.is(count, JOBS)
    t.deepEqual(batches, [3, 3, 3, 3, 3, 3, 3, 3, 1])
    t.true(waited.every((ms) => ms >= 0 && Number.isFinite(ms)), waited.join(', '))
    const lines = text.trimEnd().split('\n').map((l) => JSON.parse(l) as { _id: string; meta: { position: number; task_id: string } })
    const search = await searchJobs(db.sql, {}, page)
    t.deepEqual(lines.map((l) => l._id), search.jobs.map((j) => j._id))
    t.deepEqual(lines.map((l) => l.meta.position), Array.from({ length: JOBS }, (_, i) => i + 1))
    t.true(lines.every((l) => l.meta.task_id === TASK))
  })
}

test('csv: the same rows whatever the read-ahead, one header', async (t) => {
  const { db } = t.context
  const none = await exportText(db, { batchRows: 4, readAhead: 0 }, 'csv')
  const ahead = await exportText(db, { batchRows: 4, readAhead: 3 }, 'csv')
  t.is(ahead.text, none.text)
  t.is(ahead.text.split('\n').filter((l) => l.startsWith('_id,')).length, 1)
  t.is(ahead.count, JOBS)
})

test('a write that fails mid-way rejects the export with its error; the reads ahead settle and the pool still serves', async (t) => {
  const { db } = t.context
  let chunks = 0
  const failing = writeExportRecords(
    db.sql,
    'ahead_failing',
    { filters: {}, page, rows: JOBS, taskId: TASK, format: 'json' },
    async () => {
      if (++chunks === 2) throw new Error('disk full')
    },
    async () => {},
    { batchRows: 2, readAhead: 5 },
  )
  await t.throwsAsync(failing, { message: 'disk full' })
  t.is(chunks, 2, 'nothing is written after the failure')
  const [{ n }] = await db.sql<{ n: number }[]>`select count(*)::int as n from jobs`
  t.is(n, JOBS)
  // the held cursor was closed: the same name can be declared again
  const again = await exportText(db, { batchRows: 2, readAhead: 5 }, 'json', 'ahead_failing')
  t.is(again.count, JOBS)
})

test('the read ahead reads every variable-length value a record reads, so that rendering finds them in memory', async (t) => {
  const { db } = t.context
  const varlena = await db.sql<{ alias: string; name: string }[]>`
    select case c.relname when 'jobs' then 'j' else 'c' end as alias, a.attname as name
    from pg_attribute a join pg_class c on c.oid = a.attrelid
    where c.relname in ('jobs', 'companies') and c.relnamespace = current_schema()::regnamespace
      and a.attnum > 0 and a.attlen = -1 and not a.attisdropped
      -- a numeric (yoe, salary) is variable-length too, but a few bytes: never out of line
      and a.atttypid <> 'numeric'::regtype`
  const mayBeToasted = new Set(varlena.map((v) => `${v.alias}.${v.name}`))
  t.true(mayBeToasted.has('j.description') && mayBeToasted.has('c.link'))
  /** the columns of jobs (j) and companies (c) in a statement's select list, as EXPLAIN VERBOSE names them in its top node's output (a scan below may list every column) */
  const columnsRead = async (statement: ReturnType<typeof db.sql>) => {
    const plan = (await db.sql<{ 'QUERY PLAN': string }[]>`explain (verbose) ${statement}`).map((r) => r['QUERY PLAN'])
    const output = plan.find((line) => line.trim().startsWith('Output:'))!
    return new Set([...output.matchAll(/\b([jc])\.([a-z_]+)\b/g)].map((m) => `${m[1]}.${m[2]}`).filter((c) => mayBeToasted.has(c)))
  }
  for (const raw of [false, true]) {
    const read = await columnsRead(db.sql`select count(${toastedValues(db.sql, raw)}) from jobs j join companies c on c.id = j.company_id`)
    for (const format of ['json', 'csv'] as const) {
      const record = await columnsRead(db.sql`
        select ${exportRecord(db.sql, raw, format)}
        from jobs j join companies c on c.id = j.company_id
        cross join (select 1 as position, ${TASK}::uuid as task_id, 1::float8 as score) b`)
      t.true(record.has('j.description') && record.has('c.link'), 'the plan names the record\'s columns')
      t.is(record.has('j.description_raw'), raw)
      t.deepEqual([...record].filter((c) => !read.has(c)), [], `raw ${raw}, ${format}: read ahead as well`)
    }
  }
})
