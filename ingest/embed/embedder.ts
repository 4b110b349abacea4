/**
 * What ingest, the API and the benchmarks ask of an embedding model: unit-length
 * vectors of EMBEDDING_DIM numbers (the spec's contract), one per text, in order.
 * EMBEDDING_PROVIDER picks the implementation (see the modules beside this one); the
 * database records which provider, model and version made each stored vector, so
 * vectors of different models are never compared.
 */
export const EMBEDDING_DIM = 768

export type EmbeddingProvider = 'use' | 'transformers' | 'openai'

/** Names a model as the database records it and as responses report it (model_name, model_version). */
export type ModelInfo = { provider: EmbeddingProvider; model_name: string; model_version: string }

export interface Embedder {
  readonly info: ModelInfo
  /**
   * unit-length EMBEDDING_DIM-number vectors, one per text, in order; loads the model on
   * first use. `urgent` (a query someone waits for) goes before the background's batches
   * where the provider queues them.
   */
  embed(texts: string[], opts?: { urgent?: boolean }): Promise<number[][]>
  /** frees the model, if it holds one */
  close(): Promise<void>
  /** how many embed() calls it serves at once (worker threads, concurrent requests); 1 when absent */
  readonly parallelism?: number
}

/**
 * What an Embedder throws when it cannot embed at all: the model does not load, the
 * endpoint is unreachable or refuses the key. Ingest lands postings without vectors
 * when it sees one, and the API answers 503; any other error is a bug.
 */
export class EmbedderUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'EmbedderUnavailable'
  }
}

/**
 * A model's own vector as the contract's: zero-padded to EMBEDDING_DIM (which keeps
 * every cosine and dot product exactly as the model made it) and scaled to unit length.
 * e.g. USE lite's 512 numbers become 768, the last 256 of them 0.
 */
export function toContractVector(v: ArrayLike<number>): number[] {
  if (v.length > EMBEDDING_DIM) throw new Error(`the model made ${v.length} numbers per vector; at most ${EMBEDDING_DIM} fit the contract`)
  let norm = 0
  for (let i = 0; i < v.length; i++) norm += v[i] * v[i]
  norm = Math.sqrt(norm)
  if (!(norm > 0) || !Number.isFinite(norm)) throw new Error('the model made a vector of zeros (or not numbers)')
  const out = new Array<number>(EMBEDDING_DIM).fill(0)
  for (let i = 0; i < v.length; i++) out[i] = v[i] / norm
  return out
}

/** Splits texts into consecutive batches of at most `size`. */
export function batches<T>(items: T[], size: number): T[][] {
  const out: T[][] = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}
