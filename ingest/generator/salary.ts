import { countries, usdRate } from './geo.ts'
import { groupDigits } from './format.ts'
import type { Rng } from './prng.ts'

export type Period = 'yearly' | 'monthly' | 'weekly' | 'daily' | 'hourly'
export type Level = 'Entry' | 'Junior' | 'Mid' | 'Senior' | 'Executive'

export type SalaryOut = {
  /** Structured salary_range, or undefined. */
  range?: { min: number | string; max?: number | string; currency: string; period?: string }
  /** Free-text salary, or undefined. */
  text?: string
  /** Sentence for the description (pay-transparency line), or null. */
  sentence: string | null
}

const levelFactor: Record<Level, number> = { Entry: 0.68, Junior: 0.82, Mid: 1, Senior: 1.3, Executive: 1.9 }
const hoursPer: Record<Period, number> = { yearly: 2080, monthly: 2080 / 12, weekly: 40, daily: 8, hourly: 1 }
// Countries where monthly pay is how postings are usually written.
const monthlyCountries = new Set(['BR', 'MX', 'AR', 'CO', 'CL', 'PH', 'ID', 'VN', 'TR', 'EG', 'AE', 'MY', 'KE', 'NG', 'ZA', 'JP', 'KR'])

const symbols: Record<string, string[]> = {
  USD: ['$'], CAD: ['C$', 'CA$', '$'], AUD: ['A$', 'AU$', '$'], NZD: ['NZ$'], SGD: ['S$'], GBP: ['£'], EUR: ['€'],
  INR: ['₹', 'Rs. '], JPY: ['¥'], BRL: ['R$', 'R$ '], ZAR: ['R', 'R '], PHP: ['₱'], KRW: ['₩'], ILS: ['₪'], TRY: ['₺'],
  NGN: ['₦'], MXN: ['MX$', '$'], CNY: ['RMB ', 'CN¥'],
}

/** Round to a "posting-looking" figure: two significant digits (half steps allowed) for big numbers. */
function nice(x: number, period: Period): number {
  if (period === 'hourly' && x < 200) return Math.round(x * 2) / 2
  if (x < 10) return Math.round(x * 2) / 2
  const digits = Math.floor(Math.log10(x)) + 1
  const step = digits <= 2 ? 1 : Math.pow(10, digits - 2) / (period === 'daily' || period === 'weekly' ? 2 : 2)
  return Math.round(x / step) * step
}

function money(sym: string, n: number, indian = false): string {
  const str = Number.isInteger(n) ? groupDigits(n, indian) : groupDigits(Number(n.toFixed(2)), indian)
  return sym + str
}

const periodWords: Record<Period, string[]> = {
  yearly: [' per year', ' a year', '/year', '/yr', ' annually', ' per annum'],
  monthly: [' per month', ' a month', '/month', '/mo', ' monthly'],
  weekly: [' per week', ' a week', '/week', ' weekly'],
  daily: [' per day', ' a day', '/day', ' day rate'],
  hourly: [' per hour', ' an hour', '/hour', '/hr', ' hourly'],
}

const structuredPeriod: Record<Period, string[]> = {
  yearly: ['YEAR', 'annual', 'year'], monthly: ['MONTH', 'month'], weekly: ['WEEK', 'week'], daily: ['DAY', 'day'], hourly: ['HOUR', 'hour'],
}

/**
 * Salary for one posting, in the currency of the country it is in (cc). About 45% come as a
 * structured salary_range, 25% as free text in every style boards use ("$120-150k",
 * "£30,000 - £35,000 per annum", "€25/hour", "12-18 LPA"), and the rest carry no salary.
 * A few have no period at all ("$5,000-6,000"), which ingest must leave unknown.
 */
