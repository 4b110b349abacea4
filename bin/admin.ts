/**
 * `npm run admin -- <command>`: account and key administration. Works whether or not
 * the server runs: on the embedded database it goes through the running server's
 * socket, and opens the database itself only when no server holds it.
 *
 *   accounts:create --email E --plan P   → {"account_id": ..., "api_key": ...}
 *   keys:create --account ID             → {"account_id": ..., "api_key": ...}
 *   keys:revoke --key KEY                → {"revoked": true}
 *   plan:set --account ID --plan P       → the account's usage summary
 *   period:set --account ID --start ISO --end ISO [--status active]   a subscription period
 *   period:set --account ID --clear      → back to the calendar month
 *   trial:set --account ID --start ISO --end ISO                       a trial window
 *   allowances:set --account ID --meter M --included N --mode block|meter [--cents-per-unit 0.15]
 *   features:grant --account ID --feature F / features:revoke …
 *   usage:show --account ID              → the usage summary (as GET /v2/billing/usage/summary), and the
 *                                          price quotes of the account's historical exports this period
 *   tokens:create --account ID [--ttl SECONDS]   → {"token": ..., "expires_at": ...} (HS256: JWT_SECRET, else the
 *                                          secret the service generated and keeps in the database)
 *   embeddings:status                    → the background embedding's backlog, rate and time left
 *   contacts:delete --company SLUG       → how many contacts were deleted (docs/contacts.md)
 *
 * A command that revokes a key or changes an account, plan or allowance holds for the
 * next request any API process admits: every request reads them from the database.
 */
import { parseArgs } from 'node:util'
import { createAccount, createKey, findAccount, findBillingAccount, plans, revokeKey, type Plan } from '../sql/accounts.ts'
import { grantFeature, revokeFeature, updatePeriod, updatePlan, updateTrial, upsertAllowance } from '../sql/billing.ts'
import { addOnFeatures, meterNames, type Meter } from '../sql/meters.ts'
import { usageSummary } from '../sql/usage-summary.ts'
import { loadJwtSecret, signToken } from '../api/middleware/jwt.ts'
import { openDatabase, type Sql } from '../sql/db.ts'
import { migrate } from '../sql/migrate.ts'
import { loadConfig } from '../sql/config.ts'
import { embeddingStatus, modelId } from '../sql/embeddings.ts'
import { createEmbedder } from '../ingest/embed/create.ts'
import { deleteCompanyContacts } from '../sql/contacts.ts'
import { listExportQuotes } from '../sql/historical.ts'
import { accountPeriod } from '../sql/periods.ts'

class UsageError extends Error {}

async function account(sql: Sql, id: string | undefined) {
  const found = id ? await findBillingAccount(sql, id) : null
  if (!found) throw new UsageError(`no account ${id ?? '(missing --account)'}`)
  return found
}

function date(name: string, value: string | undefined) {
  const d = value ? new Date(value) : null
  if (!d || Number.isNaN(d.getTime())) throw new UsageError(`--${name} must be an ISO date or timestamp`)
  return d
}

const summaryOf = async (sql: Sql, id: string) => usageSummary(sql, await account(sql, id))

type Args = Record<string, string | undefined>

