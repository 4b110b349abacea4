/**
 * Normalization defects seen on real feeds (issue 16, part 2), each with a case shaped like the
 * postings that showed it: NHS Jobs (schema.org flattened), a new-graduate list, remote-job
 * boards (Hacker News "Who is hiring", RemoteOK …). Pure: normalizePosting only.
 */
import test from 'ava'
import { isRejection, normalizePosting } from '../../ingest/normalize.ts'
import type { Posting, RawPosting } from '../../ingest/types.ts'
import { cleanTitle } from '../../ingest/transform/clean-title.ts'
import { decodeEntities } from '../../ingest/transform/decode-entities.ts'

const now = new Date('2020-06-01T12:00:00Z')

function normalized(raw: RawPosting): Posting {
  const p = normalizePosting(raw, { now })
  if (isRejection(p)) throw new Error(p.reason)
  return p
}

/** A posting as the NHS Jobs adapter hands it over. */
function nhs(overrides: RawPosting = {}): RawPosting {
  return {
    source_id: '915700878',
    job_board: 'NHS Jobs',
    job_board_link: 'https://www.jobs.nhs.uk/xi/vacancy/915700878',
    job_title: 'Registered Mental Nurse (RMN)',
    description: '<p>Priory Hospital Preston is a 38-bedded independent mental health hospital.</p><p>Provide a high standard of care to patients.</p>',
    company: { name: 'Priory Group', industries: ['Healthcare'] },
    industry: 'Healthcare',
    job_type: 'FULL_TIME',
    date_posted: '2019-08-08T11:13:33+01:00',
    valid_through: '2020-11-27T23:59:59Z',
    ...overrides,
  }
}

/** A new-graduate list's row: no description at all. */
function newgrad(overrides: RawPosting = {}): RawPosting {
  return {
    source_id: '8a21c8b3-a011-4d2c-ac99-6c5c24e60e1f',
    job_board: 'Greenhouse',
    job_board_link: 'https://boards.greenhouse.io/acme/jobs/4145904005',
    job_title: 'Software Engineer – New Grad',
    description: '',
    locations: ['San Francisco, CA'],
    date_posted: '2023-08-18',
    company: { name: 'Acme Robotics' },
    ...overrides,
  }
}

// --- 1. titles keep the word "New" -------------------------------------------------------

test('titles keep "New" when it is part of the title, a place or a name', (t) => {
  t.is(normalized(newgrad()).job_title, 'Software Engineer – New Grad')
  t.is(normalized(newgrad({ job_title: 'New Grad Software Engineer' })).job_title, 'New Grad Software Engineer')
  t.is(normalized(newgrad({ job_title: 'Software Engineer – New Grads 2024' })).job_title, 'Software Engineer – New Grads 2024')
  t.is(normalized(nhs({ job_title: 'CATERING MANAGER – NEW HALL' })).job_title, 'Catering Manager – New Hall')
  t.is(normalized(nhs({ job_title: 'Registered Mental Health Nurse / RMN (New CAMHS Hospital)' })).job_title, 'Registered Mental Health Nurse / RMN (New CAMHS Hospital)')
  t.is(normalized(nhs({ job_title: 'Mental Health Nurse - HMP YOI New Hall' })).job_title, 'Mental Health Nurse - HMP YOI New Hall')
  // a trailing place is still a place: New York goes to the locations, whole
  const ny = normalized(newgrad({ job_title: 'Operations Analyst - New York', locations: undefined }))
  t.is(ny.job_title, 'Operations Analyst')
  t.like(ny.locations[0], { city: 'New York City', country: 'United States' })
})

test('ALL CAPS NHS titles keep the NHS acronyms', (t) => {
  t.is(normalized(nhs({ job_title: 'BAND 5 RMN - CAMHS INPATIENT UNIT' })).job_title, 'Band 5 RMN - CAMHS Inpatient Unit')
  t.is(normalized(nhs({ job_title: 'HCA - A&E NIGHTS' })).job_title, 'HCA - A&E Nights')
})

