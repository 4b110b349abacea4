/**
 * x-api-key authentication for data endpoints. The key itself never reaches a log:
 * the request logger records only the account id this sets.
 */
import type { Context, Next } from 'koa'
import { findAccountByKey, type Account } from '../../sql/accounts.ts'
import type { Db } from '../../sql/db.ts'
import { errors } from '../errors.ts'

export type AuthState = { account: Account }

/**
 * signIn: the expired-jobs, export and insights endpoints answer an anonymous call
 * with "Sign in to access this endpoint" and X-Billing-Code auth_required.
 */
export function requireKey(db: Db, { signIn = false }: { signIn?: boolean } = {}) {
  return async (ctx: Context, next: Next) => {
    const key = ctx.get('x-api-key')
    if (!key) throw signIn ? errors.signInRequired() : errors.missingAuth()
    const account = key.length <= 200 ? await findAccountByKey(db, key) : null
    if (!account) throw errors.invalidKey()
    ctx.state.account = account
    return next()
  }
}
