/**
 * The shapes of real resumes the generated corpus renders: flattened text (job-site exports), a
 * builder's layout with its encoding damage, and the pieces that read them.
 */
import test from 'ava'
import { parseResume } from '../../ingest/resume/parse.ts'
import { repairText } from '../../ingest/resume/repair-text.ts'
import { isFlattened, reflow, splitFieldSchool } from '../../ingest/resume/reflow.ts'
import { splitDegreeSchool } from '../../ingest/resume/extract/education.ts'
import { readResume, closeResumeReaders } from '../../ingest/resume/read.ts'
import { generateTruths } from './corpus/truth.ts'
import { renderOne, corpusPlan } from './corpus/render.ts'
import { scoreResume, prf, sumFields } from '../eval/resume-score.ts'

test.after.always(() => closeResumeReaders())

test('repairText: UTF-8 read as windows-1252, a sequence that lost its last byte, ligatures', (t) => {
  t.is(repairText("L'avenir des idÃ©es"), "L'avenir des idées")
  t.is(repairText('resultsÂ in Â· Consulting Â§ x'), 'results in · Consulting § x')
  t.is(repairText('Company Name â€“ City'), 'Company Name – City')
  t.is(repairText('Accountant Company Name ï¼ City'), 'Accountant Company Name \ufffd City')
  t.is(repairText('oﬃce ﬁnance，ok'), 'office finance,ok')
  // real accented letters stay
  t.is(repairText('José Ñoño Zoë Ångström'), 'José Ñoño Zoë Ångström')
})

test('splitDegreeSchool: degree, field and school in one run, in either writing', (t) => {
  t.deepEqual(splitDegreeSchool('Master of Science : Educational Leadership'), ['Master of Science in Educational Leadership'])
  t.deepEqual(splitDegreeSchool('Bachelor : Public Administration Barry University'), ['Bachelor in Public Administration', 'Barry University'])
  t.deepEqual(splitDegreeSchool('Masters of Business Administration : Accounting Keller Graduate School of Management'), ['Masters of Business Administration in Accounting', 'Keller Graduate School of Management'])
  t.deepEqual(splitDegreeSchool('High School Diploma Northridge High School'), ['High School Diploma', 'Northridge High School'])
  t.deepEqual(splitDegreeSchool('BSc in Computer Science Mumbai University'), ['BSc in Computer Science', 'Mumbai University'])
})

test('a builder layout: anonymized places, title and employer either way round, one-line schools', (t) => {
  const p = parseResume([
    'JANE DOE', 'Work History',
    'Company Name - K-12 Principal City , State 08/2011 - Current', 'Mentored and supported new and struggling teachers across all three buildings.',
    'Accountant 05/2009 to 10/2012 Company Name ï¼ City , State', 'Closed the books every month and prepared the financial statements for the owners.',
    'Education', '12/2008', 'Western Governors University', 'City , State', 'Master of Science : Educational Leadership',
    'Associate of Science : Liberal Arts , 2015 SUNY Adirondack ï¼ City , State', "Dean's List",
  ].join('\n'))
  t.deepEqual(p.work_experience?.map((w) => [w.title, w.company, w.location]), [
    ['K-12 Principal', 'Company Name', 'City , State'],
    ['Accountant', 'Company Name', 'City , State'],
  ])
  t.deepEqual(p.education?.map((e) => [e.degree, e.institution, e.end_date]), [
    ['Master of Science in Educational Leadership', 'Western Governors University', '2008-12'],
    ['Associate of Science in Liberal Arts', 'SUNY Adirondack', '2015'],
  ])
})

