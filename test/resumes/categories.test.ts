/**
 * A resume's job categories (rankCategories): the vector's cosines raised by the categories its
 * titles name, the most recent title weighing most, and by its skills.
 */
import test from 'ava'
import { namedCategories, rankCategories } from '../../ingest/resume/embed-resume.ts'
import type { ParsedResume } from '../../ingest/resume/types.ts'

const resume = (titles: string[], skills: string[] = []): ParsedResume => ({
  version: 'v1',
  work_experience: titles.map((title) => ({ title })),
  ...(skills.length ? { skills: [{ category: 'Skills', details: skills }] } : {}),
}) as ParsedResume

// a vector that leans toward the broad names, as a small model's does
const cosines = [
  { category: 'Data Analyst Jobs', cosine: 0.65 },
  { category: 'Project & Program Management Jobs', cosine: 0.64 },
  { category: 'Human Resources Jobs', cosine: 0.45 },
  { category: 'Banking Jobs', cosine: 0.5 },
  { category: 'Accounting, Payroll & Financial Planning Jobs', cosine: 0.55 },
  { category: 'Recruitment Jobs', cosine: 0.5 },
]

test('the titles decide over a vector that drifts to the broad names', (t) => {
  const top = rankCategories(resume(['Area HR Deputy Lead', 'Area HR Assistant Manager']), cosines)
  t.is(top[0].category, 'Human Resources Jobs')
  t.is(top.length, 3)
  t.true(top[0].score >= top[1].score && top[1].score >= top[2].score)
})

test('the most recent title weighs most', (t) => {
  t.is(rankCategories(resume(['Recruiter', 'Accountant']), cosines)[0].category, 'Recruitment Jobs')
  t.is(rankCategories(resume(['Accountant', 'Recruiter']), cosines)[0].category, 'Accounting, Payroll & Financial Planning Jobs')
  const shares = namedCategories(resume(['Recruiter', 'Accountant'])).titles
  t.true(shares.get('Recruitment Jobs')! > shares.get('Accounting, Payroll & Financial Planning Jobs')!)
})

test('a word of several meanings yields to the rest of the title', (t) => {
  const shares = namedCategories(resume(['Sr. Mortgage Loan Consultant'])).titles
  t.deepEqual([...shares.keys()], ['Banking Jobs'])
  t.deepEqual([...namedCategories(resume(['IT Consultant'])).titles.keys()].includes('Consulting Jobs'), true)
})

test('without titles, the skills and then the vector decide', (t) => {
  t.is(rankCategories(resume([], ['Payroll', 'Accounts Payable', 'Excel']), cosines)[0].category, 'Accounting, Payroll & Financial Planning Jobs')
  t.is(rankCategories(resume([]), cosines)[0].category, 'Data Analyst Jobs')
})
