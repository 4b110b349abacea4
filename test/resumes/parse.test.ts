/**
 * The resume parser (ingest/resume/parse.ts and its extractors): each extractor on the
 * layouts it claims, every date form, whole resumes (one column, two columns linearized,
 * OCR-like noise), fields left out rather than guessed, and the LLM pass against a real
 * local HTTP server speaking the chat-completions API.
 */
import test from 'ava'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import OpenAI from 'openai'
import { findDateRange, normalizeDate } from '../../ingest/resume/dates.ts'
import { extractContact } from '../../ingest/resume/extract/contact.ts'
import { extractEducation } from '../../ingest/resume/extract/education.ts'
import { extractExperience } from '../../ingest/resume/extract/experience.ts'
import { extractAwards, extractCertifications, extractProjects } from '../../ingest/resume/extract/items.ts'
import { extractLanguages, extractList } from '../../ingest/resume/extract/lists.ts'
import { extractSkills } from '../../ingest/resume/extract/skills.ts'
import { experienceSummary } from '../../ingest/resume/features.ts'
import { PARSED_RESUME_SCHEMA, refineWithLlm, schemaError } from '../../ingest/resume/llm.ts'
import { parseResume } from '../../ingest/resume/parse.ts'
import { splitSections } from '../../ingest/resume/sections.ts'
import type { ParsedResume } from '../../ingest/resume/types.ts'

// ---------------------------------------------------------------- dates

test('normalizeDate: every written form', (t) => {
  const cases: [string, string | undefined][] = [
    ['Jan 2020', '2020-01'], ['January 2020', '2020-01'], ['Jan. 2020', '2020-01'], ['Sept 2021', '2021-09'],
    ['2020-01', '2020-01'], ['01/2020', '2020-01'], ['1/2020', '2020-01'], ['2020', '2020'],
    ['Summer 2019', '2019-06'], ['Spring 2019', '2019-03'], ['Fall 2018', '2018-09'], ['Autumn 2018', '2018-09'], ['Winter 2017', '2017-12'],
    ['Present', 'Present'], ['current', 'Present'], ['Now', 'Present'], ['to date', 'Present'], ['Today', 'Present'],
    ['13/2020', undefined], ['Acme', undefined], ['', undefined],
  ]
  for (const [raw, want] of cases) t.is(normalizeDate(raw), want, raw)
})

test('findDateRange: separators "-", "–", "—", "to", "until", and the rest of the line', (t) => {
  t.deepEqual(findDateRange('Software Engineer   Jan 2020 – Present'), { start_date: '2020-01', end_date: 'Present', rest: 'Software Engineer' })
  t.like(findDateRange('2016 - 2020'), { start_date: '2016', end_date: '2020' })
  t.like(findDateRange('03/2018 — 11/2019'), { start_date: '2018-03', end_date: '2019-11' })
  t.like(findDateRange('May 2015 to June 2017'), { start_date: '2015-05', end_date: '2017-06' })
  t.like(findDateRange('2019-02 until now'), { start_date: '2019-02', end_date: 'Present' })
  t.like(findDateRange('Fall 2018 to Spring 2019'), { start_date: '2018-09', end_date: '2019-03' })
  t.like(findDateRange('Apr. 2019 Nov. 2021'), { start_date: '2019-04', end_date: '2021-11' }, 'a dash the PDF lost')
  t.like(findDateRange('Since March 2019'), { start_date: '2019-03', end_date: 'Present' })
  t.like(findDateRange('Graduated May 2020'), { end_date: '2020-05' })
  t.is(findDateRange('Led a team of 12 engineers'), null)
})

// ---------------------------------------------------------------- sections

test('splitSections: upper and title case, colons, synonyms, custom headings and the header', (t) => {
  const { header, sections } = splitSections(
    ['Ana Souza', 'ana@example.com', '', 'PROFESSIONAL SUMMARY', 'Engineer.', 'Work History:', 'Acme', 'TECHNICAL SKILLS', 'Go', 'Honors & Awards', 'Prize', 'PUBLICATIONS', 'A paper', 'Interests', 'Chess'].join('\n'),
  )
  t.deepEqual(header, ['Ana Souza', 'ana@example.com'])
  t.deepEqual(sections.map((s) => [s.kind, s.title]), [
    ['summary', 'PROFESSIONAL SUMMARY'], ['experience', 'Work History'], ['skills', 'TECHNICAL SKILLS'],
    ['awards', 'Honors & Awards'], ['custom', 'PUBLICATIONS'], ['hobbies', 'Interests'],
  ])
  t.deepEqual(sections[4].lines, ['A paper'])
})

test('splitSections: "Languages: Python, Go" inside skills is a category, not the languages section', (t) => {
  const { sections } = splitSections(['Skills', 'Languages: Python, Go', 'Tools: Docker', 'Languages', 'English, French'].join('\n'))
  t.deepEqual(sections.map((s) => s.kind), ['skills', 'languages'])
  t.deepEqual(sections[0].lines, ['Languages: Python, Go', 'Tools: Docker'])
})

test('splitSections: an employer in capitals followed by its dates is not a heading', (t) => {
  const { sections } = splitSections(['EXPERIENCE', 'GOOGLE', 'Engineer 2019 - 2021', 'EDUCATION', 'MIT'].join('\n'))
  t.deepEqual(sections.map((s) => s.kind), ['experience', 'education'])
  t.deepEqual(sections[0].lines, ['GOOGLE', 'Engineer 2019 - 2021'])
})

