/**
 * schema.org JobPosting: JSON-LD per line, as an array, in a @graph document, in an HTML page and
 * in a directory of saved pages; detected without --format, mapped to RawPostings and ingested.
 */
import anyTest, { type TestFn } from 'ava'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { boardFromUrl } from '../../ingest/formats/board-name.ts'
import { openFeed } from '../../ingest/formats/index.ts'
import { ingest } from '../../ingest/pipeline.ts'
import type { ReadItem } from '../../ingest/read.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'

const test = anyTest as TestFn<{ db: TestDb; dir: string }>

test.before(async (t) => {
  t.context = { db: await testDatabase(), dir: fs.mkdtempSync(path.join(os.tmpdir(), 'schema-org-test-')) }
})
test.after.always(async (t) => {
  await t.context.db?.close()
  fs.rmSync(t.context.dir, { recursive: true, force: true })
})

const now = new Date('2026-11-20T12:00:00Z')

function write(dir: string, name: string, text: string) {
  const file = path.join(dir, name)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, text)
  return file
}

async function readAll(file: string) {
  const feed = await openFeed(file)
  const items: ReadItem[] = []
  for await (const item of feed.items) items.push(item)
  return { adapter: feed.adapter.name, items, raws: items.flatMap((i) => ('raw' in i ? [i.raw] : [])), errors: items.flatMap((i) => ('error' in i ? [[i.line, i.error] as const] : [])) }
}

// An on-site engineering role on a Greenhouse board, as Greenhouse's hosted pages publish it.
const backendEngineer = {
  '@context': 'https://schema.org/',
  '@type': 'JobPosting',
  title: 'Senior Backend Engineer',
  description: '<p>Acme Robotics builds warehouse robots.</p><ul><li>Design services in Go and PostgreSQL</li><li>5+ years of backend experience</li></ul>',
  identifier: { '@type': 'PropertyValue', name: 'Acme Robotics', value: '4012345' },
  datePosted: '2026-11-02',
  validThrough: '2026-12-31T23:59:59Z',
  employmentType: ['FULL_TIME'],
  hiringOrganization: { '@type': 'Organization', name: 'Acme Robotics', sameAs: ['https://www.linkedin.com/company/acme-robotics', 'https://acmerobotics.example'], logo: { '@type': 'ImageObject', url: 'https://acmerobotics.example/logo.png' } },
  jobLocation: {
    '@type': 'Place',
    address: { '@type': 'PostalAddress', streetAddress: '415 Mission St', addressLocality: 'San Francisco', addressRegion: 'CA', postalCode: '94105', addressCountry: 'US' },
    geo: { '@type': 'GeoCoordinates', latitude: 37.7898, longitude: -122.3942 },
  },
  baseSalary: { '@type': 'MonetaryAmount', currency: 'USD', value: { '@type': 'QuantitativeValue', minValue: 150000, maxValue: 190000, unitText: 'YEAR' } },
  experienceRequirements: { '@type': 'OccupationalExperienceRequirements', monthsOfExperience: 60 },
  educationRequirements: { '@type': 'EducationalOccupationalCredential', credentialCategory: 'bachelor degree' },
  directApply: false,
  url: 'https://boards.greenhouse.io/acmerobotics/jobs/4012345',
}

// A remote part-time role from a company's own careers site, its description entity-escaped.
const supportSpecialist = {
  '@context': 'http://schema.org',
  '@type': 'JobPosting',
  title: 'Customer Support Specialist (Part-Time)',
  description: '&lt;p&gt;Help Northwind&amp;#39;s customers by chat and email.&lt;/p&gt;&lt;p&gt;20 hours a week.&lt;/p&gt;',
  identifier: 'cs-118',
  datePosted: '2026-11-10T09:30:00-05:00',
  validThrough: '2027-01-15',
  employmentType: 'PART_TIME',
  hiringOrganization: { '@type': 'Organization', name: 'Northwind Traders', url: 'https://northwind-traders.example' },
  jobLocationType: 'TELECOMMUTE',
  applicantLocationRequirements: { '@type': 'Country', name: 'United States' },
  baseSalary: { '@type': 'MonetaryAmount', currency: 'USD', value: { '@type': 'QuantitativeValue', value: 28, unitText: 'HOUR' } },
  directApply: true,
  url: 'https://careers.northwind-traders.com/jobs/cs-118',
}

