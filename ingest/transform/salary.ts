/**
 * Salary as stated (min, max, currency, period) plus annualised amounts.
 *
 * Annualisation constants (full-time year): hourly x 2,080 (40 h x 52 weeks), daily x 260
 * (5 days x 52 weeks), weekly x 52, monthly x 12, yearly x 1. A pay without a stated period gets
 * one only where its size allows one reading (inferPeriod): "$120-150k" is yearly, "£8.80 - £9.35"
 * hourly; "€2,600" (a month's pay or a year's?) stays without a period and without annual amounts.
 *
 * Where the pay comes from (salaryOf): the posting's own salary text or board fields, else the
 * description ("Salary: €48 000 - €60 000 gross/year"); when a board's fields and the text disagree,
 * the text wins (an open end, a currency, a different range).
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
  if (/\beuros?\b/i.test(text)) return 'EUR'
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
  // the first period stated wins: "$49,000 - $63,000 a year … Monthly work from home stipend" is yearly
  let first: { period: SalaryPeriod; index: number } | null = null
  for (const [period, re] of PERIOD_RES) {
    const m = re.exec(t)
    if (m && (!first || m.index < first.index)) first = { period, index: m.index }
  }
  return first?.period ?? null
}

const PERIOD_RES: [SalaryPeriod, RegExp][] = [
  ['hourly', /\b(?:per|an|a|each)\s*(?:hour|hr)\b|\/\s*(?:hour|hr|h)\b|\bhourly\b|\bp\/?h\b|\bph\b|\bphr\b|\bhour\b|\bstunde\b|\bstd\b|\bst[üu]ndlich\w*|\bstundenlohn\b/],
  ['daily', /\b(?:per|a|each)\s+day\b|\/\s*day\b|\bdaily\b|\bday rate\b|\bp\/?d\b|\bper diem\b|\bday\b/],
  ['weekly', /\b(?:per|a|each)\s+week\b|\/\s*(?:week|wk)\b|\bweekly\b|\bweek\b/],
  ['monthly', /\b(?:per|a|each)\s+month\b|\/\s*(?:month|mo|mth)\b|\bmonthly\b|\bpcm\b|\bp\.?m\.?(?=\s|$)|\bmonth\b|\bmonat\b|\bmonatlich\w*/],
  ['yearly', /\b(?:per|a|each)\s+(?:year|annum)\b|\/\s*(?:year|yr|y|annum)\b|\b(?:yearly|annual(?:ly)?|annum|p\.?a\.?)(?=\W|$)|\byear\b|\bjahr\b|\bj[äa]hrlich\w*|\bjahres\w*/],
]

const NOT_A_PERIOD_RE = /\bannual(?:ly)?\s+(?:leave|holidays?|bonus(?:es)?|entitlement|increments?|reviews?|pay\s+(?:rise|review)s?)\b/g

/** Period word from a salary_range object. e.g. "YEAR" "per annum" "Annual" -> yearly; "HOUR" -> hourly */
export function mapPeriod(v: unknown): SalaryPeriod | null {
  if (typeof v !== 'string' || !v.trim()) return null
  return detectPeriod(v.trim().length <= 6 ? `per ${v}` : v) ?? detectPeriod(v)
}

/**
 * The period of a pay that states none, from its size in US dollars (seeds/usd-per-unit.json; no
 * currency is taken as dollars): 10,000 or more is yearly; from 7 (about the lowest statutory hourly
 * wage a posting states in dollars) to 100 hourly; between the two it could be a month's, a week's
 * or a day's pay, and below 7 it is more likely a band or grade read as pay, so it stays null.
 * e.g. 120000-150000 USD -> yearly; 45000-60000 GBP -> yearly; 8.80-9.35 GBP -> hourly;
 *      2600 EUR -> null; 5 GBP -> null; 500000 INR (about $6,000) -> null; 1,500,000 INR -> yearly
 */
export function inferPeriod(min: number | null, max: number | null, currency: string | null): SalaryPeriod | null {
  const hi = max ?? min
  const lo = min ?? max
  if (hi === null || lo === null) return null
  const rate = currency === null ? 1 : USD_PER_UNIT[currency]
  if (rate === undefined) return null
  if (lo * rate >= YEARLY_FROM_USD && hi * rate <= PLAUSIBLE_PAY_USD.yearly[1]) return 'yearly'
  if (hi * rate <= HOURLY_USD[1] && lo * rate >= HOURLY_USD[0]) return 'hourly'
  return null
}