// ---------------------------------------------------------------- contact

test('contact: names in many languages, E.164 phones, address parts and https links', (t) => {
  const names = ['José Álvarez', 'Nguyễn Văn An', "Siobhán O'Brien-Smith", 'Zhang Wei', 'Ludwig van Beethoven']
  for (const name of names) t.is(extractContact([name, 'x@y.io'], [])?.full_name, name, name)
  const info = extractContact(
    ['José Álvarez', 'Madrid, Spain | 612 345 678 | jose.alvarez@example.com', 'linkedin.com/in/jalvarez | http://GitHub.com/jalvarez/ | www.jose.dev'],
    [],
  )
  t.deepEqual(info, {
    full_name: 'José Álvarez',
    email: 'jose.alvarez@example.com',
    phone_number: '+34612345678',
    address: { city: 'Madrid', country: 'Spain' },
    links: ['https://linkedin.com/in/jalvarez', 'https://github.com/jalvarez', 'https://www.jose.dev'],
  })
  t.like(extractContact(['Jane Roe', '500 Main St, San Francisco, CA 94105', '(415) 555-0132'], [])!, {
    phone_number: '+14155550132',
    address: { street: '500 Main St', city: 'San Francisco', state: 'CA', zip_code: '94105' },
  })
  t.is(extractContact(['Jane Roe', '(+82) 10-2468-1357'], [])!.phone_number, '+821024681357')
})

test('contact: a local number with no hint of its country stays as written; nothing found gives undefined', (t) => {
  t.is(extractContact(['Jane Roe', 'Tel: 0921 500 245'], [])!.phone_number, '0921 500 245')
  t.is(extractContact(['Senior Software Engineer'], []), undefined)
})

// ---------------------------------------------------------------- experience

test('experience: "Title, Company", "Title at Company", "Company — Title", "Title | Company | Dates"', (t) => {
  const lines = [
    'Backend Engineer, Acme Corp   Jan 2021 – Present', '• Built the billing API',
    'Data Analyst at Globex   2018 - 2020', '• Cut report time by 50%',
    'Initech Ltd — QA Tester   03/2016 – 12/2017', '• Wrote test plans',
    'Product Manager | Umbrella GmbH | Berlin, Germany | Summer 2015 – Spring 2016', '• Ran discovery',
  ]
  const jobs = extractExperience(lines)
  t.deepEqual(
    jobs.map((j) => [j.title, j.company, j.start_date, j.end_date]),
    [
      ['Backend Engineer', 'Acme Corp', '2021-01', 'Present'],
      ['Data Analyst', 'Globex', '2018', '2020'],
      ['QA Tester', 'Initech Ltd', '2016-03', '2017-12'],
      ['Product Manager', 'Umbrella GmbH', '2015-06', '2016-03'],
    ],
  )
  t.is(jobs[3].location, 'Berlin, Germany')
  t.deepEqual(jobs[0].responsibilities, ['Built the billing API'])
  t.deepEqual(jobs[1].achievements, ['Cut report time by 50%'])
  t.is(jobs[1].responsibilities, undefined, 'no empty arrays')
})

test('experience: title and company on separate lines, dates on their own line, an Achievements sub-heading, wrapped bullets', (t) => {
  const jobs = extractExperience([
    'Senior Nurse', 'St. Mary Hospital', 'Jun 2019 - Present',
    '- Coordinated care for a ward of thirty patients across day and night shifts, working with doctors and',
    'families on discharge plans', 'Achievements:', '- Mentored new staff',
    '', 'Haneul Systems Inc.                Seoul, South Korea', 'Director of Operations              Mar. 2017 – Oct. 2020',
  ])
  t.is(jobs.length, 2)
  t.like(jobs[0], { title: 'Senior Nurse', company: 'St. Mary Hospital', start_date: '2019-06', end_date: 'Present' })
  t.deepEqual(jobs[0].responsibilities, ['Coordinated care for a ward of thirty patients across day and night shifts, working with doctors and families on discharge plans'])
  t.deepEqual(jobs[0].achievements, ['Mentored new staff'])
  t.deepEqual(jobs[1], { title: 'Director of Operations', company: 'Haneul Systems Inc.', location: 'Seoul, South Korea', start_date: '2017-03', end_date: '2020-10' })
})

// ---------------------------------------------------------------- education

test('education: degree, institution, location, dates, GPA, courses, thesis', (t) => {
  const [ms, bs] = extractEducation([
    'Lakeshore Institute of Technology   Duluth, MN',
    'Master of Science in Computer Science; GPA: 3.9/4.0   Sep 2014 – May 2016',
    'Relevant Coursework: Machine Learning, Databases, Compilers',
    'Thesis: Fast approximate joins',
    '',
    'B.S. in Physics, Universidad de Chile   2008 - 2012',
  ])
  t.deepEqual(ms, {
    institution: 'Lakeshore Institute of Technology', location: 'Duluth, MN', degree: 'Master of Science in Computer Science', GPA: '3.9/4.0',
    start_date: '2014-09', end_date: '2016-05', relevant_courses: ['Machine Learning', 'Databases', 'Compilers'], thesis_or_project: 'Fast approximate joins',
  })
  t.like(bs, { degree: 'B.S. in Physics', institution: 'Universidad de Chile', start_date: '2008', end_date: '2012' })
})

// ---------------------------------------------------------------- skills and lists

