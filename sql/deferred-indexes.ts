/**
 * Building an index after a bulk load rather than during it: pgvector's HNSW graph takes
 * 2,000 inserts one at a time in about three times what one build over the loaded rows
 * takes (31 s against 11 s on the embedded database, 2 busy cores). The definition is
 * kept in deferred_indexes from the drop to the rebuild, so nothing is lost if the
 * process dies between them: restoreIndexes, at every server start, builds what is owed.
 */
import type { Sql } from './db.ts'

/** Drops the index, keeping its definition until restoreIndexes builds it again. */
export async function deferIndex(sql: Sql, name: string) {
  await sql.begin(async (tx) => {
    const [index] = await tx<{ indexdef: string }[]>`select indexdef from pg_indexes where schemaname = current_schema() and indexname = ${name}`
    if (!index) return
    await tx`insert into deferred_indexes (name, definition) values (${name}, ${index.indexdef}) on conflict (name) do nothing`
    await tx`drop index ${tx(name)}`
  })
}

/** Builds every deferred index; returns their names. */
export async function restoreIndexes(sql: Sql) {
  const owed = await sql<{ name: string; definition: string }[]>`select name, definition from deferred_indexes order by deferred_at`
  for (const { name, definition } of owed) {
    await sql.begin(async (tx) => {
      // the definition is pg_indexes' own text of an index of this database
      await tx.unsafe(definition.replace(/^CREATE INDEX /, 'CREATE INDEX IF NOT EXISTS '))
      await tx`delete from deferred_indexes where name = ${name}`
    })
  }
  return owed.map((o) => o.name)
}
