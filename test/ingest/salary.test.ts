import test from 'ava'
import { salaryFromRange, salaryFromText, detectCurrency, detectPeriod, ANNUAL_FACTOR, MAX_SPREAD, PLAUSIBLE_PAY_USD, plausiblePay } from '../../ingest/transform/salary.ts'
import { FieldError } from '../../ingest/transform/coerce.ts'

test('annualisation constants are the documented ones', (t) => {
  t.deepEqual(ANNUAL_FACTOR, { hourly: 2080, daily: 260, weekly: 52, monthly: 12, yearly: 1 })
})

test('"$120-150k": k applies to both, and a yearly-sized amount without a period is yearly', (t) => {
  t.deepEqual(salaryFromText('$120-150k'), { min: 120000, max: 150000, currency: 'USD', period: 'yearly', annual_min: 120000, annual_max: 150000 })
})

test('yearly: "$120k - $150k a year" and "£30,000 - £35,000 per annum"', (t) => {
  t.deepEqual(salaryFromText('$120k - $150k a year'), { min: 120000, max: 150000, currency: 'USD', period: 'yearly', annual_min: 120000, annual_max: 150000 })
  t.deepEqual(salaryFromText('£30,000 - £35,000 per annum'), { min: 30000, max: 35000, currency: 'GBP', period: 'yearly', annual_min: 30000, annual_max: 35000 })
  t.like(salaryFromText('€45.000 - €55.000 brutto p.a.'), { min: 45000, max: 55000, currency: 'EUR', period: 'yearly' })
})

test('hourly: "€25/hour" and "25 EUR/hr" annualise x2080', (t) => {
  t.deepEqual(salaryFromText('€25/hour'), { min: 25, max: 25, currency: 'EUR', period: 'hourly', annual_min: 52000, annual_max: 52000 })
  t.like(salaryFromText('25 EUR/hr'), { min: 25, currency: 'EUR', period: 'hourly', annual_min: 52000 })
  t.like(salaryFromText('$18.50 - $22.75 per hour'), { min: 18.5, max: 22.75, period: 'hourly', annual_min: 38480, annual_max: 47320 })
})

test('monthly, daily, weekly', (t) => {
  t.deepEqual(salaryFromText('USD 5000 monthly'), { min: 5000, max: 5000, currency: 'USD', period: 'monthly', annual_min: 60000, annual_max: 60000 })
  t.like(salaryFromText('£400 - £500 per day'), { currency: 'GBP', period: 'daily', annual_min: 104000, annual_max: 130000 })
  t.like(salaryFromText('$1,200 weekly'), { period: 'weekly', annual_min: 62400 })
})

test('currency hints beyond "$"', (t) => {
  t.is(detectCurrency('CA$90,000'), 'CAD')
  t.is(detectCurrency('A$120k'), 'AUD')
  t.is(detectCurrency('₹12,00,000'), 'INR')
  t.is(detectCurrency('$100k CAD'), 'CAD')
  t.is(detectCurrency('CHF 110k'), 'CHF')
  t.is(detectCurrency('120k'), null)
})

test('non-numeric salary text is null', (t) => {
  for (const s of ['Competitive', 'TBC', 'DOE', '', '   ', 'Negotiable']) t.is(salaryFromText(s), null, s)
})

test('open-ended amounts', (t) => {
  t.like(salaryFromText('Up to $90k per year'), { min: null, max: 90000 })
  t.like(salaryFromText('From £40,000 a year'), { min: 40000, max: null })
  t.like(salaryFromText('$100k+'), { min: 100000, max: null })
})

test('salary_range objects with period words', (t) => {
  t.deepEqual(salaryFromRange({ min: 120000, max: 150000, currency: 'usd', period: 'YEAR' }), { min: 120000, max: 150000, currency: 'USD', period: 'yearly', annual_min: 120000, annual_max: 150000 })
  t.like(salaryFromRange({ min: 20, max: 30, currency: 'EUR', period: 'HOUR' }), { period: 'hourly', annual_min: 41600, annual_max: 62400 })
  t.like(salaryFromRange({ min: '4k', max: '5k', currency: 'GBP', period: 'month' }), { min: 4000, max: 5000, period: 'monthly', annual_max: 60000 })
  t.like(salaryFromRange({ min: 50000, max: 60000, currency: 'EUR', period: 'per annum' }), { period: 'yearly' })
  t.like(salaryFromRange({ min: 50000, max: 60000, currency: 'EUR', period: 'annual' }), { period: 'yearly' })
  t.like(salaryFromRange({ min: 50000, max: 60000, currency: 'EUR', period: 'yearly' }), { period: 'yearly' })
  t.like(salaryFromRange({ min: 50000, max: 60000, currency: 'EUR' }), { period: 'yearly', annual_min: 50000 }, 'inferred from its size')
  t.like(salaryFromRange({ min: 2000, max: 3000, currency: 'EUR' }), { period: null, annual_min: null }, 'a month\'s pay or a year\'s: unknown')
  t.like(salaryFromRange({ min: 60000, max: 50000 }), { min: 50000, max: 60000 })
  t.is(salaryFromRange({ min: null, max: null }), null)
  t.is(salaryFromRange(null), null)
  t.throws(() => salaryFromRange('lots'), { instanceOf: FieldError })
  t.throws(() => salaryFromRange({ min: 'abc' }), { instanceOf: FieldError })
})

test('period words', (t) => {
  t.is(detectPeriod('per hour'), 'hourly')
  t.is(detectPeriod('$30/hr'), 'hourly')
  t.is(detectPeriod('p.a.'), 'yearly')
  t.is(detectPeriod('/yr'), 'yearly')
  t.is(detectPeriod('pcm'), 'monthly')
  t.is(detectPeriod('$120-150k'), null)
})

test('plausible pay per period: the documented bounds, in US dollars, and the spread', (t) => {
  t.deepEqual(PLAUSIBLE_PAY_USD, { hourly: [0.5, 1000], daily: [4, 8000], weekly: [20, 40000], monthly: [80, 160000], yearly: [1000, 2000000] })
  t.is(MAX_SPREAD, 10)
  t.true(plausiblePay(120000, 150000, 'USD', 'yearly'))
  t.true(plausiblePay(25, 30, null, 'hourly'))
  t.false(plausiblePay(31365, 37890000, 'GBP', 'yearly'))
  t.false(plausiblePay(5, 5, 'GBP', 'yearly'))
  t.false(plausiblePay(20, 250, 'USD', 'hourly'))
  t.true(plausiblePay(25000, 30000, 'XAF', 'monthly'), 'a currency without a rate is not bounded')
  t.false(plausiblePay(2500, 300000, 'XAF', 'monthly'), '… but its spread is')
  t.true(plausiblePay(null, 90000, 'USD', 'yearly'))
})

test('NHS salary text: "annual leave" is no period, and "£25-31000" is in thousands', (t) => {
  t.like(salaryFromText('£16.45 Plus 12.1% Annual Leave (£18.44ph)'), { min: 16.45, period: 'hourly', annual_min: 34216 })
  t.like(salaryFromText('£8.80 + 12.1% annual leave entitlement'), { min: 8.8, period: 'hourly', annual_min: 18304 }, 'not yearly; hourly by its size')
  t.is(detectPeriod('£30,000 per annum plus annual bonus'), 'yearly')
  t.like(salaryFromText('£25-31000 + up to £3k salary enhancements pa'), { min: 25000, max: 31000, period: 'yearly' })
  t.like(salaryFromText('£10-£12 per hour'), { min: 10, max: 12, period: 'hourly' })
})