test('skills: categories, category lines heading items, uncategorized items, table rows', (t) => {
  t.deepEqual(extractSkills(['Languages: Python, Go, C++', 'Frameworks:', 'React, Django (REST, ORM)', 'Cloud | AWS, GCP']), [
    { category: 'Languages', details: ['Python', 'Go', 'C++'] },
    { category: 'Frameworks', details: ['React', 'Django (REST, ORM)'] },
    { category: 'Cloud', details: ['AWS', 'GCP'] },
  ])
  t.deepEqual(extractSkills(['• Excel', '• Negotiation; Public speaking']), [{ category: 'Skills', details: ['Excel', 'Negotiation', 'Public speaking'] }])
})

test('languages, hobbies, certifications, awards and projects', (t) => {
  t.deepEqual(extractLanguages(['English (Native), Spanish – Fluent', '• German B2']), ['English (Native)', 'Spanish (Fluent)', 'German (B2)'])
  t.deepEqual(extractList(['Chess, hiking', 'Photography']), ['Chess', 'hiking', 'Photography'])
  t.deepEqual(extractCertifications(['- AWS Certified Solutions Architect — Amazon Web Services, 2021']), [
    { name: 'AWS Certified Solutions Architect', issuer: 'Amazon Web Services', date: '2021' },
  ])
  t.deepEqual(extractAwards(['Dean’s List (University of Lagos), 2014']), [{ title: 'Dean’s List', issuer: 'University of Lagos', date: '2014' }])
  t.deepEqual(extractProjects(['Open Transit Planner | TypeScript, PostGIS | github.com/ana/otp', '• Route planner for regional buses']), [
    { name: 'Open Transit Planner', technologies: ['TypeScript', 'PostGIS'], link: 'https://github.com/ana/otp', description: 'Route planner for regional buses' },
  ])
  t.deepEqual(extractProjects(['• Tidewater Toolkit: Python library for tide prediction.']), [
    { name: 'Tidewater Toolkit', description: 'Python library for tide prediction.' },
  ])
})

// ---------------------------------------------------------------- whole resumes

const ONE_COLUMN = `Nguyễn Văn An
Backend Engineer
an.nguyen@example.vn | +84 912 345 678 | Hanoi, Vietnam | github.com/nvan

SUMMARY
Backend engineer with eight years of building payment systems.

EXPERIENCE
Senior Software Engineer, MoMo Payments JSC        Jan 2020 – Present
• Designed a ledger service handling 3M transactions per day
• Led the migration from a monolith to services

Software Engineer at FPT Software        06/2016 – 12/2019
• Built internal tooling for QA teams

EDUCATION
B.Eng. in Computer Science — Hanoi University of Science and Technology        2012 – 2016
GPA: 3.6/4.0

SKILLS
Languages: Go, Java, SQL
Infrastructure: Kubernetes, Kafka, PostgreSQL

CERTIFICATIONS
• Certified Kubernetes Administrator — CNCF, 2021

LANGUAGES
Vietnamese (Native), English (Fluent)

PUBLICATIONS
Scaling ledgers with Kafka, GopherCon Vietnam 2022
`

test('a full one-column resume', (t) => {
  const p = parseResume(ONE_COLUMN)
  t.is(p.version, 'v1')
  t.deepEqual(p.personal_information, {
    data: { full_name: 'Nguyễn Văn An', email: 'an.nguyen@example.vn', phone_number: '+84912345678', address: { city: 'Hanoi', country: 'Vietnam' }, links: ['https://github.com/nvan'] },
  })
  t.is(p.summary_or_objective, 'Backend engineer with eight years of building payment systems.')
  t.deepEqual(p.work_experience?.map((j) => [j.title, j.company, j.start_date, j.end_date]), [
    ['Senior Software Engineer', 'MoMo Payments JSC', '2020-01', 'Present'],
    ['Software Engineer', 'FPT Software', '2016-06', '2019-12'],
  ])
  t.deepEqual(p.work_experience?.[0].achievements, ['Designed a ledger service handling 3M transactions per day'])
  t.deepEqual(p.work_experience?.[0].responsibilities, ['Led the migration from a monolith to services'])
  t.like(p.education?.[0], { degree: 'B.Eng. in Computer Science', institution: 'Hanoi University of Science and Technology', GPA: '3.6/4.0', start_date: '2012', end_date: '2016' })
  t.deepEqual(p.skills, [{ category: 'Languages', details: ['Go', 'Java', 'SQL'] }, { category: 'Infrastructure', details: ['Kubernetes', 'Kafka', 'PostgreSQL'] }])
  t.deepEqual(p.certifications, [{ name: 'Certified Kubernetes Administrator', issuer: 'CNCF', date: '2021' }])
  t.deepEqual(p.languages, ['Vietnamese (Native)', 'English (Fluent)'])
  t.deepEqual(p.custom_sections, [{ title: 'PUBLICATIONS', content: ['Scaling ledgers with Kafka, GopherCon Vietnam 2022'] }])
  const summary = experienceSummary(p, new Date(Date.UTC(2025, 5, 1)))
  t.is(summary.total_years, 9.1) // 2020-01..2025-06 and 2016-06..2019-12: 66 + 43 months
  t.is(summary.level, 'Senior')
})

