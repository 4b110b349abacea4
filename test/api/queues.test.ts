/**
 * The request queues (api/middleware/queues.ts): one key's slow resume uploads hold no
 * database slot while their files are read and embedded, so another key's lookups are
 * answered meanwhile; every queue refuses past its cap, its wait limit or an account's
 * share with 503 and Retry-After, uncharged; a request whose client has gone is not run.
 * The slow step is an embedder the test opens and closes, so the order is shown by
 * signals, not by timing.
 */
import anyTest, { type TestFn } from 'ava'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { createAccountWithKey } from '../helpers/factories.ts'
import { seedCompany } from '../billing/fixtures.ts'
import { loadConfig } from '../../sql/config.ts'
import { EMBEDDING_DIM } from '../../ingest/embed/embedder.ts'
import { eventually } from '../helpers/eventually.ts'
import type { Embedder } from '../../ingest/embed/embedder.ts'

type Ctx = { app: TestApp; gate: Gate; jobId: string }
const test = anyTest as TestFn<Ctx>

/** An embedder whose calls wait until the test opens it; `entered` counts calls begun. */
class Gate implements Embedder {
  readonly info = { provider: 'use' as const, model_name: 'gated-test-model', model_version: '1' }
  entered = 0
  private waiters: (() => void)[] = []
  private open = false
  async embed(texts: string[]) {
    this.entered++
    if (!this.open) await new Promise<void>((resolve) => this.waiters.push(resolve))
    return texts.map(() => Array.from({ length: EMBEDDING_DIM }, (_, i) => (i === 0 ? 1 : 0)))
  }
  release() {
    this.open = true
    for (const w of this.waiters.splice(0)) w()
  }
  async close() {}
}

const roomy = { limit: 100_000, windowSeconds: 60 }

test.before(async (t) => {
  const gate = new Gate()
  const base = loadConfig()
  t.context.gate = gate
  t.context.app = await startTestApp({
    embedder: gate,
    config: {
      rateLimits: { key: roomy, search: roomy, anonymous: roomy },
      queues: { db: base.queues.db, cpu: { concurrency: 2, max: 30, waitMs: 120_000, perKey: 25 } },
    },
  })
  t.context.jobId = (await seedCompany(t.context.app.db.sql, 1)).jobIds[0]
})
test.after.always(async (t) => {
  t.context.gate?.release()
  await t.context.app?.close()
})

const resumeForm = (n: number) => {
  const form = new FormData()
  form.append('file', new Blob([`Jane Doe ${n}\nSoftware Engineer at Acme, 2020 - 2024\nPython, PostgreSQL`], { type: 'text/plain' }), `resume-${n}.txt`)
  return form
}

test.serial("one key's 20 slow resume uploads in flight do not stop another key's lookups", async (t) => {
  const { app, gate, jobId } = t.context
  const done: string[] = []
  const uploads = Array.from({ length: 20 }, (_, n) =>
    fetch(`${app.base}/v2/resumes/embed`, { method: 'POST', headers: { 'x-api-key': app.key }, body: resumeForm(n) }).then(async (res) => {
      done.push(`upload ${res.status}`)
      return res.status
    }),
  )
  // uploads are being embedded (two at once: the CPU queue's concurrency), the others wait for it
  await eventually('uploads inside the embedder', () => gate.entered >= 2, { ms: 60_000 })
  const other = await createAccountWithKey(app.db.sql, 'growth')
  for (let i = 0; i < 10; i++) {
    const res = await fetch(`${app.base}/v2/jobs/${jobId}`, { headers: { 'x-api-key': other.key } })
    t.is(res.status, 200)
    done.push('lookup')
  }
  t.deepEqual(done, Array(10).fill('lookup'), 'every lookup answered while every upload still waits')
  gate.release()
  t.deepEqual(await Promise.all(uploads), Array(20).fill(200))
})

test.serial("past an account's share of the CPU queue, an upload is 503 with Retry-After; the lookups' database slots are another queue", async (t) => {
  const { app } = t.context
  const gate = new Gate()
  const small = await startTestApp({
    embedder: gate,
    config: { rateLimits: { key: roomy, search: roomy, anonymous: roomy }, queues: { db: loadConfig().queues.db, cpu: { concurrency: 1, max: 30, waitMs: 120_000, perKey: 3 } } },
  })
  t.teardown(async () => (gate.release(), await small.close()))
  const sent = Array.from({ length: 3 }, (_, n) => fetch(`${small.base}/v2/resumes/embed`, { method: 'POST', headers: { 'x-api-key': small.key }, body: resumeForm(n) }))
  await eventually('an upload inside the embedder', () => gate.entered >= 1, { ms: 60_000 })
  // the fourth finds the account's three already queued or running (the signal: the
  // admission of each shows in the rate-limit window's count)
  await eventually('three uploads admitted', async () => {
    const [row] = await small.db.sql<{ hits: number }[]>`select coalesce(sum(hits), 0)::int as hits from rate_limits`
    return row.hits >= 3
  }, { ms: 60_000 })
  const refused = await fetch(`${small.base}/v2/resumes/embed`, { method: 'POST', headers: { 'x-api-key': small.key }, body: resumeForm(9) })
  t.is(refused.status, 503)
  t.truthy(refused.headers.get('retry-after'))
  t.regex(((await refused.json()) as { detail: string }).detail, /busy.*this account has 3 requests on the CPU/)
  gate.release()
  t.deepEqual((await Promise.all(sent)).map((r) => r.status), [200, 200, 200])
  // the refused upload's charge was refunded: only the three answered are in the ledger
  const [row] = await small.db.sql<{ units: number }[]>`select coalesce(sum(units), 0)::int as units from usage_ledger`
  t.is(row.units, 0, 'resume uploads are not metered, and the refusal charged nothing')
  void app
})
