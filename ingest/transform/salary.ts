/**
 * Salary as stated (min, max, currency, period) plus annualised amounts.
 *
 * Annualisation constants (full-time year): hourly x 2,080 (40 h x 52 weeks), daily x 260
 * (5 days x 52 weeks), weekly x 52, monthly x 12, yearly x 1. A period is never guessed: "$120-150k"
 * has no period, so annual_min/annual_max stay null even though it is obviously a yearly figure;
 * the benchmark code can decide how to treat those.
 */
import type { Salary, SalaryPeriod } from '../types.ts'
import { FieldError, isAbsent, isRecord, optionalNumber, optionalString } from './coerce.ts'
import { countries } from 'countries-list'

export const ANNUAL_FACTOR: Record<SalaryPeriod, number> = { hourly: 2080, daily: 260, weekly: 52, monthly: 12, yearly: 1 }

// Every ISO 4217 code some country uses, from countries-list, so "25 EUR/hr" and "CHF 100k" parse.
const CURRENCY_CODES = new Set<string>(Object.values(countries).flatMap((c) => c.currency as string[]))

// Longest symbols first: "CA$" must win over "$".
const SYMBOLS: [string, string][] = [
  ['CA$', 'CAD'], ['C$', 'CAD'], ['CAN$', 'CAD'], ['AU$', 'AUD'], ['A$', 'AUD'], ['NZ$', 'NZD'], ['HK$', 'HKD'], ['S$', 'SGD'], ['SG$', 'SGD'],
  ['US$', 'USD'], ['R$', 'BRL'], ['MX$', 'MXN'], ['NT$', 'TWD'], ['CN¥', 'CNY'], ['RMB', 'CNY'], ['Rs.', 'INR'], ['Rs', 'INR'],
  ['$', 'USD'], ['£', 'GBP'], ['€', 'EUR'], ['₹', 'INR'], ['¥', 'JPY'], ['₩', 'KRW'], ['₪', 'ILS'], ['₱', 'PHP'], ['₦', 'NGN'], ['₺', 'TRY'],
  ['₴', 'UAH'], ['₫', 'VND'], ['฿', 'THB'], ['zł', 'PLN'], ['Kč', 'CZK'], ['Fr.', 'CHF'],
]

/**
 * Currency from a code or symbol anywhere in the text; codes beat symbols ("$100k CAD" is CAD).
 * e.g. "£30,000" -> GBP, "CA$90k" -> CAD, "25 EUR/hr" -> EUR, "$120k" -> USD, "120k" -> null
 */
export function detectCurrency(text: string): string | null {
  for (const m of text.matchAll(/\b([A-Z]{3})\b/g)) if (CURRENCY_CODES.has(m[1])) return m[1]
  for (const m of text.matchAll(/\b([a-z]{3})\b/gi)) if (CURRENCY_CODES.has(m[1].toUpperCase()) && /^(usd|eur|gbp|cad|aud|chf|inr|sek|nok|dkk|pln|jpy|sgd|nzd)$/i.test(m[1])) return m[1].toUpperCase()
  for (const [sym, code] of SYMBOLS) if (text.includes(sym)) return code
  return null
}

/**
 * Pay period from words; null when not stated.
 * e.g. "per hour" "/hr" "hourly" "an hour" -> hourly; "per annum" "a year" "p.a." "/yr" "annual" -> yearly;
 * "monthly" "/mo" "per month" -> monthly; "per day" "daily" -> daily; "weekly" -> weekly
 */
export function detectPeriod(text: string): SalaryPeriod | null {
  const t = text.toLowerCase()
  if (/\b(?:per|an|a|each|\/)\s*(?:hour|hr)\b|\/\s*h\b|\bhourly\b|\bp\/?h\b|\bph\b|\bhour\b|\bstunde\b|\bstd\b/.test(t) || /\/\s*(?:hour|hr)\b/.test(t)) return 'hourly'
  if (/\b(?:per|a|each)\s+day\b|\/\s*day\b|\bdaily\b|\bday rate\b|\bp\/?d\b|\bper diem\b|\bday\b/.test(t)) return 'daily'
  if (/\b(?:per|a|each)\s+week\b|\/\s*(?:week|wk)\b|\bweekly\b|\bweek\b/.test(t)) return 'weekly'
  if (/\b(?:per|a|each)\s+month\b|\/\s*(?:month|mo|mth)\b|\bmonthly\b|\bpcm\b|\bp\.?m\.?(?=\s|$)|\bmonth\b|\bmonat\b/.test(t)) return 'monthly'
  if (/\b(?:per|a|each)\s+(?:year|annum)\b|\/\s*(?:year|yr|y|annum)\b|\b(?:yearly|annual(?:ly)?|annum|p\.?a\.?)(?=\W|$)|\byear\b|\bjahr\b|\bbrutto\b/.test(t)) return 'yearly'
  return null
}

/** Period word from a salary_range object. e.g. "YEAR" "per annum" "Annual" -> yearly; "HOUR" -> hourly */
export function mapPeriod(v: unknown): SalaryPeriod | null {
  if (typeof v !== 'string' || !v.trim()) return null
  return detectPeriod(v.trim().length <= 6 ? `per ${v}` : v) ?? detectPeriod(v)
}

function withAnnual(min: number | null, max: number | null, currency: string | null, period: SalaryPeriod | null): Salary | null {
  if (min === null && max === null) return null
  if (min !== null && max !== null && min > max) [min, max] = [max, min]
  const f = period ? ANNUAL_FACTOR[period] : null
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

// An amount: "120", "120,000", "120.000" (European thousands), "25.50", "1 200", with "k"/"m" suffix.
const AMOUNT = String.raw`(\d{1,3}(?:[,.\u00a0 ]\d{3})+|\d+)(?:[.,](\d{1,2}))?\s*([kKmM](?![a-z]))?`
const AMOUNT_RE = new RegExp(AMOUNT, 'g')

type Amount = { value: number; suffix: boolean; index: number; end: number }

function readAmounts(text: string): Amount[] {
  const out: Amount[] = []
  for (const m of text.matchAll(AMOUNT_RE)) {
    let n = Number(m[1].replace(/[,.\u00a0 ]/g, '') + (m[2] ? `.${m[2]}` : ''))
    if (m[3]) n *= m[3].toLowerCase() === 'k' ? 1_000 : 1_000_000
    out.push({ value: n, suffix: !!m[3], index: m.index!, end: m.index! + m[0].length })
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
 * "401k" are not in salary fields, so every number here is taken as money.
 */
export function salaryFromText(text: string): Salary | null {
  const t = text.trim()
  if (!t || !/\d/.test(t)) return null
  const amounts = readAmounts(t).filter((a) => a.value > 0).slice(0, 2)
  if (!amounts.length) return null
  let min: number | null = amounts[0].value
  let max: number | null = amounts.length > 1 ? amounts[1].value : amounts[0].value
  if (amounts.length > 1 && !amounts[0].suffix && amounts[1].suffix && min < 1000 && max >= 1000) min *= max / amounts[1].value > 999_999 ? 1_000_000 : 1_000
  const before = t.slice(0, amounts[0].index).toLowerCase()
  if (amounts.length === 1) {
    if (/\b(?:up to|max(?:imum)?|to|under|below|<)\s*\W{0,3}\s*$/.test(before)) min = null
    else if (/\b(?:from|min(?:imum)?|starting(?: at)?|at least|>)\s*\W{0,3}\s*$/.test(before) || /^\s*\+/.test(t.slice(amounts[0].end))) max = null
  }
  return withAnnual(min, max, detectCurrency(t), detectPeriod(t))
}
