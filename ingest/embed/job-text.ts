/**
 * The text a job's vector embeds: the title, then the key fields (company, place,
 * skills and technologies, categories), then the description as plain text, in
 * sentences, cut at MAX_TEXT_CHARS on a word boundary. The key fields come first so
 * that every model reads them: USE lite reads only about the first 500 characters.
 *
 * e.g. { job_title: 'Senior Backend Engineer', company: 'Acme', locations: [{ city: 'Berlin',
 *   region: 'Berlin', country: 'Germany' }], location_type: 'Hybrid', skills: ['Python'],
 *   technologies: ['PostgreSQL', 'python'], job_categories: ['Software Engineer Jobs'],
 *   description: '<h3>About us</h3><p>We build payments.</p><ul><li>Own the API</li></ul>' }
 *   → 'Senior Backend Engineer. Acme, Berlin, Germany (Hybrid). Skills: Python, PostgreSQL.
 *      Categories: Software Engineer. About us. We build payments. Own the API.'
 *
 * Pure: ingest and `make embed` both build it from the stored job, so a job's text
 * does not depend on which of them embeds it. The trigger jobs_embedding_stale drops a job's
 * vector when one of these fields changes; a field added here must be added there.
 */
import { createHash } from 'node:crypto'
import { sanitizeDescription } from '../transform/sanitize-description.ts'

/** Long enough for the description's substance past the key fields (bge reads 512 tokens, about 2,000 characters); USE reads less. */
export const MAX_TEXT_CHARS = 2_000
const MAX_PLACES = 3
const MAX_SKILLS = 20

export type JobTextFields = {
  job_title: string
  company: string
  locations: { city: string | null; region: string | null; country: string | null }[]
  location_type: string | null
  remote_countries: string[]
  skills: string[]
  technologies: string[]
  job_categories: string[]
  description: string
}

const sentence = (s: string) => (/[.!?:;]$/.test(s) ? s : `${s}.`)

function unique(values: string[]) {
  const seen = new Set<string>()
  return values.filter((v) => {
    const k = v.trim().toLowerCase()
    return k !== '' && !seen.has(k) && seen.add(k)
  })
}

/** "Berlin, Germany (Hybrid)"; a region that repeats its city ("Berlin, Berlin") is said once. */
function place(j: JobTextFields) {
  const names = unique(j.locations.map((l) => unique([l.city, l.region, l.country].filter((x): x is string => !!x)).join(', '))).slice(0, MAX_PLACES)
  if (j.location_type === 'Remote') return ['Remote', ...(j.remote_countries.length ? [j.remote_countries.join(', ')] : names)].join(', ')
  const where = names.join('; ')
  if (j.location_type === 'Hybrid') return where ? `${where} (Hybrid)` : 'Hybrid'
  return where
}

export function jobText(j: JobTextFields): string {
  const skills = unique([...j.skills, ...j.technologies]).slice(0, MAX_SKILLS)
  const categories = j.job_categories.filter((c) => c !== 'Other').map((c) => c.replace(/ Jobs$/, ''))
  const where = place(j)
  const parts = [
    sentence(j.job_title.trim()),
    sentence([j.company, where].filter(Boolean).join(', ')),
    skills.length ? sentence(`Skills: ${skills.join(', ')}`) : '',
    categories.length ? sentence(`Categories: ${categories.join(', ')}`) : '',
    ...sanitizeDescription(j.description).blocks.map(sentence),
  ]
  const text = parts.filter(Boolean).join(' ')
  if (text.length <= MAX_TEXT_CHARS) return text
  const cut = text.slice(0, MAX_TEXT_CHARS)
  const space = cut.lastIndexOf(' ')
  return space > MAX_TEXT_CHARS / 2 ? cut.slice(0, space) : cut
}

/** The cache key of a text (hex). */
export const textSha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex')
