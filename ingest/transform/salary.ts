/**
 * Salary as stated (min, max, currency, period) plus annualised amounts.
 *
 * Annualisation constants (full-time year): hourly x 2,080 (40 h x 52 weeks), daily x 260
 * (5 days x 52 weeks), weekly x 52, monthly x 12, yearly x 1. A period is never guessed: "$120-150k"
 * has no period, so annual_min/annual_max stay null even though it is obviously a yearly figure;
 * the benchmark code can decide how to treat those.
 *
 * The annual amounts are what salary filters, the salary sort and the compensation score read, so
 * they are left null when the stated pay is implausible for its period (PLAUSIBLE_PAY_USD,
 * MAX_SPREAD): the salary is still stored and shown as stated, but cannot sort first or match a
 * filter. e.g. GBP 31,365-37,890,000 a year (a source's typo) -> annual null; "£155.63 per week"
 * filed as a yearly 155.63 -> annual null.
 */
import type { Salary, SalaryPeriod } from '../types.ts'
import { FieldError, isAbsent, isRecord, optionalNumber, optionalString } from './coerce.ts'
import { countries } from 'countries-list'
import usdPerUnit from '../../seeds/usd-per-unit.json' with { type: 'json' }

export const ANNUAL_FACTOR: Record<SalaryPeriod, number> = { hourly: 2080, daily: 260, weekly: 52, monthly: 12, yearly: 1 }

/**
 * The lowest and highest pay per period, in US dollars, that a posting plausibly states. Wide on
 * purpose: the low ends sit below the lowest statutory wages a posting states (a monthly PKR 25,000 is
 * about $90), the high ends above executive pay ranges; what falls outside is a typo, a misread unit
 * or a pay band taken for money. Amounts convert at seeds/usd-per-unit.json (the rates
 * compensation_value_score uses); a salary without a currency is taken as dollars, and one in a
 * currency without a rate is not bounded (only MAX_SPREAD applies).
 */
export const PLAUSIBLE_PAY_USD: Record<SalaryPeriod, [number, number]> = {
  hourly: [0.5, 1_000],
  daily: [4, 8_000],
  weekly: [20, 40_000],
  monthly: [80, 160_000],
  yearly: [1_000, 2_000_000],
}

/** A range whose top is more than this many times its bottom is a typo (an extra digit), not a range. */
export const MAX_SPREAD = 10

const USD_PER_UNIT: Record<string, number> = usdPerUnit

/**
 * Whether stated pay is plausible for its period (see PLAUSIBLE_PAY_USD, MAX_SPREAD).
 * e.g. 31365-37890000 GBP yearly -> false; 5-5 GBP yearly -> false; 79860-1076681 GBP yearly -> false
 *      (spread 13.5); 25-30 USD hourly -> true; 300000-450000 INR monthly -> true
 */
export function plausiblePay(min: number | null, max: number | null, currency: string | null, period: SalaryPeriod): boolean {
  const lo = min ?? max
  const hi = max ?? min
  if (lo === null || hi === null) return false
  if (hi > lo * MAX_SPREAD) return false
  const rate = currency === null ? 1 : USD_PER_UNIT[currency]
  if (rate === undefined) return true
  const [floor, ceiling] = PLAUSIBLE_PAY_USD[period]
  return lo * rate >= floor && hi * rate <= ceiling
}

// Every ISO 4217 code some country uses, from countries-list, so "25 EUR/hr" and "CHF 100k" parse.
const CURRENCY_CODES = new Set<string>(Object.values(countries).flatMap((c) => c.currency as string[]))

// Longest symbols first: "CA$" must win over "$".
const SYMBOLS: [string, string][] = [
  ['CA$', 'CAD'], ['C$', 'CAD'], ['CAN$', 'CAD'], ['AU$', 'AUD'], ['A$', 'AUD'], ['NZ$', 'NZD'], ['HK$', 'HKD'], ['S$', 'SGD'], ['SG$', 'SGD'],
  ['US$', 'USD'], ['R$', 'BRL'], ['MX$', 'MXN'], ['NT$', 'TWD'], ['CN¥', 'CNY'], ['RMB', 'CNY'], ['Rs.', 'INR'], ['Rs', 'INR'],
  ['$', 'USD'], ['£', 'GBP'], ['€', 'EUR'], ['₹', 'INR'], ['¥', 'JPY'], ['₩', 'KRW'], ['₪', 'ILS'], ['₱', 'PHP'], ['₦', 'NGN'], ['₺', 'TRY'],
  ['₴', 'UAH'], ['₫', 'VND'], ['฿', 'THB'], ['zł', 'PLN'], ['Kč', 'CZK'], ['Fr.', 'CHF'],
]