test('a two-column resume linearized: contact beside the name, sidebar sections between the main ones', (t) => {
  const text = `Rohan Mehta Email: rohan@example.com
rohan.dev Mobile: +1-415-555-0199
Education
• Lakeshore Institute of Technology Duluth, MN
Master of Science in Computer Science; GPA: 3.85 Sep 2014 – May 2016
Skills
Python, Kafka, Docker
Experience
• Brightwave Mountain View, CA
Software Engineer Mar 2018 – Present
◦ Search: Rebuilt the ranking service and the indexing pipeline for the catalogue across
several product teams and regional markets.
• Quillwork Sunnyvale, CA
Senior Software Engineer Jun 2016 – Mar 2018
◦ Billing: Service for invoices and payment reminders.`
  const p = parseResume(text)
  t.like(p.personal_information?.data, { full_name: 'Rohan Mehta', email: 'rohan@example.com', phone_number: '+14155550199', links: ['https://rohan.dev'] })
  t.like(p.education?.[0], { institution: 'Lakeshore Institute of Technology', location: 'Duluth, MN', degree: 'Master of Science in Computer Science', GPA: '3.85' })
  t.deepEqual(p.work_experience?.map((j) => [j.title, j.company, j.location, j.start_date, j.end_date]), [
    ['Software Engineer', 'Brightwave', 'Mountain View, CA', '2018-03', 'Present'],
    ['Senior Software Engineer', 'Quillwork', 'Sunnyvale, CA', '2016-06', '2018-03'],
  ])
  t.deepEqual(p.work_experience?.[0].responsibilities, [
    'Search: Rebuilt the ranking service and the indexing pipeline for the catalogue across several product teams and regional markets.',
  ])
  t.deepEqual(p.skills, [{ category: 'Skills', details: ['Python', 'Kafka', 'Docker'] }])
})

test('a noisy OCR-like resume: stray marks, rules, page footers, odd bullets and spacing', (t) => {
  const text = `  MARIA  GARCIA-LOPEZ
maria.garcia@example.es  |  +34 612 34 56 78  |  Valencia, Spain
________________________________
E X P E R I E N C E
Page 1 of 2
» Marketing Manager  —  Naranja Foods S.L.       Mar 2019 - Present
▪ lncreased online sales by 35% in two years
▪ Managed a team of 4
Brand Assistant, Valencia Drinks SA     2016 – 2019
* Ran social media campaigns
Page 2 of 2
EDUCATlON
MBA , Universitat de Valencia     2014 - 2016
`
  const p = parseResume(text)
  t.like(p.personal_information?.data, { full_name: 'MARIA GARCIA-LOPEZ', email: 'maria.garcia@example.es', phone_number: '+34612345678' })
  t.deepEqual(p.work_experience?.map((j) => [j.title, j.company, j.start_date, j.end_date]), [
    ['Marketing Manager', 'Naranja Foods S.L.', '2019-03', 'Present'],
    ['Brand Assistant', 'Valencia Drinks SA', '2016', '2019'],
  ])
  t.deepEqual(p.work_experience?.[0].achievements, ['lncreased online sales by 35% in two years', 'Managed a team of 4'])
  t.true(JSON.stringify(p).indexOf('Page 1') < 0, 'page footers dropped')
})

test('fields not detected are left out: no empty strings, arrays or objects', (t) => {
  const p = parseResume('Jane Doe\n\nEXPERIENCE\nBarista\n\nSKILLS\n\nHOBBIES\n')
  t.deepEqual(p, { version: 'v1', personal_information: { data: { full_name: 'Jane Doe' } }, work_experience: [{ title: 'Barista' }] })
  t.deepEqual(parseResume(''), { version: 'v1' })
  const walk = (v: unknown): void => {
    if (typeof v === 'string') t.not(v.trim(), '')
    else if (Array.isArray(v)) (t.not(v.length, 0), v.forEach(walk))
    else if (v && typeof v === 'object') (t.not(Object.keys(v).length, 0), Object.values(v).forEach(walk))
  }
  walk(parseResume(ONE_COLUMN))
})

// ---------------------------------------------------------------- features

// ---------------------------------------------------------------- layouts: tables, narrow columns, sidebars

test('experience table, one row per line: the header row is no job, wrapped cells join their row, notes join their company', (t) => {
  const jobs = extractExperience([
    'Dates | Role | Company | Location',
    '04/2024 — | Senior Software | Orbital Payments Ltd. | Osaka, Japan',
    'Present | Engineer',
    'May 2022 – Jun | HR Assistant | Saigon Garment Co. | Wien, Austria',
    '2023',
    'Dec. 2019 - Jul. 2023 Content Marketing Manager | Mango Fintech | Köln, Germany',
    'Apr 2018 – Jul 2021 | Head of Department | Scoil Mhuire National | Accra, Ghana',
    'School',
    '– Orbital Payments Ltd.: Designed and shipped a payments API handling 2M requests',
    'per day',
    '– Scoil Mhuire National School: Coordinated the school science fair',
  ])
  t.deepEqual(jobs.map((j) => [j.title, j.company, j.location, j.start_date, j.end_date]), [
    ['Senior Software Engineer', 'Orbital Payments Ltd.', 'Osaka, Japan', '2024-04', 'Present'],
    ['HR Assistant', 'Saigon Garment Co.', 'Wien, Austria', '2022-05', '2023-06'],
    ['Content Marketing Manager', 'Mango Fintech', 'Köln, Germany', '2019-12', '2023-07'],
    ['Head of Department', 'Scoil Mhuire National School', 'Accra, Ghana', '2018-04', '2021-07'],
  ])
  t.deepEqual(jobs[0].achievements, ['Designed and shipped a payments API handling 2M requests per day'])
  t.deepEqual(jobs[3].responsibilities, ['Coordinated the school science fair'])
})