test('JSON-LD per line: detected, mapped field by field, other nodes and broken lines reported', async (t) => {
  const file = write(t.context.dir, 'postings.jsonld', [
    JSON.stringify(backendEngineer),
    JSON.stringify({ '@context': 'https://schema.org', '@type': 'BreadcrumbList', itemListElement: [] }),
    '{"@type": "JobPosting", "title": "Cut off',
    JSON.stringify(supportSpecialist),
  ].join('\n'))
  const { adapter, raws, errors } = await readAll(file)
  t.is(adapter, 'schema-org')
  t.deepEqual(raws[0], {
    source_id: '4012345',
    job_board: 'Greenhouse',
    job_board_link: 'https://boards.greenhouse.io/acmerobotics/jobs/4012345',
    job_title: 'Senior Backend Engineer',
    description: backendEngineer.description,
    company: { name: 'Acme Robotics', link: 'https://acmerobotics.example', linkedin_link: 'https://www.linkedin.com/company/acme-robotics', logo: 'https://acmerobotics.example/logo.png' },
    location_raw: 'San Francisco, CA, US',
    locations: [{ city: 'San Francisco', region: 'CA', country: 'US', lat: 37.7898, lng: -122.3942 }],
    job_type: ['FULL_TIME'],
    salary_range: { min: 150000, max: 190000, currency: 'USD', period: 'YEAR' },
    date_posted: '2026-11-02',
    valid_through: '2026-12-31T23:59:59Z',
    yoe_range: { min: 5, max: null },
    education_level: "Bachelor's Degree",
  })
  t.like(raws[1], {
    source_id: 'cs-118',
    job_board: 'Northwind Traders Careers',
    application_link: 'https://careers.northwind-traders.com/jobs/cs-118',
    description: "<p>Help Northwind&#39;s customers by chat and email.</p><p>20 hours a week.</p>",
    location_raw: 'Remote - United States',
    location_type: 'Remote',
    job_type: ['PART_TIME'],
    salary_range: { min: 28, max: 28, currency: 'USD', period: 'HOUR' },
  })
  t.deepEqual(raws[1].locations, [{ city: 'Remote', country: 'United States' }])
  t.deepEqual(errors.map(([line]) => line), [2, 3])
  t.regex(errors[0][1], /no schema.org JobPosting in this record \(found BreadcrumbList\)/)
  t.regex(errors[1][1], /invalid JSON/)
})

