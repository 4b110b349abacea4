import test from 'ava'
import fc from 'fast-check'
import { normalizePosting, isRejection, type Rejection } from '../../ingest/normalize.ts'
import type { Posting, RawPosting } from '../../ingest/types.ts'
import categories from '../../seeds/categories.json' with { type: 'json' }
import sizeBuckets from '../../seeds/size-buckets.json' with { type: 'json' }

const now = new Date('2024-06-01T12:00:00Z')

const base = (over: Partial<RawPosting> = {}): RawPosting => ({
  source_id: 'gh-123',
  job_board: 'greenhouse',
  job_board_link: 'https://boards.example/123',
  application_link: 'https://acme.example/apply/123',
  job_title: 'Senior Backend Engineer (m/f/d)',
  description:
    '<p>Acme builds payments infrastructure. Join our Platform team.</p><h3>Requirements</h3><ul><li>5+ years of experience with Go and PostgreSQL</li><li>Kubernetes on AWS</li></ul>' +
    '<h3>Benefits</h3><ul><li>Health insurance</li><li>Stock options</li><li>Flexible hours</li></ul><p>Visa sponsorship available.</p><script>x()</script>',
  location_raw: 'Berlin, Germany',
  salary: '€70,000 - €90,000 per year',
  job_type: 'FULL_TIME',
  date_posted: '2024-05-20',
  company: { name: 'Acme GmbH', size_range: '51-200', industries: ['Finance'], subindustries: ['Fintech'] },
  ...over,
})

const ok = (r: Posting | Rejection): Posting => {
  if (isRejection(r)) throw new Error(`rejected: ${r.reason}`)
  return r
}

test('a typical posting end to end', (t) => {
  const p = ok(normalizePosting(base(), { now }))
  t.is(p.job_title, 'Senior Backend Engineer')
  t.is(p.job_title_raw, 'Senior Backend Engineer (m/f/d)')
  t.false(p.description.includes('<script'))
  t.true(p.description.startsWith('<p>Acme builds'))
  t.is(p.description_raw, base().description as string)
  t.false(p.description_text.includes('<'))
  t.like(p.locations[0], { city: 'Berlin', country: 'Germany' })
  t.is(p.location_type, null)
  t.is(p.job_type, 'Full Time')
  t.deepEqual(p.salary, { min: 70000, max: 90000, currency: 'EUR', period: 'yearly', annual_min: 70000, annual_max: 90000 })
  t.is(p.yoe_min, 5)
  t.is(p.yoe_max, null)
  t.is(p.experience_level, 'Senior')
  t.deepEqual(p.job_categories, ['Software Engineer Jobs'])
  t.deepEqual(p.technologies, ['Go', 'PostgreSQL', 'Kubernetes', 'AWS'])
  t.deepEqual(p.benefits, ['Health Insurance', 'Equity', 'Flexible Hours', 'Visa Sponsorship'])
  t.true(p.visa_sponsored)
  t.true(p.offers_equity)
  t.false(p.recruiter_agency)
  t.is(p.date_posted, '2024-05-20')
  t.is(p.language, 'en')
  t.is(p.requirements_summary, '5+ years of experience with Go and PostgreSQL; Kubernetes on AWS')
  t.is(p.source_id, 'gh-123')
  t.like(p.company, { slug: 'acme-gmbh', size_bucket: '51-200', industries: ['Finance'], subindustries: ['Fintech'] })
  t.regex(p.md5_hash, /^[0-9a-f]{32}$/)
  t.true(p.scores.meta_completeness)
  for (const [k, v] of Object.entries(p.scores)) if (typeof v === 'number') t.true(v >= 0 && v <= 1, k)
})

test('the same posting on another board hashes equal; a different one does not', (t) => {
  const a = ok(normalizePosting(base(), { now }))
  const b = ok(normalizePosting(base({ job_board: 'lever', source_id: 'x', job_title: 'SENIOR BACKEND ENGINEER', description: base().description as string + '<p></p>' }), { now }))
  t.is(a.md5_hash, b.md5_hash)
  const c = ok(normalizePosting(base({ location_raw: 'Munich, Germany' }), { now }))
  t.not(a.md5_hash, c.md5_hash)
})

