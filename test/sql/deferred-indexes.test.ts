/** An index dropped for a bulk load is built again, also by a later start when the load died. */
import anyTest, { type TestFn } from 'ava'
import { deferIndex, restoreIndexes } from '../../sql/deferred-indexes.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'

const test = anyTest as TestFn<{ db: TestDb }>
test.before(async (t) => {
  t.context = { db: await testDatabase() }
})
test.after.always(async (t) => {
  await t.context.db?.close()
})

const definition = async (t: { context: { db: TestDb } }): Promise<string | null> => {
  const [row] = await t.context.db.sql<{ indexdef: string }[]>`select indexdef from pg_indexes where indexname = 'jobs_embedding_idx'`
  return row?.indexdef ?? null
}

test.serial('deferred, the index is gone and owed; restored, it is the same index and nothing is owed', async (t) => {
  const { sql } = t.context.db
  const before = await definition(t)
  t.regex(before ?? '', /^CREATE INDEX jobs_embedding_idx ON public\.jobs USING hnsw \(embedding /)
  await deferIndex(sql, 'jobs_embedding_idx')
  t.is(await definition(t), null as string | null)
  t.deepEqual([...(await sql`select name from deferred_indexes`)], [{ name: 'jobs_embedding_idx' }])
  // a process that dies here leaves the row: the next start's restoreIndexes builds it
  t.deepEqual(await restoreIndexes(sql), ['jobs_embedding_idx'])
  t.is(await definition(t), before)
  t.deepEqual([...(await sql`select name from deferred_indexes`)], [])
  t.deepEqual(await restoreIndexes(sql), [], 'nothing owed: nothing built')
})

test.serial('an index that does not exist is not deferred', async (t) => {
  await deferIndex(t.context.db.sql, 'no_such_index')
  t.deepEqual([...(await t.context.db.sql`select name from deferred_indexes`)], [])
})
