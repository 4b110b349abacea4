/**
 * The credential of a request: an x-api-key (or, where a route accepts one, a Bearer
 * JWT or the key as a Bearer credential). The key itself never reaches a log or the
 * database: the admission statement looks it up by its SHA-256, and the request
 * logger records only the account id the admission sets.
 */
import type { Context } from 'koa'
import { hashKey } from '../../sql/accounts.ts'
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

/** Who a request says it is: a key's hash, or the account a valid JWT names. */
export type Credential = { keyHash: string } | { accountId: string }

/** The API key of a request: x-api-key, or with `bearerKey` an `Authorization: Bearer` credential when x-api-key is absent. */
export function apiKeyOf(ctx: Context, bearerKey = false): string | undefined {
  const key = ctx.get('x-api-key')
  if (key || !bearerKey) return key || undefined
  return /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'))?.[1]
}

declare module 'koa' {
  interface DefaultContext {
    /** set by buildApp: the JWT secret for routes that accept a token, read on first use (jwt.ts) */
    jwtSecret?: () => Promise<string>
  }
}

/**
 * The request's credential, or the 401 it deserves: none given, or a token that does
 * not verify. Whether a key exists (and is live) is the admission statement's to say.
 */
export async function credentialOf(ctx: Context, { signIn = false, token = false, bearerKey = false }: AuthOptions): Promise<Credential> {
  const key = apiKeyOf(ctx, bearerKey)
  if (key) {
    // longer than any key issued: not worth hashing
    if (key.length > 200) throw errors.invalidKey()
    return { keyHash: hashKey(key) }
  }
  const bearer = token ? /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'))?.[1] : undefined
  if (bearer) {
    // buildApp sets the secret; without one no token is valid
    const accountId = ctx.jwtSecret ? await verifyToken(await ctx.jwtSecret(), bearer) : null
    if (!accountId || !/^[0-9a-f-]{36}$/i.test(accountId)) throw errors.invalidToken()
    return { accountId }
  }
  throw signIn ? errors.signInRequired() : errors.missingAuth()
}