/** inferPeriod's bounds, in US dollars: a pay of at least this much is a year's; one in this range an hour's. */
export const YEARLY_FROM_USD = 10_000
export const HOURLY_USD: [number, number] = [7, 100]

/** Pay as read, before a missing period is inferred and the annual amounts are added. */
type Stated = { min: number | null; max: number | null; currency: string | null; period: SalaryPeriod | null }

/** A stated pay with its period inferred where none is stated (inferPeriod) and its annual amounts. */
function finish(s: Stated | null): Salary | null {
  return s ? withAnnual(s.min, s.max, s.currency, s.period ?? inferPeriod(s.min, s.max, s.currency)) : null
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
  return finish(statedRange(v))
}

function statedRange(v: unknown): Stated | null {
  if (isAbsent(v)) return null
  if (!isRecord(v)) throw new FieldError('salary_range', 'expected an object {min, max, currency, period}')
  const min = optionalNumber(v.min, 'salary_range.min')
  const max = optionalNumber(v.max, 'salary_range.max')
  const cur = optionalString(v.currency, 'salary_range.currency')
  const currency = cur ? (CURRENCY_CODES.has(cur.toUpperCase()) ? cur.toUpperCase() : detectCurrency(cur)) : null
  const period = mapPeriod(v.period ?? v.unit ?? v.interval)
  const lo = positive(min)
  const hi = positive(max)
  if (lo === null && hi === null) return null
  return lo !== null && hi !== null && lo > hi ? { min: hi, max: lo, currency, period } : { min: lo, max: hi, currency, period }
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
    String.raw`|\b(?:pay\s+)?range\s+\d{1,2}[a-d]?\b(?!\s*(?:-|–|to)\s*\d)(?![.,]?\d)` +
    // a US retirement plan ("401k", "401(k)", "403b") and a date ("23/11/2020", "2020-11-23")
    String.raw`|\b40[13]\s?\(?[kb]\)?` +
    // a duration: "30-day sabbatical", "12-month contract"
    String.raw`|\b\d+-(?:day|week|month|year|hour)s?\b` +
    String.raw`|\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b|\b\d{4}-\d{2}-\d{2}\b`,
  'gi',
)
// - NHS consultants' programmed activities: "10 PA", "(10 PAs)", "1 additional PA", "7.5 programmed activities"
//   (capital PA after a small number without a currency; "£30,000pa" stays per annum).
const SESSIONS_RE = /(?<![£$€\d.,]\s?)\b\d{1,2}(?:\.\d{1,2})?\s*(?:(?:additional|extra)\s+)?(?:PAs?\b|[Pp]rogrammed [Aa]ctivit(?:y|ies)\b|[Ss]essions?\b)/g
const currencyWord = (w: string) => CURRENCY_CODES.has(w.toUpperCase()) || /^(?:rs|rmb|zł|kč|fr)$/i.test(w)
// Letters glued to an amount's right must be a unit ("£30,000pa", "£110ph") or a currency
// ("5000EUR"); k and m are read with the amount. "8a" or "2nd" are not money.
const GLUED_UNIT_RE = /^(?:p\.?a\.?|per|ph|p\/hr?|pw|pd|pm|pcm|phr|hrs?|h|hour|yr|year|mo|month|wk|week|day|d|ote|brutto|gross)\b/i
// A bonus, allowance or extra named after the amount ("£5K Welcome Bonus", "£2,000 relocation
// allowance") or before it ("plus a £3,000 bonus", "+ £2k"): not the pay itself.
const EXTRA_AFTER_RE = /^\s*(?:[\p{L}-]+\s+){0,2}?(?:bonus|allowance|relocation|golden hello|sign[- ]?on|signing|retention|stipend|supplement|uplift|weighting|premium|incentive|budget|referral|reimbursement)/iu
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
    if (right && !GLUED_UNIT_RE.test(text.slice(end, end + 8)) && !currencyWord(right[0])) continue
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
  return finish(statedText(text))
}

function statedText(text: string): Stated | null {
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
    if (UP_TO_RE.test(before)) min = null
    else if (FROM_RE.test(before) || /^\s*\+/.test(t.slice(amounts[0].end))) max = null
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
  return { min, max, currency: detectCurrency(t), period }
}

