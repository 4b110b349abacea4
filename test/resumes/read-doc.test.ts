/**
 * DOC files keep what structure word-extractor gives: headers first, table cells and tab
 * stops as " | "-separated fields, text boxes after the body; and a real DOC file still reads.
 */
import test from 'ava'
import { readFileSync } from 'node:fs'
import { docLines } from '../../ingest/resume/read-doc.ts'
import { parseResume } from '../../ingest/resume/parse.ts'
import { readResume } from '../../ingest/resume/read.ts'

const none = { headers: '', headerTextboxes: '', body: '', textboxes: '' }

test('table cells and tab stops become fields of one line; text boxes follow the body, header text boxes the headers, a blank line between parts', (t) => {
  const lines = docLines({
    headers: 'Jordan Table\n',
    headerTextboxes: 'jordan@example.com\n',
    // word-extractor ends each cell with a tab, and each row with one more
    body: 'Experience\nSenior Engineer\tAcme Corp\tJan 2019 - Present\t\t\nBuilt the billing service.\n',
    textboxes: 'Skills\nPython, Go\n',
  })
  t.deepEqual(lines, [
    'Jordan Table',
    '',
    'jordan@example.com',
    '',
    'Experience',
    'Senior Engineer | Acme Corp | Jan 2019 - Present',
    'Built the billing service.',
    '',
    'Skills',
    'Python, Go',
  ])
})

test('a work entry read from a DOC table row parses as the same entry written on one line', (t) => {
  const body = 'Jordan Table\njordan@example.com\n\nExperience\nSenior Engineer\tAcme Corp\tJan 2019 - Present\t\t\nBuilt the billing service for 40 countries.\n'
  const parsed = parseResume(docLines({ ...none, body }).join('\n'))
  t.like(parsed.work_experience?.[0], { title: 'Senior Engineer', company: 'Acme Corp', start_date: '2019-01', end_date: 'Present' })
})

test('a DOC file without tables or text boxes reads as before', async (t) => {
  const r = await readResume(readFileSync(new URL('../fixtures/resumes/sample.doc', import.meta.url)), 'application/msword')
  t.is(r.text.split('\n')[0], 'Riley Wordsmith')
  t.true(r.text.includes('Senior Engineer, Initech (2019 - 2023)'))
})
