/**
 * POST /v2/embed: texts in, the server's embedding of each out, as the spec's
 * "Embedding result" (embedding, dtype, dim, model_name, model_version), with dtype
 * `text`. Needs a key and the vector_api feature (every plan has it); not metered.
 * The vectors can be sent to neural-search as vector.vectors; they are comparable
 * with the stored job vectors while those are of the same model_name and model_version.
 */
import Router from '@koa/router'
import { EMBEDDING_DIM, EmbedderUnavailable, type Embedder, type ModelInfo } from '../../ingest/embed/embedder.ts'
import { AppError } from '../errors.ts'
import { jsonBody } from '../middleware/body.ts'
import { keyed } from '../middleware/keyed.ts'
import { onCpu } from '../middleware/queues.ts'
import { embedBody } from '../schemas/embed.ts'
import { validate } from '../validate.ts'

const unavailable = (why: string) => new AppError(503, `The embedding model is unavailable (${why}); retry later`)

function embeddingResult(vectors: number[][], { model_name, model_version }: ModelInfo) {
  return {
    embeddings: vectors.map((embedding) => ({ embedding, dtype: 'text', dim: EMBEDDING_DIM, model_name, model_version })),
    dim: EMBEDDING_DIM,
    model_name,
    model_version,
  }
}

export function embedRoutes(embedder: Embedder | undefined) {
  const router = new Router({ prefix: '/v2' })

  router.post('/embed', jsonBody(), keyed({ feature: 'vector_api', slot: 'queries' }), async (ctx) => {
    const body = await validate(embedBody, ctx.request.body)
    if (!embedder) throw unavailable('none is configured: EMBEDDING_PROVIDER is none')
    const texts = body.texts ?? [body.text!]
    let vectors: number[][]
    try {
      vectors = await onCpu(ctx, () => embedder.embed(texts, { urgent: true }))
    } catch (e) {
      if (e instanceof EmbedderUnavailable) throw unavailable(e.message)
      throw e
    }
    ctx.body = embeddingResult(vectors, embedder.info)
  })

  return router
}
