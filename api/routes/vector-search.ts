/**
 * POST /v2/jobs/vsearch and POST /v2/jobs/neural-search. Mounted before the
 * /v2/jobs/{job_id} router, as search is. Both bill 1 unit per job returned and
 * reserve the most a request can return. docs/vector-search.md has the design.
 */
import Router from '@koa/router'
import type { Context } from 'koa'
import type { Embedder } from '../../ingest/embed/embedder.ts'
import type { Sql } from '../../sql/db.ts'
import { primaryReads, readsOf, type Reads } from '../../sql/replicas.ts'
import { countLiveWithoutVector } from '../../sql/embeddings.ts'
import { searchJobs } from '../../sql/search.ts'
import { NEURAL_DEPTH, neuralSearch, queryWords, vectorSearch, type NeuralSearchResult, type VectorSearchResult } from '../../sql/vector-search.ts'
import { errors } from '../errors.ts'
import { jsonBody } from '../middleware/body.ts'
import { keyed } from '../middleware/keyed.ts'
import { inSlot } from '../middleware/queues.ts'
import { perResult } from '../middleware/metering.ts'
import { pageEnvelope } from '../schemas/common.ts'
import { MAX_LIMIT } from '../schemas/search.ts'
import { neuralSearchBody, SEARCH_TYPES, vsearchBody, type SearchType } from '../schemas/vector-search.ts'
import { validate } from '../validate.ts'
import {
  accuracyOf, assertModelStored, lexicalSearch, neuralSlice, neuralSources, queryVector, vsearchFilters, vsearchSlice, vsearchSources,
} from '../vector-search-input.ts'

const positive = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined)
const bodyOf = (ctx: Context) => ((ctx.request as { body?: unknown }).body ?? {}) as Record<string, unknown>

/** The most jobs a vsearch can return: limit (which defaults to top_k), within top_k. A bad value reserves the default; validation then answers 422. */
const vsearchMost = (ctx: Context) => {
  const b = bodyOf(ctx)
  const topK = positive(b.top_k) ?? 10
  return Math.min(positive(b.limit) ?? topK, topK)
}

/** The most jobs a neural-search can return: limit at the top level or in lexical. */
const neuralMost = (ctx: Context) => {
  const b = bodyOf(ctx)
  const lexical = b.lexical && typeof b.lexical === 'object' ? (b.lexical as Record<string, unknown>) : {}
  return positive(b.limit) ?? positive(lexical.limit) ?? 10
}

/** The response's meta: live jobs the background embedding has not reached yet (null without a vector). */
type Backlog = { jobs_without_vector: number | null }

function vsearchResponse(result: VectorSearchResult, offset: number, limit: number, meta: Backlog) {
  return {
    jobs: result.jobs,
    company_count: result.companies,
    ...pageEnvelope(result.total, Math.floor(offset / limit) + 1, limit),
    offset,
    meta,
  }
}

type Ranked = NeuralSearchResult['jobs'][number]

function neuralResponse(ranking: 'rrf' | 'vector' | 'lexical', jobs: Ranked[], total: number, page: number, limit: number, meta: Backlog) {
  return {
    jobs: jobs.map(({ vector_score, vector_rank, text_score, text_rank, fused_score, ...job }, i) => ({
      ...job,
      vector_score,
      meta: { ranking, position: (page - 1) * limit + i + 1, vector_rank, text_rank, text_score, fused_score },
    })),
    ...pageEnvelope(total, page, limit),
    meta,
  }
}

/** How many live jobs lack a vector of `model`, counted beside the search rather than after it. */
const backlog = async (sql: Sql, model: number): Promise<Backlog> => ({ jobs_without_vector: await countLiveWithoutVector(sql, model) })

/**
 * The searches read from a replica when one is usable (sql/replicas.ts). The query's
 * vector is found on the primary: a resume stored a moment ago may not have reached a
 * replica, and the model a query is embedded with may be registered there first
 * (sql/embeddings.ts, modelId).
 */
export function vectorSearchRoutes(db: Sql | Reads, embedder?: Embedder) {
  const router = new Router({ prefix: '/v2/jobs' })
  const reads = readsOf(db)
  const sql = reads.primary

  router.post('/vsearch', jsonBody(), keyed({ meter: 'm_jobs_api_calls', cost: perResult(vsearchMost, MAX_LIMIT), search: true, slot: 'queries' }), async (ctx) => {
    const body = await validate(vsearchBody, ctx.request.body)
    const type = (body.search_type ?? 'summary') as SearchType
    if (!SEARCH_TYPES.includes(type)) throw errors.badRequest(`Invalid search_type: ${type}. Use summary, job or resume`)
    const sources = vsearchSources(type, body)
    const { vector, model } = await queryVector(ctx, sql, embedder, ctx.state.account.id, sources)
    const slice = vsearchSlice(body)
    const query = {
      vector, model, accuracy: accuracyOf(body), minScore: body.score, exclude: type === 'job' ? sources.jobIds : undefined,
      words: sources.query ? queryWords(sources.query) : undefined,
    }
    const [result, meta] = await inSlot(ctx, () => reads.run(async (db) => {
      const found = await Promise.all([vectorSearch(db, query, vsearchFilters(body), body.top_k, slice), backlog(db, model)])
      if (found[0].nearest === 0) await assertModelStored(db, model)
      return found
    }))
    ctx.body = vsearchResponse(result, slice.offset, slice.limit, meta)
  })

  router.post('/neural-search', jsonBody(), keyed({ meter: 'm_jobs_api_calls', cost: perResult(neuralMost, MAX_LIMIT), search: true, slot: 'queries' }), async (ctx) => {
    const body = await validate(neuralSearchBody, ctx.request.body)
    const accountId: string = ctx.state.account.id
    const slice = neuralSlice(body)
    const { filters, page } = lexicalSearch(body.lexical ?? {}, accountId, slice, slice.raw)
    const sources = neuralSources(body)
    // hide_seen_jobs reads the views this user's lookups recorded a moment ago: the primary has them all
    const where = filters.unseenBy ? primaryReads(sql) : reads
    if (!sources) {
      // only lexical: search's own order, within neural-search's depth
      const result = await inSlot(ctx, () => where.run((db) => searchJobs(db, filters, { ...page, neural: true })))
      // a text rank only where text terms ranked the jobs (search's score is 1 without them)
      const ranked = Boolean(filters.titles?.expressions.length || filters.keywords?.expressions.length)
      const jobs = result.jobs.map(({ score, ...job }, i) => ({
        ...job,
        vector_score: null,
        vector_rank: null,
        text_score: ranked ? score : null,
        text_rank: ranked && page.sortBy === 'relevance' ? slice.offset + i + 1 : null,
        fused_score: null,
      }))
      ctx.body = neuralResponse('lexical', jobs, Math.min(result.total, NEURAL_DEPTH), slice.page, slice.limit, { jobs_without_vector: null })
      return
    }
    const { vector, model } = await queryVector(ctx, sql, embedder, accountId, sources)
    const query = { vector, model, accuracy: accuracyOf(body), minScore: body.vector?.score_threshold, words: sources.query ? queryWords(sources.query) : undefined }
    const [result, meta] = await inSlot(ctx, () => where.run(async (db) => {
      const found = await Promise.all([neuralSearch(db, query, filters, slice), backlog(db, model)])
      if (found[0].nearest === 0) await assertModelStored(db, model)
      return found
    }))
    ctx.body = neuralResponse(result.ranking, result.jobs, result.total, slice.page, slice.limit, meta)
  })

  return router
}