test('experience table, one cell per line (DOCX, HTML): every row kept, the last one too', (t) => {
  const jobs = extractExperience([
    'Dates', 'Role', 'Company', 'Location',
    '2022-12 - Present', 'Senior Software Engineer', 'Northwind Systems', 'Wrocław, Poland',
    '2017-04 - 2019-08', 'Full Stack Developer', 'Kestrel Analytics GmbH', 'Chennai, India',
    'Kestrel Analytics GmbH: Cut CI build time from 25 to 8 minutes',
  ])
  t.deepEqual(jobs.map((j) => [j.title, j.company, j.location, j.start_date, j.end_date]), [
    ['Senior Software Engineer', 'Northwind Systems', 'Wrocław, Poland', '2022-12', 'Present'],
    ['Full Stack Developer', 'Kestrel Analytics GmbH', 'Chennai, India', '2017-04', '2019-08'],
  ])
  t.deepEqual(jobs[1].achievements, ['Cut CI build time from 25 to 8 minutes'])
})

test('narrow columns: a heading wrapped onto the next line is joined back, in jobs and in schools', (t) => {
  const jobs = extractExperience([
    'Northwind Systems — Junior Software', 'Developer', 'Fall 2019 to Apr 2022', '– Reduced p95 latency by 40%',
    '* Coordinated discharge planning with physiotherapy and', 'social work',
    'Clinical Nurse Specialist at Lagos University', 'Teaching Hospital', 'July 2014 to June 2016', '* Trained 12 nurses',
  ])
  t.deepEqual(jobs.map((j) => [j.title, j.company]), [
    ['Junior Software Developer', 'Northwind Systems'],
    ['Clinical Nurse Specialist', 'Lagos University Teaching Hospital'],
  ])
  t.deepEqual(jobs[0].responsibilities, ['Coordinated discharge planning with physiotherapy and social work'])
  const schools = extractEducation([
    'Certificate in Hotel Operations, Tsinghua', 'University', 'Sep. 2009 to May 2011',
    '', 'MSc Organisational | 2012 — 2014', 'Behaviour', 'Fudan University, Shanghai',
    '', 'Bachelor of Business Studies, Uniwersytet | 09/2020 — 05/2021', 'Wrocławski',
  ])
  t.deepEqual(schools.map((e) => [e.degree, e.institution]), [
    ['Certificate in Hotel Operations', 'Tsinghua University'],
    ['MSc Organisational Behaviour', 'Fudan University'],
    ['Bachelor of Business Studies', 'Uniwersytet Wrocławski'],
  ])
  t.is(schools[1].location, 'Shanghai')
})

test('a short line under a one-field line is its own field: title, then company on the next line', (t) => {
  const jobs = extractExperience(['Software Engineer | Jan 2020 – Present', 'Google', '• Built search features'])
  t.like(jobs[0], { title: 'Software Engineer', company: 'Google' })
})

test('education: a town after the school, the school\'s own town, and a comma inside its name', (t) => {
  const [a, b, c, d] = extractEducation([
    'BSc Computer Science, Vietnam National University, Ho Chi Minh City Sep 2012 to May 2014',
    '', 'Universidade de Lisboa, Lisboa', 'MA Interaction Design 2021 – 2023',
    '', 'University of Lagos, Lagos', 'BSc Economics 2009 – 2013',
    '', 'Stanford University, Stanford, CA', 'MS Statistics 2014 – 2016',
  ])
  t.like(a, { degree: 'BSc Computer Science', institution: 'Vietnam National University, Ho Chi Minh City' })
  t.like(b, { institution: 'Universidade de Lisboa', location: 'Lisboa' })
  t.like(c, { institution: 'University of Lagos', location: 'Lagos' })
  t.like(d, { institution: 'Stanford University', location: 'Stanford, CA' })
})

test('company: a place beside it is the location, however it is written', (t) => {
  const jobs = extractExperience([
    'Eastern Signals Brigade, MOD | Seoul, S.Korea', 'Software Engineer | Sep. 2013 May 2015', '• Built a messenger',
    'Duri Labs Corp. Seoul, S.Korea', 'Software Engineer Nov. 2010 Jan. 2011', '• Wrote the API server',
    'Undergraduate Research, Robotics Lab | Daejeon, S.Korea', 'Researcher | Sep. 2018 Exp. Dec. 2019', '• Researched classifiers',
    'DAEJIN | Seoul, S.Korea', 'Game Developer Intern at Summer Internship Program | Jul. 2012 Aug. 2012', '• Won the 3rd prize',
  ])
  t.deepEqual(jobs.map((j) => [j.title, j.company, j.location, j.end_date]), [
    ['Software Engineer', 'Eastern Signals Brigade, MOD', 'Seoul, S.Korea', '2015-05'],
    ['Software Engineer', 'Duri Labs Corp.', 'Seoul, S.Korea', '2011-01'],
    ['Researcher', 'Undergraduate Research, Robotics Lab', 'Daejeon, S.Korea', '2019-12'],
    ['Game Developer Intern at Summer Internship Program', 'DAEJIN', 'Seoul, S.Korea', '2012-08'],
  ])
})