test('a JSON array and a @graph document: @type lists and prefixes, @id references, country objects, text salaries', async (t) => {
  const arrayFile = write(t.context.dir, 'feed.json', JSON.stringify([
    { ...backendEngineer, '@type': ['JobPosting'], identifier: 4012346, title: 'Staff Backend Engineer' },
    { ...supportSpecialist, '@type': 'schema:JobPosting', baseSalary: { '@type': 'MonetaryAmount', currency: 'USD', value: 'Competitive' } },
  ]))
  const arr = await readAll(arrayFile)
  t.is(arr.adapter, 'schema-org')
  t.deepEqual(arr.raws.map((r) => [r.job_title, r.source_id]), [['Staff Backend Engineer', '4012346'], ['Customer Support Specialist (Part-Time)', 'cs-118']])
  t.is(arr.raws[1].salary_range, undefined)
  t.is(arr.raws[1].salary, 'USD Competitive')

  const graphFile = write(t.context.dir, 'careers-page.json', JSON.stringify({
    '@context': 'https://schema.org',
    '@graph': [
      { '@type': 'WebPage', '@id': 'https://careers.brightwell-energy.co.uk/jobs/grid-analyst#webpage', name: 'Grid Analyst' },
      { '@type': 'Organization', '@id': 'https://brightwell-energy.co.uk/#org', name: 'Brightwell Energy', url: 'https://brightwell-energy.co.uk', logo: 'https://brightwell-energy.co.uk/logo.svg' },
      {
        '@type': 'JobPosting',
        title: 'Grid Analyst',
        description: '<p>Model the distribution network for our Leeds office.</p>',
        hiringOrganization: { '@id': 'https://brightwell-energy.co.uk/#org' },
        jobLocation: [
          { '@type': 'Place', address: { '@type': 'PostalAddress', addressLocality: 'Leeds', postalCode: 'LS1 4AP', addressCountry: { '@type': 'Country', name: 'United Kingdom' } } },
          { '@type': 'Place', address: { '@type': 'PostalAddress', addressLocality: 'Manchester', addressCountry: 'GB' } },
        ],
        baseSalary: { '@type': 'MonetaryAmount', currency: 'GBP', value: { '@type': 'QuantitativeValue', value: '42,000', unitCode: 'ANN' } },
        employmentType: 'CONTRACTOR',
        datePosted: '2026-11-12',
        validThrough: '2027-02-28',
        industry: 'Energy & Mining',
        url: 'https://careers.brightwell-energy.co.uk/jobs/grid-analyst',
      },
    ],
  }, null, 2))
  const graph = await readAll(graphFile)
  t.is(graph.adapter, 'schema-org')
  t.is(graph.raws.length, 1)
  t.like(graph.raws[0], {
    job_board: 'Brightwell Energy Careers',
    source_id: 'https://careers.brightwell-energy.co.uk/jobs/grid-analyst',
    company: { name: 'Brightwell Energy', link: 'https://brightwell-energy.co.uk', logo: 'https://brightwell-energy.co.uk/logo.svg', industries: ['Energy & Mining'] },
    location_raw: 'Leeds, United Kingdom; Manchester, GB',
    salary_range: { min: 42000, max: 42000, currency: 'GBP', period: 'YEAR' },
  })
  t.deepEqual(graph.raws[0].locations, [{ city: 'Leeds', country: 'United Kingdom' }, { city: 'Manchester', country: 'GB' }])
})

const page = (head: string, blocks: unknown[]) =>
  `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Careers</title>${head}\n` +
  blocks.map((b) => `<script type="application/ld+json">\n${typeof b === 'string' ? b : JSON.stringify(b, null, 2)}\n</script>\n`).join('') +
  `</head><body><h1>Open roles</h1><script>window.dataLayer = [];</script></body></html>\n`

// A Lever-hosted page: the posting names no url, the page's canonical link stands in; its
// Organization is a separate block it references.
const leverPage = page('<link rel="canonical" href="https://jobs.lever.co/harbor-health/7f3c2a1e-9b0d-4e59-8a43-2f1d0c6b7e55">', [
  { '@context': 'https://schema.org', '@type': 'Organization', '@id': '#harbor', name: 'Harbor Health', sameAs: 'https://harborhealth.example' },
  {
    '@context': 'https://schema.org',
    '@type': 'JobPosting',
    title: 'Registered Nurse – Night Shift',
    description: '<p>Join our ICU team in Austin. BSN required; 2 years of acute care experience.</p>',
    hiringOrganization: { '@id': '#harbor' },
    jobLocation: { '@type': 'Place', address: { '@type': 'PostalAddress', streetAddress: '1301 W 38th St', addressLocality: 'Austin', addressRegion: 'TX', postalCode: '78705', addressCountry: 'US' } },
    baseSalary: { '@type': 'MonetaryAmount', currency: 'USD', value: { '@type': 'QuantitativeValue', minValue: 41.5, maxValue: 55, unitText: 'HOUR' } },
    employmentType: 'FULL_TIME',
    datePosted: '2026-11-15',
    educationRequirements: "Bachelor's degree in Nursing (BSN)",
  },
  { '@context': 'https://schema.org', '@type': 'BreadcrumbList', itemListElement: [{ '@type': 'ListItem', position: 1, name: 'Jobs' }] },
])

test('an HTML page: the JobPosting block, its Organization by @id, the canonical URL as its link', async (t) => {
  const file = write(t.context.dir, 'harbor-rn.html', leverPage)
  const { adapter, raws, errors } = await readAll(file)
  t.is(adapter, 'schema-org')
  t.deepEqual(errors, [])
  t.is(raws.length, 1)
  t.like(raws[0], {
    job_title: 'Registered Nurse – Night Shift',
    job_board: 'Lever',
    job_board_link: 'https://jobs.lever.co/harbor-health/7f3c2a1e-9b0d-4e59-8a43-2f1d0c6b7e55',
    company: { name: 'Harbor Health', link: 'https://harborhealth.example' },
    salary_range: { min: 41.5, max: 55, currency: 'USD', period: 'HOUR' },
    education_level: "Bachelor's Degree",
  })
})

