/**
 * Billing periods, computed from an account's fields and the clock alone, so a request
 * in a new period never sees the old period's usage whether or not the monthly
 * roll-over job has run. Pure: no database.
 *
 * - trial: the trial window, while it lasts
 * - subscription: period_start..period_end; once period_end passes, the next period of
 *   the same length starts there (whole months when the bounds are whole months apart)
 * - otherwise (free tier, and any account without a subscription): the calendar month in UTC
 */
export type PeriodKind = 'calendar_month' | 'subscription' | 'trial'
export type Period = { start: Date; end: Date; kind: PeriodKind }

export type PeriodFields = {
  period_start: Date | null
  period_end: Date | null
  trial_start: Date | null
  trial_end: Date | null
}

export function calendarMonth(now: Date): Period {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1))
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1))
  return { start, end, kind: 'calendar_month' }
}

/** anchor + n months in UTC, the day clamped to the month's length (Jan 31 + 1 → Feb 28). */
export function addMonths(anchor: Date, n: number): Date {
  const y = anchor.getUTCFullYear()
  const m = anchor.getUTCMonth() + n
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate()
  const d = new Date(anchor)
  d.setUTCFullYear(y, m, Math.min(anchor.getUTCDate(), lastDay))
  return d
}

/** Whole months from start to end, or null when end is not start plus whole months. */
function wholeMonths(start: Date, end: Date): number | null {
  const guess = (end.getUTCFullYear() - start.getUTCFullYear()) * 12 + end.getUTCMonth() - start.getUTCMonth()
  return guess > 0 && addMonths(start, guess).getTime() === end.getTime() ? guess : null
}

export function currentPeriod(a: PeriodFields, now: Date = new Date()): Period {
  const t = now.getTime()
  if (a.trial_start && a.trial_end && a.trial_start.getTime() <= t && t < a.trial_end.getTime()) {
    return { start: a.trial_start, end: a.trial_end, kind: 'trial' }
  }
  if (a.period_start && a.period_end && a.period_start.getTime() <= t) {
    if (t < a.period_end.getTime()) return { start: a.period_start, end: a.period_end, kind: 'subscription' }
    const months = wholeMonths(a.period_start, a.period_end)
    if (months) {
      // counted from the first start, so day clamping never drifts (Jan 31, Feb 28, Mar 31)
      let k = Math.max(1, Math.floor(((t - a.period_start.getTime()) / (a.period_end.getTime() - a.period_start.getTime())) - 1))
      while (addMonths(a.period_start, (k + 1) * months).getTime() <= t) k++
      while (k > 0 && addMonths(a.period_start, k * months).getTime() > t) k--
      return { start: addMonths(a.period_start, k * months), end: addMonths(a.period_start, (k + 1) * months), kind: 'subscription' }
    }
    const length = a.period_end.getTime() - a.period_start.getTime()
    const k = Math.floor((t - a.period_start.getTime()) / length)
    return { start: new Date(a.period_start.getTime() + k * length), end: new Date(a.period_start.getTime() + (k + 1) * length), kind: 'subscription' }
  }
  return calendarMonth(now)
}