test('body lines without bullets: a year inside a sentence starts no job; a long header above its dates does', (t) => {
  const jobs = extractExperience([
    'Regional Sales Manager | Vantage Office Supplies Summer 2021 – Summer 2024',
    'Exceeded annual quota by 127% in 2022',
    'Grew the territory from 40 to 95 active accounts',
    'Young Makers Fellowship (funded by the Busan Tech Council of Industry and Trade) Seoul, S.Korea',
    'Software Engineer Trainee Mar. 2011 Feb. 2012',
    'Performed research on cache eviction policies of key-value stores',
  ])
  t.deepEqual(jobs.map((j) => [j.title, j.company]), [
    ['Regional Sales Manager', 'Vantage Office Supplies'],
    ['Software Engineer Trainee', 'Young Makers Fellowship (funded by the Busan Tech Council of Industry and Trade)'],
  ])
  t.deepEqual(jobs[0].achievements, ['Exceeded annual quota by 127% in 2022', 'Grew the territory from 40 to 95 active accounts'])
})

test('a sidebar read first: the name below it, not a city or the sidebar heading', (t) => {
  const p = parseResume(['Contact', 'Email: ifeoma@example.com', 'Hà Nội, Vietnam', 'Core Competencies', 'Go, SQL',
    'LANGUAGES', 'Yoruba (native), French (C1)', 'Ifeoma Obi', 'Senior Software Engineer', 'SUMMARY', 'Backend engineer.',
    'EXPERIENCE', 'Senior Software Engineer (April 2024 – Present)', 'Orbital Payments Ltd.'].join('\n'))
  t.is(p.personal_information?.data.full_name, 'Ifeoma Obi')
  t.deepEqual(p.languages, ['Yoruba (native)', 'French (C1)'])
  const q = parseResume(['CONTACT Agnieszka Kowalczyk', 'agnieszka@example.org', 'Senior Software Engineer', 'SUMMARY', 'Engineer.'].join('\n'))
  t.is(q.personal_information?.data.full_name, 'Agnieszka Kowalczyk')
  const r = parseResume(['CONTACT', 'Email:', 'hannah@example.com', 'Address: Manchester,', 'United Kingdom', 'Skills', 'Excel', 'Hannah O\'Neill', 'Warehouse Supervisor', 'Objective', 'Safe and on time.'].join('\n'))
  t.is(r.personal_information?.data.full_name, 'Hannah O\'Neill')
})

test('other sections are not jobs: "Extracurricular Activity" is its own section; spoken languages leave the skills', (t) => {
  const p = parseResume(['Minji Seo', 'minji@example.com', 'Skills', 'Cloud | AWS, Docker, Kubernetes', 'Languages | Korean, English, Spanish',
    'Experience', 'Norae Corp. | Seoul, S.Korea', 'Software Engineer | Apr. 2015 Sep. 2016', '• Built the booking API',
    'Extracurricular Activity', 'NightOwls (Cryptography & Security study group) | S.Korea', 'Member | Mar. 2011 PRESENT', '• Trained new members'].join('\n'))
  t.deepEqual(p.work_experience?.map((j) => j.company), ['Norae Corp.'])
  t.is(p.custom_sections?.[0].title, 'Extracurricular Activity')
  t.deepEqual(p.skills, [{ category: 'Cloud', details: ['AWS', 'Docker', 'Kubernetes'] }])
  t.deepEqual(p.languages, ['Korean', 'English', 'Spanish'])
})

test('a page footer repeated with its separators changed is dropped', (t) => {
  const p = parseResume(['Minji Seo', 'minji@example.com', 'Experience', 'Norae Corp. | Seoul, S.Korea', 'Software Engineer | Apr. 2015 Sep. 2016',
    '• Built the booking API', 'March 3, 2025 | Minji Seo · Curriculum Vitae | 1', 'Orumi | Seoul, S.Korea', 'Director | Oct. 2016 Feb. 2020',
    '• Ran infrastructure', 'March 3, 2025 Minji Seo · Curriculum Vitae 2'].join('\n'))
  t.deepEqual(p.work_experience?.map((j) => [j.title, j.company]), [['Software Engineer', 'Norae Corp.'], ['Director', 'Orumi']])
})

test('company: a town and a two-part area after it, a town the resume names in its header', (t) => {
  const jobs = extractExperience(['Senior Accountant 2022 - Present', 'Café Lumière Austin, TX, USA', '– Closed the books',
    'Maersk Line, Singapore, Singapore', 'Analyst 2019 - 2021', '– Cut errors by 22%'])
  t.deepEqual(jobs.map((j) => [j.company, j.location]), [['Café Lumière', 'Austin, TX, USA'], ['Maersk Line', 'Singapore, Singapore']])
  const p = parseResume(['Lê Hoàng Nam', 'nam@example.vn | Hà Nội, Vietnam', 'Experience', 'Full Stack Developer | 2022 – 2024',
    'Kestrel Analytics GmbH Hà Nội, Vietnam', '• Mentored four developers'].join('\n'))
  t.like(p.work_experience?.[0], { company: 'Kestrel Analytics GmbH', location: 'Hà Nội, Vietnam' })
})

test('OCR table rows without cell borders: the role and the employer run together, the end year wrapped', (t) => {
  t.like(findDateRange('Jun. 2019-Nov. Logistics Coordinator TransAndina Cargo'), { start_date: '2019-06', rest: 'Logistics Coordinator TransAndina Cargo' })
  const jobs = extractExperience(['Dates Role Company Location', 'Feb. 2023-Current | Warehouse Supervisor DHL Supply Chain Lyon, France', '* Managed inbound flows'])
  t.deepEqual(jobs.map((j) => [j.title, j.company, j.location, j.start_date, j.end_date]), [['Warehouse Supervisor', 'DHL Supply Chain', 'Lyon, France', '2023-02', 'Present']])
})