test('a directory of saved pages: every page read in order, a broken block reported with its file, pages without postings named', async (t) => {
  const dir = path.join(t.context.dir, 'saved-pages')
  write(dir, 'a-ashby.html', page('', [{
    '@context': 'https://schema.org',
    '@type': 'JobPosting',
    title: 'Product Designer',
    description: '<p>Design our mobile banking app.</p>',
    hiringOrganization: { '@type': 'Organization', name: 'Kontor Bank' },
    jobLocationType: 'TELECOMMUTE',
    applicantLocationRequirements: [{ '@type': 'Country', name: 'Germany' }, { '@type': 'Country', name: 'Austria' }],
    employmentType: 'FULL_TIME',
    datePosted: '2026-11-01',
    url: 'https://jobs.ashbyhq.com/kontor/3b2f6d0e-1c4a-4f8e-9a7b-5d6c8e9f0a1b',
  }]))
  write(dir, 'b-workday.html', page('', [[
    { '@context': 'https://schema.org', '@type': 'JobPosting', title: 'Payroll Specialist', description: '<p>Run payroll for 4,000 staff.</p>', hiringOrganization: 'Meridian Foods', employmentType: 'TEMPORARY', datePosted: '2026-11-03', url: 'https://meridian.wd5.myworkdayjobs.com/en-US/External/job/Chicago-IL/Payroll-Specialist_R-5512' },
    { '@context': 'https://schema.org', '@type': 'JobPosting', title: 'Warehouse Associate', description: '<p>Pick and pack orders.</p>', hiringOrganization: 'Meridian Foods', employmentType: 'INTERN', datePosted: '2026-11-04', url: 'https://meridian.wd5.myworkdayjobs.com/en-US/External/job/Joliet-IL/Warehouse-Associate_R-5520' },
  ]]))
  write(dir, 'c-broken.html', page('', ['{"@context": "https://schema.org", "@type": "JobPosting", "title": "Unclosed', {
    '@context': 'https://schema.org', '@type': 'JobPosting', title: 'Line Cook', description: '<p>Prep and grill.</p>', hiringOrganization: { '@type': 'Organization', name: 'Copper Pot Kitchen' }, datePosted: '2026-11-05',
  }]))
  write(dir, 'd-listing.html', '<!doctype html><html><body><a href="/jobs/1">All jobs</a></body></html>')
  write(dir, 'b-workday_files/style.css', 'body { color: red }')

  const { adapter, items, raws, errors } = await readAll(dir)
  t.is(adapter, 'schema-org')
  t.deepEqual(raws.map((r) => [r.job_title, r.job_board]), [
    ['Product Designer', 'Ashby'],
    ['Payroll Specialist', 'Workday'],
    ['Warehouse Associate', 'Workday'],
    ['Line Cook', 'Copper Pot Kitchen Careers'],
  ])
  t.deepEqual(items.filter((i) => 'raw' in i).map((i) => i.line), [1, 2, 2, 3])
  t.deepEqual(raws[0].locations, [{ city: 'Remote', country: 'Germany' }, { city: 'Remote', country: 'Austria' }])
  t.is(raws[0].location_raw, 'Remote - Germany; Remote - Austria')
  t.deepEqual(errors.map(([line]) => line), [3, 4])
  t.regex(errors[0][1], /^c-broken\.html: JSON-LD block 1 of 2: invalid JSON/)
  t.regex(errors[1][1], /^d-listing\.html: no schema.org JobPosting \(no JSON-LD blocks\)/)
})

