/**
 * Shapes of flattened job-site exports and builder layouts that the generated corpus renders:
 * a job's header run on from the previous job's last bullet, a "&" stripped inside a name, the
 * site's field written after the degree, schools' lines stacked, and the truth's sets of values.
 */
import test from 'ava'
import { cutJobHeader, flatJobLines } from '../../ingest/resume/flat-jobs.ts'
import { extractEducation } from '../../ingest/resume/extract/education.ts'
import { readHead, unglueRole } from '../../ingest/resume/extract/experience.ts'
import { splitFieldSchool } from '../../ingest/resume/reflow.ts'
import { parseResume } from '../../ingest/resume/parse.ts'
import { findDateRange } from '../../ingest/resume/dates.ts'
import { scoreResume } from '../eval/resume-score.ts'

test('cutJobHeader: place, employer and title read back from the dates; the bullet before them kept', (t) => {
  t.deepEqual(cutJobHeader('Tuned queries for the reporting team Lead Database Administrator Northwind Data Services  Hyderabad Telangana '), {
    tail: ['Tuned queries for the reporting team'], title: 'Lead Database Administrator', company: 'Northwind Data Services', place: 'Hyderabad, Telangana',
  })
  // a word that opens titles starts the title: what comes before it is the bullet's
  t.is(cutJobHeader('Wrote the shipping rates module Senior PHP Developer Orbit Labs  Ahmedabad Gujarat ').title, 'Senior PHP Developer')
  // an employer in lower case, told by its company word
  t.deepEqual(cutJobHeader('Assistant Network Engineer bluepeak netcom technologies  Mumbai Maharashtra '), {
    tail: [], title: 'Assistant Network Engineer', company: 'bluepeak netcom technologies', place: 'Mumbai, Maharashtra',
  })
  // a "&" stripped from the title leaves a gap inside it
  t.is(cutJobHeader(' Hardware  Network Engineer Orion Solutions  Pune Maharashtra ').title, 'Hardware Network Engineer')
  // capitals beside a title in title case end the bullet; a title in capitals keeps its capitals
  t.is(cutJobHeader('Installed LAN cabling  PREVIOUS EMPLOYER Support Engineer Brightline Infotech ').title, 'Support Engineer')
  t.is(cutJobHeader('Moved the nightly backups to Cloudvault SOFTWARE ENGINEER QA Softworks  Noida Uttar Pradesh ').title, 'SOFTWARE ENGINEER')
  // a town written after a legal form without a gap is the place
  t.deepEqual(cutJobHeader(' Test Engineer Greenleaf Softlabs Private Limited Pune '), {
    tail: [], title: 'Test Engineer', company: 'Greenleaf Softlabs Private Limited', place: 'Pune',
  })
  // no role word: a run in capitals before the dates is the employer
  t.deepEqual(cutJobHeader('Kept the inventory of spare parts SILVERLINE PC SERVICES  Thrissur Kerala '), {
    tail: ['Kept the inventory of spare parts'], company: 'SILVERLINE PC SERVICES', place: 'Thrissur, Kerala',
  })
})

test('flatJobLines: a header that runs on from a bullet still opens a job; dates inside a bullet do not', (t) => {
  const lines = flatJobLines(' Data Intern Larkspur Works  Pune Maharashtra June 2020 to September 2020  Migrated mail from 2014 to 2016 archives  Set up IAM roles Software Developer Vektor Labs  Pune Maharashtra August 2018 to May 2019  Built websites')
  t.deepEqual(lines?.filter((l) => l.includes(' | ')), [
    'Data Intern | Larkspur Works | Pune, Maharashtra | June 2020 to September 2020',
    'Software Developer | Vektor Labs | Pune, Maharashtra | August 2018 to May 2019',
  ])
  t.true(lines?.includes('• Migrated mail from 2014 to 2016 archives'))
  t.true(lines?.includes('• Set up IAM roles'))
  t.is(flatJobLines('Managed servers for many clients'), null)
})

