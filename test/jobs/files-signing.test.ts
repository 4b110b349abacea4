/** Download links: the format, what a changed part does to the signature, and the one shared key. */
import anyTest, { type TestFn } from 'ava'
import { randomBytes, randomUUID } from 'node:crypto'
import { downloadUrl, loadSigningKey, signingKeySource, verifyDownload } from '../../jobs/files/signing.ts'
import { connect, type Db } from '../../sql/db.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'

const test = anyTest as TestFn<TestDb>
test.before(async (t) => {
  t.context = await testDatabase()
})
test.after.always(async (t) => {
  await t.context?.close()
})

const key = randomBytes(32).toString('base64url')
const taskId = randomUUID()
const expiresAt = new Date('2027-01-15T10:20:30.999Z')

/** The four path parts of a link, decoded as the router decodes them. */
function parts(url: string) {
  const m = /^http:\/\/files\.example\.test\/v2\/downloads\/([^/]+)\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url)
  if (!m) throw new Error(`not a download link: ${url}`)
  const [taskId, expires, signature, filename] = m.slice(1).map(decodeURIComponent)
  return { taskId, expires, signature, filename }
}

test('a link carries the task, the expiry in Unix seconds, a base64url HMAC-SHA256 and the file name', (t) => {
  const p = parts(downloadUrl(key, 'http://files.example.test', taskId, expiresAt, `${taskId}.csv`))
  t.is(p.taskId, taskId)
  t.is(p.expires, String(Math.floor(expiresAt.getTime() / 1000)))
  t.regex(p.signature, /^[A-Za-z0-9_-]{43}$/, '32 bytes, base64url without padding')
  t.is(p.filename, `${taskId}.csv`)
  t.true(verifyDownload(key, p.taskId, p.expires, p.signature, p.filename))
})

test('a name that needs escaping survives the trip through the URL', (t) => {
  const url = downloadUrl(key, 'http://files.example.test', taskId, expiresAt, 'jobs export/é?.csv')
  const p = parts(url)
  t.is(p.filename, 'jobs export/é?.csv')
  t.true(verifyDownload(key, p.taskId, p.expires, p.signature, p.filename))
})

test('changing the task, the expiry, the file name, the signature or the key fails verification', (t) => {
  const p = parts(downloadUrl(key, 'http://files.example.test', taskId, expiresAt, `${taskId}.csv`))
  const flip = (s: string) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1)
  const later = String(Number(p.expires) + 86_400)
  const cases: [string, string, string, string, string, string][] = [
    ['another task', key, randomUUID(), p.expires, p.signature, p.filename],
    ['a later expiry', key, p.taskId, later, p.signature, p.filename],
    ['the expiry with a leading zero', key, p.taskId, `0${p.expires}`, p.signature, p.filename],
    ['another file name', key, p.taskId, p.expires, p.signature, `${taskId}.jsonl`],
    ['a changed signature', key, p.taskId, p.expires, flip(p.signature), p.filename],
    ['a truncated signature', key, p.taskId, p.expires, p.signature.slice(0, -1), p.filename],
    ['an empty signature', key, p.taskId, p.expires, '', p.filename],
    ['another key', randomBytes(32).toString('base64url'), p.taskId, p.expires, p.signature, p.filename],
    ['an expiry that is not digits', key, p.taskId, `${p.expires}.0`, p.signature, p.filename],
  ]
  for (const [why, k, id, expires, signature, filename] of cases) t.false(verifyDownload(k, id, expires, signature, filename), why)
  // the same link, untouched, still verifies: the cases fail for their change alone
  t.true(verifyDownload(key, p.taskId, p.expires, p.signature, p.filename))
})

test('a configured secret is used as it is, without the database', async (t) => {
  const untouchable = (() => {
    throw new Error('the database was used')
  }) as unknown as Db
  t.is(await loadSigningKey(untouchable, 'configured-secret'), 'configured-secret')
})

test.serial('without a configured secret, concurrent first loads from separate connections agree on one stored key', async (t) => {
  const pools = Array.from({ length: 4 }, () => connect(t.context.url, 2))
  t.teardown(() => Promise.all(pools.map((p) => p.end({ timeout: 5 }))))
  const keys = await Promise.all(pools.flatMap((p) => [loadSigningKey(p, null), loadSigningKey(p, null)]))
  t.is(new Set(keys).size, 1, 'one key')
  t.true(keys[0].length >= 43, 'at least 32 random bytes')
  const rows = await t.context.sql`select value from service_secrets where name = 'download_signing_key'`
  t.deepEqual(rows.map((r) => r.value), [keys[0]], 'kept once in service_secrets')
  t.is(await loadSigningKey(t.context.sql, null), keys[0], 'a later load reads it back')
  t.is(await loadSigningKey(t.context.sql, ''), keys[0], 'an empty secret counts as unset')
})

test.serial('signingKeySource loads once, and tries again after a failed load', async (t) => {
  const { sql } = t.context
  let calls = 0
  const flaky = ((...args: Parameters<typeof sql>) => {
    calls++
    return calls === 1 ? Promise.reject(new Error('database starting')) : sql(...args)
  }) as unknown as Db
  const source = signingKeySource(flaky, null)
  await t.throwsAsync(source(), { message: 'database starting' })
  const first = await source()
  const callsAfterLoad = calls
  t.is(await source(), first)
  t.is(calls, callsAfterLoad, 'no query for a loaded key')
  t.is(first, await loadSigningKey(sql, null), 'the stored key')
})
