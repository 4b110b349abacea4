/** A real embedder that counts the texts it is asked to embed, to show what the cache saved. */
import type { Embedder } from '../../ingest/embed/embedder.ts'

export class Counting implements Embedder {
  texts = 0
  calls = 0
  constructor(private readonly inner: Embedder) {}
  get info() {
    return this.inner.info
  }
  get parallelism() {
    return this.inner.parallelism
  }
  async embed(texts: string[]) {
    this.calls++
    this.texts += texts.length
    return this.inner.embed(texts)
  }
  async close() {}
}