// Words before a lone amount that make it the top or the bottom of the pay, in English and German:
// "Up to £32,000", "potential to earn £43213", "bis ca. 600 €"; "from $80k", "not lower than 2600 €", "ab 3.000 €"
const ABOUT = String.raw`(?:\s*(?:ca\.?|approx(?:\.|imately)?|about|around|circa|~))?`
const UP_TO_RE = new RegExp(String.raw`\b(?:up to|max(?:imum)?|to|under|below|potential to earn|no more than|not (?:be )?(?:more|higher) than|bis(?: zu)?)${ABOUT}\s*\W{0,3}\s*$|<\s*\W{0,3}\s*$`)
const FROM_RE = new RegExp(String.raw`\b(?:from|min(?:imum)?|starting(?: at| from)?|at least|no less than|not (?:be )?(?:lower|less) than|ab)${ABOUT}\s*\W{0,3}\s*$|>\s*\W{0,3}\s*$`)

const PRICED_RE = /[$£€¥₹₩₪₱₦₺₴₫฿]\s*$/
// How far after another amount its own period may be stated ("£4,000 PA", "£2,000 per annum")
const OTHER_PERIOD_CHARS = 16
// What stands between a range's two amounts: a dash, "to", "and" or a slash, and a currency
// ("£17.69 p/h £20 p/h on Nights" is two rates, not a range).
// Case-sensitive, so that "for" in "£155.63 per week for 12 months" is no currency code.
// A code may also follow the first amount ("50,000 EUR - 60,000 EUR").
const RANGE_GAP_RE = /^\s*(?:[A-Z]{3}\s*)?(?:[-–—~/]|[Tt][Oo]|[Aa][Nn][Dd])\s*(?:[A-Z]{1,3}\$|[$£€¥₹₩₪₱₦₺₴₫฿]|[A-Z]{3})?\s*$/
// Period words, which may follow each amount of a range ("£25,000 pa - £30,000 pa").
const PERIOD_WORDS_RE = /\b(?:per|a|an)\s+(?:annum|year|hour|day|week|month)\b|\bp\.?a\.?(?=\W|$)|\bp\/hr?\b|\b(?:ph|pw|pd|pcm|yearly|annually|hourly|daily|weekly|monthly)\b|\/\s*(?:yr|year|hr|hour|h|day|wk|week|mo|month)\b/gi

/**
 * Text as a reader sees it: UTF-8 read as Latin-1 repaired where it hides a currency or a dash
 * ("â¬48 000 â â¬60 000" is "€48 000 – €60 000", "Â£250m" is "£250m"), and a literal "\\n" a feed
 * left in its text read as the line break it stands for.
 */
function readable(text: string): string {
  return text
    .replace(/\u00e2\u0082\u00ac/g, '€')
    .replace(/\u00c2\u00a3/g, '£')
    .replace(/\u00e2\u0080[\u0093\u0094]/g, '–')
    .replace(/\\n/g, '\n')
}

