/** `make migrate`: applies pending migrations to DATABASE_URL or the embedded database. */
import { loadConfig } from './config.ts'
import { openDatabase } from './db.ts'
import { migrate } from './migrate.ts'

const config = loadConfig()
const db = await openDatabase(config)
try {
  const applied = await migrate(db.sql)
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'schema is up to date')
} finally {
  await db.close()
}