test('end to end: the stored jobs carry title, company, places, arrangement, salary, type, dates and board', async (t) => {
  const { sql } = t.context.db
  const dir = path.join(t.context.dir, 'e2e')
  const lines = write(dir, 'feed.jsonl', [JSON.stringify(backendEngineer), JSON.stringify(supportSpecialist)].join('\n') + '\n')
  const html = write(dir, 'pages/harbor-rn.html', leverPage)
  for (const file of [lines, html]) {
    const feed = await openFeed(file)
    const summary = await ingest(sql, feed.items, { source: file, now })
    t.is(summary.rejected, 0, file)
    t.is(summary.inserted, file === lines ? 2 : 1)
  }
  const rows = await sql`
    select j.job_title, c.name as company, j.locations, j.location_type, j.remote_countries, j.salary_min::float8 as min, j.salary_max::float8 as max,
      j.salary_currency, j.salary_period, j.salary_annual_min::float8 as annual_min, j.job_type, j.date_posted::text, j.valid_through, j.job_board,
      j.job_board_link, j.application_link, j.platform_job_id, j.yoe_min::float8 as yoe_min, j.education_level, j.description
    from jobs j join companies c on c.id = j.company_id
    where c.name in ('Acme Robotics', 'Northwind Traders', 'Harbor Health') order by c.name`
  t.is(rows.length, 3)
  t.like(rows[0], {
    job_title: 'Senior Backend Engineer', company: 'Acme Robotics', location_type: 'In-Person', min: 150000, max: 190000, salary_currency: 'USD',
    salary_period: 'yearly', job_type: 'Full Time', date_posted: '2026-11-02', job_board: 'Greenhouse', platform_job_id: '4012345', application_link: null,
    yoe_min: 5, education_level: "Bachelor's Degree",
  })
  t.deepEqual(rows[0].locations, [{ city: 'San Francisco', region: 'California', country: 'United States', coordinates: { lat: 37.7898, lng: -122.3942 } }])
  t.is(new Date(rows[0].valid_through).toISOString(), '2026-12-31T23:59:59.000Z')
  t.like(rows[1], {
    job_title: 'Registered Nurse – Night Shift', company: 'Harbor Health', min: 41.5, max: 55, salary_period: 'hourly', annual_min: 86320,
    job_type: 'Full Time', job_board: 'Lever', date_posted: '2026-11-15',
  })
  t.like(rows[1].locations[0], { city: 'Austin', region: 'Texas', country: 'United States' })
  t.like(rows[2], {
    company: 'Northwind Traders', location_type: 'Remote', job_type: 'Part Time', salary_period: 'hourly', min: 28, job_board: 'Northwind Traders Careers',
    application_link: 'https://careers.northwind-traders.com/jobs/cs-118', date_posted: '2026-11-10',
  })
  t.deepEqual(rows[2].remote_countries, ['United States'])
  t.deepEqual(rows[2].locations, [])
  t.regex(rows[2].description, /^<p>Help Northwind/)

  // the same pages again change nothing
  const again = await ingest(sql, (await openFeed(html)).items, { source: html, now: new Date(now.getTime() + 3600_000) })
  t.like(again, { inserted: 0, updated: 0, unchanged: 1 })
})

test('boardFromUrl: known boards and ATSs by host, other sites by their name', (t) => {
  const cases: [string, string | null][] = [
    ['https://www.jobs.nhs.uk/xi/vacancy/915390428', 'NHS Jobs'],
    ['https://boards.greenhouse.io/acme/jobs/123', 'Greenhouse'],
    ['https://job-boards.eu.greenhouse.io/acme/jobs/123', 'Greenhouse'],
    ['https://jobs.lever.co/acme/abc', 'Lever'],
    ['https://jobs.ashbyhq.com/acme/abc', 'Ashby'],
    ['https://acme.wd5.myworkdayjobs.com/en-US/External/job/1', 'Workday'],
    ['https://jobs.smartrecruiters.com/Acme/1', 'SmartRecruiters'],
    ['https://www.linkedin.com/jobs/view/1', 'LinkedIn'],
    ['https://uk.indeed.com/viewjob?jk=1', 'Indeed'],
    ['https://careers.acme.com/jobs/1', 'Acme Careers'],
    ['https://jobs.acme-robotics.co.uk/1', 'Acme Robotics Jobs'],
    ['https://acme.example/careers/1', 'Acme Careers'],
    ['https://acme.example/about', 'Acme'],
    ['not a url', null],
    ['mailto:jobs@acme.com', null],
    ['', null],
  ]
  for (const [url, board] of cases) t.is(boardFromUrl(url), board, url)
})
