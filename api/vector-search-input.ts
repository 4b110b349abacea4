/**
 * Turns validated vsearch and neural-search requests into what sql/vector-search.ts
 * takes: SearchFilters (through toSearch, so the shared filter set keeps one meaning
 * and one SQL), the slice of the result to return, and the query vector.
 *
 * The query vector: each source is made unit length, and several sources are averaged
 * and made unit length again, so each counts the same however long its vector was.
 * A source is the search_type's (the query, the job, the resume), or for neural-search
 * each of: the mean of job_ids' vectors, the resume of artifact_id, the query, and the
 * mean of the raw vectors.
 */
import type { Context } from 'koa'
import { inSlot, onCpu } from './middleware/queues.ts'
import { EmbedderUnavailable, type Embedder } from '../ingest/embed/embedder.ts'
import { locationGroup } from '../seeds/places/location-groups.ts'
import type { Db } from '../sql/db.ts'
import { modelId, storedModels, type StoredModel } from '../sql/embeddings.ts'
import type { SearchFilters, SearchPage } from '../sql/search.ts'
import { findJobVectors, findResumeVector, type Accuracy, type StoredVector } from '../sql/vector-search.ts'
import { errors } from './errors.ts'
import { MAX_LIMIT, type JobSearchBody } from './schemas/search.ts'
import { neuralPage, type NeuralLexical, type NeuralSearchBody, type SearchType, type VsearchBody } from './schemas/vector-search.ts'
import { toSearch } from './search-filters.ts'

// --- filters ----------------------------------------------------------------------------

/** The filter set's defaults for what vsearch and neural-search leave out; toSearch reads nothing else from them. */
const noPaging = { page: 1, limit: 10 }

/**
 * vsearch's filter names onto the shared filter set: salary_from/to and
 * years_from/to are the salary and yoe ranges, `locations` is one geo_locations
 * entry, job_categories, industries, subindustries and visa_sponsored are
 * job_category, industry, sub_industry and visa; job_title (exact) has no twin there.
 */
export function vsearchFilters(b: VsearchBody): SearchFilters {
  const range = (min: number | undefined, max: number | undefined) =>
    min === undefined && max === undefined ? undefined : { min: min ?? null, max: max ?? null }
  const body = {
    ...noPaging,
    industry: b.industries,
    sub_industry: b.subindustries,
    job_types: b.job_types,
    experience: b.experience,
    company_types: b.company_types,
    job_category: b.job_categories,
    job_slug: b.job_slug,
    job_board: b.job_board,
    company_name: b.company_name,
    company_slug: b.company_slug,
    geo_locations: b.locations ? [b.locations] : undefined,
    date_posted: b.date_posted,
    visa: b.visa_sponsored,
    salary: range(b.salary_from, b.salary_to),
    yoe: range(b.years_from, b.years_to),
  } as JobSearchBody
  return { ...toSearch(body).filters, jobTitle: b.job_title }
}

/** Days back from today for date_posted's words: on or after that day. */
const RELATIVE_DAYS: Record<string, number> = { today: 0, last_week: 7, last_month: 30 }

const utcDay = (d: Date) => d.toISOString().slice(0, 10)
const later = (a: string | undefined, b: string | undefined) => (a === undefined ? b : b === undefined ? a : a > b ? a : b)

/**
 * neural-search's lexical object: the shared filter set, plus location_group (one more
 * location filter, AND-ed with geo_locations), date_posted as a day or a word, month
 * (posted in that calendar month), include_expired, and hide_seen_jobs for user_id
 * (the account itself when absent).
 */
