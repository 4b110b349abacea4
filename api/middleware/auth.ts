/**
 * x-api-key authentication for data endpoints (and a Bearer JWT where a route accepts
 * one). The key itself never reaches a log: the request logger records only the
 * account id this sets.
 */
import type { Context } from 'koa'
import { findAccountByKey, findAccountByKeyHash, findBillingAccount, hashKey, type Account } from '../../sql/accounts.ts'
import type { Db } from '../../sql/db.ts'
import { loadConfig } from '../config.ts'
import { errors } from '../errors.ts'
import { verifyToken } from './jwt.ts'

export type AuthState = { account: Account }

export type AuthOptions = {
  /**
   * The expired-jobs, export and insights endpoints answer an anonymous call with
   * "Sign in to access this endpoint" and X-Billing-Code auth_required.
   */
  signIn?: boolean
  /** Also accept `Authorization: Bearer <JWT>` (the usage summary). */
  token?: boolean
}

declare module 'koa' {
  interface DefaultContext {
    /** set by buildApp: the JWT secret for routes that accept a token */
    jwtSecret?: string
  }
}

export async function authenticate(ctx: Context, db: Db, { signIn = false, token = false }: AuthOptions): Promise<Account> {
  const key = ctx.get('x-api-key')
  const bearer = token && !key ? /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'))?.[1] : undefined
  if (bearer) {
    const accountId = await verifyToken(ctx.jwtSecret ?? loadConfig().jwtSecret, bearer)
    const account = accountId ? await findBillingAccount(db, accountId) : null
    if (!account) throw errors.invalidToken()
    return account
  }
  if (!key) throw signIn ? errors.signInRequired() : errors.missingAuth()
  const account = key.length <= 200 ? await findAccountByKey(db, key) : null
  if (!account) throw errors.invalidKey()
  return account
}

/**
 * How long keyed() reuses a key's account without reading it again. Not a window in
 * which a revoked key still works: every keyed request sends the cached account's
 * fingerprint with its admission (sql/meters.ts admitBatch), and a revoked key or a
 * changed account (plan, period, features) is read afresh before anything is counted.
 * The one exception is a key this process is already answering 429 from memory (the
 * rate limiter's fast path): it keeps getting 429, not 401, until its entry expires.
 * Misses are never cached, so a new key works at once.
 */
export const KEY_CACHE_TTL_MS = 2000
const KEY_CACHE_MAX = 10_000

type CachedKey = { account: Account; fingerprint: string; until: number }
const keyCaches = new WeakMap<object, Map<string, CachedKey>>()

/** An authenticated caller, with what admission needs to check a cached key. */
export type KeyedAuth = { account: Account; fingerprint: string | null; keyHash: string | null }

/**
 * authenticate() for keyed routes: the same answers, but an API key's account may come
 * from the short-lived cache. `fresh` skips the cache (after admission said it is stale).
 */
export async function authenticateKeyed(ctx: Context, db: Db, opts: AuthOptions, fresh = false): Promise<KeyedAuth> {
  const key = ctx.get('x-api-key')
  if (!key || key.length > 200) return { account: await authenticate(ctx, db, opts), fingerprint: null, keyHash: null }
  const keyHash = hashKey(key)
  let cache = keyCaches.get(db)
  if (!cache) keyCaches.set(db, (cache = new Map()))
  const now = Date.now()
  const hit = fresh ? undefined : cache.get(keyHash)
  if (hit && hit.until > now) return { account: hit.account, fingerprint: hit.fingerprint, keyHash }
  cache.delete(keyHash)
  const found = await findAccountByKeyHash(db, keyHash)
  if (!found) throw errors.invalidKey()
  if (cache.size >= KEY_CACHE_MAX) {
    for (const [h, c] of cache) if (c.until <= now || cache.size >= KEY_CACHE_MAX) cache.delete(h)
  }
  cache.set(keyHash, { ...found, until: now + KEY_CACHE_TTL_MS })
  return { ...found, keyHash }
}

/** Drops a cached key (admission found it stale). */
export function forgetKey(db: Db, keyHash: string) {
  keyCaches.get(db)?.delete(keyHash)
}