test('a flattened resume whose second job runs on from the first one\'s last bullet', (t) => {
  const text = `Meera Iyer Chennai Tamil Nadu  ${'Engineer with experience in storage and backups for clients  '.repeat(4)}Work Experience Storage Engineer Coral Data Systems  Chennai Tamil Nadu March 2020 to Present  Automated the nightly backups Reduced restore times Senior Database Administrator Bluefin Analytics May 2016 to February 2020  Planned capacity Education Bachelor of Technology in Computer Science in Science Kaveri Valley University  Chennai Tamil Nadu June 2012 to May 2016 Skills  Linux  SQL`
  const p = parseResume(text)
  t.deepEqual(p.work_experience?.map((w) => [w.title, w.company, w.start_date, w.end_date]), [
    ['Storage Engineer', 'Coral Data Systems', '2020-03', 'Present'],
    ['Senior Database Administrator', 'Bluefin Analytics', '2016-05', '2020-02'],
  ])
  t.deepEqual(p.education?.map((e) => [e.degree, e.institution]), [['Bachelor of Technology in Computer Science', 'Kaveri Valley University']])
})

test('flattened schools: an abbreviation alone or before "in" is a degree; a name split by a stripped "&" is joined', (t) => {
  t.is(splitFieldSchool('PGDCA Narmada Valley University'), 'PGDCA | Narmada Valley University')
  t.is(splitFieldSchool('BECSE in CSE Kaveri Valley University'), 'BECSE in CSE | Kaveri Valley University')
  t.is(splitFieldSchool('Bachelor of Engineering in Chemical in Engineer Satpura Institute of Science'), 'Bachelor of Engineering in Chemical | Satpura Institute of Science')
  // a field of two words after the second "in" is the field itself
  t.is(splitFieldSchool('Bachelor in Technology in Computer Engineering Sahyadri College of Engineering'), 'Bachelor in Technology in Computer Engineering | Sahyadri College of Engineering')
  const p = parseResume(`Asha Rao Indore  ${'Engineer who enjoys building networks for schools  '.repeat(4)}Work Experience Network Engineer Tall Pines Networks  Indore Madhya Pradesh October 2019 to Present Education Bachelor of Engineering in Information Technology Vindhya Institute of Science  Technology  Indore Madhya Pradesh June 2010 to May 2014 Skills  Routing`)
  t.deepEqual(p.education?.map((e) => e.institution), ['Vindhya Institute of Science Technology'])
})

test('builder schools: stacked lines split into entries, a glued year, a country after the school, a field under a bare degree', (t) => {
  const eds = extractEducation(['MBA : Marketing 2011 Northgate Business School India Marketing', 'B.Com2008 Lakeside University India'])
  t.deepEqual(eds.map((e) => [e.degree, e.institution, e.location, e.end_date]), [
    ['MBA in Marketing', 'Northgate Business School', 'India', '2011'],
    ['B.Com', 'Lakeside University', 'India', '2008'],
  ])
  t.like(extractEducation(['Ph.D. : Retail Management 96 credit hours earned - Expected 2021 Brookfield State University'])[0], { degree: 'Ph.D. in Retail Management' })
  t.like(extractEducation(['Elm Park High School | City High School Diploma 05/2008'])[0], { degree: 'High School Diploma' })
  t.like(extractEducation(['Bachelor of Science', 'Sociology', 'Harbor State University'])[0], { degree: 'Bachelor of Science in Sociology', institution: 'Harbor State University' })
  // "Institute of Technology" is a whole name, even after "in Technology"
  t.like(extractEducation(['Bachelor of Technology in Technology | R K Institute of Technology'])[0], { institution: 'R K Institute of Technology' })
  t.deepEqual(findDateRange('June of 2011'), { end_date: '2011-06', rest: '' })
})