test('remote postings: location type, scope, no geocoded place', (t) => {
  const p = ok(normalizePosting(base({ location_raw: 'Remote - US' }), { now }))
  t.is(p.location_type, 'Remote')
  t.deepEqual(p.remote_countries, ['United States'])
  t.deepEqual(p.locations, [])
  const q = ok(normalizePosting(base({ job_title: 'Data Analyst - Remote', location_raw: 'United States' }), { now }))
  t.is(q.job_title, 'Data Analyst')
  t.is(q.location_type, 'Remote')
  t.deepEqual(q.remote_countries, ['United States'])
  const h = ok(normalizePosting(base({ location_raw: 'Hybrid - Austin, TX' }), { now }))
  t.is(h.location_type, 'Hybrid')
  t.like(h.locations[0], { city: 'Austin', region: 'Texas' })
  t.is(ok(normalizePosting(base({ location_type: 'on-site', location_raw: 'Remote' }), { now })).location_type, 'In-Person')
})

test('locations arrays of strings and of objects', (t) => {
  const p = ok(normalizePosting(base({ location_raw: undefined, locations: ['San Francisco, CA', { city: 'Munich', country: 'DE', lat: 48.1, lng: 11.5 }, { city: 'Remote', country: 'Canada' }] }), { now }))
  t.like(p.locations[0], { city: 'San Francisco', region: 'California', country: 'United States' })
  t.deepEqual(p.locations[1], { city: 'Munich', region: 'Bavaria', country: 'Germany', lat: 48.1, lng: 11.5 })
  t.is(p.locations.length, 2)
  t.deepEqual(p.remote_countries, ['Canada'])
  t.is(p.location_type, 'Remote')
})

test('title location hint fills a missing location', (t) => {
  const p = ok(normalizePosting(base({ job_title: 'Backend Developer | Berlin', location_raw: undefined }), { now }))
  t.is(p.job_title, 'Backend Developer')
  t.like(p.locations[0], { city: 'Berlin', country: 'Germany' })
})

test('salary: range object wins; unknown period keeps annual null; non-numeric is null', (t) => {
  t.like(ok(normalizePosting(base({ salary: undefined, salary_range: { min: 50, max: 60, currency: 'USD', period: 'HOUR' } }), { now })).salary, { period: 'hourly', annual_min: 104000 })
  // the board's range disagrees with the posting's salary text ('€70,000 - €90,000 per year'): the text wins (transform/salary.ts salaryOf)
  t.like(ok(normalizePosting(base({ salary_range: { min: 50, max: 60, currency: 'USD', period: 'HOUR' } }), { now })).salary, { min: 70000, currency: 'EUR', period: 'yearly' })
  // a yearly-sized amount gets its period inferred; a month's or a year's pay stays unknown
  t.like(ok(normalizePosting(base({ salary: '$120-150k' }), { now })).salary, { min: 120000, max: 150000, period: 'yearly', annual_min: 120000 })
  t.like(ok(normalizePosting(base({ salary: '€2,000 - 3,000' }), { now })).salary, { min: 2000, max: 3000, period: null, annual_min: null })
  t.is(ok(normalizePosting(base({ salary: 'Competitive' }), { now })).salary, null)
  t.is(ok(normalizePosting(base({ salary: '' }), { now })).salary, null)
})

test('given fields win and are mapped', (t) => {
  const p = ok(normalizePosting(base({
    yoe_range: { min: 1, max: 2 }, experience_level: 'entry level', job_categories: 'Accounting, Payroll & Financial Planning Jobs; Nope',
    skills: 'Negotiation, communication', technologies: ['k8s'], benefits: ['Gym'], visa_sponsored: 'no', offers_equity: 'false', recruiter_agency: 'yes',
    language: 'German', education_level: 'Abitur', team: 'Platform', contact_email: 'hr@acme.example', valid_through: '2024-07-01', source_id: 42,
  }), { now }))
  t.is(p.yoe_min, 1)
  t.is(p.yoe_max, 2)
  t.is(p.experience_level, 'Entry')
  t.deepEqual(p.job_categories, ['Accounting, Payroll & Financial Planning Jobs'])
  t.deepEqual(p.skills.slice(0, 2), ['Negotiation', 'Communication'])
  t.is(p.technologies[0], 'Kubernetes')
  t.is(p.benefits[0], 'Gym')
  t.true(p.visa_sponsored) // the text says "Visa sponsorship available", which wins over the given "no"
  t.false(p.offers_equity)
  t.true(p.recruiter_agency)
  t.is(p.language, 'de')
  t.is(p.education_level, 'Abitur')
  t.is(p.team, 'Platform')
  t.is(p.contact_email, 'hr@acme.example')
  t.is(p.valid_through, '2024-07-01T23:59:59.999Z')
  t.is(p.source_id, '42')
})

