/** What GET /readyz asks the database (api/routes/health.ts). */
import type { Db } from './db.ts'
import { listMigrations } from './migrate.ts'

let shipped: { version: string; file: string }[] | null = null

/** The migrations this build ships that the database has not applied; throws when the database does not answer. */
export async function listPendingMigrations(db: Db) {
  const [{ exists }] = await db<{ exists: boolean }[]>`select to_regclass('schema_migrations') is not null as exists`
  const applied = exists ? new Set((await db<{ version: string }[]>`select version from schema_migrations`).map((r) => r.version)) : new Set<string>()
  shipped ??= listMigrations().map(({ version, file }) => ({ version, file }))
  return shipped.filter((m) => !applied.has(m.version)).map((m) => m.file)
}