export function lexicalSearch(l: NeuralLexical, accountId: string, page: { page: number; limit: number }, raw: boolean, now = new Date()) {
  const days = l.date_posted === undefined ? undefined : RELATIVE_DAYS[l.date_posted]
  const datePosted = days === undefined ? l.date_posted : utcDay(new Date(now.getTime() - days * 86_400_000))
  const search = toSearch({ ...l, date_posted: datePosted, ...page } as JobSearchBody)
  const filters: SearchFilters = { ...search.filters, includeExpired: l.include_expired === 'true' }
  if (l.month) {
    const [year, month] = l.month.split('-').map(Number)
    filters.postedSince = later(filters.postedSince, `${l.month}-01`)
    filters.postedBefore = utcDay(new Date(Date.UTC(year, month, 1))) // Date.UTC's month is 0-based: this is the next month
  }
  // the schema accepts only names locationGroup knows
  if (l.location_group) filters.placeGroups = [locationGroup(l.location_group) ?? []]
  if (l.hide_seen_jobs === 'true') filters.unseenBy = { accountId, userId: l.user_id ?? accountId }
  return { filters, page: { ...search.page, raw } satisfies SearchPage }
}

// --- the query vector -------------------------------------------------------------------

/** v at unit length; null for a vector of zeros, which has no direction. */
export function unit(v: number[]): number[] | null {
  const norm = Math.hypot(...v)
  return norm > 0 && Number.isFinite(norm) ? v.map((x) => x / norm) : null
}

/** The mean of the vectors' directions, at unit length; null when they cancel out. */
export function meanDirection(vectors: number[][]): number[] | null {
  const units = vectors.map(unit).filter((v): v is number[] => v !== null)
  if (units.length === 0) return null
  const sum = units[0].map((_, i) => units.reduce((acc, v) => acc + v[i], 0))
  return unit(sum)
}

export type VectorSources = { jobIds?: string[]; artifactId?: string; query?: string; vectors?: number[][] }

/** A source's vector and its model; raw vectors name none and take the other sources' (or the server's). */
type Source = { vector: number[]; model: number | 'any' }

/**
 * The query vector of the given sources and the model whose vectors it is compared
 * with. Unknown job ids and artifact ids are 400s (another account's resume is
 * unknown); a stored record without a vector, or with one of an unknown model, is a
 * 409 (make embed fills it in); sources of two models are a 409; a query the embedder
 * cannot embed is a 503.
 *
 * Raw vectors carry no model: they are taken to be the other sources' model, or else
 * the server's (they come from POST /v2/embed or /v2/resumes/embed), or without an
 * embedder the model most live jobs' vectors are from.
 */
export async function queryVector(ctx: Context, db: Db, embedder: Embedder | undefined, accountId: string, s: VectorSources): Promise<{ vector: number[]; model: number }> {
  const sources: Source[] = []
  if (s.jobIds?.length) {
    const ids = [...new Set(s.jobIds)]
    const found = await inSlot(ctx, () => findJobVectors(db, ids))
    const unknown = ids.filter((id) => !found.some((f) => f.id === id))
    if (unknown.length) throw errors.badRequest(`Unknown job_id${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`)
    sources.push(combined(found.map((f) => stored(f, `job ${f.id}`)), 'the jobs of job_ids'))
  }
  if (s.artifactId !== undefined) {
    const resume = await inSlot(ctx, () => findResumeVector(db, accountId, s.artifactId!))
    if (!resume) throw errors.badRequest(`Unknown artifact_id: ${s.artifactId}`)
    if (resume.parse_error) throw errors.badRequest(`Resume ${resume.id} could not be parsed: ${resume.parse_error}`)
    if (resume.status !== 'parsed') throw errors.badRequest(`Resume ${resume.id} is not parsed yet; retry in a few seconds`)
    sources.push(stored(resume, `resume ${resume.id}`, 'it was parsed without an embedding model; an operator gives it one with make embed, or upload it again'))
  }
  if (s.query !== undefined) sources.push(await embedQuery(ctx, db, embedder, s.query))
  if (s.vectors?.length) sources.push({ vector: meanDirection(s.vectors) ?? cancelled('vectors'), model: 'any' })
  const { vector, model } = combined(sources, 'the vector sources')
  return { vector, model: model === 'any' ? await inSlot(ctx, () => serverModel(db, embedder)) : model }
}

/** A stored vector as a source; a record without one has not been embedded yet. */
function stored(v: StoredVector, what: string, remedy = 'run make embed'): Source {
  if (!v.embedding) throw errors.embeddingConflict(`${what} has no embedding yet: ${remedy}`)
  if (v.model === null) throw errors.embeddingConflict(`${what} has a vector of an unknown model: run make embed to re-embed it`)
  return { vector: v.embedding, model: v.model }
}

