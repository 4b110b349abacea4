import test from 'ava'
import { boundTitle, cleanTitle, fixAllCaps, MAX_TITLE } from '../../ingest/transform/clean-title.ts'

const title = (s: string) => cleanTitle(s).title

test('gender markers are removed', (t) => {
  t.is(title('Backend Developer (m/f/d)'), 'Backend Developer')
  t.is(title('Pflegefachkraft (w/m/d)'), 'Pflegefachkraft')
  t.is(title('Accountant (all genders)'), 'Accountant')
  t.is(title('Data Scientist (M/W/D)'), 'Data Scientist')
  t.is(title('Koch m/w/d'), 'Koch')
})

test('urgency and exclamation marks are removed', (t) => {
  t.is(title('Forklift Operator - URGENT'), 'Forklift Operator')
  t.is(title('Urgently Hiring: Forklift Operator'), 'Forklift Operator')
  t.is(title('Warehouse Associate!!!'), 'Warehouse Associate')
  t.is(title('URGENT!!! Staff Nurse'), 'Staff Nurse')
  t.is(title('Staff Nurse (Urgent)'), 'Staff Nurse')
  t.is(title('Band 5 Nurse - Immediate Start'), 'Band 5 Nurse')
  t.deepEqual(cleanTitle('Forklift Operator (m/f/d) - URGENT').removed, ['(m/f/d)', '- URGENT'])
})

test('urgency words that are the job itself stay (NHS urgent care)', (t) => {
  t.is(title('Urgent Care Practitioner'), 'Urgent Care Practitioner')
  t.is(title('Staff Nurse - Urgent Treatment Centre'), 'Staff Nurse - Urgent Treatment Centre')
  t.is(title('URGENT CARE PARAMEDIC'), 'Urgent Care Paramedic')
  t.deepEqual(cleanTitle('Urgent Care Practitioner').removed, [])
})

test('trailing location suffixes are removed and returned as a hint', (t) => {
  t.like(cleanTitle('Software Engineer - Remote'), { title: 'Software Engineer', locationHint: 'Remote' })
  t.like(cleanTitle('Backend Developer | Berlin'), { title: 'Backend Developer', locationHint: 'Berlin' })
  t.like(cleanTitle('Product Manager (Remote)'), { title: 'Product Manager', locationHint: 'Remote' })
  t.like(cleanTitle('Sales Associate, San Francisco, CA'), { title: 'Sales Associate', locationHint: 'San Francisco, CA' })
  t.like(cleanTitle('Head of People @ London'), { title: 'Head of People', locationHint: 'London' })
  t.is(title('Engineer - Berlin - Hybrid'), 'Engineer')
})

test('non-location suffixes stay', (t) => {
  t.is(title('Engineer - Platform'), 'Engineer - Platform')
  t.is(title('Engineer, AI'), 'Engineer, AI')
  t.is(title('Data Engineer - IT'), 'Data Engineer - IT')
  t.is(title('Engineer - Global Payments'), 'Engineer - Global Payments')
})

test('ALL CAPS becomes Title Case with acronyms kept', (t) => {
  t.is(fixAllCaps('SENIOR SRE'), 'Senior SRE')
  t.is(fixAllCaps('QA TESTER'), 'QA Tester')
  t.is(fixAllCaps('SENIOR IOS ENGINEER - AWS'), 'Senior iOS Engineer - AWS')
  t.is(fixAllCaps('DIRECTOR OF SALES AND MARKETING'), 'Director of Sales and Marketing')
  t.is(fixAllCaps('HVAC TECHNICIAN II'), 'HVAC Technician II')
  t.is(fixAllCaps('Senior iOS Engineer'), 'Senior iOS Engineer')
  t.is(title('SENIOR SRE (m/f/d) - URGENT!!! | Berlin'), 'Senior SRE')
})

test('whitespace is normalised and an all-decoration title falls back to the raw text', (t) => {
  t.is(title('  Senior \n  Engineer  '), 'Senior Engineer')
  t.is(title('!!!'), '!!!')
})

test('a title past MAX_TITLE characters is cut at a word boundary with an ellipsis; a shorter one is kept whole', (t) => {
  const words = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ')
  const cut = boundTitle(words)
  t.true(cut.length <= MAX_TITLE)
  t.true(cut.endsWith('…'))
  t.true(words.startsWith(cut.slice(0, -1)))
  t.regex(cut, /word\d+…$/, 'whole words only')
  // one long run of letters has no boundary to cut at
  t.is(boundTitle('x'.repeat(500)), `${'x'.repeat(MAX_TITLE - 1)}…`)
  // punctuation before the cut goes
  t.false(boundTitle(`${'a'.repeat(150)} - ${'b'.repeat(100)}`).includes(' -'))
  const exact = 'y'.repeat(MAX_TITLE)
  t.is(boundTitle(exact), exact)
  t.is(boundTitle('Staff Nurse'), 'Staff Nurse')
})
