/**
 * GET /v2/billing/usage/summary's record (and `admin usage:show`): the account's
 * billing fields and every meter for the current period, alphabetically; with `daily`,
 * each meter's units per UTC day of the period, from the ledger.
 */
import type { Account } from './accounts.ts'
import type { Db } from './db.ts'
import { listMeterStates, meters, type Meter } from './meters.ts'
import type { Period } from './periods.ts'

/** "0.150000" → 150000n millionths of a cent, exactly. */
export function toMicroCents(price: string): bigint {
  const [whole, fraction = ''] = price.split('.')
  return BigInt(whole) * 1_000_000n + BigInt((fraction + '000000').slice(0, 6))
}

/** overage units × price, rounded up to a whole cent, in integer arithmetic. */
export function estimateOverageCents(overageUnits: number, price: string | null): number {
  if (!price || overageUnits <= 0) return 0
  const micro = BigInt(overageUnits) * toMicroCents(price)
  return Number((micro + 999_999n) / 1_000_000n)
}

const DAY_MS = 86_400_000
const dayOf = (d: Date) => d.toISOString().slice(0, 10)

/**
 * Units per meter per UTC day of the period, net of refunds, every day from the period's
 * first to today (or its last) listed, 0 where nothing was charged. Each ledger row keeps
 * the time of every request it records, so a row that batches requests across midnight
 * splits across its days.
 */
export async function listDailyUsage(db: Db, accountId: string, period: Period, now = new Date()) {
  const rows = await db<{ meter: Meter; date: string; used: number }[]>`
    select l.meter, to_char(to_timestamp(r.at_ms / 1000.0) at time zone 'UTC', 'YYYY-MM-DD') as date, sum(r.units)::float8 as used
    from usage_ledger l
    cross join unnest(l.request_units, l.request_at_ms) as r(units, at_ms)
    where l.account_id = ${accountId} and l.period_start = ${period.start}
    group by 1, 2`
  const last = Math.min(now.getTime(), period.end.getTime() - 1)
  const days: string[] = []
  for (let t = Date.parse(dayOf(period.start)); t <= last; t += DAY_MS) days.push(dayOf(new Date(t)))
  const byMeter = new Map<string, Map<string, number>>()
  for (const r of rows) {
    if (!byMeter.has(r.meter)) byMeter.set(r.meter, new Map())
    byMeter.get(r.meter)!.set(r.date, r.used)
  }
  return (meter: string) => {
    const used = byMeter.get(meter) ?? new Map<string, number>()
    const all = [...new Set([...days, ...used.keys()])].sort()
    return all.map((date) => ({ date, used: used.get(date) ?? 0 }))
  }
}

export async function usageSummary(db: Db, account: Account, { daily = false }: { daily?: boolean } = {}) {
  const { period: found, states } = await listMeterStates(db, account.id)
  if (!found) throw new Error(`usage summary: no account ${account.id}`)
  const period = found
  const dailyOf = daily ? await listDailyUsage(db, account.id, period) : null
  const legacy = account.billing_source === 'legacy'
  return {
    billing_source: account.billing_source,
    payments_customer_id: account.payments_customer_id,
    plan_lookup_keys: legacy ? [] : [`plan_${account.plan}`, ...account.features.map((f) => `addon_${f}`)],
    subscription_status: account.subscription_status,
    // the free tier's calendar month is implied (allowances reset on the 1st, UTC)
    period_start: period.kind === 'calendar_month' ? null : period.start.toISOString(),
    period_end: period.kind === 'calendar_month' ? null : period.end.toISOString(),
    meters: states.map((s) => {
      const overage = s.included === null ? 0 : Math.max(0, s.used - s.included)
      const metered = s.overage_mode === 'meter'
      return {
        event_name: s.meter,
        display_name: meters[s.meter].display_name,
        used: s.used,
        included: s.included,
        remaining: s.included === null ? null : Math.max(0, s.included - s.used),
        overage_used: overage,
        period: period.kind,
        overage_mode: s.overage_mode,
        // a decimal string from numeric(14,6), as the JSON number it denotes (0.15, not 0.1499…)
        overage_cents_per_unit: metered && s.overage_cents_per_unit ? Number(s.overage_cents_per_unit) : null,
        estimated_overage_cents: metered ? estimateOverageCents(overage, s.overage_cents_per_unit) : 0,
        overage_currency: 'usd',
        ...(dailyOf ? { daily: dailyOf(s.meter) } : {}),
      }
    }),
  }
}

export type UsageSummary = Awaited<ReturnType<typeof usageSummary>>
