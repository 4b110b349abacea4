/** Accounts and API keys. A key is only ever stored as its SHA-256. */
import { hash, randomBytes } from 'node:crypto'
import type { Db } from './db.ts'

export const plans = ['free', 'starter', 'growth', 'scale', 'pro', 'enterprise', 'legacy'] as const
export type Plan = (typeof plans)[number]

export type Account = {
  id: string
  email: string
  plan: Plan
  /** null when the caller authenticated with a JWT rather than a key */
  key_id: string | null
  billing_source: 'payments_v2' | 'legacy'
  payments_customer_id: string | null
  subscription_status: string | null
  period_start: Date | null
  period_end: Date | null
  trial_start: Date | null
  trial_end: Date | null
  /** add-on features granted beyond the plan */
  features: string[]
}

/** The account's billing fields (accounts as `a`), read with every admission: metering needs them all. */
/** An account's billing fields, of relation `a` (SQL text: the admission statement embeds it). */
export const BILLING_COLUMNS = `
  a.id, a.email, a.plan, a.billing_source, a.payments_customer_id, a.subscription_status,
  a.period_start, a.period_end, a.trial_start, a.trial_end, a.features`

export const hashKey = (key: string) => hash('sha256', key, 'hex')

/** 24 random bytes, base64url: 192 bits, with a prefix that makes leaked keys greppable. */
export const newKey = () => `jds_${randomBytes(24).toString('base64url')}`

export async function createAccount(db: Db, email: string, plan: Plan) {
  const [account] = await db<{ id: string }[]>`
    insert into accounts (email, plan) values (${email}, ${plan}) returning id::text`
  return account.id
}

export async function createKey(db: Db, accountId: string) {
  const key = newKey()
  await db`
    insert into api_keys (account_id, key_hash, prefix)
    values (${accountId}, ${hashKey(key)}, ${key.slice(0, 8)})`
  return key
}

/** Revokes a key given in full; false when no live key matches. */
export async function revokeKey(db: Db, key: string) {
  const result = await db`
    update api_keys set revoked_at = now() where key_hash = ${hashKey(key)} and revoked_at is null`
  return result.count > 0
}

/** An account by id with its billing fields, for the admin CLI. */
export async function findBillingAccount(db: Db, id: string): Promise<Account | null> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return null
  const [account] = await db<Account[]>`
    select ${db.unsafe(BILLING_COLUMNS)}, null::text as key_id from accounts a where a.id = ${id}`
  return account ?? null
}

export async function findAccount(db: Db, id: string) {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return null
  const [account] = await db<{ id: string; email: string; plan: Plan }[]>`
    select id::text, email, plan from accounts where id = ${id}`
  return account ?? null
}
