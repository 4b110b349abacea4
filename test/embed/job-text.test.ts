/** The text a job's vector embeds (ingest/embed/job-text.ts), and the vector form every provider returns. */
import test from 'ava'
import { EMBEDDING_DIM, toContractVector } from '../../ingest/embed/embedder.ts'
import { jobText, MAX_TEXT_CHARS, textSha256, type JobTextFields } from '../../ingest/embed/job-text.ts'

const job = (fields: Partial<JobTextFields> = {}): JobTextFields => ({
  job_title: 'Senior Backend Engineer',
  company: 'Acme',
  locations: [{ city: 'Berlin', region: 'Berlin', country: 'Germany' }],
  location_type: 'Hybrid',
  remote_countries: [],
  skills: ['Python'],
  technologies: ['PostgreSQL', 'python'],
  job_categories: ['Software Engineer Jobs'],
  description: '<h3>About us</h3><p>We build payments.</p><ul><li>Own the API</li></ul>',
  ...fields,
})

test('title, key fields, then the description as sentences', (t) => {
  t.is(
    jobText(job()),
    'Senior Backend Engineer. Acme, Berlin, Germany (Hybrid). Skills: Python, PostgreSQL. Categories: Software Engineer. About us. We build payments. Own the API.',
  )
})

test('remote jobs name their countries; on-site jobs up to three places; empty fields are left out', (t) => {
  t.is(jobText(job({ location_type: 'Remote', remote_countries: ['United States', 'Canada'], skills: [], technologies: [], job_categories: ['Other'], description: '' })),
    'Senior Backend Engineer. Acme, Remote, United States, Canada.')
  const places = ['Austin', 'Dallas', 'Houston', 'El Paso'].map((city) => ({ city, region: 'Texas', country: 'United States' }))
  t.regex(jobText(job({ location_type: 'In-Person', locations: places })), /^Senior Backend Engineer\. Acme, Austin, Texas, United States; Dallas, Texas, United States; Houston, Texas, United States\. Skills/)
  t.is(jobText(job({ locations: [], location_type: null, skills: [], technologies: [], job_categories: [], description: 'Plain text.' })), 'Senior Backend Engineer. Acme. Plain text.')
})

test('cut at a word boundary within MAX_TEXT_CHARS, with the key fields first', (t) => {
  const text = jobText(job({ description: `<p>${'word '.repeat(2000)}</p>` }))
  t.true(text.length <= MAX_TEXT_CHARS)
  t.true(text.length > MAX_TEXT_CHARS - 10)
  t.true(text.endsWith('word'))
  t.true(text.startsWith('Senior Backend Engineer. Acme, Berlin'))
})

test('the cache key is the sha256 of the text', (t) => {
  t.is(textSha256('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
  t.not(textSha256(jobText(job())), textSha256(jobText(job({ skills: ['Go'] }))))
})

test('toContractVector zero-pads to 768 and scales to unit length', (t) => {
  const v = toContractVector([3, 4])
  t.is(v.length, EMBEDDING_DIM)
  t.deepEqual(v.slice(0, 3), [0.6, 0.8, 0])
  t.true(v.slice(2).every((x) => x === 0))
  t.throws(() => toContractVector(new Array(EMBEDDING_DIM + 1).fill(1)), { message: /769 numbers per vector/ })
  t.throws(() => toContractVector([0, 0]), { message: /zeros/ })
  t.throws(() => toContractVector([NaN, 1]), { message: /zeros/ })
})
