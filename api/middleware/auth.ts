/**
 * x-api-key authentication for data endpoints (and a Bearer JWT where a route accepts
 * one). The key itself never reaches a log: the request logger records only the
 * account id this sets.
 */
import type { Context, Next } from 'koa'
import { findAccountByKey, findBillingAccount, type Account } from '../../sql/accounts.ts'
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

export function requireKey(db: Db, { signIn = false, token = false }: AuthOptions = {}) {
  return async (ctx: Context, next: Next) => {
    ctx.state.account = await authenticate(ctx, db, { signIn, token })
    return next()
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
