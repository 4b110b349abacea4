import test from 'ava'
import { mapJobType, jobTypeFromTitle } from '../../ingest/transform/job-type.ts'
import { mapLocationType, inferLocationType } from '../../ingest/transform/location-type.ts'
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