test('flattened text: headings in running text, entries by their dates, title and employer cut from the text before them', (t) => {
  const text = 'Asha Rao Pune Maharashtra  Good team player with strong Skills  Work Experience Cloud Intern Earth Solutions  Pune Maharashtra May 2021 to August 2021  Implemented IAM roles in AWS  Explored Amazon Polly and AWS IoT Core Software Developer Arohan Systems  Pune Maharashtra July 2019 to June 2020  Developed websites for clients Education Master of Science in Computer Science University of Michigan  Dearborn MI January 2021 to Present Bachelor of Engineering in Information Technology Savitribai Phule Pune University  Pune Maharashtra August 2015 to June 2019 Skills  Python  Java'
  t.true(isFlattened(text))
  const p = parseResume(text)
  t.deepEqual(p.work_experience?.map((w) => [w.title, w.company, w.start_date, w.end_date]), [
    ['Cloud Intern', 'Earth Solutions', '2021-05', '2021-08'],
    ['IoT Core Software Developer', 'Arohan Systems', '2019-07', '2020-06'],
  ])
  t.deepEqual(p.education?.map((e) => e.degree), ['Master of Science in Computer Science', 'Bachelor of Engineering in Information Technology'])
  t.true(p.education?.[1].institution?.startsWith('Savitribai Phule Pune University'))
})

test('flattened schools: the field cut from the school\'s name, one entry per degree, a town alone', (t) => {
  t.is(splitFieldSchool('Bachelors in Computer Science Government Engineering College'), 'Bachelors in Computer Science | Government Engineering College')
  t.is(splitFieldSchool('Bachelor Degree in Electronics and Communication Engineering St Annes College of Engineering'), 'Bachelor Degree in Electronics and Communication Engineering | St Annes College of Engineering')
  t.is(splitFieldSchool('Master of Science in Computer and Information Sciences University of Michigan'), 'Master of Science in Computer and Information Sciences | University of Michigan')
  t.is(splitFieldSchool('Masters in Computer Application in Computer Application Indira Gandhi National Open University'), 'Masters in Computer Application | Indira Gandhi National Open University')
  t.is(splitFieldSchool('MSc Distributed Systems Politechnika Warszawska'), 'MSc Distributed Systems | Politechnika Warszawska')
  t.is(splitFieldSchool('Diploma in Marketing University College Dublin'), 'Diploma in Marketing | University College Dublin')
  t.is(splitFieldSchool('Bachelor of Education Trinity College Dublin'), 'Bachelor of Education | Trinity College Dublin')
  // no field before the school: left as it is
  t.is(splitFieldSchool('Anna University'), 'Anna University')
  const text = `Ravi Kumar Hyderabad Telangana  ${'Experience managing servers and backups for many clients  '.repeat(4)}Work Experience Database Administrator Tata Consultancy Services  Hyderabad Telangana June 2019 to Present  Managed backups Education Masters in Computer Application Indira Gandhi National Open University BCA in Computer Application Osmania University  Hyderabad Telangana Skills  SQL  Linux`
  t.true(isFlattened(text))
  t.true(reflow(text).includes('\nWork Experience\n'))
  const p = parseResume(text)
  t.deepEqual(p.work_experience?.map((w) => [w.title, w.company]), [['Database Administrator', 'Tata Consultancy Services']])
  t.deepEqual(p.education?.map((e) => [e.degree, e.institution]), [
    ['Masters in Computer Application', 'Indira Gandhi National Open University'],
    ['BCA in Computer Application', 'Osmania University'],
  ])
})

for (const layout of ['text-flattened', 'text-builder']) {
  test(`generated corpus, ${layout}: field F1 at least 0.85 over 16 resumes`, async (t) => {
    const truths = generateTruths().slice(0, 32)
    const plan = corpusPlan(truths.length).filter((p) => p.layout === layout)
    let tp = 0, fp = 0, fn = 0
    for (const item of plan) {
      const f = await renderOne(truths[item.truthIndex], item)
      const read = await readResume(f.bytes, f.contentType)
      const c = sumFields(scoreResume(f.expected, parseResume(read.text)).counts)
      tp += c.tp; fp += c.fp; fn += c.fn
    }
    t.true(plan.length >= 16)
    const f1 = prf({ tp, fp, fn, exact: 0 }).f1
    t.true(f1 >= 0.85, `F1 ${f1.toFixed(3)}`)
  })
}