test('a sentence without a bullet above the next job\'s dates stays in the body', (t) => {
  const jobs = extractExperience(['Engineer, Acme Corp 2021 – 2023', 'Responsible for managing a team of five engineers', 'Globex Inc. 2019 - 2021', 'Analyst'])
  t.deepEqual(jobs.map((j) => [j.title, j.company]), [['Engineer', 'Acme Corp'], ['Analyst', 'Globex Inc.']])
  t.deepEqual(jobs[0].responsibilities, ['Responsible for managing a team of five engineers'])
})

test('roles grouped under one employer, with their durations, as LinkedIn exports them', (t) => {
  const jobs = extractExperience(['Google', '5 years 2 months', 'Senior Software Engineer', 'January 2020 - Present (3 years 1 month)',
    'Mountain View, California', 'Led the storage team.', 'Software Engineer', 'June 2017 - December 2019 (2 years 7 months)',
    'Mountain View, California', 'Stripe', 'Software Engineering Intern', 'June 2016 - August 2016 · 3 mos', 'San Francisco, California'])
  t.deepEqual(jobs.map((j) => [j.title, j.company, j.location, j.start_date, j.end_date]), [
    ['Senior Software Engineer', 'Google', 'Mountain View, California', '2020-01', 'Present'],
    ['Software Engineer', 'Google', 'Mountain View, California', '2017-06', '2019-12'],
    ['Software Engineering Intern', 'Stripe', 'San Francisco, California', '2016-06', '2016-08'],
  ])
})

test('dates: two-digit years, "till date", arrows; places written "Town (Country)"; a TLD that is a prefix of another', (t) => {
  t.like(findDateRange("Jan '19 – Mar '21"), { start_date: '2019-01', end_date: '2021-03' })
  t.like(findDateRange('2019 - Till date'), { start_date: '2019', end_date: 'Present' })
  t.like(findDateRange('May 2018 → Jun 2020'), { start_date: '2018-05', end_date: '2020-06' })
  const jobs = extractExperience(['01/2018 – present', 'Project Manager', 'Ferrovie dello Stato S.p.A., Milano (Italy)', 'Managing rail projects worth 40M EUR.'])
  t.like(jobs[0], { title: 'Project Manager', company: 'Ferrovie dello Stato S.p.A.', location: 'Milano (Italy)' })
  t.deepEqual(extractContact(['Jane Roe', 'Web: https://nibhriain.design'], [])?.links, ['https://nibhriain.design'])
})

test('skills grouped under names in capitals, and capitals that are skills', (t) => {
  t.deepEqual(extractSkills(['PROGRAMMING', 'Java • Shell • Python', 'DATABASES', 'PostgreSQL', 'SAP EWM']), [
    { category: 'PROGRAMMING', details: ['Java', 'Shell', 'Python'] },
    { category: 'DATABASES', details: ['PostgreSQL', 'SAP EWM'] },
  ])
})

test('education: a campus is part of the school\'s name; a degree word ending a field names the degree', (t) => {
  t.like(extractEducation(['University of California, Berkeley', 'B.A. Economics, May 2018'])[0], { institution: 'University of California, Berkeley', degree: 'B.A. Economics' })
  t.like(extractEducation(['Universidad Nacional Autónoma de México, Ciudad de México', 'MBA 2014 – 2016'])[0], { institution: 'Universidad Nacional Autónoma de México', location: 'Ciudad de México' })
  t.like(extractEducation(['High School Diploma', 'Lincoln High School, Portland, OR — 2010'])[0], { degree: 'High School Diploma', institution: 'Lincoln High School', location: 'Portland, OR' })
  t.like(extractEducation(['Cornell University', 'MEng in Computer Science', 'Dec 2014 | Ithaca, NY', 'Cum. GPA: 3.83 / 4.0'])[0], { location: 'Ithaca, NY', GPA: '3.83 / 4.0' })
})

test('headings behind an icon, a bullet or a number; a bullet that is not a heading', (t) => {
  const { sections } = splitSections(['Jane Doe', '➤ EXPERIENCE', 'Engineer, Acme 2019 – 2021', '01. Education', 'BSc Physics, MIT 2015',
    '■ Skills', '• Leadership', '• Python'].join('\n'))
  t.deepEqual(sections.map((s) => [s.kind, s.title]), [['experience', 'EXPERIENCE'], ['education', 'Education'], ['skills', 'Skills']])
  t.deepEqual(sections[2].lines, ['• Leadership', '• Python'])
})

test('narrow columns: a parenthesis cut at the line end, a school name cut after "of"', (t) => {
  const jobs = extractExperience(['HR Business Partner, Greenfield Foods (November', '2019 - November 2021)', 'Lisboa, Portugal', '• Reduced time-to-hire'])
  t.like(jobs[0], { title: 'HR Business Partner', company: 'Greenfield Foods', start_date: '2019-11', end_date: '2021-11' })
  const [school] = extractEducation(['MSc Organisational Behaviour,', 'National University of', 'Singapore', '2016 - 2018'])
  t.like(school, { degree: 'MSc Organisational Behaviour', institution: 'National University of Singapore' })
})

