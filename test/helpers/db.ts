/**
 * A fresh, migrated database per test file. With TEST_DATABASE_URL it is a database
 * created on that server from a template (built once per migration set, under an
 * advisory lock, since ava runs files in parallel processes); without it, an
 * in-memory embedded PGlite behind its own socket, exactly as the service runs it.
 */
import { createHash, randomBytes } from 'node:crypto'
import postgres from 'postgres'
import { connect, type Sql } from '../../sql/db.ts'
import { startEmbedded } from '../../sql/embedded.ts'
import { listMigrations, migrate } from '../../sql/migrate.ts'

export type TestDb = { sql: Sql; url: string; kind: 'server' | 'embedded'; close: () => Promise<void> }

export async function testDatabase(): Promise<TestDb> {
  const serverUrl = process.env.TEST_DATABASE_URL
  if (!serverUrl) {
    const embedded = await startEmbedded({ dataDir: null, port: 0 })
    const sql = connect(embedded.url, 8)
    await migrate(sql)
    return {
      sql,
      url: embedded.url,
      kind: 'embedded',
      close: async () => {
        await sql.end({ timeout: 5 })
        await embedded.stop()
      },
    }
  }
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} })
  const digest = createHash('sha256').update(listMigrations().map((m) => m.text).join('\n')).digest('hex').slice(0, 10)
  const template = `jds_tpl_${digest}`
  const name = `jds_test_${randomBytes(5).toString('hex')}`
  try {
    await admin`select pg_advisory_lock(727002)`
    const [exists] = await admin`select 1 from pg_database where datname = ${template}`
    if (!exists) {
      await admin`create database ${admin(template + '_build')}`.catch(() => {})
      const buildUrl = withDatabase(serverUrl, template + '_build')
      const build = postgres(buildUrl, { max: 1, onnotice: () => {} })
      await migrate(build)
      await build.end()
      await admin`alter database ${admin(template + '_build')} rename to ${admin(template)}`
    }
    await admin`create database ${admin(name)} template ${admin(template)}`
  } finally {
    await admin`select pg_advisory_unlock(727002)`.catch(() => {})
  }
  const url = withDatabase(serverUrl, name)
  const sql = connect(url, 8)
  return {
    sql,
    url,
    kind: 'server',
    close: async () => {
      await sql.end({ timeout: 5 })
      await admin`drop database if exists ${admin(name)} with (force)`
      await admin.end()
    },
  }
}

function withDatabase(url: string, db: string) {
  const u = new URL(url)
  u.pathname = `/${db}`
  return u.toString()
}
