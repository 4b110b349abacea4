/**
 * renderRecords (sql/export.ts): Postgres writes an export's CSV rows byte for byte as
 * csv-stringify wrote them from the same text values, so moving the quoting out of the
 * worker's event loop changed no file; and JSON lines as row_to_json prints them.
 */
import anyTest, { type TestFn } from 'ava'
import { stringify } from 'csv-stringify/sync'
import { renderRecords } from '../../sql/export.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'

const test = anyTest as TestFn<{ db: TestDb }>

test.before(async (t) => {
  t.context = { db: await testDatabase() }
})
test.after.always(async (t) => {
  await t.context.db?.close()
})

const values: (string | null)[][] = [
  ['plain', 'a, b', 'say "hi"', null],
  ['', 'line\nbreak', 'carriage\rreturn', ' padded '],
  ['{"min": 3, "max": 5}', '["Go", "SQL"]', 'Zürich – 日本 🚀', '\'single\''],
  [null, null, null, 'a "quoted, comma"\r\n'],
]

test('CSV rows as csv-stringify writes the same values; null and an empty text both empty fields', async (t) => {
  const { sql } = t.context.db
  const records = sql`
    select a, b, c, d from unnest(${values.map((r) => r[0])}::text[], ${values.map((r) => r[1])}::text[], ${values.map((r) => r[2])}::text[], ${values.map((r) => r[3])}::text[])
      with ordinality as v(a, b, c, d, n)
    order by n`
  t.is(await renderRecords(sql, records, 'csv'), stringify(values))
})

test('JSON lines as row_to_json prints them', async (t) => {
  const { sql } = t.context.db
  const text = await renderRecords(sql, sql`select 1 as n, 'a "b"' as s, null::text as z union all select 2, 'c', 'd'`, 'json')
  t.is(text, '{"n":1,"s":"a \\"b\\"","z":null}\n{"n":2,"s":"c","z":"d"}\n')
})
