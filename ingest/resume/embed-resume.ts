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
 * nearest the resume (rankCategories: the vector's cosine with each category's name,
 * raised by the categories its titles and skills name), the experience estimate (features.ts), a completeness breakdown and the reader's
 * warnings.
 */
import categories from '../../seeds/categories.json' with { type: 'json' }
import keywords from '../../seeds/category-keywords.json' with { type: 'json' }
import { EMBEDDING_DIM, type Embedder } from '../embed/embedder.ts'
import { cut, MAX_BODY_CHARS, sentence } from '../embed/job-text.ts'
import { classify, OTHER } from '../transform/categories.ts'
import { experienceSummary } from './features.ts'
import type { ParsedResume, ResumeText } from './types.ts'

const TOP_CATEGORIES = 3
/** What the titles' categories add to a cosine at most (all titles naming one category) */
const TITLE_WEIGHT = 0.5
/** Each older title counts this much less than the one after it */
const TITLE_DECAY = 0.6
/** Titles read for the category: the most recent ones */
const MAX_TITLES = 6
/** What the skills' and summary's keywords add at most */
const TEXT_WEIGHT = 0.15
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

/** The keyword table's words of several meanings ("consultant", "advisor"), as a pattern */
const AMBIGUOUS = new RegExp(`\\b(?:${Object.keys(keywords.ambiguous).join('|')})s?\\b`, 'gi')

/**
 * A title's categories. A word of several meanings yields to the title's other words: a
 * "Mortgage Consultant" works in banking, not consulting, a "Financial Advisor" in financial planning.
 */
function titleCategories(title: string, context: string): string[] {
  // a title that names a category's field outright ("Business Development Representative",
  // "Director of Engineering") is in it, whatever its other words suggest
  const fold = (x: string) => ` ${x.toLowerCase().replace(/&/g, ' and ').replace(/[^\p{L}\p{N}]+/gu, ' ').trim()} `
  const named = categoryLabels().filter((l) => fold(title).includes(fold(l))).map((l) => `${l} Jobs`)
  if (named.length) return named
  const rest = title.replace(AMBIGUOUS, ' ')
  const clear = rest === title ? [] : classify(rest, '', []).filter((c) => c !== OTHER)
  return clear.length ? clear : classify(title, context, []).filter((c) => c !== OTHER)
}

/**
 * The categories the resume's titles and skills name, as shares: each title's categories by the
 * job ingest's keyword table (ingest/transform/categories.ts, the rest of the resume deciding an
 * ambiguous word), the most recent title weighing most (TITLE_DECAY per older title), summing to
 * at most 1; the skills' and summary's keywords by how often each category's are named, the most
 * named 1.
 */
export function namedCategories(r: ParsedResume): { titles: Map<string, number>; text: Map<string, number> } {
  const titles = (r.work_experience ?? []).map((w) => w.title?.trim()).filter((t): t is string => !!t).slice(0, MAX_TITLES)
  const skills = [...new Set((r.skills ?? []).flatMap((g) => g.details))].slice(0, MAX_SKILLS)
  const context = [r.summary_or_objective ?? '', skills.join(', ')].filter(Boolean).join('. ')
  const byTitle = new Map<string, number>()
  let weight = 1
  let total = 0
  for (const title of titles) {
    total += weight
    const found = titleCategories(title, context)
    for (const c of found) byTitle.set(c, (byTitle.get(c) ?? 0) + weight / found.length)
    weight *= TITLE_DECAY
  }
  for (const [c, w] of byTitle) byTitle.set(c, w / total)
  const text = new Map<string, number>()
  // each skill read as a title would be ("Payroll", "Recruitment"), the summary as a description
  const found = [...skills.map((s) => classify(s, '', [])), r.summary_or_objective ? classify('', r.summary_or_objective, []) : []]
  for (const cs of found) for (const c of cs) if (c !== OTHER) text.set(c, (text.get(c) ?? 0) + 1)
  const most = Math.max(0, ...text.values())
  for (const [c, n] of text) text.set(c, n / most)
  return { titles: byTitle, text }
}

/**
 * The TOP_CATEGORIES categories nearest the resume: the vector's cosine with each category's name,
 * plus TITLE_WEIGHT times the share of the titles that name the category and TEXT_WEIGHT times
 * the skills' and summary's share. A vector alone drifts toward the broad names (Data Analyst,
 * Project & Program Management) whatever the resume is about; the titles say what the person does.
 */
export function rankCategories(r: ParsedResume, cosines: { category: string; cosine: number }[]): { category: string; score: number }[] {
  const named = namedCategories(r)
  return cosines
    .map(({ category, cosine }) => ({ category, score: round(cosine + TITLE_WEIGHT * (named.titles.get(category) ?? 0) + TEXT_WEIGHT * (named.text.get(category) ?? 0)) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, TOP_CATEGORIES)
}

const sum = (vectors: number[][]) => unit(vectors.reduce((acc, v) => acc.map((x, i) => x + v[i]), new Array<number>(EMBEDDING_DIM).fill(0)))

/**
 * The resumes' vectors alone (no additional_info), their texts embedded `batch` at a time:
 * what `make embed` gives stored resumes after a change of model.
 */
export async function resumeVectors(parsed: ParsedResume[], embedder: Embedder, { urgent = false, batch = 64 } = {}): Promise<number[][]> {
  const texts = parsed.map((r) => {
    const { title, body } = resumeTexts(r)
    return title ? [title, body] : [body]
  })
  const flat = texts.flat()
  const vectors: number[][] = []
  for (let i = 0; i < flat.length; i += batch) vectors.push(...(await embedder.embed(flat.slice(i, i + batch), { urgent })))
  let at = 0
  return texts.map((t) => sum(vectors.slice(at, (at += t.length))))
}

/**
 * The resume's vector and its embedding result. `urgent` puts the texts ahead of the
 * background embedding's batches (a client waits for POST /v2/resumes/embed).
 */
export async function embedResume(parsed: ParsedResume, read: Pick<ResumeText, 'warnings' | 'pages' | 'ocr'>, embedder: Embedder, { urgent = false } = {}): Promise<EmbeddingResult> {
  const [[embedding], cats] = await Promise.all([resumeVectors([parsed], embedder, { urgent }), embeddedCategories(embedder)])
  const labels = categoryLabels()
  const job_categories = rankCategories(parsed, cats.map((v, i) => ({ category: `${labels[i]} Jobs`, cosine: dot(embedding, v) })))
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
