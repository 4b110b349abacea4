/** `make expire`: expires stale postings and archives them, now. */
import { loadConfig } from '../sql/config.ts'
import { openDatabase } from '../sql/db.ts'
import { expireJobs } from '../sql/expiry.ts'
import { migrate } from '../sql/migrate.ts'

const config = loadConfig()
const db = await openDatabase(config)
try {
  await migrate(db.sql)
  const started = Date.now()
  const { expired, archived } = await expireJobs(db.sql, { afterDays: config.expireAfterDays })
  console.log(`expired ${expired}, archived ${archived}, ${((Date.now() - started) / 1000).toFixed(1)} s`)
} finally {
  await db.close()
}