test('a dated line that opens with a verb and goes on in lower case is a bullet, not a job', (t) => {
  const p = parseResume(['Experience', 'Company Name - Music Teacher City , State 09/2009 - 06/2011', 'Taught 3rd grade (2009-2010 school year).', 'Taught 5th grade (2010-2011 school year)'].join('\n'))
  t.deepEqual(p.work_experience?.map((w) => w.title), ['Music Teacher'])
})

test('scoreResume: a truth that lists each value once counts the parse\'s repeats once', (t) => {
  const parsed = { version: 'v1' as const, work_experience: [{ title: 'Network Engineer' }, { title: 'Network Engineer' }] }
  t.is(scoreResume({ titles: ['Network Engineer'], distinct: true }, parsed).counts.work_title.fp, 0)
  t.is(scoreResume({ titles: ['Network Engineer'] }, parsed).counts.work_title.fp, 1)
})

test('builder titles: a department after a dash, a space lost before the role word, an employer in lower case after the title', (t) => {
  t.like(readHead(['Company Name | City , State Store Buyer - Outdoor and Garden 03/2014 to 12/2016']), { title: 'Store Buyer - Outdoor and Garden', company: 'Company Name' })
  // "Title - Company": the part after the dash is the employer when nothing else is
  t.like(readHead(['Network Engineer - Brightwave 2019 - 2021']), { title: 'Network Engineer', company: 'Brightwave' })
  t.like(readHead(['OfficeManager Company Name | City , State 04/2013 to 11/2014']), { title: 'Office Manager' })
  t.is(unglueRole('PowerPoint and JavaScript'), 'PowerPoint and JavaScript')
  t.like(readHead(['Assistant Store Manager northfield outfitters', 'March 2011 to July 2013 Company Name | City , State']), { title: 'Assistant Store Manager' })
  t.like(readHead(['Head Coach northfield rowing club', '2012 - 2014']), { title: 'Head Coach', company: 'northfield rowing club' })
  // a title in lower case keeps its words
  t.like(readHead(['Senior sales associate', 'Brightwave Retail 2012 - 2014']), { title: 'Senior sales associate' })
})

test('builder bullets: a note with a year alone that ends as a sentence stays in the job above', (t) => {
  const p = parseResume(['Experience', 'Gym Manager', 'April 2008 to September 2013 Company Name ï¼ City , State', 'Supervised a staff of twelve trainers.', 'Received Regional Service Award - 2010.', 'Club Coordinator', 'January 2002 to April 2008 Company Name ï¼ City , State', 'Taught group classes.'].join('\n'))
  t.deepEqual(p.work_experience?.map((w) => w.title), ['Gym Manager', 'Club Coordinator'])
})

test('flattened titles: a title in capitals with a stripped "&", a list of skills run on before a title', (t) => {
  t.is(cutJobHeader('Monitored hosts with Nagios and KibanaStack QA TOOLS  BUILD ENGINEER Cloudline Technologies  Noida Uttar Pradesh ').title, 'QA TOOLS BUILD ENGINEER')
  t.is(cutJobHeader('Queued jobs with Ruby Rails Sidekiq Redis IT Support Engineer Arcadia Softlabs Pvt Ltd  Indore Madhya Pradesh ').title, 'IT Support Engineer')
  // right after the heading, every word before the role word is the title's
  t.is(cutJobHeader(' PLSQL Database Developer Northwind Data ').title, 'PLSQL Database Developer')
  // a run no longer than a title is kept whole
  t.is(cutJobHeader('Handled the backups Cloud Infrastructure Support Engineer Northwind Data ').title, 'Cloud Infrastructure Support Engineer')
})

