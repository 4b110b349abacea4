/**
 * An account's API keys as its own clients manage them (GET/POST/DELETE /v2/keys). A
 * key is stored as its SHA-256 only (accounts.ts hashKey/newKey); its prefix is kept
 * so that a customer can tell keys apart.
 */
import { hashKey, newKey } from './accounts.ts'
import type { Db } from './db.ts'
import { isUuid } from './ids.ts'

/** Live keys an account may hold: each admission looks its key up, and no client needs more. */
export const MAX_LIVE_KEYS = 50

export type KeyRecord = { id: string; prefix: string; name: string | null; created_at: Date; last_used_at: Date | null }

export async function listKeys(db: Db, accountId: string) {
  return db<KeyRecord[]>`
    select id::text, prefix, name, created_at, last_used_at from api_keys
    where account_id = ${accountId} and revoked_at is null
    order by created_at desc, id`
}

/** A new key, shown once in full; null when the account already holds MAX_LIVE_KEYS live keys. */
export async function insertNamedKey(db: Db, accountId: string, name: string) {
  const key = newKey()
  const [row] = await db<KeyRecord[]>`
    insert into api_keys (account_id, key_hash, prefix, name)
    select ${accountId}, ${hashKey(key)}, ${key.slice(0, 8)}, ${name}
    where (select count(*) from api_keys where account_id = ${accountId} and revoked_at is null) < ${MAX_LIVE_KEYS}
    returning id::text, prefix, name, created_at, last_used_at`
  return row ? { ...row, api_key: key } : null
}

/** Revokes a live key of the account by id; false when the account has no such live key. */
export async function revokeKeyById(db: Db, accountId: string, id: string) {
  if (!isUuid(id)) return false
  const result = await db`
    update api_keys set revoked_at = now() where id = ${id} and account_id = ${accountId} and revoked_at is null`
  return result.count > 0
}

/** Marks a key used now, unless it was marked within the last minute. */
export async function touchKey(db: Db, id: string) {
  await db`
    update api_keys set last_used_at = now()
    where id = ${id} and (last_used_at is null or last_used_at < now() - interval '1 minute')`
}
