import test from 'ava'
import {
  salaryOf, salaryFromText, salaryFromDescription, inferPeriod, YEARLY_FROM_USD, HOURLY_USD,
} from '../../ingest/transform/salary.ts'

const pay = (s: { min: number | null; max: number | null; currency: string | null; period: string | null } | null) =>
  s && { min: s.min, max: s.max, currency: s.currency, period: s.period }

test('inferPeriod: yearly from $10,000, hourly from $7 to $100, else unknown', (t) => {
  t.is(YEARLY_FROM_USD, 10_000)
  t.deepEqual(HOURLY_USD, [7, 100])
  t.is(inferPeriod(5, 5, 'GBP'), null, 'a few whole units: a band read as pay, more likely than an hourly wage')
  t.is(inferPeriod(120000, 150000, 'USD'), 'yearly')
  t.is(inferPeriod(45000, 60000, 'GBP'), 'yearly')
  t.is(inferPeriod(null, 32000, 'GBP'), 'yearly')
  t.is(inferPeriod(8.8, 9.35, 'GBP'), 'hourly')
  t.is(inferPeriod(2600, null, 'EUR'), null)
  t.is(inferPeriod(500000, null, 'INR'), null, 'about $6,000: a month or a year')
  t.is(inferPeriod(1500000, null, 'INR'), 'yearly')
  t.is(inferPeriod(50000, null, 'XAF'), null, 'no rate, no guess')
})

test('salary text: open ends stay open', (t) => {
  t.deepEqual(pay(salaryFromText('Up to £32,000')), { min: null, max: 32000, currency: 'GBP', period: 'yearly' })
  t.deepEqual(pay(salaryFromText('from $80k')), { min: 80000, max: null, currency: 'USD', period: 'yearly' })
  t.deepEqual(pay(salaryFromText('Up to £31,000 + £3,633 ILW')), { min: null, max: 31000, currency: 'GBP', period: 'yearly' })
  t.like(salaryFromText('Potential to earn £43213'), { min: null, max: 43213 })
  t.like(salaryFromText('starting at £14.10 p/h plus enhancements'), { min: 14.1, max: null, period: 'hourly' })
})

test('salary text: ranges are not cut short, and two rates are not a range', (t) => {
  t.deepEqual(pay(salaryFromText('£20-33p/h')), { min: 20, max: 33, currency: 'GBP', period: 'hourly' })
  t.deepEqual(pay(salaryFromText('£15.37 p/h - £20.55 p/h')), { min: 15.37, max: 20.55, currency: 'GBP', period: 'hourly' })
  t.like(salaryFromText('22.50p/h'), { min: 22.5, max: 22.5, period: 'hourly' })
  t.like(salaryFromText('£17.69 p/h £20 p/h on Nights & Weekends'), { min: 17.69, max: 17.69, period: 'hourly' })
  t.like(salaryFromText('PLN 206,550/year to PLN 344,250/year'), { min: 206550, max: 344250, currency: 'PLN', period: 'yearly' })
})

test('salary text: bonuses, grades, plans and dates are not pay', (t) => {
  t.like(salaryFromText('Salary: $145K $20,000 signing bonus'), { min: 145000, max: 145000 })
  t.is(salaryFromText('Band 5'), null)
  t.is(salaryFromText('Grade 7'), null)
  t.is(salaryFromText('401k matching'), null)
  t.is(salaryFromText('Closing date 23/11/2020'), null)
})

test('description: pay stated in the text', (t) => {
  t.deepEqual(pay(salaryFromDescription('Benefits. Pay: $23.13 to $33.29 per hour. Apply now.')), { min: 23.13, max: 33.29, currency: 'USD', period: 'hourly' })
  t.deepEqual(pay(salaryFromDescription('Location: Utrecht. Salary: €48 000 - €60 000 gross/year (including 8% holiday allowance)')), { min: 48000, max: 60000, currency: 'EUR', period: 'yearly' })
  t.deepEqual(pay(salaryFromDescription('build together. \\n $55,000 - $70,000 a year The salary range for this role is displayed above.')), { min: 55000, max: 70000, currency: 'USD', period: 'yearly' })
  t.deepEqual(pay(salaryFromDescription('Monthly Salary Range 7.5 - 9k gross euro. Benefits plan.')), { min: 7500, max: 9000, currency: 'EUR', period: 'monthly' })
  t.deepEqual(pay(salaryFromDescription('Monatlicher Verdienst flexibel gestaltbar (z. B. bis ca. 600 € und darüber hinaus möglich)')), { min: null, max: 600, currency: 'EUR', period: 'monthly' })
  t.deepEqual(pay(salaryFromDescription('Salary up to $60k/year. To apply, take a test.')), { min: null, max: 60000, currency: 'USD', period: 'yearly' })
  t.like(salaryFromDescription('$150,000 - $180,000 a year Please note, the above range is listed in CAD.'), { currency: 'CAD' })
  t.like(salaryFromDescription('Salary: â\u0082¬48 000 â\u0080\u0093 â\u0082¬60 000 gross/year'), { min: 48000, max: 60000, currency: 'EUR' }, 'mojibake repaired')
})

