/** Billing test helpers: a company with live jobs, accounts on a plan, usage already spent. */
import { randomBytes } from 'node:crypto'
import type Router from '@koa/router'
import Koa from 'koa'
import type { AddressInfo } from 'node:net'
import { loadConfig, type Config } from '../../sql/config.ts'
import pino from 'pino'
import { errorHandler } from '../../api/errors.ts'
import { requestLog } from '../../api/middleware/request-log.ts'
import { jwtSecretSource } from '../../api/middleware/jwt.ts'
import { Admission } from '../../api/middleware/admission.ts'
import type { Plan } from '../../sql/accounts.ts'
import type { Sql } from '../../sql/db.ts'
import type { Meter } from '../../sql/meters.ts'
import { billingPeriod, type Period } from '../../sql/periods.ts'
import { findBillingAccount } from '../../sql/accounts.ts'
import { insertJobs, jobColumns, upsertCompanies, type JobRow } from '../../sql/postings.ts'
import { createAccountWithKey } from '../helpers/factories.ts'

export async function seedCompany(sql: Sql, jobs: number) {
  const tag = randomBytes(5).toString('hex')
  const slug = `billing-co-${tag}`
  const ids = await upsertCompanies(sql, [
    {
      slug, name: `Billing Co ${tag}`, logo: null, link: null, linkedin_link: null, description_summary: null, services: [],
      size_min: null, size_max: null, size_bucket: null, industries: [], subindustries: [], type: null, is_recruiting_agency: false, job_board: 'TestBoard',
    },
  ])
  const nulls = Object.fromEntries(jobColumns.map((c) => [c, null])) as JobRow
  const rows: JobRow[] = Array.from({ length: jobs }, (_, n) => ({
    ...nulls,
    company_id: ids.get(slug)!, job_slug: `billing-${tag}-${n}`, md5_hash: `md5-billing-${tag}-${n}`, source_key: `src-${tag}-${n}`,
    job_title: `Engineer ${n}`, job_title_raw: `Engineer ${n}`, description: '<p>x</p>', description_raw: '<p>x</p>',
    locations: sql.json([]), remote_countries: [], place_keys: [], job_categories: [], skills: [], technologies: [], benefits: [],
    recruiter_agency: false, meta_completeness: false, date_posted: '2026-11-01', job_board: 'TestBoard', expired: false,
    first_seen_at: new Date(), last_seen_at: new Date(),
  }))
  const inserted = await insertJobs(sql, rows)
  return { slug, jobIds: inserted.map((j: { id: string }) => j.id), jobSlugs: rows.map((r) => r.job_slug) }
}

export async function accountOn(sql: Sql, plan: Plan) {
  return createAccountWithKey(sql, plan)
}

export async function periodOf(sql: Sql, accountId: string, now = new Date()): Promise<Period> {
  return billingPeriod(sql, (await findBillingAccount(sql, accountId))!, now)
}

/** Usage already spent this period (or in `period`): the meter row and a matching ledger charge. */
export async function spend(sql: Sql, accountId: string, meter: Meter, units: number, period?: Period) {
  const p = period ?? (await periodOf(sql, accountId))
  await sql`
    insert into usage_meters (account_id, meter, period_start, period_end, used)
    values (${accountId}, ${meter}, ${p.start}, ${p.end}, ${units})
    on conflict (account_id, meter, period_start) do update set used = usage_meters.used + ${units}`
  await sql`
    insert into usage_ledger (account_id, meter, period_start, units, kind, endpoint, requests, request_ids, request_units, request_at_ms)
    values (${accountId}, ${meter}, ${p.start}, ${units}, 'charge', 'test setup', 1, '{NULL}', array[${units}::bigint], array[(extract(epoch from now()) * 1000)::bigint])`
}

/**
 * The meter row once the app's charges are recorded: its used, and the units requests
 * still in flight hold on it (0 once every request finished).
 */
export async function meterRow(sql: Sql, admission: Admission, accountId: string, meter: Meter, period: Period) {
  await admission.sync()
  const [row] = await sql<{ used: number; reserved: number }[]>`
    select used::int, reserved::int from usage_meters
    where account_id = ${accountId} and meter = ${meter} and period_start = ${period.start}`
  return { used: row?.used ?? 0, inFlight: row?.reserved ?? 0 }
}

/** The ledger's total for the row, once the app's charges are recorded. */
export async function ledgerSum(sql: Sql, admission: Admission, accountId: string, meter: Meter, period: Period) {
  await admission.sync()
  const [row] = await sql<{ units: number }[]>`
    select coalesce(sum(units), 0)::int as units from usage_ledger
    where account_id = ${accountId} and meter = ${meter} and period_start = ${period.start}`
  return row.units
}

/** A small app around one router, as buildApp wires it (errors, request ids, its own admission), on a real port. */
export async function serveRouter(sql: Sql, router: Router, config: Partial<Config> = {}) {
  const app = new Koa()
  const full = { ...loadConfig(), ...config }
  const admission = (app.context.admission = new Admission(sql, full.rateLimits))
  app.context.jwtSecret = jwtSecretSource(sql, full.jwtSecret)
  app.use(errorHandler)
  app.use(requestLog(pino({ level: 'silent' })))
  app.use(router.routes()).use(router.allowedMethods())
  const server = app.listen(0, '127.0.0.1')
  await new Promise((r) => server.once('listening', r))
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    admission,
    sync: () => admission.sync(),
    close: async () => {
      await new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r())))
      await admission.close()
    },
  }
}

export const usage = (res: Response) =>
  Object.fromEntries([...res.headers.entries()].filter(([k]) => k.startsWith('platform-usage-')).map(([k, v]) => [k.slice('platform-usage-'.length), v]))