/** A space between a number and the letters glued to it, so "£30,000pa", "£110ph" and "USD5000" read as words. */
const unglue = (text: string) => text.replace(/(\d)(\p{L})/gu, '$1 $2').replace(/(\p{Lu}{3})(\d)/gu, '$1 $2')

/**
 * Currency from a code or symbol anywhere in the text; codes beat symbols ("$100k CAD" is CAD).
 * e.g. "£30,000" -> GBP, "CA$90k" -> CAD, "25 EUR/hr" -> EUR, "USD5000" -> USD, "$120k" -> USD, "120k" -> null
 */
export function detectCurrency(input: string): string | null {
  const text = unglue(input)
  for (const m of text.matchAll(/\b([A-Z]{3})\b/g)) if (CURRENCY_CODES.has(m[1])) return m[1]
  for (const m of text.matchAll(/\b([a-z]{3})\b/gi)) if (CURRENCY_CODES.has(m[1].toUpperCase()) && /^(usd|eur|gbp|cad|aud|chf|inr|sek|nok|dkk|pln|jpy|sgd|nzd)$/i.test(m[1])) return m[1].toUpperCase()
  for (const [sym, code] of SYMBOLS) if (text.includes(sym)) return code
  return null
}

/**
 * Pay period from words; null when not stated.
 * e.g. "per hour" "/hr" "hourly" "an hour" "£110ph" -> hourly; "£30,000pa" -> yearly; "per annum" "a year" "p.a." "/yr" "annual" -> yearly;
 * "monthly" "/mo" "per month" -> monthly; "per day" "daily" -> daily; "weekly" -> weekly
 */
export function detectPeriod(text: string): SalaryPeriod | null {
  // "12.1% annual leave" and "annual bonus" are not a yearly period
  const t = unglue(text).toLowerCase().replace(NOT_A_PERIOD_RE, ' ')
  if (/\b(?:per|an|a|each|\/)\s*(?:hour|hr)\b|\/\s*h\b|\bhourly\b|\bp\/?h\b|\bph\b|\bphr\b|\bhour\b|\bstunde\b|\bstd\b/.test(t) || /\/\s*(?:hour|hr)\b/.test(t)) return 'hourly'
  if (/\b(?:per|a|each)\s+day\b|\/\s*day\b|\bdaily\b|\bday rate\b|\bp\/?d\b|\bper diem\b|\bday\b/.test(t)) return 'daily'
  if (/\b(?:per|a|each)\s+week\b|\/\s*(?:week|wk)\b|\bweekly\b|\bweek\b/.test(t)) return 'weekly'
  if (/\b(?:per|a|each)\s+month\b|\/\s*(?:month|mo|mth)\b|\bmonthly\b|\bpcm\b|\bp\.?m\.?(?=\s|$)|\bmonth\b|\bmonat\b/.test(t)) return 'monthly'
  if (/\b(?:per|a|each)\s+(?:year|annum)\b|\/\s*(?:year|yr|y|annum)\b|\b(?:yearly|annual(?:ly)?|annum|p\.?a\.?)(?=\W|$)|\byear\b|\bjahr\b|\bbrutto\b/.test(t)) return 'yearly'
  return null
}

const NOT_A_PERIOD_RE = /\bannual(?:ly)?\s+(?:leave|holidays?|bonus(?:es)?|entitlement|increments?|reviews?|pay\s+(?:rise|review)s?)\b/g

/** Period word from a salary_range object. e.g. "YEAR" "per annum" "Annual" -> yearly; "HOUR" -> hourly */
export function mapPeriod(v: unknown): SalaryPeriod | null {
  if (typeof v !== 'string' || !v.trim()) return null
  return detectPeriod(v.trim().length <= 6 ? `per ${v}` : v) ?? detectPeriod(v)
}

