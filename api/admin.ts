/**
 * `npm run admin -- <command>`: account and key administration. Works whether or not
 * the server runs: on the embedded database it goes through the running server's
 * socket, and opens the database itself only when no server holds it.
 *
 *   accounts:create --email E --plan P   → {"account_id": ..., "api_key": ...}
 *   keys:create --account ID             → {"account_id": ..., "api_key": ...}
 *   keys:revoke --key KEY                → {"revoked": true}
 */
import { parseArgs } from 'node:util'
import { createAccount, createKey, findAccount, plans, revokeKey, type Plan } from '../sql/accounts.ts'
import { openDatabase, type Sql } from '../sql/db.ts'
import { migrate } from '../sql/migrate.ts'
import { loadConfig } from './config.ts'

class UsageError extends Error {}

const commands: Record<string, (sql: Sql, args: Record<string, string | undefined>) => Promise<unknown>> = {
  'accounts:create': async (sql, { email, plan }) => {
    if (!email || !/^[^@\s]+@[^@\s]+$/.test(email)) throw new UsageError('--email must be an email address')
    if (!plans.includes(plan as Plan)) throw new UsageError(`--plan must be one of ${plans.join(', ')}`)
    return sql.begin(async (tx) => {
      const account_id = await createAccount(tx, email, plan as Plan)
      return { account_id, api_key: await createKey(tx, account_id) }
    })
  },
  'keys:create': async (sql, { account }) => {
    if (!account || !(await findAccount(sql, account))) throw new UsageError(`no account ${account ?? '(missing --account)'}`)
    return { account_id: account, api_key: await createKey(sql, account) }
  },
  'keys:revoke': async (sql, { key }) => {
    if (!key) throw new UsageError('--key is required')
    if (!(await revokeKey(sql, key))) throw new UsageError('no live key matches')
    return { revoked: true }
  },
}

const [command, ...rest] = process.argv.slice(2)
const run = command ? commands[command] : undefined
if (!run) {
  console.error(`usage: npm run admin -- <${Object.keys(commands).join('|')}> [options]`)
  process.exit(2)
}
const { values } = parseArgs({
  args: rest,
  options: { email: { type: 'string' }, plan: { type: 'string' }, account: { type: 'string' }, key: { type: 'string' } },
})

const db = await openDatabase(loadConfig())
let code = 0
try {
  await migrate(db.sql)
  console.log(JSON.stringify(await run(db.sql, values)))
} catch (e) {
  const err = e as Error & { code?: string }
  console.error(`admin: ${err.code === '23505' ? 'that email already has an account' : err.message}`)
  code = e instanceof UsageError || err.code === '23505' ? 2 : 1
} finally {
  await db.close()
}
process.exit(code)
