/**
 * GET /v2/downloads/... over real HTTP, without an API key: the file from the local
 * store with its headers, 404 for every link that was not signed for a finished file,
 * 410 once the link or the file expired, and a 302 to a presigned URL from S3 (a real
 * s3rver). The router is mounted on a small app of its own, behind errorHandler.
 */
import anyTest, { type TestFn } from 'ava'
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import Koa from 'koa'
// @ts-expect-error s3rver ships no types
import S3rver from 's3rver'
import { errorHandler } from '../../api/errors.ts'
import { downloadRoutes } from '../../api/routes/downloads.ts'
import { downloadUrl, loadSigningKey } from '../../jobs/files/signing.ts'
import { localStore, s3Store, type FileStore } from '../../jobs/files/store.ts'
import { insertTask } from '../../sql/tasks.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'
import { createAccountWithKey } from '../helpers/factories.ts'

type Served = { base: string; store: FileStore; close: () => Promise<void> }
type Ctx = { db: TestDb; tmp: string; key: string; accountId: string; local: Served; s3: Served; stopS3: () => Promise<void> }
const test = anyTest as TestFn<Ctx>

async function serve(db: TestDb, store: FileStore, key: string): Promise<Served> {
  const app = new Koa()
  app.use(errorHandler)
  const router = downloadRoutes(db.sql, store, async () => key)
  app.use(router.routes()).use(router.allowedMethods())
  const server = app.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    store,
    close: async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

test.before(async (t) => {
  const db = await testDatabase()
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'jds-downloads-'))
  const key = await loadSigningKey(db.sql, null)
  const { accountId } = await createAccountWithKey(db.sql)
  const s3rver = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: path.join(tmp, 's3'), configureBuckets: [{ name: 'jds-bucket' }] })
  const { port } = (await s3rver.run()) as AddressInfo
  const s3 = s3Store({
    bucket: 'jds-bucket', endpoint: `http://127.0.0.1:${port}`, region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER',
    forcePathStyle: true, prefix: 'exports/', presignSeconds: 300,
  })
  t.context = {
    db, tmp, key, accountId,
    local: await serve(db, localStore(path.join(tmp, 'downloads')), key),
    s3: await serve(db, s3, key),
    stopS3: () => s3rver.close(),
  }
})
test.after.always(async (t) => {
  await t.context?.local?.close()
  await t.context?.s3?.close()
  await t.context?.stopS3?.()
  await t.context?.db?.close()
  if (t.context?.tmp) await rm(t.context.tmp, { recursive: true, force: true })
})

const day = 86_400_000

type Export = { id: string; filename: string; bytes: Buffer; link: (expiresAt?: Date, filename?: string, id?: string) => string }

/**
 * A finished export task as the export worker leaves it: its file in `served`'s store,
 * file_key, file_expires_at and the result. `state` and `deleted` make the other cases.
 */
