import test from 'ava'
import { yoeFromText, yoeFromGiven, mapExperienceLevel, levelFromBand, levelFromTitle, levelFromYoe, educationFromText } from '../../ingest/transform/experience.ts'
import { FieldError } from '../../ingest/transform/coerce.ts'

test('years from text', (t) => {
  t.deepEqual(yoeFromText('You have 3+ years of experience with Go.'), { min: 3, max: null })
  t.deepEqual(yoeFromText('5-7 years of professional experience'), { min: 5, max: 7 })
  t.deepEqual(yoeFromText("at least two years' experience in retail"), { min: 2, max: null })
  t.deepEqual(yoeFromText('Minimum of 4 years relevant work experience'), { min: 4, max: null })
  t.deepEqual(yoeFromText('3 to 5 years of experience'), { min: 3, max: 5 })
  t.is(yoeFromText('We were founded 10 years ago and have 5 years of runway.'), null)
  t.is(yoeFromText(''), null)
})

test('given yoe_range', (t) => {
  t.deepEqual(yoeFromGiven({ min: 3, max: 5 }), { min: 3, max: 5 })
  t.deepEqual(yoeFromGiven('5+'), { min: 5, max: null })
  t.deepEqual(yoeFromGiven('2-4 years'), { min: 2, max: 4 })
  t.deepEqual(yoeFromGiven(2), { min: 2, max: 2 })
  t.deepEqual(yoeFromGiven({ min: 6, max: 2 }), { min: 2, max: 6 })
  t.is(yoeFromGiven(null), null)
  t.throws(() => yoeFromGiven('lots'), { instanceOf: FieldError })
  t.throws(() => yoeFromGiven([1, 2]), { instanceOf: FieldError })
})

test('given level words', (t) => {
  t.is(mapExperienceLevel('Entry level'), 'Entry')
  t.is(mapExperienceLevel('intern'), 'Entry')
  t.is(mapExperienceLevel('new grad'), 'Entry')
  t.is(mapExperienceLevel('graduate'), 'Entry')
  t.is(mapExperienceLevel('Junior'), 'Junior')
  t.is(mapExperienceLevel('Mid-Senior level'), 'Mid')
  t.is(mapExperienceLevel('senior'), 'Senior')
  t.is(mapExperienceLevel('Lead'), 'Senior')
  t.is(mapExperienceLevel('Principal'), 'Senior')
  t.is(mapExperienceLevel('Director'), 'Executive')
  t.is(mapExperienceLevel('VP'), 'Executive')
  t.is(mapExperienceLevel('whatever'), null)
})

test('level from title, then from years', (t) => {
  t.is(levelFromTitle('Senior Backend Engineer'), 'Senior')
  t.is(levelFromTitle('VP of Sales'), 'Executive')
  t.is(levelFromTitle('Software Engineering Intern'), 'Entry')
  t.is(levelFromTitle('Jr. Accountant'), 'Junior')
  t.is(levelFromTitle('Software Engineer II'), 'Mid')
  t.is(levelFromTitle('Account Manager'), null)
  t.is(levelFromTitle('Backend Engineer'), null)
  t.is(levelFromYoe({ min: 0, max: 1 }), 'Entry')
  t.is(levelFromYoe({ min: 2, max: null }), 'Junior')
  t.is(levelFromYoe({ min: 4, max: 6 }), 'Mid')
  t.is(levelFromYoe({ min: 8, max: null }), 'Senior')
  t.is(levelFromYoe(null), null)
})

test('education: the lowest degree mentioned', (t) => {
  t.is(educationFromText("Bachelor's degree required, Master's preferred"), "Bachelor's Degree")
  t.is(educationFromText('BS/MS in Computer Science'), "Bachelor's Degree")
  t.is(educationFromText('PhD in Machine Learning'), 'Doctorate')
  t.is(educationFromText('High school diploma or GED'), 'High School')
  t.is(educationFromText('No formal requirements'), null)
})

test('sector ladders: "staff" and "executive" are rungs only where the ladder uses them so', (t) => {
  const cases: [string, string | null][] = [
    ['Staff Nurse', 'Junior'],
    ['Bank Staff Nurse - Molesey', 'Junior'],
    ['Senior Staff Nurse £3000 Welcome Bonus', 'Mid'],
    ['Community Sister/Charge Nurse - Aldershot Community', 'Mid'],
    ['Band 6 - Staff Nurse', 'Mid'],
    ['Datix Assistant - Band 3 - Health, Safety & Risk', 'Entry'],
    ['Occupational Therapist - Band 7', 'Senior'],
    ['Specialty Doctor Community Paediatrics', 'Mid'],
    ['Consultant Psychiatrist CAMHS', 'Senior'],
    ['Consultant in Adult Psychiatry - Community', 'Senior'],
    ['Locum Consultant Respiratory Physician', 'Senior'],
    ['SAP Consultant', null],
    ['Consultant in Data Engineering', null],
    ['Consultant in Anaesthetics and Intensive Care Medicine', 'Senior'],
    ['Associate Specialist - Fine Jewelry & Watches', 'Junior'],
    ['Staff Geologist', null],
    ['Wattpad Staff Product Manager', 'Senior'],
    ['Staff Software Engineer (Libraries- Platform)', 'Senior'],
    ['Staff Data Scientist', 'Senior'],
    ['Member of Technical Staff - Safety', null],
    ['Staff Accountant', null],
    ['Executive Assistant', null],
    ['Account Executive', null],
    ['Executive Director of Finance', 'Executive'],
    ['Mid/Senior Dev & SRE roles', 'Mid'],
    ['Software Engineer II – New College Grad', 'Entry'],
    ['Software Engineer – New Graduates', 'Entry'],
    ['Early Career Software Engineer', 'Entry'],
    ['Software Development Engineer I - Back-end', 'Junior'],
    ['Software Engineer II - Cloud Infrastructure', 'Mid'],
    ['Software Engineer 0', 'Entry'],
    ['Phase 2 - Clinical Trials Coordinator', null],
  ]
  for (const [title, level] of cases) t.is(levelFromTitle(title) as string | null, level, title)
})

test('Agenda for Change bands', (t) => {
  t.is(levelFromBand('£31,365 - £37,890 per annum (AfC Band 6)'), 'Mid')
  t.is(levelFromBand('Aligned to AFC Band 8a (Full/Part time)'), 'Senior')
  t.is(levelFromBand('Recovery Nurse - Band 5Advert'), 'Junior')
  t.is(levelFromBand('Bank Band 2'), 'Entry')
  t.is(levelFromBand('Band 9'), 'Executive')
  t.is(levelFromBand('not applicable for roles band 5 and below'), null)
  t.is(levelFromBand('fast broadband 5 days a week'), null)
})
