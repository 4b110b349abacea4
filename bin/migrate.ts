/** `make migrate`: applies pending migrations to DATABASE_URL or the embedded database. */
import { loadConfig } from '../sql/config.ts'
import { openDatabase } from '../sql/db.ts'
import { migrate } from '../sql/migrate.ts'

const config = loadConfig()
const db = await openDatabase(config)
try {
  const applied = await migrate(db.sql)
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'schema is up to date')
} finally {
  await db.close()
}
