/**
 * Billing periods. The rule is SQL, billing_period (sql/migrations/0032_admission_on_the_meter_row.sql),
 * computed by every statement that charges, reports or rolls a period from the account's
 * fields and the database's clock, so a request in a new period never sees the old
 * period's usage whether or not the monthly roll-over job has run:
 *
 * - trial: the trial window, while it lasts
 * - subscription: period_start..period_end; once period_end passes, the next period of
 *   the same length starts there (whole months when the bounds are whole months apart)
 * - otherwise (free tier, and any account without a subscription): the calendar month in UTC
 */
import type { Db } from './db.ts'

export type PeriodKind = 'calendar_month' | 'subscription' | 'trial'
export type Period = { start: Date; end: Date; kind: PeriodKind }

export type PeriodFields = {
  period_start: Date | null
  period_end: Date | null
  trial_start: Date | null
  trial_end: Date | null
}

/**
 * The lateral join that computes the period of account `a` (any relation with the
 * four fields) at `at` (SQL), as columns p_start, p_end and p_kind of `p`.
 */
export const periodOf = (at: string) => `
  cross join lateral (
    select bp.period_start as p_start, bp.period_end as p_end, bp.kind as p_kind
    from billing_period(a.trial_start, a.trial_end, a.period_start, a.period_end, ${at}) bp
  ) p`

/** periodOf now (SQL text). */
export const PERIOD_OF_A = periodOf('now()')

/** The period that these fields give at `at` (the database's clock when omitted). */
export async function billingPeriod(db: Db, f: PeriodFields, at: Date | null = null): Promise<Period> {
  const [row] = await db.unsafe<{ p_start: Date; p_end: Date; p_kind: PeriodKind }[]>(
    `select p.* from (select $1::timestamptz as trial_start, $2::timestamptz as trial_end, $3::timestamptz as period_start, $4::timestamptz as period_end) a
    ${periodOf('coalesce($5::timestamptz, now())')}`,
    [f.trial_start, f.trial_end, f.period_start, f.period_end, at],
  )
  return { start: row.p_start, end: row.p_end, kind: row.p_kind }
}

/** An account's current period; null when there is no such account. */
export async function accountPeriod(db: Db, accountId: string): Promise<Period | null> {
  const [row] = await db<{ p_start: Date; p_end: Date; p_kind: PeriodKind }[]>`
    select p.* from accounts a ${db.unsafe(PERIOD_OF_A)} where a.id = ${accountId}`
  return row ? { start: row.p_start, end: row.p_end, kind: row.p_kind } : null
}