async function exportTask(
  t: { context: Ctx },
  served: Served,
  { format = 'csv', expiresAt = new Date(Date.now() + 30 * day), state = 'finished', deleted = false } = {},
): Promise<Export> {
  const { db, tmp, key, accountId } = t.context
  const task = await insertTask(db.sql, { account_id: accountId, type: 'export_job_data', input: { format } })
  const filename = `${task.id}.${format === 'csv' ? 'csv' : 'jsonl'}`
  const bytes = Buffer.from(format === 'csv' ? `_id,job_title\n${task.id},"Engineer, Backend"\n` : `{"_id":"${task.id}","job_title":"Engineer é"}\n`)
  const local = path.join(tmp, `${task.id}.tmp`)
  await writeFile(local, bytes)
  const fileKey = `exports/${filename}`
  const { size } = await served.store.put(fileKey, local, format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson')
  const link = (at = expiresAt, name = filename, id = task.id) => downloadUrl(key, served.base, id, at, name)
  await db.sql`
    update tasks set state = ${state}, progress = 1, completed_at = now(),
      file_key = ${fileKey}, file_expires_at = ${expiresAt}, file_deleted_at = ${deleted ? new Date() : null},
      result = ${db.sql.json({ download_url: link(), file_size: size, record_count: 1, expiry_time: expiresAt.toISOString() })}
    where id = ${task.id}`
  return { id: task.id, filename, bytes, link }
}

/** The `detail` of an error body, which must be JSON. */
async function detail(res: Response) {
  const type = res.headers.get('content-type') ?? ''
  if (!type.startsWith('application/json')) throw new Error(`not JSON: ${type}`)
  return ((await res.json()) as { detail: string }).detail
}

test('the link from the task result serves the CSV without a key, with its type, length and attachment name', async (t) => {
  const e = await exportTask(t, t.context.local)
  const [row] = await t.context.db.sql`select result from tasks where id = ${e.id}`
  const res = await fetch(row.result.download_url)
  t.is(res.status, 200)
  t.deepEqual(Buffer.from(await res.arrayBuffer()), e.bytes)
  t.is(res.headers.get('content-type'), 'text/csv; charset=utf-8')
  t.is(res.headers.get('content-length'), String(e.bytes.length))
  t.is(res.headers.get('content-disposition'), `attachment; filename="${e.filename}"; filename*=UTF-8''${e.filename}`)
  t.is(res.headers.get('cache-control'), 'private')
  t.is(row.result.file_size, e.bytes.length)
})

test('a JSONL export is served as application/x-ndjson', async (t) => {
  const e = await exportTask(t, t.context.local, { format: 'json' })
  const res = await fetch(e.link())
  t.is(res.status, 200)
  t.is(res.headers.get('content-type'), 'application/x-ndjson')
  t.deepEqual(Buffer.from(await res.arrayBuffer()), e.bytes)
})

test('HEAD answers with the headers alone', async (t) => {
  const e = await exportTask(t, t.context.local)
  const res = await fetch(e.link(), { method: 'HEAD' })
  t.is(res.status, 200)
  t.is(res.headers.get('content-length'), String(e.bytes.length))
  t.is((await res.arrayBuffer()).byteLength, 0)
})

test('a link that was not signed for a finished file is a 404 "Download not found"', async (t) => {
  const { local, db, accountId } = t.context
  const e = await exportTask(t, local)
  const other = await exportTask(t, local)
  const good = new URL(e.link())
  const [, , , id, expires, signature, filename] = good.pathname.split('/')
  const queued = await exportTask(t, local, { state: 'processing' })
  const deleted = await exportTask(t, local, { deleted: true })
  const missing = await exportTask(t, local)
  await local.store.delete(`exports/${missing.filename}`)
  const fileless = await insertTask(db.sql, { account_id: accountId, type: 'export_job_data', input: { format: 'csv' } })
  await db.sql`update tasks set state = 'finished' where id = ${fileless.id}`
  const later = String(Number(expires) + day / 1000)

  const cases: [string, string][] = [
    ['a changed signature', `/v2/downloads/${id}/${expires}/${signature.slice(0, -2)}xx/${filename}`],
    ['another task with this signature', `/v2/downloads/${other.id}/${expires}/${signature}/${filename}`],
    ['a later expiry', `/v2/downloads/${id}/${later}/${signature}/${filename}`],
    ['another file name', `/v2/downloads/${id}/${expires}/${signature}/${e.id}.jsonl`],
    ['an expiry that is not a number', `/v2/downloads/${id}/soon/${signature}/${filename}`],
    ['a task id that is not a uuid, signed', new URL(e.link(undefined, undefined, 'not-a-uuid')).pathname],
    ['an unknown task, signed', new URL(e.link(undefined, undefined, randomUUID())).pathname],
    ['a task still processing, signed', new URL(queued.link()).pathname],
    ['a finished task without a file, signed', new URL(e.link(undefined, `${fileless.id}.csv`, fileless.id)).pathname],
    ['a file the cleanup deleted early, signed', new URL(deleted.link()).pathname],
    ['a file missing from the store, signed', new URL(missing.link()).pathname],
  ]
  for (const [why, pathname] of cases) {
    const res = await fetch(local.base + pathname)
    t.is(res.status, 404, why)
    t.is(await detail(res), 'Download not found', why)
  }
  t.is((await fetch(good)).status, 200, 'the untouched link still works')
})

test('a link past its expiry, or a file past its own, is a 410 saying when it expired', async (t) => {
  const { local, db } = t.context
  const linkExpired = await exportTask(t, local)
  const past = new Date(Math.floor((Date.now() - day) / 1000) * 1000)
  let res = await fetch(linkExpired.link(past))
  t.is(res.status, 410)
  t.is(await detail(res), `Download expired at ${past.toISOString()}; export again for a new link`)

  // a link signed for later than its file is kept (the TTL shortened since): the file's expiry wins
  const fileExpired = await exportTask(t, local)
  const fileExpiry = new Date(Date.now() - 60_000)
  await db.sql`update tasks set file_expires_at = ${fileExpiry} where id = ${fileExpired.id}`
  res = await fetch(fileExpired.link(new Date(Date.now() + day)))
  t.is(res.status, 410)
  t.is(await detail(res), `Download expired at ${fileExpiry.toISOString()}; export again for a new link`)

  // once the cleanup deleted it, still a 410 and not a 404
  await db.sql`update tasks set file_deleted_at = now() where id = ${fileExpired.id}`
  t.is((await fetch(fileExpired.link(new Date(Date.now() + day)))).status, 410)

  // and a bad signature with a past expiry stays a 404: only a signed link learns it expired
  const u = new URL(linkExpired.link(past))
  const parts = u.pathname.split('/')
  parts[5] = parts[5].replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))
  t.is((await fetch(local.base + parts.join('/'))).status, 404)
})