test('job type and level inferred from the title', (t) => {
  const p = ok(normalizePosting(base({ job_title: 'Software Engineering Intern', job_type: undefined, description: 'Join us this summer.' }), { now }))
  t.is(p.job_type, 'Internship')
  t.is(p.experience_level, 'Entry')
  t.is(p.yoe_min, null)
})

test('every posting gets at least one valid category', (t) => {
  const p = ok(normalizePosting(base({ job_title: 'Ninja', description: 'Great team.', company: { name: 'Acme' } }), { now }))
  t.deepEqual(p.job_categories, ['Other'])
  // a title and description that say nothing: the company's industry decides (an NHS trust's "Team Leader")
  t.deepEqual(ok(normalizePosting(base({ job_title: 'Ninja', description: 'Great team.' }), { now })).job_categories, ['Finance Jobs'])
  t.deepEqual(ok(normalizePosting(base({ job_title: 'Team Leader', description: '', industry: 'Healthcare', company: { name: 'Leeds Trust' } }), { now })).job_categories, ['Healthcare Services Jobs'])
  for (const title of ['Registered Nurse', 'Truck Driver', 'Line Cook', 'Paralegal', 'Cashier', 'Recruiter']) {
    const cats = ok(normalizePosting(base({ job_title: title }), { now })).job_categories
    t.true(cats.length > 0 && cats.every((c) => c === 'Other' || categories.includes(c)), title)
  }
})

test('dates: missing date_posted uses now; datetimes become dates in UTC', (t) => {
  t.is(ok(normalizePosting(base({ date_posted: undefined }), { now })).date_posted, '2024-06-01')
  t.is(ok(normalizePosting(base({ date_posted: '2024-05-01T23:30:00-05:00' }), { now })).date_posted, '2024-05-02')
  t.is(ok(normalizePosting(base({ date_posted: '2024-05-01T10:00:00Z' }), { now })).date_posted, '2024-05-01')
})

test('rejections name the field', (t) => {
  const cases: [RawPosting, string][] = [
    [base({ job_title: '' }), 'job_title: required non-empty string'],
    [base({ job_title: 42 }), 'job_title: required non-empty string'],
    [base({ job_title: undefined }), 'job_title: required non-empty string'],
    [base({ description: { html: 'x' } }), 'description: expected a string'],
    [base({ job_board: ' ', job_board_link: undefined, application_link: undefined }), 'job_board: required non-empty string (or a job_board_link or application_link to name the board by)'],
    [base({ company: { name: '' } }), 'company.name: required non-empty string'],
    [base({ company: undefined }), 'company: required object with a name'],
    [base({ date_posted: 'yesterday' }), 'date_posted: expected YYYY-MM-DD or an ISO datetime'],
    [base({ date_posted: '2024-02-30' }), 'date_posted: expected YYYY-MM-DD or an ISO datetime'],
    [base({ date_posted: 20240501 }), 'date_posted: expected YYYY-MM-DD or an ISO datetime'],
    [base({ skills: [1, 2] }), 'skills: expected an array of strings'],
    [base({ benefits: { a: 1 } }), 'benefits: expected an array of strings'],
    [base({ visa_sponsored: 'maybe' }), 'visa_sponsored: expected a boolean (true/false/yes/no)'],
    [base({ salary_range: 'lots' }), 'salary_range: expected an object {min, max, currency, period}'],
    [base({ locations: [42] }), 'locations: expected an array of strings or {city, region, country} objects'],
    [base({ company: { name: 'Acme', size_range: 'huge' } }), 'company.size_range: expected {min, max}, "51-200", "10000+" or a number'],
  ]
  for (const [raw, reason] of cases) t.deepEqual(normalizePosting(raw, { now }), { reason }, reason)
  t.deepEqual(normalizePosting(null as unknown as RawPosting), { reason: 'posting: expected an object' })
  t.deepEqual(normalizePosting([] as unknown as RawPosting), { reason: 'posting: expected an object' })
})

