/**
 * Gathers calls that arrive while earlier ones are in the database into one call: at
 * most `maxInFlight` batches at a time, the next one taking whatever queued meanwhile.
 * A lone request goes at once (after the current I/O callbacks, so requests parsed in
 * the same turn share a batch). A failed batch fails each of its callers.
 */
export class Batcher<I, O> {
  private queue: { item: I; resolve: (o: O) => void; reject: (e: unknown) => void }[] = []
  private inFlight = 0
  private scheduled = false

  constructor(
    private run: (items: I[]) => Promise<O[]>,
    private maxInFlight = 2,
    private maxBatch = 256,
  ) {}

  push(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject })
      if (!this.scheduled && this.inFlight < this.maxInFlight) {
        this.scheduled = true
        setImmediate(() => {
          this.scheduled = false
          this.pump()
        })
      }
    })
  }

  private pump() {
    while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch)
      this.inFlight++
      this.run(batch.map((b) => b.item))
        .then(
          (out) => batch.forEach((b, i) => b.resolve(out[i])),
          (err) => batch.forEach((b) => b.reject(err)),
        )
        .finally(() => {
          this.inFlight--
          this.pump()
        })
    }
  }
}