test('only a tag in its own punctuation is a "new posting" marker', (t) => {
  const title = (s: string) => cleanTitle(s).title
  t.is(title('NEW! Warehouse Operative'), 'Warehouse Operative')
  t.is(title('Warehouse Operative (New)'), 'Warehouse Operative')
  t.is(title('*NEW* Barista'), 'Barista')
  t.is(title('[NEW] Line Cook'), 'Line Cook')
  t.is(title('Barista - NEW!!'), 'Barista')
  t.is(title('New: Staff Nurse'), 'Staff Nurse')
  t.is(title('Renewal Specialist'), 'Renewal Specialist')
  t.is(title('News Editor'), 'News Editor')
})

// --- 2. HTML entities ------------------------------------------------------------------

test('entities are decoded in titles, company names and locations, double escaping included', (t) => {
  const hn = normalized({
    source_id: 'hn:22666710',
    job_board: 'Hacker News',
    job_title: 'Senior Wireless &amp;#038; Modem Connectivity Engineer (combined LTE and BLE)',
    description: 'We&#x27;re hiring.',
    location_raw: 'San Francisco &amp; Seattle',
    company: { name: 'McKinsey &amp; Company' },
  })
  t.is(hn.job_title, 'Senior Wireless & Modem Connectivity Engineer (combined LTE and BLE)')
  t.is(hn.company.name, 'McKinsey & Company')
  t.is(hn.company.slug, 'mckinsey-and-company')
  t.is(hn.location_raw, 'San Francisco & Seattle')

  const leonards = normalized(nhs({
    location_raw: 'St Leonard&#39;s on Sea, TN38 0LB',
    locations: [{ city: 'St Leonard&#39;s on Sea', country: 'GB', lat: 50.8553, lng: 0.5515 }],
  }))
  t.is(leonards.location_raw, "St Leonard's on Sea, TN38 0LB")
  t.false(JSON.stringify(leonards.locations).includes('&'))
  t.is(normalized(newgrad({ job_title: 'Senior Manager &amp;#8211; Solutions Architect / Team Lead' })).job_title, 'Senior Manager – Solutions Architect / Team Lead')
  t.is(normalized(newgrad({ job_title: 'Backend&#x2F;API Engineer&nbsp;II' })).job_title, 'Backend/API Engineer II')
  t.is(normalized(newgrad({ company: { name: 'GLS Germany GmbH &amp;#038; Co. OHG' } })).company.name, 'GLS Germany GmbH & Co. OHG')
})

test('decodeEntities: strict, at most three passes, AT&T untouched', (t) => {
  t.is(decodeEntities('AT&T and R&D'), 'AT&T and R&D')
  t.is(decodeEntities('Marks &copy Spencer'), 'Marks &copy Spencer')
  t.is(decodeEntities('&amp;amp;amp;amp;'), '&amp;')
  t.is(decodeEntities('a&nbsp;b'), 'a b')
})

// --- 3. salaries ----------------------------------------------------------------------

