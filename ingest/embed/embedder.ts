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
  /** unit-length EMBEDDING_DIM-number vectors, one per text, in order; loads the model on first use */
  embed(texts: string[]): Promise<number[][]>
  /** frees the model, if it holds one */
  close(): Promise<void>
}
