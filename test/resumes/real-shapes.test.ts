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
  t.is(repairText('Bookkeeper Company Name ï¼ City'), 'Bookkeeper Company Name \ufffd City')
  t.is(repairText('oﬃce ﬁnance，ok'), 'office finance,ok')
  // real accented letters stay
  t.is(repairText('José Ñoño Zoë Ångström'), 'José Ñoño Zoë Ångström')
})

test('splitDegreeSchool: degree, field and school in one run, in either writing', (t) => {
  t.deepEqual(splitDegreeSchool('Master of Science : Curriculum Design'), ['Master of Science in Curriculum Design'])
  t.deepEqual(splitDegreeSchool('Bachelor : Public Administration Halvorsen University'), ['Bachelor in Public Administration', 'Halvorsen University'])
  t.deepEqual(splitDegreeSchool('Masters of Business Administration : Accounting Ridgeway Graduate School of Management'), ['Masters of Business Administration in Accounting', 'Ridgeway Graduate School of Management'])
  t.deepEqual(splitDegreeSchool('High School Diploma Eastbrook High School'), ['High School Diploma', 'Eastbrook High School'])
  t.deepEqual(splitDegreeSchool('BSc in Computer Science Westbrook University'), ['BSc in Computer Science', 'Westbrook University'])
})

test('a builder layout: anonymized places, title and employer either way round, one-line schools', (t) => {
  const p = parseResume([
    'JANE DOE', 'Work History',
    'Company Name - K-12 Program Director City , State 03/2013 - Current', 'Coached new teachers and planned the reading programme for four schools.',
    'Bookkeeper 02/2007 to 09/2010 Company Name ï¼ City , State', 'Closed the books every month and prepared the financial statements for the owners.',
    'Education', '06/2012', 'Lakeshore State University', 'City , State', 'Master of Science : Curriculum Design',
    'Associate of Science : Graphic Arts , 2011 WSCC Pinecrest ï¼ City , State', "Dean's List",
  ].join('\n'))
  t.deepEqual(p.work_experience?.map((w) => [w.title, w.company, w.location]), [
    ['K-12 Program Director', 'Company Name', 'City , State'],
    ['Bookkeeper', 'Company Name', 'City , State'],
  ])
  t.deepEqual(p.education?.map((e) => [e.degree, e.institution, e.end_date]), [
    ['Master of Science in Curriculum Design', 'Lakeshore State University', '2012-06'],
    ['Associate of Science in Graphic Arts', 'WSCC Pinecrest', '2011'],
  ])
})

test('flattened text: headings in running text, entries by their dates, title and employer cut from the text before them', (t) => {
  const text = 'Meera Joshi Pune Maharashtra  Reliable team member with strong Skills  Work Experience Data Intern Larkspur Analytics  Pune Maharashtra June 2020 to September 2020  Built KPI dashboards in Power BI  Tested Azure Functions and Cosmos DB Edge Cloud Software Developer Vektor Labs  Pune Maharashtra August 2018 to May 2019  Built booking pages for local shops Education Master of Science in Computer Science Lakeshore State University  Duluth MN September 2020 to Present Bachelor of Engineering in Electronics Deccan Plateau University  Pune Maharashtra July 2014 to May 2018 Skills  Python  Java'
  t.true(isFlattened(text))
  const p = parseResume(text)
  t.deepEqual(p.work_experience?.map((w) => [w.title, w.company, w.start_date, w.end_date]), [
    ['Data Intern', 'Larkspur Analytics', '2020-06', '2020-09'],
    ['Edge Cloud Software Developer', 'Vektor Labs', '2018-08', '2019-05'],
  ])
  t.deepEqual(p.education?.map((e) => e.degree), ['Master of Science in Computer Science', 'Bachelor of Engineering in Electronics'])
  t.true(p.education?.[1].institution?.startsWith('Deccan Plateau University'))
})

test('flattened schools: the field cut from the school\'s name, one entry per degree, a town alone', (t) => {
  t.is(splitFieldSchool('Bachelors in Computer Science Government Polytechnic College'), 'Bachelors in Computer Science | Government Polytechnic College')
  t.is(splitFieldSchool('Bachelor Degree in Instrumentation and Control Engineering St Clares College of Engineering'), 'Bachelor Degree in Instrumentation and Control Engineering | St Clares College of Engineering')
  t.is(splitFieldSchool('Master of Science in Statistics and Information Sciences University of Northbay'), 'Master of Science in Statistics and Information Sciences | University of Northbay')
  t.is(splitFieldSchool('Masters in Computer Application in Computer Application Sahyadri National Open University'), 'Masters in Computer Application | Sahyadri National Open University')
  t.is(splitFieldSchool('MSc Distributed Systems Politechnika Warszawska'), 'MSc Distributed Systems | Politechnika Warszawska')
  t.is(splitFieldSchool('Diploma in Marketing University College Dublin'), 'Diploma in Marketing | University College Dublin')
  t.is(splitFieldSchool('Bachelor of Education Trinity College Dublin'), 'Bachelor of Education | Trinity College Dublin')
  // no field before the school: left as it is
  t.is(splitFieldSchool('Kaveri Valley University'), 'Kaveri Valley University')
  const text = `Kiran Patil Nagpur Maharashtra  ${'Experience managing servers and backups for many clients  '.repeat(4)}Work Experience Database Administrator Tallyrand Data Services  Nagpur Maharashtra March 2018 to Present  Managed backups Education Masters in Computer Application Sahyadri National Open University BCA in Computer Application Kaveri Valley University  Nagpur Maharashtra Skills  SQL  Linux`
  t.true(isFlattened(text))
  t.true(reflow(text).includes('\nWork Experience\n'))
  const p = parseResume(text)
  t.deepEqual(p.work_experience?.map((w) => [w.title, w.company]), [['Database Administrator', 'Tallyrand Data Services']])
  t.deepEqual(p.education?.map((e) => [e.degree, e.institution]), [
    ['Masters in Computer Application', 'Sahyadri National Open University'],
    ['BCA in Computer Application', 'Kaveri Valley University'],
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
