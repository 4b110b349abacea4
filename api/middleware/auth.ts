/**
 * x-api-key authentication for data endpoints (and a Bearer JWT where a route accepts
 * one). The key itself never reaches a log: the request logger records only the
 * account id this sets.
 */
import type { Context } from 'koa'
import { findAccountByKey, findAccountByKeyHash, findBillingAccount, hashKey, type Account } from '../../sql/accounts.ts'
import type { Db } from '../../sql/db.ts'
import { errors } from '../errors.ts'
import { verifyToken } from './jwt.ts'

export type AuthOptions = {
  /**
   * The expired-jobs, export and insights endpoints answer an anonymous call with
   * "Sign in to access this endpoint" and X-Billing-Code auth_required.
   */
  signIn?: boolean
  /** Also accept `Authorization: Bearer <JWT>` (the usage summary). */
  token?: boolean
  /** Also accept the API key as `Authorization: Bearer <api key>` (company search, as the spec shows it). */
  bearerKey?: boolean
}

/** The API key of a request: x-api-key, or with `bearerKey` an `Authorization: Bearer` credential when x-api-key is absent. */
export function apiKeyOf(ctx: Context, bearerKey = false): string | undefined {
  // as ctx.get('x-api-key') reads it, without lower-casing the name on every request
  const key = ctx.req.headers['x-api-key'] as string | undefined
  if (key || !bearerKey) return key
  return /^Bearer\s+(\S+)$/i.exec(ctx.req.headers.authorization ?? '')?.[1]
}

declare module 'koa' {
  interface DefaultContext {
    /** set by buildApp: the JWT secret for routes that accept a token */
    jwtSecret?: string
  }
}

export async function authenticate(ctx: Context, db: Db, { signIn = false, token = false, bearerKey = false }: AuthOptions): Promise<Account> {
  const key = apiKeyOf(ctx, bearerKey) ?? ''
  const bearer = token && !key ? /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'))?.[1] : undefined
  if (bearer) {
    // buildApp sets the secret; without one no token is valid
    const accountId = ctx.jwtSecret ? await verifyToken(ctx.jwtSecret, bearer) : null
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
 * API keys' accounts, remembered by this process. An entry is dropped whenever the
 * billing_epoch sequence moves (a key revoked, an account or allowance changed; see
 * admission.ts), so a change applies within one poll; KEY_CACHE_TTL_MS only bounds how
 * long an entry lives if polling fails. Misses are never remembered, so a new key
 * works at once. Entries are found by the key as sent: hashing it on every request
 * cost more than the rest of authentication; the key stays in this process's memory,
 * as it does while its requests are served, and is never written anywhere.
 */
export const KEY_CACHE_TTL_MS = 60_000
const KEY_CACHE_MAX = 10_000

export class KeyCache {
  private entries = new Map<string, { account: Account; until: number }>()
  private loading = new Map<string, Promise<Account>>()
  private generation = 0

  constructor(private db: Db) {}

  /** authenticate(), with an API key's account from memory (synchronously) when it is there. */
  authenticate(ctx: Context, opts: AuthOptions, now = Date.now()): Account | Promise<Account> {
    const key = apiKeyOf(ctx, opts.bearerKey)
    if (!key || key.length > 200) return authenticate(ctx, this.db, opts)
    const hit = this.entries.get(key)
    if (hit && hit.until > now) return hit.account
    // one lookup per key at a time: after a start or a billing change, the requests of
    // a busy key would otherwise each look it up
    let loading = this.loading.get(key)
    if (!loading) {
      const mine = (loading = this.load(key))
      this.loading.set(key, mine)
      const done = () => this.loading.get(key) === mine && this.loading.delete(key)
      mine.then(done, done)
    }
    return loading
  }

  private async load(key: string) {
    this.entries.delete(key)
    const now = Date.now()
    const generation = this.generation
    const account = await findAccountByKeyHash(this.db, hashKey(key))
    if (!account) throw errors.invalidKey()
    // read before a billing change: it answers the requests that asked, but is not kept
    if (generation !== this.generation) return account
    if (this.entries.size >= KEY_CACHE_MAX) {
      for (const [k, c] of this.entries) if (c.until <= now || this.entries.size >= KEY_CACHE_MAX) this.entries.delete(k)
    }
    this.entries.set(key, { account, until: now + KEY_CACHE_TTL_MS })
    return account
  }

  clear() {
    this.generation++
    this.entries.clear()
    // a lookup under way may have read the key before the change: not shared from here on
    this.loading.clear()
  }
}
