/**
 * COPY … TO STDOUT through the driver, as exports read their records (sql/export.ts),
 * on the connection that goes on with the next statement. Unpatched, the driver could
 * leave the socket paused after a COPY larger than the stream's buffer, and the
 * connection's next query never answered (patches/postgres+3.4.9.patch,
 * docs/postgres-driver-patch.md); this test then fails on its timeout.
 */
import test from 'ava'
import { testDatabase } from '../helpers/db.ts'

test('large COPY outputs in a row on one connection, each followed by a query', async (t) => {
  t.timeout(60_000)
  const db = await testDatabase()
  const conn = await db.sql.reserve()
  try {
    for (let round = 1; round <= 3; round++) {
      let bytes = 0
      let lines = 0
      for await (const chunk of await conn`copy (select g, repeat('x', 500) from generate_series(1, 5000) g) to stdout`.readable()) {
        bytes += (chunk as Buffer).length
        lines += (chunk as Buffer).toString('latin1').split('\n').length - 1
      }
      t.is(lines, 5000)
      t.true(bytes > 2_500_000, `${bytes} bytes`)
      const [{ n }] = await conn<{ n: number }[]>`select ${round}::int as n`
      t.is(n, round)
    }
  } finally {
    conn.release()
    await db.close()
  }
})