function withAnnual(min: number | null, max: number | null, currency: string | null, period: SalaryPeriod | null): Salary | null {
  if (min === null && max === null) return null
  if (min !== null && max !== null && min > max) [min, max] = [max, min]
  const f = period && plausiblePay(min, max, currency, period) ? ANNUAL_FACTOR[period] : null
  const round = (n: number) => Math.round(n * 100) / 100
  return {
    min,
    max,
    currency,
    period,
    annual_min: f !== null && min !== null ? round(min * f) : null,
    annual_max: f !== null && max !== null ? round(max * f) : null,
  }
}

/**
 * From a salary_range object {min, max, currency, period}; numeric strings ("120k") are accepted.
 * e.g. {min: 120000, max: 150000, currency: "usd", period: "YEAR"} -> USD yearly, annual 120000-150000
 */
export function salaryFromRange(v: unknown): Salary | null {
  if (isAbsent(v)) return null
  if (!isRecord(v)) throw new FieldError('salary_range', 'expected an object {min, max, currency, period}')
  const min = optionalNumber(v.min, 'salary_range.min')
  const max = optionalNumber(v.max, 'salary_range.max')
  const cur = optionalString(v.currency, 'salary_range.currency')
  const currency = cur ? (CURRENCY_CODES.has(cur.toUpperCase()) ? cur.toUpperCase() : detectCurrency(cur)) : null
  const period = mapPeriod(v.period ?? v.unit ?? v.interval)
  return withAnnual(positive(min), positive(max), currency, period)
}

function positive(n: number | null): number | null {
  return n !== null && n > 0 ? n : null
}

// An amount: "120", "120,000", "120.000" (European thousands), "14,50,000" (Indian lakh grouping),
// "25.50", "1 200", with a "k"/"m" suffix or India's "lakh" (100,000) and "crore" (10,000,000):
// "INR 11 - 12 Lakhs" is 1,100,000-1,200,000.
const AMOUNT = String.raw`(\d{1,2}(?:,\d{2})+,\d{3}(?!\d)|\d{1,3}(?:[,.\u00a0 ]\d{3})+|\d+)(?:[.,](\d{1,2}))?\s*([kKmM](?![a-z])|[lL](?:akh|ac)s?\b|LPA\b|lpa\b|[cC]rores?\b|[cC]r\b)?`
const AMOUNT_RE = new RegExp(AMOUNT, 'g')
const MULTIPLIER: Record<string, number> = { k: 1_000, m: 1_000_000, l: 100_000, c: 10_000_000 }

type Amount = { value: number; multiplier: number; index: number; end: number }

// Numbers in salary text that are not money. Each is blanked out (same length, so positions hold)
// before amounts are read:
// - pay bands and grades: "Band 5", "Band 8a", "Agenda for Change band 6", "Band 6/7", "Grade 4 - 5"
//   (NHS and civil-service postings state the band instead of, or beside, the pay);
// - UK postcodes, which some feeds put in the salary field: "RG24 9RH".
const NOT_MONEY_RE = new RegExp(
  String.raw`\b(?:agenda for change\s+|afc\s+|nhs\s+)?(?:pay\s+)?(?:band|grade|level|step|tier|spine point|pay point)(?:\s+equivalent)?\s*[:#]?\s*\d{1,2}[a-d]?(?![.,]?\d)` +
    String.raw`(?:\s*(?:-|–|\/|to|or|and|&)\s*(?:band\s*)?\d{1,2}[a-d]?(?![.,]?\d))*` +
    String.raw`|\b[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2}\b` +
    // a university's or civil service's pay range: "Range 2 £17,222"; not "range 30-40k"
    String.raw`|\b(?:pay\s+)?range\s+\d{1,2}[a-d]?\b(?!\s*(?:-|–|to)\s*\d)(?![.,]?\d)`,
  'gi',
)
// - NHS consultants' programmed activities: "10 PA", "(10 PAs)", "1 additional PA", "7.5 programmed activities"
//   (capital PA after a small number without a currency; "£30,000pa" stays per annum).
const SESSIONS_RE = /(?<![£$€\d.,]\s?)\b\d{1,2}(?:\.\d{1,2})?\s*(?:(?:additional|extra)\s+)?(?:PAs?\b|[Pp]rogrammed [Aa]ctivit(?:y|ies)\b|[Ss]essions?\b)/g
const currencyWord = (w: string) => CURRENCY_CODES.has(w.toUpperCase()) || /^(?:rs|rmb|zł|kč|fr)$/i.test(w)
// Letters glued to an amount's right must be a unit ("£30,000pa", "£110ph") or a currency
// ("5000EUR"); k and m are read with the amount. "8a" or "2nd" are not money.
const GLUED_UNIT_RE = /^(?:p\.?a\.?|per|ph|p\/h|pw|pd|pm|pcm|phr|hrs?|h|hour|yr|year|mo|month|wk|week|day|d|ote)\b/i
// A bonus, allowance or extra named after the amount ("£5K Welcome Bonus", "£2,000 relocation
// allowance") or before it ("plus a £3,000 bonus", "+ £2k"): not the pay itself.
const EXTRA_AFTER_RE = /^\s*(?:[\p{L}-]+\s+){0,2}?(?:bonus|allowance|relocation|golden hello|sign[- ]?on|signing|retention|stipend|supplement|uplift|weighting|premium|incentive)/iu
const EXTRA_BEFORE_RE = /(?:\bplus|\+|\bbonus(?: of)?|\ballowance(?: of)?|\badditional|\bextra|\bgolden hello(?: of)?)\s*(?:an?\s+)?\W{0,3}\s*$/i

