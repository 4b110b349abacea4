/**
 * A worker killed in mid-delivery: `npm run worker` (bin/worker.ts) claims the event and
 * sends it to a receiver that holds the request unanswered; the process is killed with
 * SIGKILL; once its lease lapses another worker delivers the event, with the same
 * webhook-id. The event is delivered once, with one recorded attempt and one charge.
 */
import test from 'ava'
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pino from 'pino'
import { ingest } from '../../ingest/pipeline.ts'
import { startWebhookWorkers } from '../../jobs/webhooks.ts'
import { loadConfig } from '../../sql/config.ts'
import { startTestApp } from '../helpers/app.ts'
import { eventually } from '../helpers/eventually.ts'
import { rawPosting, readItems } from '../helpers/factories.ts'
import { startReceiver } from '../helpers/receiver.ts'

test('a worker killed in mid-delivery: the event is delivered by another, once', async (t) => {
  const base = loadConfig()
  // no workers in this process: the spawned worker delivers first
  const app = await startTestApp({ embedder: null, config: { webhooks: { ...base.webhooks, allowPrivate: true, allowHttp: true } } })
  t.teardown(app.close)
  const dataDir = await mkdtemp(path.join(tmpdir(), 'jds-killed-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const rx = await startReceiver((_r, n) => (n === 1 ? 'hang' : 200))
  t.teardown(rx.close)
  const created = await (await app.post('/v2/saved-searches', { name: 'killed', kind: 'search', filters: { job_titles: ['Lighthouse Keeper'] }, webhook: { url: rx.url } })).json()
  rx.verifyWith([created.webhook.secret])
  await ingest(app.db.sql, readItems([rawPosting({ job_title: 'Lighthouse Keeper', job_board: 'Coast', source_id: 'lh-1' })]), { source: 'coast' })

  const worker = spawn('node', ['--import', 'tsx', 'bin/worker.ts'], {
    env: {
      ...process.env, DATABASE_URL: app.db.url, DATA_DIR: dataDir, EMBEDDING_PROVIDER: 'none', LOG_LEVEL: 'warn',
      WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_ALLOW_HTTP: '1', WEBHOOK_LEASE_SECONDS: '2',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const exited = new Promise((resolve) => worker.once('exit', resolve))
  t.teardown(() => void worker.kill('SIGKILL'))
  await eventually('the worker to send the event', () => rx.received.length === 1, { ms: 60_000 })
  worker.kill('SIGKILL')
  await exited

  const log = pino({ level: 'silent' })
  const second = startWebhookWorkers({
    sql: app.db.sql, log, mailer: null, publicUrl: 'http://localhost',
    config: { ...base.webhooks, allowPrivate: true, allowHttp: true, leaseSeconds: 2, pollMs: 50 },
  })
  t.teardown(second.stop)
  await eventually('the second delivery', () => rx.received.length === 2)
  const [first, again] = rx.received
  t.is(again.id, first.id, 'the same webhook-id, so the receiver can tell it is the same event')
  t.deepEqual(again.verifiedBy, [created.webhook.secret])
  const [event] = await eventually('the event delivered', async () => {
    const body = await (await app.get(`/v2/events?saved_search_id=${created.id}`)).json()
    return body.events[0]?.status === 'delivered' && body.events
  })
  t.deepEqual(event.attempts.map((a: { status_code: number }) => a.status_code), [200], 'the killed attempt recorded nothing')
  const ledger = await app.db.sql<{ units: number }[]>`select units::int from usage_ledger where account_id = ${app.accountId} and meter = 'm_jobs_api_calls'`
  t.deepEqual(ledger.map((l) => l.units), [1], 'charged once')
})