export function makeSalary(
  rng: Rng,
  opts: { pay: number; hourly: boolean; level: Level; cc: string; jobType: string },
): SalaryOut | null {
  const shape = rng.weighted([['range', 45], ['text', 25], ['none', 30]] as const)
  if (shape === 'none') return rng.chance(0.15) ? { sentence: rng.pick(['We offer a competitive salary and benefits package.', 'Compensation is competitive and based on experience.', 'Salary: competitive, depending on experience.']) } : null

  const info = countries[opts.cc]
  const currency = info.currency
  const contract = opts.jobType === 'Contract' || opts.jobType === 'Temporary'
  const partTime = opts.jobType === 'Part Time' || opts.jobType === 'Internship'
  let period: Period
  if (opts.hourly) period = rng.weighted([['hourly', 70], ['yearly', 18], ['weekly', 5], ['daily', 3], ['monthly', 4]])
  else if (contract) period = rng.weighted([['hourly', 35], ['daily', opts.cc === 'US' ? 8 : 30], ['yearly', 25], ['monthly', 10]])
  else if (partTime) period = rng.weighted([['hourly', 60], ['monthly', 20], ['yearly', 20]])
  else period = rng.weighted([['yearly', 84], ['monthly', monthlyCountries.has(opts.cc) ? 60 : 7], ['hourly', 4], ['daily', 3], ['weekly', 1]])

  const annualUsd = (opts.hourly ? opts.pay * 2080 : opts.pay) * levelFactor[opts.level] * (0.85 + rng.next() * 0.3)
  const local = annualUsd * info.pay * (usdRate[currency] ?? 1)
  const perPeriod = (local / 2080) * hoursPer[period]
  const min = nice(perPeriod, period)
  const single = rng.chance(0.06)
  const max = single ? min : nice(min * (1.1 + rng.next() * 0.35), period)
  const hi = max > min ? max : single ? min : nice(min * 1.25, period) // rounding can collapse a narrow range

  const sym = rng.pick(symbols[currency] ?? [`${currency} `])
  const indian = currency === 'INR' && sym !== 'Rs. ' && rng.chance(0.6)
  const word = rng.pick(periodWords[period]).replace(' per annum', currency === 'GBP' || currency === 'INR' ? ' per annum' : ' per year')
  const rangeText = single ? money(sym, min, indian) : `${money(sym, min, indian)} - ${money(sym, hi, indian)}`
  const sentence = rng.chance(0.4)
    ? rng.pick([
        `The base pay range for this role is ${rangeText}${word}.`,
        `Compensation: ${rangeText}${word}, depending on experience and location.`,
        `Pay: ${rangeText}${word}`,
        `The expected salary for this position is ${rangeText}${word}, plus benefits.`,
      ])
    : null

  if (shape === 'range') {
    const unknownPeriod = rng.chance(0.03)
    const periodValue = unknownPeriod ? undefined : rng.chance(0.9) ? period : rng.pick(structuredPeriod[period])
    const asString = rng.chance(0.03)
    return {
      range: {
        min: asString ? String(min) : min,
        max: single && rng.chance(0.5) ? undefined : asString ? String(hi) : hi,
        currency: rng.chance(0.95) ? currency : currency.toLowerCase(),
        period: periodValue,
      },
      sentence,
    }
  }

  // Free text.
  if (rng.chance(0.1)) {
    // No period words at all: the reader cannot tell whether "$5,000-6,000" is monthly or anything else.
    const text = rng.pick([`${money(sym, min)}-${groupDigits(hi)}`, `${currency} ${groupDigits(min)} - ${groupDigits(hi)}`, `${money(sym, min)} to ${money(sym, hi)}`])
    return { text, sentence: null }
  }
  let text: string
  const k = (n: number) => (n >= 1000 && n < 1_000_000 ? String(Math.round(n / 1000)) : null)
  if (currency === 'INR' && period === 'yearly' && rng.chance(0.35)) {
    const lakh = (n: number) => String(Math.round(n / 100000))
    text = rng.pick([`${lakh(min)}-${lakh(hi)} LPA`, `INR ${lakh(min)} - ${lakh(hi)} Lakhs per annum`, `₹${lakh(min)}L - ₹${lakh(hi)}L`])
  } else if (period === 'yearly' && k(min) && k(hi) && !single && rng.chance(0.45)) {
    text = rng.pick([`${sym}${k(min)}-${k(hi)}k`, `${sym}${k(min)}k - ${sym}${k(hi)}k`, `${sym}${k(min)}K–${sym}${k(hi)}K`, `${sym}${k(min)}k-${k(hi)}k + equity`, `${currency} ${k(min)}k-${k(hi)}k`])
  } else if (rng.chance(0.12)) {
    text = `${rng.pick(['Up to ', 'Up to ', 'From '])}${money(sym, hi)}${word}`
  } else if (rng.chance(0.2)) {
    text = `${single ? groupDigits(min) : `${groupDigits(min)} - ${groupDigits(hi)}`} ${currency}${word}`
  } else {
    text = `${rangeText}${word}`.replace(/ - /, rng.pick([' - ', '-', ' – ', ' to ']))
  }
  return { text, sentence }
}