/**
 * The amounts in salary text, in order, leaving out what is not pay: bands, postcodes and
 * programmed activities (NOT_MONEY_RE, SESSIONS_RE), numbers glued to letters that are neither a currency nor a unit ("RG24",
 * "B5 Nurse", "8a"), and bonuses or allowances.
 */
function readAmounts(input: string, extras: Amount[] = []): Amount[] {
  const blank = (m: string) => ' '.repeat(m.length)
  const text = input.replace(NOT_MONEY_RE, blank).replace(SESSIONS_RE, blank)
  const out: Amount[] = []
  for (const m of text.matchAll(AMOUNT_RE)) {
    const index = m.index!
    const end = index + m[0].trimEnd().length
    const left = /(\p{L}+)$/u.exec(text.slice(Math.max(0, index - 8), index))
    if (left && !currencyWord(left[1])) continue
    const right = /^\p{L}+/u.exec(text.slice(end, end + 8))
    if (right && !GLUED_UNIT_RE.test(right[0]) && !currencyWord(right[0])) continue
    const after = text.slice(end, end + 40)
    let n = Number(m[1].replace(/[,.\u00a0 ]/g, '') + (m[2] ? `.${m[2]}` : ''))
    const multiplier = m[3] ? MULTIPLIER[m[3][0].toLowerCase()] : 1
    const extra = EXTRA_AFTER_RE.test(after) || EXTRA_BEFORE_RE.test(text.slice(Math.max(0, index - 30), index))
    ;(extra ? extras : out).push({ value: n * multiplier, multiplier, index, end })
  }
  return out
}

/**
 * From free text. Returns null for text with no amount ("Competitive", "TBC", "DOE", "").
 * e.g. "$120-150k" -> 120000-150000 USD, period null (so no annual amounts)
 *      "$120k - $150k a year" -> USD yearly; "£30,000 - £35,000 per annum" -> GBP yearly
 *      "€25/hour" -> 25-25 EUR hourly (annual 52000); "25 EUR/hr" -> same
 *      "USD 5000 monthly" -> monthly, annual 60000; "Up to $90k" -> max only; "From £40k" -> min only
 * A trailing "k" applies to a bare first number ("120-150k"); years or counts in the text such as
 * "401k" are not in salary fields, so a number is taken as money unless it is a pay band, a postcode
 * or a bonus (readAmounts):
 *      "Band 5" -> null; "£31,365 - £37,890 Band 6" -> 31365-37890; "RG24 9RH" -> null
 *      "£35007.97 - £5K Welcome Bonus" -> 35007.97 (the bonus is not the top of the range)
 * Two amounts are a range only when a dash, "to", "and" or a slash joins them (RANGE_GAP_RE), and
 * the period is the one stated after them: "£16.40 per hour (£32,920 per annum)" -> 16.40 hourly.
 */
