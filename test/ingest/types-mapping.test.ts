import test from 'ava'
import { mapJobType, jobTypeFromTerms, jobTypeFromTitle } from '../../ingest/transform/job-type.ts'
import { mapLocationType, inferLocationType, statedLocationType } from '../../ingest/transform/location-type.ts'
import type { JobType, LocationType } from '../../ingest/types.ts'

test('job types', (t) => {
  const cases: [string, JobType | null][] = [
    ['full-time', 'Full Time'], ['FULL_TIME', 'Full Time'], ['Full Time', 'Full Time'], ['permanent', 'Full Time'],
    ['part-time', 'Part Time'], ['PART_TIME', 'Part Time'], ['contract', 'Contract / Temporary'], ['contractor', 'Contract / Temporary'],
    ['temporary', 'Contract / Temporary'], ['TEMPORARY', 'Contract / Temporary'], ['freelance', 'Contract / Temporary'],
    ['internship', 'Internship'], ['intern', 'Internship'], ['INTERN', 'Internship'], ['Volunteer', null], ['', null],
  ]
  for (const [input, expected] of cases) t.is(mapJobType([input]), expected, input)
  t.is(mapJobType(['VOLUNTEER', 'PART_TIME']), 'Part Time')
  t.is(mapJobType(['Full-time or part-time']), 'Full Time')
})

test('job type from title', (t) => {
  t.is(jobTypeFromTitle('Software Engineering Intern'), 'Internship')
  t.is(jobTypeFromTitle('Contract Java Developer'), 'Contract / Temporary')
  t.is(jobTypeFromTitle('Part-Time Cashier'), 'Part Time')
  t.is(jobTypeFromTitle('Internal Auditor'), null)
})

test('location types', (t) => {
  const cases: [string, LocationType | null][] = [
    ['remote', 'Remote'], ['Remote', 'Remote'], ['fully remote', 'Remote'], ['work from home', 'Remote'], ['TELECOMMUTE', 'Remote'],
    ['hybrid', 'Hybrid'], ['Hybrid (3 days in office)', 'Hybrid'], ['on-site', 'In-Person'], ['onsite', 'In-Person'], ['On-site', 'In-Person'],
    ['in office', 'In-Person'], ['in-person', 'In-Person'], ['unknown', null],
  ]
  for (const [input, expected] of cases) t.is(mapLocationType(input), expected, input)
  t.is(inferLocationType({ remote: true, hybrid: false, onsite: false }), 'Remote')
  t.is(inferLocationType({ remote: true, hybrid: true, onsite: false }), 'Hybrid')
  t.is(inferLocationType({ remote: false, hybrid: false, onsite: false }), null)
})

test('job type from UK public-sector terms: temporary posts first, then the weekly hours', (t) => {
  const cases: [string, string, JobType | null][] = [
    ['Bank Staff Nurse', '', 'Contract / Temporary'],
    ['Physiotherapist', 'We have an opportunity for Band 7 practitioners to join our Bank. Bank Contract', 'Contract / Temporary'],
    ['Workforce Planning Support Analyst', 'Agenda for Change Band 4. Fixed Term/ Secondment – 4 Months', 'Contract / Temporary'],
    ['Locum Specialty Doctor in Oral Surgery', 'Full Time (10 Sessions)', 'Contract / Temporary'],
    ['Staff Nurse', '25 days annual leave plus 8 bank holidays; shifts include bank holidays', null],
    ['Support Worker', 'WE CAN OFFER FULL TIME, PART TIME, NIGHT ONLY AND BANK POSITIONS.', null],
    ['Advanced Physiotherapist', 'Advanced Physiotherapist - 27 hours per week', 'Part Time'],
    ['Associate Practitioner', 'Band 4 Associate Practitioner 18.75 hours An exciting permanent opportunity', 'Part Time'],
    ['Occupational Therapist - Band 7', 'Band: 7 Hours: 15 hours', 'Part Time'],
    ['RMN - 25 Hours - Ellesmere Port', '', 'Part Time'],
    ['Dietitian', 'This part time (0.5wte) post would suit a specialist', 'Part Time'],
    ['Consultant Psychiatrist', 'The post is for 5 PAs Consultant Post', 'Part Time'],
    ['Community Sister', 'This post is for a part time experienced nurse', 'Part Time'],
    ['Dental Nurse', 'an opportunity for a part time Band 4 nurse. This is a Permanent position for 37.5 hours per week', 'Full Time'],
    ['Registered Nurse', 'This is a Full Time role for 37.5 hours a week. Standard shifts are 12 hours a day', 'Full Time'],
    ['Speech and Language Therapist', 'With a variety of part time hours available to support work life balance', null],
    ['Recovery Practitioner', 'Its a 24 hours service department, calls answered within 24 hours', null],
    ['Staff Nurse', 'secondment to study at the local tertiary hospitals; if you are applying for a post as a BANK worker, pay in full', null],
    ['Consultant in Emergency Medicine', 'A substantive position; candidates working at Consultant level on a locum basis are welcome', null],
    ['Staff Nurse', 'We can offer fixed term or permanent contracts and flexible working', null],
    ['Management Accountant', 'Fixed Term Contract or Secondment until the 30th June 2021', 'Contract / Temporary'],
    ['Consultant Psychiatrist', 'protected time for Supporting Professional Activities (2.5 PA in the first year)', null],
    ['Clinical Psychologist', 'a 1.0 WTE Band 8a clinical psychology position in a team of 2.6wte', null],
    ['Admin & Clerical Officer', 'cover for a 7 day service with a mix of 7.5 hour and 12.5 hour shifts', null],
    ['Occupational Therapist', 'The service operates 8-20.30 hours weekdays', null],
    ['Deputy Head of Medicines Optimisation', 'We will consider applications on a part-time or job share basis.', null],
  ]
  for (const [title, text, type] of cases) t.is(jobTypeFromTerms(title, text), type, `${title}: ${text}`)
})

test('the arrangement a description states, not the word alone', (t) => {
  const cases: [string, LocationType | null][] = [
    ['This is a fully remote role open to US residents.', 'Remote'],
    ['Remote-first team; work from anywhere.', 'Remote'],
    ['Hybrid (3 days in office), Denver.', 'Hybrid'],
    ['We work 2 days a week in the office.', 'Hybrid'],
    ['This is not a remote position; the role is on-site in Denver.', 'In-Person'],
    ['This position is on-site at our plant.', 'In-Person'],
    ['Experience with Remote Patient Monitoring and hybrid cloud.', null],
    ['Service remote-controlled pumps.', null],
  ]
  for (const [text, type] of cases) t.is(statedLocationType(text), type, text)
  t.is(mapLocationType('Work from office'), 'In-Person')
  t.is(mapJobType(['perdiem']), 'Contract / Temporary')
  t.is(mapJobType(['fulltime, parttime']), 'Full Time')
  t.is(mapJobType(['volunteer']), null)
})