// Words that introduce pay, in English and German: "Salary:", "compensation range", "hourly rate", "Gehalt"
const PAY_WORD_RE = /\b(?:salary|salaries|pay|paid|compensation|wages?|rates?|earn(?:ings)?|income|remuneration|ote|base|gehalt|gehaltsspanne|verg[üu]tung|verdienst|lohn|stundenlohn|jahresgehalt|bruttogehalt)\b/i
// What a sum of money before an amount makes it other than pay: funding, revenue, a budget, a cost,
// a discount ("raised $50M", "over $3 billion in revenue", "education budget of €1,500",
// "Enhanced Check: £44 + administration cost", "Save an average of £50 per month")
const NOT_PAY_BEFORE_RE = /\b(?:raised?|raising|funding|funded|series|valuation|valued|revenue|market|arr|gmv|investors?|invested|(?:education|training|learning|development|conference|equipment|office|travel|wellness|health|book|l&(?:amp;)?d)\s+budget|budget\s+(?:of|for)|contributions?|stipend|supplement|enhancements?|weighting|uplift|premium|incentive|bursary|grant|mileage|reimburse(?:ment|d)?|referral|bonus|allowance|fee|costs?|deduct(?:ed|ion)?|discount(?:ed)?|save|saving|worth|spen[dt]|paid out|sales|turnover|loans?|price|membership|expenses?|over|more than|check)\b[^.;:]*$/i
// What after an amount makes it no pay: "$10 bn", "$2B legacy market", "$500M in revenue", a count
// ("10,000 miles per annum", "650 employees") or a bursary
const NOT_PAY_AFTER_RE = /^\s*(?:%|[bBmM](?:n|illion)?\b|(?:million|billion|trillion|mio|mrd)\b|(?:miles?|km|kilomet\w*|hours|hrs|days|weeks|months|years|users|patients|people|staff|employees|members|customers|beds|sites|sessions|pages|words|bursary|grant)\b|\+?\s*(?:in\s+)?(?:revenue|funding|users|customers|arr))/i
// A perk named in the clause after an amount: "$200/month Quality of Life perk", "$1000 per year in gift cards"
const PERK_AFTER_RE = /\b(?:perks?|expenses|gift|vouchers?|tickets?|stipend|budget|reimburse\w*|allowance|raffle|credits?|discounts?|bursary|grant|to (?:buy|spend|use|cover))\b/i
// A currency stated for the amounts just read: "$150,000 - $180,000 a year Please note, the above range is listed in CAD."
const LISTED_IN_RE = /^[^$£€]{0,80}?\b(?:listed|stated|paid|quoted|shown|expressed)\s+in\s+([A-Z]{3})\b/
// An amount with a currency: "$120,000", "€ 48 000", "EUR 119,000", "82,988 EUR", "600 €", "7k EUR"
const PRICED_AMOUNT_RE = new RegExp(
  String.raw`(?:[$£€₹¥₩₪₱₦₺₴₫฿]|\b[A-Z]{3}\$?)\s?\d|\d(?:[\d,.\u00a0 ]*\d)?\s?[kK]?\s?(?:€|zł|\b[A-Z]{3}\b)`,
  'g',
)
const PAY_WORD_THEN_AMOUNT_RE = new RegExp(String.raw`${PAY_WORD_RE.source}[^.\d]{0,40}\d`, 'gi')

type Found = { salary: Stated; index: number; payWord: boolean }

/**
 * The pay a description states, or null. Each amount with a currency, and each amount a pay word
 * introduces, starts a candidate: the text from there to the end of its sentence (at most 160
 * characters), read as salary text (statedText) with the words just before it ("Up to", "from").
 * A candidate counts only when it is pay, not another sum of money:
 * - a pay word ("salary", "compensation", "rate", "Gehalt" …) in the 80 characters before it, or a
 *   currency with a range or a stated period ("$55,000 - $70,000 a year", "£45-60K");
 * - no funding, revenue, budget, cost, discount or bonus just before it (NOT_PAY_BEFORE_RE), and no
 *   million or billion after it;
 * - a period, stated or inferred (inferPeriod), and a plausible amount for it (plausiblePay).
 * The first candidate a pay word introduces wins, else the first one.
 * e.g. "…build together. $55,000 - $70,000 a year The salary range…" -> 55000-70000 USD yearly
 *      "Salary: $145K $20,000 signing bonus" -> 145000 USD, yearly (inferred)
 *      "Monthly Salary Range 7.5 - 9k gross euro" -> 7500-9000 EUR monthly
 *      "We've just raised a $60M series D" -> null; "Discounted gym membership at £15.00 a month" -> null
 */
export function salaryFromDescription(description: string): Salary | null {
  return finish(statedInDescription(description))
}

function statedInDescription(description: string): Stated | null {
  if (!description || !/\d/.test(description)) return null
  const text = readable(description)
  const starts = new Set<number>()
  for (const m of text.matchAll(PRICED_AMOUNT_RE)) starts.add(m.index!)
  for (const m of text.matchAll(PAY_WORD_THEN_AMOUNT_RE)) starts.add(m.index! + m[0].length - 1)
  const found: Found[] = []
  let covered = -1
  for (const start of [...starts].sort((a, b) => a - b)) {
    if (start < covered) continue
    const c = candidateAt(text, start)
    if (c) {
      found.push(c.found)
      covered = c.end
    }
  }
  return (found.find((f) => f.payWord) ?? found[0])?.salary ?? null
}