export function salaryFromText(text: string): Salary | null {
  // "£42, 000": a thousands separator with a space after it
  const t = text.trim().replace(/(\d),\s(\d{3})(?!\d)/g, '$1,$2')
  if (!t || !/\d/.test(t)) return null
  const extras: Amount[] = []
  const read = readAmounts(t, extras).filter((a) => a.value > 0)
  // numbers before the first amount with a currency sign label it: "Clinical 5: £46,284 - £51,055"
  const firstPriced = read.findIndex((a) => PRICED_RE.test(t.slice(Math.max(0, a.index - 3), a.index)))
  const all = firstPriced > 0 ? read.slice(firstPriced) : read
  if (!all.length) return null
  // the second amount is the top of a range only when a range joins them ("£24,907 - £30,615",
  // "$50k to $60k"): "£16.40 per hour (£32,920 per annum)" states one pay two ways
  const amounts = all.length > 1 && RANGE_GAP_RE.test(t.slice(all[0].end, all[1].index).replace(PERIOD_WORDS_RE, ' ')) ? all.slice(0, 2) : all.slice(0, 1)
  let min: number | null = amounts[0].value
  let max: number | null = amounts.length > 1 ? amounts[1].value : amounts[0].value
  if (amounts.length > 1 && amounts[0].multiplier === 1 && amounts[1].multiplier > 1 && min < 1000 && max >= 1000) min *= amounts[1].multiplier
  // "£25-31000": the first number is in thousands when, so read, it is a plausible bottom of the range
  else if (amounts.length > 1 && amounts[1].multiplier === 1 && min < 1000 && max >= 10_000 && min * 1000 <= max && min * 4000 >= max) min *= 1000
  const before = t.slice(0, amounts[0].index).toLowerCase()
  if (amounts.length === 1) {
    if (/\b(?:up to|max(?:imum)?|to|under|below|<)\s*\W{0,3}\s*$/.test(before)) min = null
    else if (/\b(?:from|min(?:imum)?|starting(?: at)?|at least|>)\s*\W{0,3}\s*$/.test(before) || /^\s*\+/.test(t.slice(amounts[0].end))) max = null
  }
  // the period stated after the amounts, before any other number; else anywhere in the text but
  // right after a bonus or an amount of another size ("£16.71 … plus LA of £4,000 PA": the
  // allowance is yearly, the pay not; "£16.45 plus 12.1% (£18.44ph)" states the pay again)
  const last = amounts[amounts.length - 1]
  const others = [...extras, ...all.filter((a) => !amounts.includes(a))].sort((a, b) => a.index - b.index)
  const next = others.find((a) => a.index > last.index)
  const otherSize = (o: Amount) => extras.includes(o) || o.value > 10 * last.value || o.value * 10 < last.value
  const elsewhere = others.filter(otherSize).reduce((s, o) => s.slice(0, o.index) + ' '.repeat(Math.min(s.length, o.end + OTHER_PERIOD_CHARS) - o.index) + s.slice(o.end + OTHER_PERIOD_CHARS), t)
  const period = detectPeriod(t.slice(last.end, next ? next.index : undefined)) ?? detectPeriod(elsewhere)
  return withAnnual(min, max, detectCurrency(t), period)
}

const PRICED_RE = /[$£€¥₹₩₪₱₦₺₴₫฿]\s*$/
// How far after another amount its own period may be stated ("£4,000 PA", "£2,000 per annum")
const OTHER_PERIOD_CHARS = 16
// What may stand between a range's two amounts: a dash, "to", "and" or a slash, and a currency.
// Case-sensitive, so that "for" in "£155.63 per week for 12 months" is no currency code.
// A code may also follow the first amount ("50,000 EUR - 60,000 EUR").
const RANGE_GAP_RE = /^\s*(?:[A-Z]{3}\s*)?(?:[-–—~/]|[Tt][Oo]|[Aa][Nn][Dd])?\s*(?:[A-Z]{1,3}\$|[$£€¥₹₩₪₱₦₺₴₫฿]|[A-Z]{3})?\s*$/
// Period words, which may follow each amount of a range ("£25,000 pa - £30,000 pa").
const PERIOD_WORDS_RE = /\b(?:per|a|an)\s+(?:annum|year|hour|day|week|month)\b|\bp\.?a\.?(?=\W|$)|\b(?:ph|pw|pd|pcm|yearly|annually|hourly|daily|weekly|monthly)\b|\/\s*(?:yr|year|hr|hour|h|day|wk|week|mo|month)\b/gi
