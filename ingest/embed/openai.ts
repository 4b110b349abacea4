/**
 * EMBEDDING_PROVIDER=openai: any OpenAI-compatible embeddings endpoint
 * (OPENAI_BASE_URL, OPENAI_API_KEY, EMBEDDING_MODEL), asked for 768 numbers with
 * `dimensions`. Servers that ignore `dimensions` and return fewer are zero-padded;
 * more is an error.
 */
import OpenAI from 'openai'
import { batches, EMBEDDING_DIM, EmbedderUnavailable, toContractVector, type Embedder, type ModelInfo } from './embedder.ts'

export type OpenAIOptions = { baseUrl: string; apiKey: string | null; model: string; batch: number; modelVersion: string | null }

/** Batches in flight at once: requests wait on the network, not on this process. */
const CONCURRENT_REQUESTS = 4

export class OpenAIEmbedder implements Embedder {
  readonly info: ModelInfo
  readonly parallelism = CONCURRENT_REQUESTS
  private readonly client: OpenAI

  constructor(private readonly opts: OpenAIOptions) {
    this.info = { provider: 'openai', model_name: opts.model, model_version: opts.modelVersion ?? `dimensions-${EMBEDDING_DIM}` }
    // a local server may want no key; the SDK refuses to start without one
    this.client = new OpenAI({ baseURL: opts.baseUrl, apiKey: opts.apiKey ?? 'unset', timeout: 60_000, maxRetries: 2 })
  }

  async embed(texts: string[]): Promise<number[][]> {
    const parts = await Promise.all(batches(texts, this.opts.batch).map((b) => this.request(b)))
    return parts.flat()
  }

  private async request(input: string[]): Promise<number[][]> {
    let res: OpenAI.CreateEmbeddingResponse
    try {
      res = await this.client.embeddings.create({ model: this.opts.model, input, dimensions: EMBEDDING_DIM, encoding_format: 'float' })
    } catch (e) {
      // unreachable, refused key, unknown model or a server failing after the retries:
      // nothing more can be embedded; a 400 is about this input and stays an error
      const status = (e as { status?: number }).status
      if (e instanceof OpenAI.APIConnectionError || (status !== undefined && status !== 400 && status !== 422)) {
        throw new EmbedderUnavailable(`openai: ${this.opts.baseUrl} ${status ? `answered ${status}` : 'is unreachable'}: ${(e as Error).message}`, { cause: e })
      }
      throw new Error(`openai: ${(e as Error).message}`, { cause: e })
    }
    const rows = [...res.data].sort((a, b) => a.index - b.index)
    if (rows.length !== input.length) throw new Error(`openai: ${input.length} texts sent, ${rows.length} embeddings received`)
    return rows.map((r) => toContractVector(r.embedding))
  }

  async close() {}
}