test('a pay band is not a salary, and the bands beside an amount are left out', (t) => {
  for (const text of ['Band 5', 'Band 8a', 'Agenda for Change band 6', 'Band 6/7', 'AfC Band 7', 'Band Equivalent 6']) t.is(normalized(nhs({ salary: text })).salary, null, text)
  t.like(normalized(nhs({ salary: '£31,365 - £37,890 Band 6 - £30,401 - £37,267' })).salary, { min: 31365, max: 37890, currency: 'GBP' })
  t.like(normalized(nhs({ salary: 'Band 5 - 24,907 to 30,615 per annum' })).salary, { min: 24907, max: 30615, period: 'yearly', annual_min: 24907 })
  t.is(normalized(nhs({ salary: 'RG24 9RH' })).salary, null)
  t.is(normalized(nhs({ salary: 'competitive salary plus benefit&#39;s' })).salary, null, 'an entity is not an amount')
  t.like(normalized(nhs({ salary: 'B5 Nurse £24,907 per annum' })).salary, { min: 24907, max: 24907 })
  // a consultant's programmed activities are sessions, not pay; "£30,000pa" stays per annum
  t.is(normalized(nhs({ salary: '10 PA' })).salary, null)
  t.like(normalized(nhs({ salary: '£79,860 - £107,668 1 additional PA offered' })).salary, { min: 79860, max: 107668, period: 'yearly' }) // inferred from its size
  // "Range 2" is a pay range's number; "£42, 000" one amount; an allowance's period is its own
  t.like(normalized(nhs({ salary: 'Range 2 £17,222 per annum fixed salary point' })).salary, { min: 17222, max: 17222, period: 'yearly' })
  t.like(normalized(nhs({ salary: 'Up to £42, 000 per annum DOE' })).salary, { min: null, max: 42000, period: 'yearly' })
  t.like(normalized(nhs({ salary: '£16.71 pre enhancements plus LA of £4,000 PA' })).salary, { min: 16.71, period: 'hourly' }) // by its size, not the allowance's PA
  // a grade's number before the pay is no amount; "for 12 months" is no range; "phr" is per hour
  t.like(normalized(nhs({ salary: 'Clinical 5: £46,284 - £51,055 - £55,825' })).salary, { min: 46284, max: 51055 })
  t.like(normalized(nhs({ salary: '£155.63 per week for 12 months, NMW for remaining' })).salary, { min: 155.63, max: 155.63, period: 'weekly' })
  t.like(normalized(nhs({ salary: '£10phr/Inclusive' })).salary, { min: 10, period: 'hourly' })
  t.like(normalized(newgrad({ salary: '50,000 EUR - 60,000 EUR per year' })).salary, { min: 50000, max: 60000, currency: 'EUR' })
  t.like(normalized(nhs({ salary: '£79,860 to £107,668 per annum pro rata (10 PAs)' })).salary, { min: 79860, max: 107668, period: 'yearly' })
})

test('one pay stated two ways is not a range, and its period is the one stated with it', (t) => {
  t.like(normalized(nhs({ salary: '£30,615 per annum pro rata (£15.66 per hour)' })).salary, { min: 30615, max: 30615, period: 'yearly', annual_min: 30615 })
  t.like(normalized(nhs({ salary: '£16.40per hour (£32,920 per annum)' })).salary, { min: 16.4, max: 16.4, period: 'hourly', annual_min: 34112 })
  t.like(normalized(nhs({ salary: '£25,000 pa - £30,000 pa' })).salary, { min: 25000, max: 30000, period: 'yearly' })
  t.like(normalized(newgrad({ salary: 'between $50,000 and $60,000 a year' })).salary, { min: 50000, max: 60000, currency: 'USD' })
})

test('a bonus is not the top of the range', (t) => {
  t.like(normalized(nhs({ salary: '£35007.97 - £5K Welcome Bonus' })).salary, { min: 35007.97, max: 35007.97, currency: 'GBP' })
  t.like(normalized(nhs({ salary: '£25,000 - £28,000 per annum plus £3,000 bonus' })).salary, { min: 25000, max: 28000, annual_max: 28000 })
  t.like(normalized(nhs({ salary: '£24,907 - £30,615 pa + £2,000 London weighting' })).salary, { min: 24907, max: 30615 })
})

