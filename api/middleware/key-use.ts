/**
 * Keeps api_keys.last_used_at (GET /v2/keys) to within a minute: after a request a key
 * was admitted for, the key is marked used, at most once a minute per key and process,
 * and off the request's path. The admission statement itself stays a read of the key
 * (sql/meters.ts), so this costs one small update per active key a minute rather than a
 * write per request. A mark that fails (a database going away) is only logged.
 */
import type { Middleware } from 'koa'
import { LRUCache } from 'lru-cache'
import type { Logger } from 'pino'
import type { Db } from '../../sql/db.ts'
import { touchKey } from '../../sql/keys.ts'

const EVERY_MS = 60_000

export function recordKeyUse(db: Db, log: Logger): Middleware {
  // bounded: a process serving more keys a minute than this marks some twice, which is harmless
  const marked = new LRUCache<string, true>({ max: 10_000, ttl: EVERY_MS })
  return async (ctx, next) => {
    try {
      await next()
    } finally {
      const keyId: string | null | undefined = ctx.state.account?.key_id
      if (keyId && !marked.has(keyId)) {
        marked.set(keyId, true)
        touchKey(db, keyId).catch((e: Error) => log.debug({ err: { message: e.message } }, 'marking a key used failed'))
      }
    }
  }
}
