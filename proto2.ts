import { PGlite } from '@electric-sql/pglite'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'
import postgres from 'postgres'
const db = await PGlite.create()
const server = new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1', maxConnections: 16 } as any)
await server.start()
const port = (server as any).port
const sql = postgres({ host: '127.0.0.1', port, database: 'postgres', username: 'postgres', max: 8, onnotice: () => {} })
let bad = 0, err = 0
await Promise.all(Array.from({ length: 2000 }, async (_, i) => {
  try {
    const q = i % 3 === 0 ? sql`select ${i}::int as i, 'a' as k` : i % 3 === 1 ? sql`select ${i}::int + 0 as i, ${'b'}::text as k` : sql`select i from (select ${i}::int as i) s`
    const r = await q
    if (r[0].i !== i) bad++
  } catch (e) { err++; if (err < 3) console.error(String(e)) }
}))
console.log({ bad, err })
await sql.end(); await server.stop(); await db.close()
