/** The app on a real port, with a fresh database, an account with a key and the default embedding model. */
import type { AddressInfo } from 'node:net'
import pino from 'pino'
import { Writable } from 'node:stream'
import type PgBoss from 'pg-boss'
import { buildApp } from '../../api/app.ts'
import { createBoss } from '../../jobs/boss.ts'
import { startWorkers } from '../../jobs/index.ts'
import type { Embedder } from '../../ingest/embed/embedder.ts'
import { UseEmbedder } from '../../ingest/embed/use.ts'
import type { Admission } from '../../api/middleware/admission.ts'
import type { Queues } from '../../api/middleware/queues.ts'
import type { SearchCount } from '../../api/middleware/searches.ts'
import { loadConfig, type Config } from '../../sql/config.ts'
import type { Readiness } from '../../api/routes/health.ts'
import { testDatabase, type TestDb } from './db.ts'
import { connectWorkers } from '../../sql/db.ts'
import { Replicas, type ReplicaOptions } from '../../sql/replicas.ts'
import { createAccountWithKey } from './factories.ts'

export type TestApp = {
  db: TestDb
  base: string
  key: string
  accountId: string
  logs: string[]
  readiness: Readiness
  get: (path: string, headers?: Record<string, string>) => Promise<Response>
  post: (path: string, body: unknown, headers?: Record<string, string>) => Promise<Response>
  admission: Admission
  /** the app's request queues (api/middleware/queues.ts) and its searches in flight, which the workers yield to */
  queues: Queues
  searches: SearchCount
  /** the task queue, when started with `tasks: true` */
  boss?: PgBoss
  /** the read replicas the app reads from, when started with `replicas` */
  replicas?: Replicas
  /**
   * Returns once account changes made behind the app's back apply and the usage of the
   * requests answered so far is recorded: at once, since the app reads accounts on every
   * request and settles each charge before it answers (api/middleware/admission.ts)
   */
  sync: () => Promise<void>
  close: () => Promise<void>
}

let shared: UseEmbedder | null = null

/**
 * The default model (USE lite), one per test process: its worker thread loads the
 * model on first use, once for every app the file starts, and an idle one does not
 * keep the process alive. One thread, since test files run side by side.
 */
export function testEmbedder(): Embedder {
  return (shared ??= new UseEmbedder({ threads: 1, batch: 32 }))
}

/**
 * `config` overrides loadConfig()'s values, e.g. lower rate limits; `embedder` replaces
 * the default model (null: none configured).
 */
export async function startTestApp({
  config,
  embedder = testEmbedder(),
  tasks = false,
  replicas: replicaOptions,
}: {
  config?: Partial<Config>
  embedder?: Embedder | null
  /** pg-boss on the test database, with task workers in this process unless config.tasks.inProcess is false, as `npm start` runs them */
  tasks?: boolean
  /** read replicas of the test database (sql/replicas.ts, test/helpers/replica.ts): their URLs, given the database's */
  replicas?: { urlsOf: (url: string) => string[] } & ReplicaOptions
} = {}): Promise<TestApp> {
  const db = await testDatabase()
  const logs: string[] = []
  const log = pino({ level: 'info' }, new Writable({ write: (chunk, _enc, cb) => (logs.push(String(chunk)), cb()) }))
  const readiness: Readiness = { ready: true }
  // as the service: DATABASE_URL names the server, unset it is the embedded database
  const fullConfig = { ...loadConfig(), databaseUrl: db.kind === 'server' ? db.url : null, ...config }
  let boss: PgBoss | undefined
  let workers: { stop: () => Promise<void> } | undefined
  // the workers' own pool, as bin/server.ts gives them
  const workerSql = tasks ? connectWorkers(db.url, 4) : null
  if (tasks) {
    boss = createBoss(db.url, log, { maintenanceSeconds: fullConfig.tasks.maintenanceSeconds })
    await boss.start()
  }
  let replicas: Replicas | undefined
  if (replicaOptions) {
    const { urlsOf, ...options } = replicaOptions
    replicas = new Replicas(db.sql, urlsOf(db.url), options)
    await replicas.start()
  }
  const app = buildApp({ sql: db.sql, poolSize: db.sql.options.max, config: fullConfig, log, readiness, embedder: embedder ?? undefined, boss, reads: replicas })
  if (boss) workers = await startWorkers(boss, workerSql!, log, fullConfig, { embedder, api: { ...app.context.queues, searches: app.context.searches } })
  const server = app.listen(0, '127.0.0.1')
  // fetch keeps a connection for a second less than the server's keep-alive timeout says;
  // on a busy machine a stall longer than that second let it reuse a connection the server
  // had just closed ("fetch failed"). A long server timeout leaves no such window in a test.
  server.keepAliveTimeout = 65_000
  await new Promise((resolve) => server.once('listening', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const { accountId, key } = await createAccountWithKey(db.sql)
  const get = (path: string, headers: Record<string, string> = { 'x-api-key': key }) => fetch(base + path, { headers })
  const post = (path: string, body: unknown, headers: Record<string, string> = { 'x-api-key': key }) =>
    fetch(base + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    })
  return {
    db, base, key, accountId, logs, readiness, get, post,
    admission: app.context.admission!,
    queues: app.context.queues!,
    searches: app.context.searches!,
    sync: () => app.context.admission!.sync(),
    boss,
    replicas,
    close: async () => {
      await workers?.stop()
      await boss?.stop({ graceful: false, wait: true, timeout: 5000 }).catch(() => {})
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
      await app.context.admission!.close()
      await workerSql?.end({ timeout: 5 })
      await replicas?.close()
      await db.close()
    },
  }
}

/** Rate limits no test reaches, for tests whose subject is not the rate limiter. */
export const ROOMY_LIMITS = { key: { limit: 100_000, windowSeconds: 60 }, search: { limit: 100_000, windowSeconds: 1 }, anonymous: { limit: 100_000, windowSeconds: 60 } }
