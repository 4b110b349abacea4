/**
 * A parsed resume's vector and the spec's "Embedding result" around it.
 *
 * The vector follows the job recipe (ingest/embed/job-text.ts), so that a resume and a
 * posting about the same work land close together: the normalized sum of
 *   - the title: the most recent work entry's title (what a job's title is to a job);
 *   - the body: that title, the skills, the other titles and the summary's opening,
 *     cut at the job body's length.
 * A resume without work entries uses its body alone.
 *
 * additional_info carries what the parse found beyond the schema: the job categories
 * nearest the resume (cosine with each category's name embedded by the same model),
 * the experience estimate (features.ts), a completeness breakdown and the reader's
 * warnings.
 */
import categories from '../../seeds/categories.json' with { type: 'json' }
import { EMBEDDING_DIM, type Embedder } from '../embed/embedder.ts'
import { cut, MAX_BODY_CHARS, sentence } from '../embed/job-text.ts'
import { experienceSummary } from './features.ts'
import type { ParsedResume, ResumeText } from './types.ts'

const TOP_CATEGORIES = 3
const MAX_SKILLS = 20

export type EmbeddingResult = {
  embedding: number[]
  dtype: 'resume'
  dim: number
  model_name: string
  model_version: string
  additional_info: AdditionalInfo
}

export type AdditionalInfo = {
  job_categories: { category: string; score: number }[]
  experience_level: { level: string | null; confidence: number }
  total_years_experience: number | null
  score_breakdown: Record<'contact' | 'summary' | 'experience' | 'education' | 'skills' | 'completeness', number>
  warnings: string[]
  pages: number
  ocr: boolean
}

/** The texts the resume's vector embeds; null title when no work entry has one. */
export function resumeTexts(r: ParsedResume): { title: string | null; body: string } {
  const titles = (r.work_experience ?? []).map((w) => w.title?.trim()).filter((t): t is string => !!t)
  const skills = [...new Set((r.skills ?? []).flatMap((g) => g.details))].slice(0, MAX_SKILLS)
  const title = titles[0] ?? null
  const parts = [
    title ? sentence(title) : '',
    skills.length ? sentence(`Skills: ${skills.join(', ')}`) : '',
    titles.length > 1 ? sentence(titles.slice(1).join(', ')) : '',
    r.summary_or_objective ? sentence(r.summary_or_objective) : '',
    ...(r.education ?? []).map((e) => e.degree ?? '').filter(Boolean).map(sentence),
  ]
  const body = cut(parts.filter(Boolean).join(' '), MAX_BODY_CHARS)
  return { title, body: body || 'Resume.' }
}

const norm = (v: number[]) => Math.sqrt(v.reduce((a, x) => a + x * x, 0))

function unit(v: number[]) {
  const n = norm(v)
  return n === 0 ? v : v.map((x) => x / n)
}

const dot = (a: number[], b: number[]) => a.reduce((acc, x, i) => acc + x * b[i], 0)

/** The category names embedded once per model, as the process's first resume asks for them. */
const categoryVectors = new WeakMap<Embedder, Promise<number[][]>>()

function categoryLabels() {
  return (categories as string[]).filter((c) => c !== 'Other').map((c) => c.replace(/ Jobs$/, ''))
}

function embeddedCategories(embedder: Embedder) {
  let p = categoryVectors.get(embedder)
  if (!p) {
    p = embedder.embed(categoryLabels()).then((vs) => vs.map(unit))
    p.catch(() => categoryVectors.delete(embedder))
    categoryVectors.set(embedder, p)
  }
  return p
}

const round = (x: number, digits = 4) => Math.round(x * 10 ** digits) / 10 ** digits

function breakdown(r: ParsedResume): AdditionalInfo['score_breakdown'] {
  const p = r.personal_information?.data ?? {}
  const contact = [p.full_name, p.email, p.phone_number].filter(Boolean).length / 3
  const work = r.work_experience ?? []
  const experience = work.length === 0 ? 0 : work.filter((w) => w.title && w.company && w.start_date).length / work.length
  const education = (r.education ?? []).some((e) => e.degree || e.institution) ? 1 : 0
  const skills = Math.min(1, (r.skills ?? []).reduce((n, g) => n + g.details.length, 0) / 10)
  const summary = r.summary_or_objective ? 1 : 0
  const completeness = 0.25 * contact + 0.3 * experience + 0.15 * education + 0.2 * skills + 0.1 * summary
  return { contact: round(contact), summary, experience: round(experience), education, skills: round(skills), completeness: round(completeness) }
}

/**
 * The resume's vector and its embedding result. `urgent` puts the texts ahead of the
 * background embedding's batches (a client waits for POST /v2/resumes/embed).
 */
export async function embedResume(parsed: ParsedResume, read: Pick<ResumeText, 'warnings' | 'pages' | 'ocr'>, embedder: Embedder, { urgent = false } = {}): Promise<EmbeddingResult> {
  const { title, body } = resumeTexts(parsed)
  const texts = title ? [title, body] : [body]
  const [vectors, cats] = await Promise.all([embedder.embed(texts, { urgent }), embeddedCategories(embedder)])
  const embedding = unit(vectors.reduce((sum, v) => sum.map((x, i) => x + v[i]), new Array<number>(EMBEDDING_DIM).fill(0)))
  const labels = categoryLabels()
  const job_categories = cats
    .map((v, i) => ({ category: `${labels[i]} Jobs`, score: round(dot(embedding, v)) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, TOP_CATEGORIES)
  const exp = experienceSummary(parsed)
  return {
    embedding,
    dtype: 'resume',
    dim: EMBEDDING_DIM,
    model_name: embedder.info.model_name,
    model_version: embedder.info.model_version,
    additional_info: {
      job_categories,
      experience_level: { level: exp.level, confidence: round(exp.confidence, 2) },
      total_years_experience: exp.total_years,
      score_breakdown: breakdown(parsed),
      warnings: read.warnings,
      pages: read.pages,
      ocr: read.ocr,
    },
  }
}
