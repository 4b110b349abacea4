/**
 * A connection or transaction as pg-boss's `db` option: boss.send(q, data, { db:
 * bossDb(tx) }) enqueues inside the caller's transaction. pg-boss hands over its own
 * SQL text and parameters (options it was not given arrive as undefined, which
 * postgres.js refuses: they are NULL); it reads only rows[0].id back.
 */
import type { Db } from './db.ts'

export const bossDb = (db: Db) => ({
  executeSql: async (text: string, values: unknown[] = []) => ({ rows: await db.unsafe(text, values.map((v) => v ?? null) as never[]) }),
})
