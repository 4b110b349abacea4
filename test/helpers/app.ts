/** The app on a real port, with a fresh database and an account with a key. */
import type { AddressInfo } from 'node:net'
import pino from 'pino'
import { Writable } from 'node:stream'
import { buildApp } from '../../api/app.ts'
import type { Admission } from '../../api/middleware/admission.ts'
import { loadConfig, type Config } from '../../sql/config.ts'
import type { Readiness } from '../../api/routes/health.ts'
import { connectAdmission } from '../../sql/db.ts'
import { testDatabase, type TestDb } from './db.ts'
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
  /** applies account changes made behind the app's back and flushes usage, as its next tick would */
  sync: () => Promise<void>
  close: () => Promise<void>
}

/** `config` overrides loadConfig()'s values, e.g. lower rate limits. */
export async function startTestApp({ config }: { config?: Partial<Config> } = {}): Promise<TestApp> {
  const db = await testDatabase()
  const logs: string[] = []
  const log = pino({ level: 'info' }, new Writable({ write: (chunk, _enc, cb) => (logs.push(String(chunk)), cb()) }))
  const readiness: Readiness = { ready: true }
  // as the server runs it: the admission on connections of its own
  const admissionSql = connectAdmission(db.url)
  const app = buildApp({ sql: db.sql, config: { ...loadConfig(), ...config }, log, readiness, admissionSql })
  const server = app.listen(0, '127.0.0.1')
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
    sync: () => app.context.admission!.sync(),
    close: async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
      await app.context.admission!.close()
      await admissionSql.end({ timeout: 5 })
      await db.close()
    },
  }
}
