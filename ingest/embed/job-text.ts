/**
 * The texts a job's vector embeds. A job's vector is the normalized sum of two vectors
 * of the model (sql/embeddings.ts, updateJobEmbeddingsFromCache):
 *   - the title alone, which is what short queries ("product manager", "paediatric
 *     nurse") are about;
 *   - the body: the title, the skills and technologies, the categories and the opening
 *     of the description as plain sentences, cut at MAX_BODY_CHARS on a word boundary,
 *     which places the job by what it involves (resume and similar-job matching).
 * Measured on about 4,000 real postings (docs/vector-search.md, Relevance): with USE lite,
 * the title and the body together rank short queries better than the whole posting
 * (0.64 against 0.49 precision@10 before the query's words count), and at about
 * 30 of its tokens the body costs a quarter of what the 128 tokens it reads at most cost.
 * The company, the places and the employer's boilerplate that opens many descriptions
 * are left out: they made postings of one employer look alike.
 *
 * e.g. { job_title: 'Senior Backend Engineer', skills: ['Python'], technologies: ['PostgreSQL', 'python'],
 *   job_categories: ['Software Engineer Jobs'], description: '<h3>About us</h3><p>We build payments.</p>' }
 *   → title 'Senior Backend Engineer',
 *     body 'Senior Backend Engineer. Skills: Python, PostgreSQL. Categories: Software Engineer. About us.'
 *
 * Pure: ingest and `make embed` both build them from the stored job, so a job's vector
 * does not depend on which of them embeds it. The trigger jobs_embedding_stale drops a
 * job's vector when one of these fields changes; a field added here must be added there.
 */
import { createHash } from 'node:crypto'
import type { JobTextFields } from '../../sql/embeddings.ts'
import { sanitizeDescription } from '../transform/sanitize-description.ts'

/** About 30 USE lite tokens: past the title and key fields, the opening of the description. */
export const MAX_BODY_CHARS = 96
const MAX_SKILLS = 20

export const sentence = (s: string) => (/[.!?:;]$/.test(s) ? s : `${s}.`)

function unique(values: string[]) {
  const seen = new Set<string>()
  return values.filter((v) => {
    const k = v.trim().toLowerCase()
    return k !== '' && !seen.has(k) && seen.add(k)
  })
}

export type JobTexts = { title: string; body: string }

export function jobTexts(j: JobTextFields): JobTexts {
  const title = j.job_title.trim()
  const skills = unique([...j.skills, ...j.technologies]).slice(0, MAX_SKILLS)
  const categories = j.job_categories.filter((c) => c !== 'Other').map((c) => c.replace(/ Jobs$/, ''))
  const parts = [
    sentence(title),
    skills.length ? sentence(`Skills: ${skills.join(', ')}`) : '',
    categories.length ? sentence(`Categories: ${categories.join(', ')}`) : '',
    ...sanitizeDescription(j.description).blocks.map(sentence),
  ]
  return { title, body: cut(parts.filter(Boolean).join(' '), MAX_BODY_CHARS) }
}

/** The text up to `max` characters, cut at the last space when there is one in its second half. */
export function cut(text: string, max: number) {
  if (text.length <= max) return text
  const head = text.slice(0, max)
  const space = head.lastIndexOf(' ')
  return space > max / 2 ? head.slice(0, space) : head
}

/** The cache key of a text (hex). */
export const textSha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex')