test('implausible amounts are kept as stated, without annual amounts', (t) => {
  // NHS Jobs' own salary_max for "£31,365 - £37,890 Band 6 - …": the digits ran together
  const typo = normalized(nhs({ salary_range: { min: 31365, max: 37890000, currency: 'GBP', period: 'YEAR' } })).salary
  t.deepEqual(typo, { min: 31365, max: 37890000, currency: 'GBP', period: 'yearly', annual_min: null, annual_max: null })
  // "£155.63 per week" filed by the source as a yearly 155
  t.like(normalized(nhs({ salary_range: { min: 155, max: 155, currency: 'GBP', period: 'YEAR' } })).salary, { min: 155, annual_min: null, annual_max: null })
  // "£79,860 - £107,668 1 additional PA": max 1,076,681, a spread of 13
  t.like(normalized(nhs({ salary_range: { min: 79860, max: 1076681, currency: 'GBP', period: 'YEAR' } })).salary, { annual_min: null, annual_max: null })
  // a board's thousands: 30-35 (k) USD a year
  t.like(normalized(newgrad({ salary_range: { min: 30, max: 35, currency: 'USD', period: 'yearly' } })).salary, { min: 30, max: 35, annual_min: null })
  // plausible ones, in big and small units, keep theirs
  t.like(normalized(newgrad({ salary_range: { min: 9_000_000, max: 12_000_000, currency: 'JPY', period: 'yearly' } })).salary, { annual_min: 9_000_000 })
  t.like(normalized(newgrad({ salary: '₹1,30,000 - ₹1,55,000 a month' })).salary, { min: 130000, max: 155000, currency: 'INR', annual_max: 1_860_000 })
  t.like(normalized(newgrad({ salary: 'INR 11 - 12 Lakhs per annum' })).salary, { min: 1_100_000, max: 1_200_000, annual_min: 1_100_000 })
  t.like(normalized(nhs({ salary: '£13.00 to £17.00 per hour' })).salary, { period: 'hourly', annual_min: 27040, annual_max: 35360 })
  t.like(normalized(nhs({ salary: '£30,000pa' })).salary, { period: 'yearly', annual_min: 30000 })
})

// --- 4. a location is a place ------------------------------------------------------------

test('location text that is not a place stays in location_raw only', (t) => {
  for (const text of ['Full-time', 'Full Time', 'Senior Product Manager', 'Multiple Locations', 'Time zone: CET']) {
    const p = normalized(newgrad({ locations: undefined, location_raw: text, job_title: 'Backend Engineer' }))
    t.deepEqual(p.locations, [], text)
    t.is(p.location_raw, text)
  }
  t.deepEqual(normalized(newgrad({ locations: ['Multiple Locations'] })).locations, [])
  // a town the gazetteer lacks, inside a region or country it knows, is kept
  t.like(normalized(newgrad({ locations: ['Ghent, Belgium'] })).locations[0], { city: 'Ghent', country: 'Belgium' })
  t.like(normalized(newgrad({ locations: ['Clifton Park, NY'] })).locations[0], { city: 'Clifton Park', region: 'New York', country: 'United States' })
  // "MD" and "VA" after a town the gazetteer lacks are US states, not Moldova and the Vatican
  t.like(normalized(newgrad({ locations: ['Annapolis Junction, MD'] })).locations[0], { region: 'Maryland', country: 'United States' })
  t.like(normalized(newgrad({ locations: ['Quantico, VA'] })).locations[0], { region: 'Virginia', country: 'United States' })
  // two places joined by "&", and a premises before its town
  t.deepEqual(normalized(newgrad({ locations: undefined, location_raw: 'San Francisco &amp; Seattle' })).locations.map((l) => l.city), ['San Francisco', 'Seattle'])
  t.like(normalized(nhs({ location_raw: 'Moseley Hall Hospital, Birmingham' })).locations[0], { city: 'Birmingham', country: 'United Kingdom' })
  t.like(normalized(nhs({ location_raw: 'ARLESEY, SG15 6SN' })).locations[0], { city: 'Arlesey', country: 'United Kingdom' })
  for (const p of [normalized(newgrad({ locations: ['Multiple Locations', 'Austin, TX'] }))]) t.true(p.locations.every((l) => l.country !== null))
  // a job-type word before a country names no town in it
  t.deepEqual(normalized(newgrad({ locations: ['Full-time, US'] })).locations, [{ city: null, region: null, country: 'United States', lat: null, lng: null }])
  // the short names UK postings use: Hull is Kingston upon Hull (not Hull, Massachusetts), the Wirral's town Birkenhead
  t.like(normalized(nhs({ location_raw: 'Hull, HU3 2JZ' })).locations[0], { city: 'Kingston upon Hull', country: 'United Kingdom' })
  t.like(normalized(nhs({ location_raw: 'Wirral' })).locations[0], { city: 'Birkenhead', country: 'United Kingdom' })
  t.like(normalized(newgrad({ locations: ['Hull, MA'] })).locations[0], { city: 'Hull', region: 'Massachusetts' })
})

