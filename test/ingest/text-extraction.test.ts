import test from 'ava'
import { extractSkills, canonicalSkill } from '../../ingest/transform/skills.ts'
import { classify, validCategories } from '../../ingest/transform/categories.ts'
import { extractBenefits, visaFromText, equityFromText } from '../../ingest/transform/benefits.ts'
import { detectLanguage, mapLanguage } from '../../ingest/transform/language.ts'
import { extractEmail, extractPhone } from '../../ingest/transform/contacts.ts'
import { requirementsSummary } from '../../ingest/transform/requirements.ts'
import { compileTerms, matchTerms, tokenize } from '../../ingest/transform/phrase-matcher.ts'
import vocabulary from '../../seeds/skills.json' with { type: 'json' }
import categoryList from '../../seeds/categories.json' with { type: 'json' }
import keywords from '../../seeds/category-keywords.json' with { type: 'json' }

const none = { skills: [], technologies: [] }

test('technologies with aliases and canonical casing', (t) => {
  const r = extractSkills('Senior Backend Engineer', 'We run k8s on AWS, store data in Postgres and write JS, TypeScript and C++. Node.js and CI/CD.', none)
  t.deepEqual(r.technologies, ['Kubernetes', 'AWS', 'PostgreSQL', 'JavaScript', 'TypeScript', 'C++', 'Node.js', 'CI/CD'])
})

test('ambiguous short names need context', (t) => {
  t.deepEqual(extractSkills('Go Developer', '', none).technologies, ['Go'])
  t.deepEqual(extractSkills('Analyst', 'Tools: Python, R and SQL.', none).technologies, ['Python', 'R', 'SQL'])
  t.deepEqual(extractSkills('Nurse', 'Go to our website. Plan B or C. Vitamin C. Let us know if you go ahead.', none).technologies, [])
  t.deepEqual(extractSkills('Chef', 'Blend a mocha, chop celery and use a blender.', none).technologies, [])
  t.deepEqual(extractSkills('Engineer', 'Experience with Python/Django and full-stack work.', none).technologies, ['Python', 'Django'])
})

test('soft and trade skills across job families', (t) => {
  const r = extractSkills('Warehouse Associate', 'Forklift certified, strong communication skills, attention to detail and customer service.', none)
  t.true(r.skills.includes('Forklift Operation'))
  t.true(r.skills.includes('Communication'))
  t.true(r.skills.includes('Attention to Detail'))
  t.true(r.skills.includes('Customer Service'))
  t.true(extractSkills('Registered Nurse', 'Patient care and BLS certification', none).skills.includes('Nursing'))
  t.true(extractSkills('Staff Accountant', 'Accounts payable, GAAP, month-end close', none).skills.includes('Accounting'))
  t.true(extractSkills('PM', 'Strong project management background', none).skills.includes('Project Management'))
})

test('given skills merge first, deduplicated, in canonical casing', (t) => {
  const r = extractSkills('Engineer', 'We use Kubernetes and postgres.', { skills: ['communication'], technologies: ['postgres', 'Kubernetes', 'Internal DSL'] })
  t.deepEqual(r.technologies, ['PostgreSQL', 'Kubernetes', 'Internal DSL'])
  t.deepEqual(r.skills, ['Communication'])
  t.is(canonicalSkill('k8s'), 'Kubernetes')
})

test('the vocabulary has a few hundred unique names', (t) => {
  const names = [...vocabulary.technologies, ...vocabulary.skills].map((x) => x.name)
  t.true(vocabulary.technologies.length >= 250)
  t.is(new Set(names).size, names.length)
})

test('tokenizer keeps technology punctuation', (t) => {
  t.deepEqual(tokenize('C++, C#, .NET, Node.js and CI/CD.'), ['C++', 'C#', '.NET', 'Node.js', 'and', 'CI/CD'])
  const m = compileTerms([{ name: 'Google Cloud', aliases: ['google cloud platform', 'gcp', 'google cloud'] }, { name: 'Google', aliases: ['google'] }])
  t.deepEqual(matchTerms('We use Google Cloud Platform and Google.', m), ['Google Cloud', 'Google'])
})