async function embedQuery(ctx: Context, db: Db, embedder: Embedder | undefined, query: string): Promise<Source> {
  if (!embedder) throw errors.embedderUnavailable('none is configured')
  try {
    const [vector] = await onCpu(ctx, () => embedder.embed([query], { urgent: true }))
    return { vector, model: await inSlot(ctx, () => modelId(db, embedder.info)) }
  } catch (e) {
    if (e instanceof EmbedderUnavailable) throw errors.embedderUnavailable(e.message)
    throw e
  }
}

/** The model raw vectors are taken to be from when nothing else says. */
async function serverModel(db: Db, embedder: Embedder | undefined) {
  if (embedder) return modelId(db, embedder.info)
  const [most] = await storedModels(db)
  if (!most || most.jobs === 0) throw errors.embeddingConflict('No job has a vector yet: run make embed')
  return most.id
}

/** The sources' mean direction; sources of different models are never mixed. */
function combined(sources: Source[], what: string): Source {
  const models = [...new Set(sources.flatMap((s) => (s.model === 'any' ? [] : [s.model])))]
  if (models.length > 1) throw errors.embeddingConflict(`${what} were embedded by different models; run make embed to embed everything with one`)
  const model = models[0] ?? 'any'
  if (sources.length === 1) return { ...sources[0], model }
  return { vector: meanDirection(sources.map((s) => s.vector)) ?? cancelled(what), model }
}

function cancelled(what: string): never {
  throw errors.badRequest(`The directions of ${what} cancel out: their mean is a vector of zeros`)
}

const modelName = (m: StoredModel) => `${m.provider} ${m.model_name} ${m.model_version}`

/**
 * Called when the vector list came back empty: a 409 when that is because no live
 * job has a vector of the query's model (the stored ones are another model's, or
 * there are none), naming the models; otherwise the filters left nothing, and the
 * empty answer stands. Only empty answers pay for the count of stored vectors.
 */
export async function assertModelStored(db: Db, model: number) {
  const models = await storedModels(db)
  if (models.some((m) => m.id === model && m.jobs > 0)) return
  const query = models.find((m) => m.id === model)
  const others = models.filter((m) => m.jobs > 0)
  if (others.length === 0) throw errors.embeddingConflict('No job has a vector yet: run make embed')
  throw errors.embeddingConflict(
    `No job has a vector of the query's model${query ? ` (${modelName(query)})` : ''}; the stored vectors are from ` +
      `${others.map((m) => `${modelName(m)} (${m.jobs} jobs)`).join(', ')}. Run make embed to re-embed the jobs with the query's model`,
  )
}

// --- requests ---------------------------------------------------------------------------

/** The sources of a vsearch search_type; a search_type without its field is the spec's 400. */
export function vsearchSources(type: SearchType, b: VsearchBody): VectorSources {
  const need = (field: 'query' | 'job_id' | 'artifact_id') => {
    const value = b[field]?.trim()
    if (!value) throw errors.badRequest(`${field} is required when search_type is ${type}`)
    return value
  }
  if (type === 'job') return { jobIds: [need('job_id')] }
  if (type === 'resume') return { artifactId: need('artifact_id') }
  return { query: need('query') }
}

/** limit defaults to top_k (as far as a page goes); page or offset place the slice. */
export function vsearchSlice(b: VsearchBody) {
  const limit = b.limit ?? Math.min(b.top_k, MAX_LIMIT)
  const offset = b.offset ?? ((b.page ?? 1) - 1) * limit
  return { offset, limit, raw: b.return_raw_description === 'true' }
}

export function neuralSources(b: NeuralSearchBody): VectorSources | null {
  const v = b.vector
  if (!v) return null
  return { jobIds: v.job_ids, artifactId: v.artifact_id, query: v.query, vectors: v.vectors }
}

export function neuralSlice(b: NeuralSearchBody) {
  const { page, limit } = neuralPage(b)
  return { page, limit, offset: (page - 1) * limit, raw: b.return_raw_description === 'true' }
}

export const accuracyOf = (b: { accuracy: string }) => b.accuracy as Accuracy