test('booleans accept true/false/"true"/"false"/"yes"/"no"', (t) => {
  for (const [v, expected] of [[true, true], [false, false], ['true', true], ['false', false], ['yes', true], ['no', false], ['YES', true]] as const) {
    t.is(ok(normalizePosting(base({ offers_equity: v }), { now })).offers_equity, expected, String(v))
  }
})

test('CSV-ish lists split on ";" (or "," without ";")', (t) => {
  t.deepEqual(ok(normalizePosting(base({ benefits: 'Gym; Free lunch, daily' }), { now })).benefits.slice(0, 2), ['Gym', 'Free lunch, daily'])
  t.deepEqual(ok(normalizePosting(base({ benefits: 'Gym, Free lunch' }), { now })).benefits.slice(0, 2), ['Gym', 'Free lunch'])
  t.deepEqual(ok(normalizePosting(base({ benefits: '["Gym","Free lunch"]' }), { now })).benefits.slice(0, 2), ['Gym', 'Free lunch'])
})

test('deterministic given input and now', (t) => {
  t.deepEqual(normalizePosting(base(), { now }), normalizePosting(base(), { now }))
})

test('company size bucket is always a reference value', (t) => {
  for (const size of [1, 12, 300, 999, 4000, 7000, 20000, '10,001+', '51-200', { min: 2, max: 9 }]) {
    const b = ok(normalizePosting(base({ company: { name: 'A', size_range: size } }), { now })).company.size_bucket
    t.true(b !== null && sizeBuckets.includes(b), String(size))
  }
})

// JSON-ish values, and postings that keep the required fields valid so deeper code runs too.
const jsonish = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constant(undefined),
    fc.constantFrom('Remote - US', '$120-150k', '2024-05-01', 'yes', 'FULL_TIME', '51-200', '<p>x</p>', 'Paris, TX', '€25/hour', 'k8s; Go'),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom('min', 'max', 'currency', 'period', 'city', 'region', 'country', 'lat', 'lng', 'name'), tie('value'), { maxKeys: 5 }),
  ),
})).value

const fields = ['source_id', 'job_board', 'job_board_link', 'application_link', 'job_title', 'description', 'location_raw', 'locations', 'location_type', 'job_type', 'salary_range', 'salary', 'yoe_range', 'experience_level', 'education_level', 'language', 'team', 'requirements_summary', 'job_categories', 'skills', 'technologies', 'benefits', 'visa_sponsored', 'recruiter_agency', 'offers_equity', 'date_posted', 'valid_through', 'contact_email', 'contact_phone', 'company']

test('property: never throws, returns a Posting or a field Rejection (never an internal error)', (t) => {
  const arbitraryPosting = fc.dictionary(fc.constantFrom(...fields), jsonish, { maxKeys: 12 })
  const mostlyValid = fc.record({
    job_board: fc.string({ minLength: 1 }).filter((s) => s.trim() !== ''),
    job_title: fc.string({ minLength: 1 }).filter((s) => s.trim() !== ''),
    description: fc.string({ maxLength: 300 }),
    company: fc.record({ name: fc.constantFrom('Acme', 'Société Générale', '数据', 'x'), size_range: jsonish, industries: jsonish }),
    location_raw: fc.oneof(fc.string(), jsonish),
    salary: fc.oneof(fc.string(), jsonish),
    salary_range: jsonish,
    locations: jsonish,
    skills: jsonish,
    yoe_range: jsonish,
  })
  t.notThrows(() =>
    fc.assert(
      fc.property(fc.oneof(arbitraryPosting, mostlyValid, jsonish), (raw) => {
        const r = normalizePosting(raw as RawPosting, { now })
        if (isRejection(r)) return typeof r.reason === 'string' && !r.reason.startsWith('internal error')
        return typeof r.md5_hash === 'string' && r.job_categories.length > 0 && typeof r.date_posted === 'string'
      }),
      { numRuns: 1500 },
    ),
  )
})