test('categories from the title, the description, or Other', (t) => {
  t.deepEqual(classify('Senior Software Engineer', '', []), ['Software Engineer Jobs'])
  t.deepEqual(classify('Registered Nurse (RN)', '', []), ['Healthcare Services Jobs'])
  t.deepEqual(classify('Forklift Operator', '', []), ['Skilled Trade Jobs'])
  t.deepEqual(classify('Account Executive', '', []), ['Sales Jobs'])
  t.deepEqual(classify('Ninja', 'Work in our kitchen with the chef as a line cook; catering experience a plus.', []), ['Culinary Jobs'])
  t.deepEqual(classify('Ninja', 'Great team.', []), ['Other'])
  t.deepEqual(classify('Whatever', '', ['software engineer jobs', 'Bogus Jobs']), ['Software Engineer Jobs'])
  t.deepEqual(validCategories(['Other', 'Accounting, Payroll & Financial Planning Jobs']), ['Other', 'Accounting, Payroll & Financial Planning Jobs'])
})

test('category keyword table only names reference categories', (t) => {
  const names = Object.keys(keywords.categories)
  t.deepEqual([...names].sort(), [...categoryList].sort())
})

test('benefits from text', (t) => {
  const text = 'We offer medical, dental & vision insurance, a 401(k) match, stock options, flexible hours, 25 days annual leave, parental leave and a learning budget.'
  t.deepEqual(extractBenefits(text, [], null), ['Health Insurance', 'Dental Insurance', 'Vision Insurance', '401(k)', 'Equity', 'Flexible Hours', 'Paid Time Off', 'Parental Leave', 'Learning Budget'])
  t.deepEqual(extractBenefits('Pension scheme and remote work options', ['Gym'], true), ['Gym', 'Pension', 'Remote Work', 'Visa Sponsorship'])
  t.deepEqual(extractBenefits('We value diversity, equity and inclusion.', [], null), [])
  t.deepEqual(extractBenefits('Dental assistant wanted', [], null), [])
})

test('visa sponsorship', (t) => {
  t.true(visaFromText('Visa sponsorship available for the right candidate.', null))
  t.false(visaFromText('We are unable to sponsor visas.', true))
  t.false(visaFromText('No sponsorship.', null))
  t.false(visaFromText('Sponsorship is not available for this role.', null))
  t.false(visaFromText('Candidates must be able to work without visa sponsorship.', null))
  t.is(visaFromText('Great team.', null), null)
  t.true(visaFromText('Great team.', true))
})

test('equity', (t) => {
  t.true(equityFromText('competitive salary + equity package', null))
  t.true(equityFromText('RSUs and bonus', null))
  t.is(equityFromText('diversity, equity and inclusion', null), null)
  t.false(equityFromText('stock options', false))
})

test('language detection and mapping', (t) => {
  t.is(detectLanguage('We are looking for a developer to join our team and help us build the future of work. You will be part of a team that is passionate about the product.'), 'en')
  t.is(detectLanguage('Wir suchen ab sofort eine Entwicklerin oder einen Entwickler für unser Team. Du arbeitest mit uns an der Zukunft und bist Teil von einem tollen Team, das auch nicht aufgibt.'), 'de')
  t.is(detectLanguage('Nous recherchons un développeur pour rejoindre notre équipe. Vous travaillerez avec nous sur des projets passionnants dans une entreprise en croissance pour les clients.'), 'fr')
  t.is(detectLanguage('Python'), null)
  t.is(mapLanguage('English'), 'en')
  t.is(mapLanguage('de-DE'), 'de')
  t.is(mapLanguage('EN'), 'en')
})

test('contacts', (t) => {
  t.is(extractEmail('Send your CV to Jobs@Acme.com or noreply@acme.com'), 'jobs@acme.com')
  t.is(extractEmail('no-reply@acme.com only'), null)
  t.is(extractPhone('Call us at (555) 123-4567 today'), '(555) 123-4567')
  t.is(extractPhone('Hotline: +49 30 1234567'), '+49 30 1234567')
  t.is(extractPhone('Salary 120000-150000, req 12345678'), null)
})

test('requirements summary', (t) => {
  t.is(requirementsSummary(['About us', 'Requirements:', '3+ years of Go', 'Kubernetes.', 'Benefits', 'Pension']), '3+ years of Go; Kubernetes')
  t.is(requirementsSummary(['Requirements: 3+ years of Go', 'Benefits:']), '3+ years of Go')
  t.is(requirementsSummary(['No heading here']), null)
})