test('a path segment with a control character is a 422', async (t) => {
  const e = await exportTask(t, t.context.local)
  const res = await fetch(e.link(undefined, 'a%00b.csv'.replace('%00', '\u0000')))
  t.is(res.status, 422)
  const body = (await res.json()) as { detail: { loc: unknown[] }[] }
  t.deepEqual(body.detail[0].loc, ['path', 'filename'])
})

test('S3: a 302 to a presigned URL that is not cached, which serves the file as an attachment', async (t) => {
  const { s3 } = t.context
  const e = await exportTask(t, s3)
  const res = await fetch(e.link(), { redirect: 'manual' })
  t.is(res.status, 302)
  t.is(res.headers.get('cache-control'), 'no-store')
  const location = new URL(res.headers.get('location')!)
  t.is(location.pathname, `/jds-bucket/exports/exports/${e.filename}`, 'the bucket, the prefix, the key')
  t.is(location.searchParams.get('X-Amz-Expires'), '300')
  const file = await fetch(location)
  t.is(file.status, 200)
  t.deepEqual(Buffer.from(await file.arrayBuffer()), e.bytes)
  t.is(file.headers.get('content-disposition'), `attachment; filename="${e.filename}"; filename*=UTF-8''${e.filename}`)
  t.is(file.headers.get('content-type'), 'text/csv; charset=utf-8')

  // each visit presigns afresh: a visit in a later second is signed in that second, not the first one's
  const signedAt = location.searchParams.get('X-Amz-Date')!
  const amzDate = () => new Date().toISOString().replace(/[-:]|\.\d{3}/g, '')
  while (amzDate() <= signedAt) await new Promise((r) => setTimeout(r, 50))
  const visited = amzDate()
  const again = new URL((await fetch(e.link(), { redirect: 'manual' })).headers.get('location')!)
  t.true(again.searchParams.get('X-Amz-Date')! >= visited, `signed at ${again.searchParams.get('X-Amz-Date')}, visited at ${visited}`)
  t.not(again.searchParams.get('X-Amz-Signature'), location.searchParams.get('X-Amz-Signature'))
})

test('S3: an object missing from the bucket is a 404, an expired link a 410', async (t) => {
  const { s3 } = t.context
  const e = await exportTask(t, s3)
  await s3.store.delete(`exports/${e.filename}`)
  const res = await fetch(e.link(), { redirect: 'manual' })
  t.is(res.status, 404)
  t.is(await detail(res), 'Download not found')
  const live = await exportTask(t, s3)
  t.is((await fetch(live.link(new Date(Date.now() - day)), { redirect: 'manual' })).status, 410)
})

test('a link for another account\'s task works too: the link, not a key, is the credential', async (t) => {
  const { db, local } = t.context
  const e = await exportTask(t, local)
  const { accountId: other } = await createAccountWithKey(db.sql)
  await db.sql`update tasks set account_id = ${other} where id = ${e.id}`
  const res = await fetch(e.link(), { headers: { 'x-api-key': `jds_${randomBytes(8).toString('hex')}` } })
  t.is(res.status, 200, 'an unrelated key is ignored')
  t.deepEqual(Buffer.from(await res.arrayBuffer()), e.bytes, 'the file itself')
})