const commands: Record<string, (sql: Sql, args: Args) => Promise<unknown>> = {
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
  'plan:set': async (sql, args) => {
    const { id } = await account(sql, args.account)
    if (!plans.includes(args.plan as Plan)) throw new UsageError(`--plan must be one of ${plans.join(', ')}`)
    await updatePlan(sql, id, args.plan as Plan)
    return summaryOf(sql, id)
  },
  'period:set': async (sql, args) => {
    const { id } = await account(sql, args.account)
    if (args.clear) await updatePeriod(sql, id, { start: null, end: null, status: null })
    else {
      const start = date('start', args.start)
      const end = date('end', args.end)
      if (end <= start) throw new UsageError('--end must be after --start')
      await updatePeriod(sql, id, { start, end, status: args.status ?? 'active' })
    }
    return summaryOf(sql, id)
  },
  'trial:set': async (sql, args) => {
    const { id } = await account(sql, args.account)
    const start = date('start', args.start)
    const end = date('end', args.end)
    if (end <= start) throw new UsageError('--end must be after --start')
    await updateTrial(sql, id, { start, end })
    return summaryOf(sql, id)
  },
  'allowances:set': async (sql, args) => {
    const { id } = await account(sql, args.account)
    if (!meterNames.includes(args.meter as Meter)) throw new UsageError(`--meter must be one of ${meterNames.join(', ')}`)
    const included = Number(args.included)
    if (!Number.isInteger(included) || included < 0) throw new UsageError('--included must be a whole number')
    if (args.mode !== 'block' && args.mode !== 'meter') throw new UsageError('--mode must be block or meter')
    const price = args['cents-per-unit'] ?? null
    if ((args.mode === 'meter') !== (price !== null) || (price !== null && !/^\d+(\.\d{1,6})?$/.test(price))) {
      throw new UsageError('--cents-per-unit (a decimal, up to 6 places) goes with --mode meter, and only with it')
    }
    await upsertAllowance(sql, id, { meter: args.meter as Meter, included, overage_mode: args.mode, overage_cents_per_unit: price })
    return summaryOf(sql, id)
  },
  'features:grant': async (sql, args) => {
    const { id } = await account(sql, args.account)
    if (!(addOnFeatures as readonly string[]).includes(args.feature ?? '')) throw new UsageError(`--feature must be one of ${addOnFeatures.join(', ')}`)
    await grantFeature(sql, id, args.feature!)
    return { account_id: id, features: (await account(sql, id)).features }
  },
  'features:revoke': async (sql, args) => {
    const { id } = await account(sql, args.account)
    await revokeFeature(sql, id, args.feature ?? '')
    return { account_id: id, features: (await account(sql, id)).features }
  },
  // historical exports charge no meter: their price quotes this period are listed beside the meters
  'usage:show': async (sql, args) => {
    const found = await account(sql, args.account)
    return { ...(await usageSummary(sql, found)), historical_exports: await listExportQuotes(sql, found.id, (await accountPeriod(sql, found.id))!.start) }
  },
  'tokens:create': async (sql, args) => {
    const { id } = await account(sql, args.account)
    const ttl = args.ttl === undefined ? 3600 : Number(args.ttl)
    if (!Number.isInteger(ttl) || ttl <= 0) throw new UsageError('--ttl must be a positive number of seconds')
    return { account_id: id, ...(await signToken(await loadJwtSecret(sql, loadConfig().jwtSecret), id, ttl)) }
  },
  'embeddings:status': async (sql) => {
    const embedder = createEmbedder(loadConfig().embedding)
    if (!embedder) throw new UsageError('EMBEDDING_PROVIDER is none: no model embeds the postings')
    const s = await embeddingStatus(sql, await modelId(sql, embedder.info))
    // the last five minutes' rate, or the last minute's when the work started since
    const rate = Math.max(s.last_5_minutes / 300, s.last_minute / 60)
    return {
      model: embedder.info,
      live_jobs: s.live,
      pending: s.live_pending,
      done: s.live - s.live_pending,
      expired_without_vector: s.pending - s.live_pending,
      jobs_per_second: Math.round(rate * 10) / 10,
      eta_seconds: s.live_pending === 0 ? 0 : rate > 0 ? Math.ceil(s.live_pending / rate) : null,
    }
  },
  // personal data: the company's profile contacts, and its postings' contact e-mail and phone
  'contacts:delete': async (sql, args) => {
    if (!args.company) throw new UsageError('--company SLUG is required')
    const deleted = await deleteCompanyContacts(sql, args.company)
    if (!deleted) throw new UsageError(`no company ${args.company}`)
    return { company_slug: args.company, deleted }
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
  options: {
    email: { type: 'string' }, plan: { type: 'string' }, account: { type: 'string' }, key: { type: 'string' },
    start: { type: 'string' }, end: { type: 'string' }, status: { type: 'string' }, clear: { type: 'boolean' },
    meter: { type: 'string' }, included: { type: 'string' }, mode: { type: 'string' }, 'cents-per-unit': { type: 'string' },
    feature: { type: 'string' }, ttl: { type: 'string' }, company: { type: 'string' },
  },
})

const db = await openDatabase(loadConfig())
let code = 0
try {
  await migrate(db.sql)
  const out = await run(db.sql, { ...values, clear: values.clear ? 'yes' : undefined })
  console.log(JSON.stringify(out))
} catch (e) {
  const err = e as Error & { code?: string }
  console.error(`admin: ${err.code === '23505' ? 'that email already has an account' : err.message}`)
  code = e instanceof UsageError || err.code === '23505' ? 2 : 1
} finally {
  await db.close()
}
process.exit(code)
