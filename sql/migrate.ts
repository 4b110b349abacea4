/**
 * Forward-only migrations: sql/migrations/NNNN_name.sql, applied in order, each in
 * its own transaction and recorded in schema_migrations. An advisory lock lets two
 * processes start at once: the second waits, then finds nothing left to do.
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Sql } from './db.ts'

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations')
const LOCK_KEY = 727_001 // arbitrary, constant: identifies "migrations running"

export function listMigrations() {
  return fs
    .readdirSync(dir)
    .filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f))
    .sort()
    .map((file) => ({ version: file.slice(0, 4), file, text: fs.readFileSync(path.join(dir, file), 'utf8') }))
}

export async function migrate(sql: Sql): Promise<string[]> {
  const applied: string[] = []
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${LOCK_KEY})`
    await tx`
      create table if not exists schema_migrations (
        version text primary key,
        name text not null,
        applied_at timestamptz not null default now()
      )`
  })
  for (const m of listMigrations()) {
    // The lock is taken per migration and the check repeated under it, so a process
    // that waited behind another sees that one's work and skips it.
    await sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(${LOCK_KEY})`
      const [done] = await tx`select 1 from schema_migrations where version = ${m.version}`
      if (done) return
      await tx.unsafe(m.text)
      await tx`insert into schema_migrations (version, name) values (${m.version}, ${m.file})`
      applied.push(m.file)
    })
  }
  return applied
}
