/**
 * The driver's connection queues, as patched (patches/postgres+3.4.9.patch, explained
 * in docs/postgres-driver-patch.md). Unpatched, a queue that never drains (the busy
 * connections under steady load) keeps a hole for every shift, and remove() scans
 * them all, so with more concurrent queries than connections the pool slows the
 * longer the load lasts. These tests check that the queue still behaves as a queue,
 * that its scans stay short (this one fails without the patch), and that a real pool
 * under that load answers every query.
 */
import test from 'ava'
import fc from 'fast-check'
import { testDatabase } from '../helpers/db.ts'

type Q = { readonly length: number; push: (x: unknown) => unknown; shift: () => unknown; remove: (x: unknown) => unknown }
// the queue beside the entry point `import postgres from 'postgres'` loads (src/, the
// patched build); the package exports only its index, so the file is found from there
const queueUrl = new URL('queue.js', import.meta.resolve('postgres')).href
const make = ((await import(queueUrl)) as { default: (initial?: unknown[]) => Q }).default

/** An array that records how far each indexOf() reads; slice() keeps the class (species), so it follows the queue's compactions. */
class Spy extends Array {
  static longestScan = 0
  indexOf(x: unknown, from = 0) {
    Spy.longestScan = Math.max(Spy.longestScan, this.length - from)
    return super.indexOf(x, from)
  }
}

test('push, shift and remove behave as on a plain list', (t) => {
  const op = fc.oneof(
    fc.constant({ push: true }),
    fc.constant({ shift: true }),
    fc.record({ remove: fc.nat(40) }),
  )
  fc.assert(
    fc.property(fc.array(op, { maxLength: 400 }), (ops) => {
      const q = make()
      const model: number[] = []
      let next = 0
      for (const o of ops) {
        if ('push' in o) {
          // connections are unique objects in a queue: push fresh values
          const x = next++
          q.push(x)
          model.push(x)
        } else if ('shift' in o) {
          if (model.length === 0) continue
          if (q.shift() !== model.shift()) return false
        } else {
          const x = model.length ? model[o.remove % model.length] : -1
          const removed = q.remove(x)
          const at = model.indexOf(x)
          if (at === -1 ? removed !== null : removed !== x) return false
          if (at !== -1) model.splice(at, 1)
        }
        if (q.length !== model.length) return false
      }
      return true
    }),
  )
  t.pass()
})

test('a queue that never drains keeps its scans short', (t) => {
  Spy.longestScan = 0
  const [a, b, c] = [{}, {}, {}]
  const q = make(Spy.from([a, b]) as unknown[])
  // as the busy queue under load: connections shifted for pipelining and pushed back,
  // or removed when their queries finish and pushed back when they take new ones
  for (let i = 0; i < 20_000; i++) {
    q.push(c)
    q.push(q.shift())
    t.is(q.remove(c), c)
  }
  t.is(q.length, 2)
  t.true(Spy.longestScan < 200, `remove() read ${Spy.longestScan} slots to find one of 3 live entries`)
})

test('a pool of 8 answers 20,000 queries sent 200 at a time', async (t) => {
  const db = await testDatabase()
  try {
    let answered = 0
    await Promise.all(
      Array.from({ length: 200 }, async (_, w) => {
        for (let i = 0; i < 100; i++) {
          const n = w * 100 + i
          const [row] = await db.sql<{ n: number }[]>`select ${n}::int as n`
          if (row.n === n) answered++
        }
      }),
    )
    t.is(answered, 20_000)
  } finally {
    await db.close()
  }
})
