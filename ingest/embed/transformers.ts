/**
 * EMBEDDING_PROVIDER=transformers: any Hugging Face ONNX sentence-embedding model,
 * run in process by @huggingface/transformers on onnxruntime-node. Recommended:
 * EMBEDDING_MODEL=Xenova/bge-base-en-v1.5 (768 numbers natively, CLS pooling, the
 * default). A model is read from EMBEDDING_MODEL_DIR/<model>/ (config.json,
 * tokenizer.json, tokenizer_config.json, onnx/model.onnx), and downloaded from the hub
 * into that directory when it is missing there and a network exists. A model with
 * fewer than 768 numbers is zero-padded; one with more cannot be used.
 *
 * The package is not among the dependencies: with onnxruntime's binaries for every
 * platform it adds 500 MB and about 25 s to `npm ci`, a price every install would pay
 * for a provider most do not use. It is added with
 *   ONNXRUNTIME_NODE_INSTALL=skip npm install --no-save @huggingface/transformers@4
 * (skip: onnxruntime-node's install script downloads optional CUDA binaries, which
 * fails offline; the CPU binaries ship in the package).
 */
import { batches, EmbedderUnavailable, toContractVector, type Embedder, type ModelInfo } from './embedder.ts'

/** The part of the package's API used here (typed locally: the package is optional). */
type Extractor = ((texts: string[], opts: { pooling: 'cls' | 'mean'; normalize: boolean }) => Promise<{ dims: number[]; data: Float32Array }>) & {
  dispose(): Promise<void>
}
type Transformers = {
  env: { localModelPath: string; cacheDir: string; allowLocalModels: boolean; allowRemoteModels: boolean }
  pipeline(task: 'feature-extraction', model: string, opts: { dtype: 'fp32' }): Promise<Extractor>
}

// a name in a variable, so the type checker does not look for the optional package
const PACKAGE = '@huggingface/transformers'

export type TransformersOptions = { model: string; modelDir: string; pooling: 'cls' | 'mean'; batch: number; modelVersion: string | null }

export class TransformersEmbedder implements Embedder {
  readonly info: ModelInfo
  private loading: Promise<Extractor> | null = null

  constructor(private readonly opts: TransformersOptions) {
    this.info = { provider: 'transformers', model_name: opts.model, model_version: opts.modelVersion ?? `onnx-fp32-${opts.pooling}-pooling` }
  }

  private async load(): Promise<Extractor> {
    let lib: Transformers
    try {
      lib = (await import(PACKAGE)) as Transformers
    } catch (e) {
      throw new EmbedderUnavailable(`transformers: ${PACKAGE} is not installed; add it with ONNXRUNTIME_NODE_INSTALL=skip npm install --no-save ${PACKAGE}@4 (docs/embeddings.md)`, { cause: e })
    }
    // process-wide settings: one process serves one model
    lib.env.localModelPath = this.opts.modelDir
    lib.env.cacheDir = this.opts.modelDir
    lib.env.allowLocalModels = true
    lib.env.allowRemoteModels = true
    try {
      return await lib.pipeline('feature-extraction', this.opts.model, { dtype: 'fp32' })
    } catch (e) {
      const where = `${this.opts.modelDir}/${this.opts.model}`
      throw new EmbedderUnavailable(`transformers: cannot load ${this.opts.model} from ${where} or the Hugging Face hub: ${(e as Error).message}`, { cause: e })
    }
  }

  async embed(texts: string[]): Promise<number[][]> {
    if (texts.length === 0) return []
    // a failed load is retried by the next call: the model may have been copied in since
    this.loading ??= this.load().catch((e) => {
      this.loading = null
      throw e
    })
    const extract = await this.loading
    const out: number[][] = []
    for (const batch of batches(texts, this.opts.batch)) {
      const { dims, data } = await extract(batch, { pooling: this.opts.pooling, normalize: true })
      const width = dims[dims.length - 1]
      for (let i = 0; i < batch.length; i++) out.push(toContractVector(data.subarray(i * width, (i + 1) * width)))
    }
    return out
  }

  async close() {
    const loading = this.loading
    this.loading = null
    await loading?.then((e) => e.dispose()).catch(() => {})
  }
}