// --- 5. NHS sites: the town at the coordinates, and In-Person ------------------------------

test('an NHS locality (premises, town, postcode and coordinates) is the gazetteer town at the site, In-Person', (t) => {
  // as the NHS Jobs adapter hands it over: the locality's town as city, the file's coordinates
  const preston = normalized(nhs({
    location_raw: 'Bartle, Preston, PR4 0HB',
    locations: [{ city: 'Bartle, Preston', country: 'GB', lat: 53.8011, lng: -2.78397, postal_code: 'PR4 0HB' }],
  }))
  t.deepEqual(preston.locations, [{ city: 'Preston', region: 'England', country: 'United Kingdom', lat: 53.8011, lng: -2.78397 }])
  t.is(preston.location_type, 'In-Person')
  // a hospital's name: the town it is in (the most populous within 10 km, not the hamlet beside it)
  const surrey = normalized(nhs({ location_raw: 'Royal Surrey Hospital, GU2 7XX', locations: [{ city: 'Royal Surrey Hospital', country: 'GB', lat: 51.2416, lng: -0.6088 }] }))
  t.like(surrey.locations[0], { city: 'Guildford', country: 'United Kingdom', lat: 51.2416 })
  t.is(surrey.location_type, 'In-Person')
  // a name the gazetteer knows elsewhere: the place at the coordinates
  t.like(normalized(newgrad({ locations: [{ city: 'Paris', lat: 33.66, lng: -95.55 }] })).locations[0], { city: 'Paris', region: 'Texas' })
  // a street address or a postcode alone names a site too
  t.is(normalized(nhs({ locations: [{ city: 'Leeds', country: 'GB', street_address: 'Great George Street' }] })).location_type, 'In-Person')
  t.is(normalized(nhs({ locations: [{ city: 'Leeds', country: 'GB', postcode: 'LS1 3EX' }] })).location_type, 'In-Person')
})

test('a site with a remote or hybrid word is remote or hybrid; a city alone is still unknown', (t) => {
  const remote = normalized(nhs({ location_raw: 'Remote | London & Southend, SS2 6DF', locations: [{ city: 'Southend', country: 'GB', lat: 51.5459, lng: 0.7077 }] }))
  t.is(remote.location_type, 'Remote')
  const home = normalized(nhs({ location_raw: 'Aldershot/Home Working, GU11 1AY', locations: [{ city: 'Aldershot/Home Working', country: 'GB', lat: 51.2483, lng: -0.7639 }] }))
  t.is(home.location_type, 'Remote')
  const hybrid = normalized(nhs({ location_raw: 'Hybrid - Leeds', locations: [{ city: 'Leeds', country: 'GB', lat: 53.7965, lng: -1.5478 }] }))
  t.is(hybrid.location_type, 'Hybrid')
  t.is(normalized(nhs({ location_raw: 'Leeds' })).location_type, null)
  t.is(normalized(newgrad({ locations: [{ city: 'Austin', region: 'TX', country: 'US' }] })).location_type, null)
  // a given value wins
  t.is(normalized(nhs({ location_type: 'Hybrid', locations: [{ city: 'Leeds', country: 'GB', lat: 53.7965, lng: -1.5478 }] })).location_type, 'Hybrid')
})

// --- 5. NHS categories: "Bank" and "Consultant" read in context ----------------------------

