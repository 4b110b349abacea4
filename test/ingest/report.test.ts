/** A data engineer's view of a feed (issue 16, part 3): every problem of a rejected row, and the --report. */
import test from 'ava'
import { isRejection, normalizePosting } from '../../ingest/normalize.ts'
import { reasonGroup } from '../../ingest/pipeline.ts'
import { IngestReport } from '../../ingest/report.ts'
import type { Posting, RawPosting } from '../../ingest/types.ts'

const now = new Date('2020-06-01T12:00:00Z')

function posting(overrides: RawPosting): Posting {
  const p = normalizePosting({ job_title: 'Staff Nurse', company: { name: 'Leeds Teaching Hospitals' }, job_board: 'NHS Jobs', date_posted: '2020-05-01', ...overrides }, { now })
  if (isRejection(p)) throw new Error(p.reason)
  return p
}

test('a rejected posting lists all its problems, the first one being its reason', (t) => {
  const r = normalizePosting({ job_title: 7, company: { name: 'Acme', size_range: 'huge' }, date_posted: 'soon', visa_sponsored: 'maybe', job_board: 'B' }, { now })
  t.true(isRejection(r))
  if (!isRejection(r)) return
  t.is(r.reason, 'job_title: required non-empty string')
  t.deepEqual(r.problems?.map((p) => p.split(':')[0]), ['job_title', 'company.size_range', 'date_posted', 'visa_sponsored'])
  // one problem: no list
  const one = normalizePosting({ job_title: 'x', company: 'Acme', job_board: 'B' }, { now })
  t.deepEqual(one, { reason: 'company: required object with a name' })
  // a missing company and no board: both, and the title is fine
  const two = normalizePosting({ job_title: 'Nurse' }, { now })
  t.like(two, { problems: ['company: required object with a name', 'job_board: required non-empty string (or a job_board_link or application_link to name the board by)'] })
})

test('reject reasons are grouped without their numbers and quoted values', (t) => {
  t.is(reasonGroup('invalid JSON: Unexpected token } in JSON at position 37'), 'invalid JSON')
  t.is(reasonGroup('invalid CSV: Invalid Closing Quote: got "x" at line 4'), 'invalid CSV')
  t.is(reasonGroup('job_title: required non-empty string'), 'job_title: required non-empty string')
  t.is(reasonGroup('database refused it: value "99999999999" is out of range'), 'database refused it: value "…" is out of range')
})

test('the report counts filled fields and finds the values worth a look, with examples', (t) => {
  const report = new IngestReport()
  const rows: RawPosting[] = [
    { salary: '£31,365 - £37,890,000 a year', location_raw: 'Leeds' },
    { salary: '£13.54-£27.85', location_raw: 'Full-time' },
    { job_title: 'Operations Analyst - New York', locations: [{ city: 'Atlantis' }] },
    { job_title: 'Forklift Operator (m/f/d) - URGENT | Berlin' },
    { job_title: 'Ninja', company: { name: 'Acme' }, description: 'Great team.' },
    { job_title: 'Senior Manager &amp;#8211; Solutions Architect', salary_range: { min: 5, max: 5, currency: 'GBP' } },
  ]
  report.add(rows.map((raw, i) => ({ line: i + 1, posting: posting(raw) })))
  const { postings, filled, found } = report.counts
  t.is(postings, 6)
  t.is(filled.job_title, 6)
  t.is(filled.salary, 3)
  t.is(filled['salary (annualized)'], 1) // '£13.54-£27.85': hourly by its size
  t.like(found['salary out of bounds for its period (kept as stated, not annualized)'], { count: 1, examples: ['line 1: GBP 31365–37890000 yearly'] })
  t.like(found['salary without a period (kept as stated, not annualized)'], { count: 1, examples: ['line 6: GBP 5'] })
  t.like(found['salary of a few whole units, not hourly or daily (a pay band or grade read as pay?)'], { count: 1, examples: ['line 6: GBP 5'] })
  t.like(found['location text that is not a place (kept in location_raw only)'], { count: 1, examples: ['line 2: "Full-time"'] })
  // a place the gazetteer does not know is not stored as one
  t.is(found['location without a country'].count, 0)
  t.is(filled.locations, 3)
  // decorations, a trailing place and a decoded entity are no lost words; "New" is never dropped
  t.is(found['title that lost words in cleaning'].count, 0)
  t.is(found['HTML entity left in a title, company name or location'].count, 0)
  t.like(found['no category fits (Other)'], { count: 1, examples: ['line 5: "Ninja"'] })
  const text = report.format()
  t.regex(text, /^report: 6 postings normalized/)
  t.regex(text, /^salary\s+50\.0 %\s+3$/m)
  t.regex(text, /^\s+1 {2}no category fits \(Other\)\n\s+line 5: "Ninja"$/m)
})