test('description: other sums of money are not pay', (t) => {
  for (const text of [
    "We've just raised a $60M series D, and are now the largest rental marketplace.",
    'with a market cap of $10 bn we have grown',
    'Discounted gym membership at £15.00 a month that they need to set up.',
    'Save an average of £50 per month with our free onsite car park.',
    'We will pay a $5,000 referral bonus to whoever refers the person we hire.',
    'Annual education budget of €1,500. Workation opportunities.',
    'A €1200 yearly budget for conferences and courses.',
    'education reimbursement up to $3,000/year.',
    'Salary - Competitive Closing date - 23/11/2020 Location - Stockton-on-Tees',
    'RainFocus offers competitive salaries, competitive benefits, 401k, generous PTO.',
    'vermögenswirksame Leistungen in Höhe von 40 €',
    'Enhanced Check: £44 + administration cost of £4.20 = £15.20 deducted from 1st month salary and £11 deducted from salary.',
    'Pay: Band 5 rates apply. Grade 7 post.',
    'We are 650+ people, across eight offices, with 330K PRO users.',
    'A dedicated annual L&D budget of €2000 for attending conferences.',
    'Top pay, 20% 401k annual contribution, $2,500 to buy clothes and more!',
    '- Competitive salary and stock options - $200/month Quality of Life perk - Great office',
    'EBG gives $1000 per year in Tickets-At-Work gift cards to full-time employees',
    '€2,000 annual learning budget to grow your skills, 30-day sabbatical after 3 years',
  ]) t.is(salaryFromDescription(text), null, text)
})

test('salaryOf: the description when the fields and the salary text are empty', (t) => {
  t.like(salaryOf(undefined, null, 'Compensation: $35.00 - $40.00 per hour'), { min: 35, max: 40, currency: 'USD', period: 'hourly', annual_min: 72800 })
  t.like(salaryOf(undefined, 'Competitive', 'Salary: €48 000 - €60 000 gross/year'), { min: 48000, max: 60000, currency: 'EUR' })
  t.is(salaryOf(undefined, null, 'Great team, great product.'), null)
})

test('salaryOf: the salary text beats the description', (t) => {
  t.like(salaryOf(undefined, '£30,000 per annum', 'Salary: £99,000 a year'), { min: 30000 })
})

test('salaryOf: the text beats a board field that disagrees', (t) => {
  // the same amounts: the text's currency
  t.like(salaryOf({ min: 206550, max: 344250, currency: 'USD', period: 'yearly' }, null, 'The expected annual base salary range is: PLN 206,550/year to PLN 344,250/year.'), { min: 206550, max: 344250, currency: 'PLN', period: 'yearly' })
  // an open end the field closed
  t.like(salaryOf({ min: 31000, max: 31000, currency: 'GBP', period: 'YEAR' }, 'Up to £31,000 + £3,633 ILW', ''), { min: null, max: 31000, currency: 'GBP', period: 'yearly' })
  // other amounts
  t.like(salaryOf({ min: 100000, currency: 'USD', period: 'yearly' }, null, 'Get paid for your expertise, with rates that can go up to $50/hour depending on your skills.'), { min: null, max: 50, period: 'hourly' })
  t.like(salaryOf({ min: 200000, currency: 'USD', period: 'yearly' }, null, 'the base salary range for this position is: $145,000 – $200,000 USD annually.'), { min: 145000, max: 200000 })
})

test('salaryOf: a board range the text states in parts stays whole', (t) => {
  const text = 'Location Based Pay Ranges $84,629 – $112,838 in these states: AL AR. $93,092 – $124,122 in these states: CA NY.'
  t.like(salaryOf({ min: 84629, max: 124122, currency: 'USD', period: 'yearly' }, null, text), { min: 84629, max: 124122 })
})

test('salaryOf: fields alone, with a period inferred for a yearly amount', (t) => {
  t.like(salaryOf({ min: 165000, max: 215000, currency: 'USD' }, null, ''), { period: 'yearly', annual_min: 165000 })
  t.like(salaryOf({ min: 60, max: 75, currency: 'USD', period: 'hour' }, null, 'Pay: $1 million in funding'), { min: 60, max: 75, period: 'hourly' })
})