test('"Bank" (the NHS staff pool) and "Consultant" (a hospital doctor) are read with the rest of the posting', (t) => {
  const categories = (overrides: RawPosting) => normalized(nhs(overrides)).job_categories
  const hca = categories({ job_title: 'Bank Healthcare Assistant' })
  t.is(hca[0], 'Healthcare Services Jobs')
  t.false(hca.includes('Banking Jobs'))
  t.deepEqual(categories({ job_title: 'Band 5 Bank Staff Nurse RN RGN' }), ['Healthcare Services Jobs'])
  t.deepEqual(categories({ job_title: 'Consultant Psychiatrist' }), ['Healthcare Services Jobs'])
  // the title says nothing else: the industry does
  t.deepEqual(categories({ job_title: 'Consultant Cardiologist' }), ['Healthcare Services Jobs'])
  t.deepEqual(categories({ job_title: 'Consultant in Emergency Medicine' }), ['Healthcare Services Jobs'])
  t.deepEqual(categories({ job_title: 'Bank Speech and Language Therapist' }), ['Healthcare Services Jobs'])
  // no industry at all: the description
  const described = normalized(nhs({
    job_title: 'Consultant in Emergency Medicine', industry: undefined, company: { name: 'Royal Free London NHS Foundation Trust' },
    description: '<p>A clinical post in our emergency department. You will lead the medical team caring for patients, supervise nurses and junior doctors, and teach on the nursing programme.</p>',
  }))
  t.deepEqual(described.job_categories, ['Healthcare Services Jobs'])
  // elsewhere the words keep their meaning
  const firm = (job_title: string) => normalized(newgrad({ job_title, company: { name: 'Novak Partners', industries: ['Corporate Services'] } })).job_categories
  t.deepEqual(firm('Business Consultant'), ['Consulting Jobs'])
  t.deepEqual(firm('Bank Teller'), ['Banking Jobs'])
  t.deepEqual(firm('Lead Risk Consultant'), ['Risk and Compliance Jobs', 'Consulting Jobs'])
  t.deepEqual(firm('Management Advisor'), ['Consulting Jobs'])
  // an advisor at NHS 111 is a clinician, an HR advisor works in HR
  t.deepEqual(categories({ job_title: '111 Clinical Advisor - Remote Working (Nurse/Paramedic)' }), ['Healthcare Services Jobs'])
  t.deepEqual(categories({ job_title: 'Senior HR Advisor' }), ['Human Resources Jobs'])
  t.deepEqual(categories({ job_title: 'Health Advisor' }), ['Healthcare Services Jobs'])
  // NHS professions the keyword table names
  for (const title of ['Band 6 Radiographer', 'Rotational Physiotherapist', 'Salaried GP', 'Operating Department Practitioners', 'RMN', 'Specialist Dietitian', 'Senior Pharmacy Technician']) {
    t.deepEqual(categories({ job_title: title }), ['Healthcare Services Jobs'], title)
  }
  t.deepEqual(normalized(newgrad({ job_title: 'Senior Consultant', company: { name: 'Acme Advisory', industries: ['Corporate Services'] }, description: 'medical, dental and health insurance' })).job_categories, ['Consulting Jobs'])
})

test('a board listing several openings in the plural, and German titles, are categorized', (t) => {
  const categories = (job_title: string) => normalized(newgrad({ job_title, company: { name: 'Acme' } })).job_categories
  t.deepEqual(categories('Software Engineers (Java) & Infrastructure'), ['Software Engineer Jobs'])
  t.deepEqual(categories('Product Managers'), ['Product Jobs'])
  t.deepEqual(categories('Data Scientists/Engineers across the stack'), ['Data Analyst Jobs', 'Engineering Jobs'])
  t.deepEqual(categories('Medical Secretaries'), ['Administration Jobs'])
  t.deepEqual(categories('Projektleiter IT / Prozessmanager'), ['Project & Program Management Jobs'])
  t.deepEqual(categories('Steuerfachangestellte, Steuerfachwirte und Bilanzbuchhalter'), ['Accounting, Payroll & Financial Planning Jobs'])
  t.deepEqual(categories('Various roles'), ['Other'])
})

