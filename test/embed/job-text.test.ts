/** The texts a job's vector embeds (ingest/embed/job-text.ts), and the vector form every provider returns. */
import test from 'ava'
import { EMBEDDING_DIM, toContractVector } from '../../ingest/embed/embedder.ts'
import { jobTexts, MAX_BODY_CHARS, textSha256 } from '../../ingest/embed/job-text.ts'
import type { JobTextFields } from '../../sql/embeddings.ts'

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

test('the title alone, and a body of the title, skills, categories and the description as sentences', (t) => {
  t.deepEqual(jobTexts(job()), {
    title: 'Senior Backend Engineer',
    body: 'Senior Backend Engineer. Skills: Python, PostgreSQL. Categories: Software Engineer. About us.',
  })
})

test('the company, places and empty fields are left out', (t) => {
  t.deepEqual(jobTexts(job({ location_type: 'Remote', remote_countries: ['United States'], skills: [], technologies: [], job_categories: ['Other'], description: '' })), {
    title: 'Senior Backend Engineer',
    body: 'Senior Backend Engineer.',
  })
  t.is(jobTexts(job({ skills: [], technologies: [], job_categories: [], description: 'Plain text.' })).body, 'Senior Backend Engineer. Plain text.')
})

test('the body is cut at a word boundary within MAX_BODY_CHARS, with the key fields first', (t) => {
  const { body } = jobTexts(job({ description: `<p>${'word '.repeat(2000)}</p>` }))
  t.true(body.length <= MAX_BODY_CHARS)
  t.true(body.length > MAX_BODY_CHARS - 10)
  t.true(body.endsWith('word'))
  t.true(body.startsWith('Senior Backend Engineer. Skills: Python, PostgreSQL. Categories'))
})

test('the cache key is the sha256 of the text', (t) => {
  t.is(textSha256('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
  t.not(textSha256(jobTexts(job()).body), textSha256(jobTexts(job({ skills: ['Go'] })).body))
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