function candidateAt(text: string, start: number): { found: Found; end: number } | null {
  // back to the words that lead in ("Up to", "from", "Salary:"), not past a sentence or another number
  const back = text.slice(Math.max(0, start - 60), start)
  let cut = 0
  for (const m of back.matchAll(/\d|[.!?](?=\s+\p{Lu}\p{Ll})/gu)) cut = m.index! + 1
  const lead = back.slice(cut)
  const from = start - lead.length
  const rest = text.slice(start, start + 160)
  const stop = rest.search(/[.!?](?=\s+\p{Lu})|[;|\n]|\s[-–•*]\s+\p{Lu}/u)
  const window = rest.slice(0, stop > 0 ? stop : undefined)
  const before = text.slice(Math.max(0, from - 80), start)
  if (NOT_PAY_BEFORE_RE.test(text.slice(Math.max(0, start - 60), start))) return null
  const stated = statedText(lead + window)
  if (!stated) return null
  // the amount that starts the candidate is a bonus or a budget ("€2,000 annual learning budget"),
  // or the clause after the amounts names a perk ("$1000 per year in gift cards")
  if (EXTRA_AFTER_RE.test(window.slice(firstAmountEnd(window)))) return null
  if (PERK_AFTER_RE.test(window.slice(firstAmountEnd(window)).split(/[(;]|[,.](?!\d)/)[0].slice(0, 60))) return null
  const amountsEnd = lastAmountEnd(window)
  if (NOT_PAY_AFTER_RE.test(window.slice(firstAmountEnd(window)))) return null
  const listed = LISTED_IN_RE.exec(text.slice(start + amountsEnd, start + amountsEnd + 120))
  const currency = listed && CURRENCY_CODES.has(listed[1]) ? listed[1] : stated.currency
  const payWord = PAY_WORD_RE.test(before)
  const range = stated.min !== null && stated.max !== null && stated.min !== stated.max
  if (!currency || !(payWord || range || stated.period)) return null
  const period = stated.period ?? inferPeriod(stated.min, stated.max, currency)
  if (period ? !plausiblePay(stated.min, stated.max, currency, period) : !payWord) return null
  return { found: { salary: { ...stated, currency }, index: start, payWord }, end: start + window.length }
}

const firstAmountEnd = (t: string) => {
  const m = /\d(?:[\d,.\u00a0 ]*\d)?/.exec(t)
  return m ? m.index + m[0].length : 0
}
const lastAmountEnd = (t: string) => {
  let end = 0
  for (const m of t.matchAll(/\d(?:[\d,.\u00a0 ]*\d)?\s?[kK]?/g)) end = m.index! + m[0].length
  return end
}

const near = (a: number | null, b: number | null) => (a === null ? b === null : b !== null && Math.abs(a - b) <= Math.max(a, b) * 0.005)
const sameAmounts = (a: Stated, b: Stated) => near(a.min, b.min) && near(a.max, b.max)

/**
 * The posting's salary from its three sources: the board's fields (`salary_range`), its salary text
 * (`salary`) and its description. The salary text, else the pay the description states
 * (salaryFromDescription), is "the text"; the text beats the fields where they disagree:
 * - no fields: the text ("$23.13 to $33.29 per hour" in a description whose board left the
 *   salary columns empty);
 * - the same amounts: the fields' amounts, with the text's currency and period where it states them
 *   (fields 206550-344250 USD, text "PLN 206,550/year to PLN 344,250/year" -> PLN);
 * - other amounts: the text ("Up to £32,000" over fields 32000-32000 -> max only; "$145,000 - $200,000"
 *   over a field min of 200000), except where the text is a closed range and states both of the
 *   fields' amounts somewhere (a board's overall range over a description's ranges by state);
 * - no text: the fields.
 * A period still missing is inferred (inferPeriod).
 */
export function salaryOf(fields: unknown, salaryText: string | null, description: string): Salary | null {
  const range = statedRange(fields)
  const text = (salaryText ? statedText(salaryText) : null) ?? statedInDescription(description)
  if (!text) return finish(range)
  if (!range) return finish(text)
  if (sameAmounts(range, text)) return finish({ ...range, currency: text.currency ?? range.currency, period: text.period ?? range.period })
  const closed = text.min !== null && text.max !== null && range.min !== null && range.max !== null
  if (closed) {
    const all = readAmounts(readable(`${salaryText ?? ''} ${description}`)).map((a) => a.value)
    if ([range.min!, range.max!].every((v) => all.some((a) => near(a, v)))) return finish({ ...range, period: range.period ?? text.period })
  }
  return finish({ ...text, currency: text.currency ?? range.currency })
}