// --- 6. (remote_countries: test/ingest/real-feeds-load.test.ts, through the job record) ------

test('a remote posting scoped to a country keeps the scope beside its empty locations', (t) => {
  const p = normalized(newgrad({ locations: undefined, location_raw: 'Remote - US', job_title: 'Backend Engineer' }))
  t.deepEqual(p.locations, [])
  t.deepEqual(p.remote_countries, ['United States'])
  t.is(p.location_type, 'Remote')
})

// --- 7. skills and technologies ----------------------------------------------------------

test('given technologies are kept once, in their normalized form', (t) => {
  // RemoteOK's tags, with the same terms in the text
  const p = normalized({
    source_id: 'remoteok:1093481', job_board: 'RemoteOK', job_title: 'Senior ML Engineer',
    description: '<p>You will build Machine Learning pipelines and a React Native app.</p>',
    technologies: ['machine-learning', 'react-native', 'python', 'Machine Learning', 'machine_learning'],
    skills: ['Machine Learning', 'communication'],
    company: { name: 'Hugging Robots' },
  })
  t.deepEqual(p.technologies.filter((x) => /machine|react/i.test(x)), ['Machine Learning', 'React Native'])
  t.deepEqual(p.technologies.slice(0, 3), ['Machine Learning', 'React Native', 'Python'])
  t.false(p.skills.some((s) => /machine/i.test(s)), 'not in skills again')
  t.true(p.skills.includes('Communication'))
})

test('no skill or technology is taken from the company name', (t) => {
  const unity = normalized(nhs({
    job_title: 'Production Operative',
    description: '<p>Unity Manufacturing is a family business in Leeds. Join the Unity Manufacturing team on our production line.</p>',
    company: { name: 'Unity Manufacturing' },
  }))
  t.false(unity.technologies.includes('Unity'))
  // the same word about the work still counts
  const game = normalized(newgrad({ job_title: 'Unity Developer', description: 'Build games in Unity and C#.', company: { name: 'Unity Manufacturing' } }))
  t.true(game.technologies.includes('Unity'))
  const hotel = normalized(newgrad({ job_title: 'Dishwasher', description: 'Garrison Hospitality operates boutique hotels.', company: { name: 'Garrison Hospitality' } }))
  t.false(hotel.skills.includes('Hospitality'))
})

// --- 10. what a posting needs ------------------------------------------------------------

test('a title and a company make a posting; the board comes from the feed, the source, or the link', (t) => {
  const row = { job_title: 'Engagement Associate', locations: ['Bloomington, IN'], date_posted: '2023-08-18', company: { name: 'Hillel International' } }
  const p = normalized({ ...row, application_link: 'https://boards.greenhouse.io/hillel/jobs/4145904005' })
  t.is(p.job_board, 'Greenhouse')
  t.is(p.description, '')
  t.like(normalizePosting({ ...row, job_board_link: 'https://www.jobs.nhs.uk/xi/vacancy/915390428' }, { now }), { job_board: 'NHS Jobs' })
  t.like(normalizePosting(row, { now, board: 'Simplify' }), { job_board: 'Simplify' })
  t.like(normalizePosting({ ...row, job_board: 'Lever' }, { now, board: 'Simplify' }), { job_board: 'Lever' })
  t.deepEqual(normalizePosting(row, { now }), { reason: 'job_board: required non-empty string (or a job_board_link or application_link to name the board by)' })
  t.deepEqual(normalizePosting({ ...row, company: { name: '' } }, { now, board: 'Simplify' }), { reason: 'company.name: required non-empty string' })
  t.deepEqual(normalizePosting({ ...row, job_title: ' ' }, { now, board: 'Simplify' }), { reason: 'job_title: required non-empty string' })
})