test('flattened school levels: each opens an entry, the level its degree, the school after it', (t) => {
  const p = parseResume(`Kiran Das Pune  ${'Support engineer who looks after networks and servers  '.repeat(4)}Work Experience Network Engineer Blue Delta Networks  Pune Maharashtra May 2019 to Present  Ran the LAN Education BTech in Computer Science Western Institute of Technology 2020 Higher Secondary12th Pass Riverside Public School 2016 Secondary10th Pass Green Meadows High School 2014 Skills  Linux`)
  t.deepEqual(p.education?.map((e) => [e.degree, e.institution]), [
    ['BTech in Computer Science', 'Western Institute of Technology'],
    ['Higher Secondary (12th Pass)', 'Riverside Public School'],
    ['Secondary (10th Pass)', 'Green Meadows High School'],
  ])
  const q = parseResume(`Kiran Das Pune  ${'Support engineer who looks after networks and servers  '.repeat(4)}Work Experience Network Engineer Blue Delta Networks  Pune Maharashtra May 2019 to Present  Ran the LAN Education Class XII in Science Hilltop Higher Secondary School 2014 Class X Hilltop Higher Secondary School 2012 Skills  Linux`)
  t.deepEqual(q.education?.map((e) => e.institution), ['Hilltop Higher Secondary School', 'Hilltop Higher Secondary School'])
})

test('flattened jobs spent with clients: each client, with its dates or the job\'s, and the role held there is an entry', (t) => {
  const lines = flatJobLines(' Cloud Engineer Northwind Services September 2019 to Present Client Harborline Insurance Jan 2021  Present Role Integration Engineer Responsibilities  Moved the mail servers Client Kestrel Freight Team size 5 Role Support Analyst Responsibilities  Ran the backups  Role Based Access Control set up for the team')
  t.deepEqual(lines?.filter((l) => l.includes(' | ')), [
    'Cloud Engineer | Northwind Services | September 2019 to Present',
    'Integration Engineer | Harborline Insurance | Jan 2021 - Present',
    'Support Analyst | Kestrel Freight | September 2019 to Present',
  ])
  // "Client" in prose names no client
  t.deepEqual(flatJobLines(' Engineer Northwind Services May 2019 to Present Client Focus Groups run every quarter')?.filter((l) => l.includes(' | ')), ['Engineer | Northwind Services | May 2019 to Present'])
})

test('the anonymized employer "Company Name" is never a title', (t) => {
  const head = readHead(['Harbor Paint and Frame Store', 'August 2015 to Current Company Name | City , State'])
  t.is(head.title, undefined)
  t.is(head.company, 'Harbor Paint and Frame Store')
})

test('the anonymized employer run on after a title is cut from it', (t) => {
  t.like(readHead(['Head of Sales Company Name', '01/2015 to 02/2018 City , State']), { title: 'Head of Sales', company: 'Company Name' })
})

test('flattened schools: a degree abbreviation written with a space, a school level before the school\'s name', (t) => {
  t.is(splitFieldSchool('B Tech in Computer Science and Engineering RVU'), 'B Tech in Computer Science and Engineering | RVU')
  const p = parseResume(`Ravi Teja Guntur  ${'Graduate who builds small web tools and enjoys learning  '.repeat(4)}Work Experience Software Intern Lakeview Apps  Guntur Andhra Pradesh June 2022 to September 2022  Built forms Education B Tech in Computer Science and Engineering Coastal Institute of Technology 2022 Secondary Education Sunrise Model High School 2016 Skills  Python`)
  t.deepEqual(p.education?.map((e) => [e.degree, e.institution]), [
    ['B Tech in Computer Science and Engineering', 'Coastal Institute of Technology'],
    ['Secondary Education', 'Sunrise Model High School'],
  ])
})

test('flattened jobs: a specialty after the role word before "in" and the employer; a town in lower case after a gap', (t) => {
  t.like(cutJobHeader('Tuned the cell sites Support Engineer L2 in Brightlink Telecom private Limited  jaipur '), { title: 'Support Engineer L2', company: 'Brightlink Telecom private Limited', place: 'Jaipur' })
  // a lower-case word that is no town stays where it is
  t.like(cutJobHeader(' Support Engineer Brightlink Telecom  remotely '), { title: 'Support Engineer' })
})