test('experienceSummary: overlapping jobs counted once, level from title words then years, confidence', (t) => {
  const now = new Date(Date.UTC(2024, 5, 15))
  const two: ParsedResume = {
    version: 'v1',
    work_experience: [
      { title: 'Software Engineer', start_date: '2015-01', end_date: '2018-12' },
      { title: 'Software Engineer', start_date: '2018-06', end_date: 'Present' },
    ],
  }
  const s = experienceSummary(two, now)
  t.is(s.total_years, 9.5) // 2015-01 .. 2024-06 inclusive = 114 months
  t.is(s.level, 'Senior')
  t.deepEqual(experienceSummary({ version: 'v1', work_experience: [{ title: 'VP of Engineering', start_date: '2022', end_date: '2023' }] }, now).level, 'Executive')
  t.deepEqual(experienceSummary({ version: 'v1', work_experience: [{ title: 'Marketing Intern', start_date: '2023-06', end_date: '2023-09' }] }, now).level, 'Entry')
  t.deepEqual(experienceSummary({ version: 'v1' }, now), { total_years: null, level: null, confidence: 0 })
  const undated = experienceSummary({ version: 'v1', work_experience: [{ title: 'Engineer' }] }, now)
  t.is(undated.total_years, null)
  t.true(undated.confidence < s.confidence)
})

// ---------------------------------------------------------------- LLM pass

type Served = { url: string; bodies: Record<string, unknown>[]; close: () => Promise<void> }

/** A chat-completions endpoint on a real socket, answering each request with `content`. */
async function serveChat(content: string): Promise<Served> {
  const bodies: Record<string, unknown>[] = []
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      bodies.push(JSON.parse(body))
      res.writeHead(req.url === '/v1/chat/completions' ? 200 : 404, { 'content-type': 'application/json' })
      res.end(JSON.stringify({
        id: 'chatcmpl-1', object: 'chat.completion', created: 0, model: 'test-model',
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content, refusal: null } }],
      }))
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    bodies,
    close: () => new Promise((r) => (server.close(() => r()), server.closeAllConnections())),
  }
}

/** A full strict answer: every property present, null where the model found nothing. */
function llmAnswer(): Record<string, unknown> {
  const nulls = (schema: typeof PARSED_RESUME_SCHEMA): Record<string, unknown> =>
    Object.fromEntries(Object.keys(schema.properties!).map((k) => [k, null]))
  return {
    ...nulls(PARSED_RESUME_SCHEMA),
    personal_information: { data: { full_name: 'Ana Souza', email: null, phone_number: null, address: null, links: null } },
    work_experience: [{ title: 'Staff Engineer', company: 'Acme Corp', location: null, start_date: 'March 2019', end_date: 'Present', responsibilities: null, achievements: null }],
    languages: ['Portuguese', 'English'],
  }
}

test('refineWithLlm: sends a strict json_schema request and merges the answer over the heuristic result', async (t) => {
  const server = await serveChat(JSON.stringify(llmAnswer()))
  t.teardown(server.close)
  const client = new OpenAI({ baseURL: server.url, apiKey: 'sk-test', maxRetries: 0 })
  const heuristic: ParsedResume = {
    version: 'v1',
    personal_information: { data: { full_name: 'ANA', email: 'ana@example.com' } },
    work_experience: [{ title: 'Engineer', company: 'Acme Corp', responsibilities: ['Built things'] }],
    skills: [{ category: 'Skills', details: ['Go'] }],
  }
  const out = await refineWithLlm('Ana Souza ...', heuristic, client, 'test-model')
  t.deepEqual(out, {
    version: 'v1',
    personal_information: { data: { full_name: 'Ana Souza', email: 'ana@example.com' } },
    work_experience: [{ title: 'Staff Engineer', company: 'Acme Corp', start_date: '2019-03', end_date: 'Present', responsibilities: ['Built things'] }],
    skills: [{ category: 'Skills', details: ['Go'] }],
    languages: ['Portuguese', 'English'],
  })
  const sent = server.bodies[0] as { model: string; response_format: { type: string; json_schema: { strict: boolean; schema: unknown } } }
  t.is(sent.model, 'test-model')
  t.is(sent.response_format.type, 'json_schema')
  t.true(sent.response_format.json_schema.strict)
  t.deepEqual(sent.response_format.json_schema.schema, JSON.parse(JSON.stringify(PARSED_RESUME_SCHEMA)))
})

test('refineWithLlm: garbage, a wrong shape, or no server throws', async (t) => {
  for (const content of ['this is not json {', JSON.stringify({ ...llmAnswer(), work_experience: 'none' }), JSON.stringify({ name: 'x' })]) {
    const server = await serveChat(content)
    const client = new OpenAI({ baseURL: server.url, apiKey: 'sk-test', maxRetries: 0 })
    await t.throwsAsync(refineWithLlm('text', { version: 'v1' }, client, 'm'), { message: /^llm: / }, content.slice(0, 30))
    await server.close()
  }
  const closed = new OpenAI({ baseURL: 'http://127.0.0.1:9/v1', apiKey: 'x', maxRetries: 0, timeout: 2000 })
  await t.throwsAsync(refineWithLlm('text', { version: 'v1' }, closed, 'm'))
})

test('schemaError names the first place an answer breaks the schema', (t) => {
  t.is(schemaError(llmAnswer(), PARSED_RESUME_SCHEMA), null)
  t.regex(schemaError({ ...llmAnswer(), languages: [1] }, PARSED_RESUME_SCHEMA) ?? '', /\$\.languages\[0\]: expected string/)
  const { skills: _, ...missing } = llmAnswer()
  t.regex(schemaError(missing, PARSED_RESUME_SCHEMA) ?? '', /\$\.skills: missing/)
})
