import { number, object, string } from 'yup'

/** Deep offsets get slow and no client pages that far; export covers bulk needs. */
export const MAX_DEPTH = 10_000

/** page × limit within MAX_DEPTH, reported on page (the field a client moves). */
export const withinDepth = <T extends { page?: number; limit?: number }>(v: T | undefined, defaultLimit = 10) =>
  !v || (v.page ?? 1) * (v.limit ?? defaultLimit) <= MAX_DEPTH

/** page/limit in a query string; limit tops out at 100 on listing endpoints. */
export const pageQuery = object({
  page: number().integer().min(1).default(1),
  limit: number().integer().min(1).max(100).default(10),
}).test('depth', function (v) {
  return withinDepth(v) ? true : this.createError({ path: 'page', message: `page × limit may reach at most ${MAX_DEPTH} results` })
})

export const pageEnvelope = (total: number, page: number, limit: number) => ({
  total_count: total,
  page,
  limit,
  total_pages: Math.ceil(total / limit),
})

/** The earliest date a filter accepts: no job data is older (the format itself ends at 9999-12-31). */
export const FIRST_DATE = '1900-01-01'

const daysIn = (year: number, month: number) =>
  month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31

/**
 * A day as YYYY-MM-DD: a real calendar day (2026-02-31 is not), from FIRST_DATE on.
 * Unchecked, Postgres refuses year 0 (a 500) and Date.parse rolls a missing day over.
 */
export const calendarDate = () =>
  string().test('calendar-date', function (v) {
    if (v === undefined || v === null) return true
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v)
    const [year, month, day] = m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [0, 0, 0]
    if (!m || month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) {
      return this.createError({ message: 'Input should be a valid date as YYYY-MM-DD, a day that exists', params: { itemType: 'date_parsing' } })
    }
    if (v < FIRST_DATE) return this.createError({ message: `Input should be on or after ${FIRST_DATE}`, params: { itemType: 'greater_than_equal', ctx: { ge: FIRST_DATE } } })
    return true
  })
