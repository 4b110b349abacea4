/**
 * The usage summary's JWT secret when JWT_SECRET is unset: generated once per database
 * and kept there, so two API processes and `admin tokens:create` on one database sign
 * and verify alike, and a token made for one installation is refused by another.
 */
import anyTest, { type TestFn } from 'ava'
import { execFile } from 'node:child_process'
import type { AddressInfo } from 'node:net'
import { promisify } from 'node:util'
import pino from 'pino'
import { buildApp } from '../../api/app.ts'
import { loadJwtSecret, signToken } from '../../api/middleware/jwt.ts'
import { loadConfig } from '../../sql/config.ts'
import type { Sql } from '../../sql/db.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'
import { createAccountWithKey } from '../helpers/factories.ts'

type Server = { base: string; close: () => Promise<void> }
type Ctx = { db: TestDb; other: TestDb; servers: Server[] }
const test = anyTest as TestFn<Ctx>

const SUMMARY = '/v2/billing/usage/summary'
// the value the source used to sign with when JWT_SECRET was unset
const OLD_CONSTANT = 'dev-only-jwt-secret-set-JWT_SECRET-in-production'

/** An API process on `sql` with JWT_SECRET as given (null: unset). */
async function serve(t: { context: Ctx }, sql: Sql, jwtSecret: string | null): Promise<Server> {
  const app = buildApp({ sql, config: { ...loadConfig(), jwtSecret }, log: pino({ level: 'silent' }) })
  const server = app.listen(0, '127.0.0.1')
  await new Promise((r) => server.once('listening', r))
  const s = {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections()
      await new Promise((r) => server.close(r))
      await app.context.admission!.close()
    },
  }
  t.context.servers.push(s)
  return s
}

const summary = async (s: Server, token: string) => (await fetch(s.base + SUMMARY, { headers: { authorization: `Bearer ${token}` } })).status

test.before(async (t) => {
  const [db, other] = await Promise.all([testDatabase(), testDatabase()])
  t.context = { db, other, servers: [] }
})
test.after.always(async (t) => {
  await Promise.all(t.context.servers?.map((s) => s.close()) ?? [])
  await t.context.db?.close()
  await t.context.other?.close()
})

test('without JWT_SECRET, a token from admin tokens:create verifies in two API processes on the same database', async (t) => {
  const { db } = t.context
  const { accountId } = await createAccountWithKey(db.sql)
  // built before any secret exists: each reads it on its first token
  const [first, second] = [await serve(t, db.sql, null), await serve(t, db.sql, null)]
  const { stdout } = await promisify(execFile)('npx', ['tsx', 'bin/admin.ts', 'tokens:create', '--account', accountId], {
    env: { ...process.env, DATABASE_URL: db.url, JWT_SECRET: '' },
  })
  const { token, account_id } = JSON.parse(stdout)
  t.is(account_id, accountId)
  t.is(await summary(first, token), 200)
  t.is(await summary(second, token), 200)

  const stored = await db.sql<{ value: string }[]>`select value from service_secrets where name = 'jwt_secret'`
  t.is(stored.length, 1, 'one secret, kept in the database')
  t.true(stored[0].value.length >= 43, 'at least 32 random bytes')
  t.not(stored[0].value, OLD_CONSTANT)

  const forged = await signToken(OLD_CONSTANT, accountId, 60)
  t.is(await summary(first, forged.token), 401, 'the constant the source once held signs nothing')
  t.is(await summary(second, forged.token), 401)
})

test('each database generates its own secret: a token of one installation is refused by another', async (t) => {
  const { db, other } = t.context
  const here = await loadJwtSecret(db.sql, null)
  const there = await loadJwtSecret(other.sql, null)
  t.not(here, there)
  const { accountId } = await createAccountWithKey(other.sql)
  const server = await serve(t, other.sql, null)
  t.is(await summary(server, (await signToken(here, accountId, 60)).token), 401)
  t.is(await summary(server, (await signToken(there, accountId, 60)).token), 200)
})

test('JWT_SECRET, when set, is the secret: the stored one signs nothing there', async (t) => {
  const { db } = t.context
  const { accountId } = await createAccountWithKey(db.sql)
  const configured = 'a-configured-secret-of-enough-length-0123456789'
  const server = await serve(t, db.sql, configured)
  t.is(await summary(server, (await signToken(configured, accountId, 60)).token), 200)
  t.is(await summary(server, (await signToken(await loadJwtSecret(db.sql, null), accountId, 60)).token), 401)
  t.deepEqual(loadConfig({}).jwtSecret, null, 'unset is no secret at all, not a fallback value')
})
