/** The Embedder EMBEDDING_PROVIDER names, or null for `none`; models load on first use. */
import type { EmbeddingConfig } from '../../sql/config.ts'
import type { Embedder } from './embedder.ts'
import { OpenAIEmbedder } from './openai.ts'
import { TransformersEmbedder } from './transformers.ts'
import { UseEmbedder } from './use.ts'

export function createEmbedder(c: EmbeddingConfig): Embedder | null {
  switch (c.provider) {
    case 'use':
      return new UseEmbedder({ threads: c.threads, batch: c.batch })
    case 'transformers':
      return new TransformersEmbedder({ model: c.model, modelDir: c.modelDir, pooling: c.pooling, batch: c.batch, modelVersion: c.modelVersion })
    case 'openai':
      return new OpenAIEmbedder({ baseUrl: c.openaiBaseUrl, apiKey: c.openaiApiKey, model: c.model, batch: c.batch, modelVersion: c.modelVersion })
    case 'none':
      return null
  }
}
