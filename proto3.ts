import { PGlite } from '@electric-sql/pglite'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'
import postgres from 'postgres'
const db = await PGlite.create()
const server = new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1', maxConnections: 16 } as any)
await server.start()
const port = (server as any).port
const sql = postgres({ host: '127.0.0.1', port, database: 'postgres', username: 'postgres', max: 8, onnotice: () => {} })
await sql`create table t (id int primary key, v text)`
let err = 0
await Promise.all(Array.from({ length: 600 }, async (_, i) => {
  try {
    if (i % 4 === 0) {
      await sql.begin(async tx => {
        await tx`insert into t values (${i}, 'rolled')`
        await tx`select pg_sleep(0.001)`
        throw new Error('rollback')
      }).catch(e => { if (e.message !== 'rollback') throw e })
    } else if (i % 4 === 1) {
      await sql.begin(async tx => {
        await tx`insert into t values (${i}, 'tx')`
        await tx`update t set v = 'tx2' where id = ${i}`
      })
    } else {
      await sql`insert into t values (${i}, 'plain')`
    }
  } catch (e) { err++; if (err < 5) console.error(String(e)) }
}))
const rows = await sql`select v, count(*)::int n from t group by v order by v`
console.log({ err, rows })
await sql.end(); await server.stop(); await db.close()
