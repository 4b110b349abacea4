/**
 * Storing a resume leaves no file without a record, on both databases: the upload is
 * written down before its file (ingest/resume/store-resume.ts), a failure at any step
 * removes what was written, and the sweep removes what a crash left, never an upload
 * younger than its grace period. A crash is a file store that stops (its promise never
 * settles) before or after the file lands; a failed insert is a real constraint violation.
 * Serial: a sweep with no grace period would take the other tests' uploads.
 */
import anyTest, { type TestFn } from 'ava'
import { existsSync } from 'node:fs'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import { localStore, type FileStore } from '../../jobs/files/store.ts'
import { storeResume, sweepResumeUploads, UploadSwept, type ResumeFiles } from '../../ingest/resume/store-resume.ts'
import { findResume } from '../../sql/resumes.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { createAccountWithKey } from '../helpers/factories.ts'
import { multipart, textFile, TYPES } from '../helpers/resume-files.ts'

type Ctx = TestApp & { dir: string; store: FileStore }
const test = anyTest as TestFn<Ctx>

test.before(async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'resume-store-'))
  const app = await startTestApp({ tasks: true, config: { downloadsDir: dir } })
  Object.assign(t.context, app, { dir, store: localStore(dir) })
})
test.after.always(async (t) => {
  await t.context?.close?.()
  if (t.context?.dir) await rm(t.context.dir, { recursive: true, force: true })
})

const newResume = (accountId: string) => {
  const id = randomUUID()
  return { id, account_id: accountId, resume_url: `http://x/v2/resumes/${id}/file`, file_key: `resumes/${accountId}/${id}.txt`, file_name: 'cv.txt', file_size: 3, content_type: 'text/plain' }
}

const never = () => new Promise<never>(() => {})
const noEnqueue = async () => {}

async function uploads(t: { context: Ctx }, id: string) {
  return (await t.context.db.sql`select swept_at from resume_uploads where id = ${id}`).length
}
const fileOf = (t: { context: Ctx }, key: string) => existsSync(path.join(t.context.dir, key))

test.serial('an upload stores the file and the record, and leaves no upload row', async (t) => {
  const r = newResume(t.context.accountId)
  const row = await storeResume(t.context.db.sql, t.context.store, r, Buffer.from('cv\n'), { enqueue: noEnqueue })
  t.like(row, { id: r.id, status: 'uploaded' })
  t.true(fileOf(t, r.file_key))
  t.is(await uploads(t, r.id), 0)
})

test.serial('a store that fails, an insert that fails or a queue that fails leave neither file nor record', async (t) => {
  const { sql } = t.context.db
  const failingStore: ResumeFiles = { putBytes: async () => { throw new Error('disk full') }, delete: (k) => t.context.store.delete(k) }
  const a = newResume(t.context.accountId)
  await t.throwsAsync(storeResume(sql, failingStore, a, Buffer.from('cv'), { enqueue: noEnqueue }), { message: 'disk full' })

  // the insert itself fails: an account that does not exist violates the foreign key, after the file was stored
  const b = newResume(randomUUID())
  await t.throwsAsync(storeResume(sql, t.context.store, b, Buffer.from('cv'), { enqueue: noEnqueue }), { message: /foreign key/ })

  const c = newResume(t.context.accountId)
  await t.throwsAsync(storeResume(sql, t.context.store, c, Buffer.from('cv'), { enqueue: async () => { throw new Error('queue down') } }), { message: 'queue down' })

  for (const r of [a, b, c]) {
    t.false(fileOf(t, r.file_key), r.file_key)
    t.is(await uploads(t, r.id), 0)
    t.is(await findResume(sql, r.account_id, r.id), null)
  }
})

test.serial('a crash after the file landed leaves an upload row that is not served; the sweep removes the file once the grace period is over', async (t) => {
  const { sql } = t.context.db
  // the process stops right after the store wrote the file
  const crashing: ResumeFiles = { putBytes: async (k, b, ct) => { await t.context.store.putBytes(k, b, ct); return never() }, delete: (k) => t.context.store.delete(k) }
  const r = newResume(t.context.accountId)
  void storeResume(sql, crashing, r, Buffer.from('cv'), { enqueue: noEnqueue })
  while (!fileOf(t, r.file_key)) await new Promise((resolve) => setTimeout(resolve, 10))

  t.is(await uploads(t, r.id), 1)
  t.is(await findResume(sql, r.account_id, r.id), null)
  const res = await t.context.get(`/v2/resumes/${r.id}`)
  t.is(res.status, 404)
  t.false(JSON.stringify(await (await t.context.get('/v2/resumes?limit=100')).json()).includes(r.id))

  // within the grace period the upload may still be running: nothing is touched
  t.is(await sweepResumeUploads(sql, t.context.store), 0)
  t.true(fileOf(t, r.file_key))
  t.is(await uploads(t, r.id), 1)

  t.true((await sweepResumeUploads(sql, t.context.store, { graceSeconds: 0 })) >= 1)
  t.false(fileOf(t, r.file_key))
  t.is(await uploads(t, r.id), 0)
})

test.serial('a crash before the file was written leaves only an upload row, which the sweep removes', async (t) => {
  const { sql } = t.context.db
  const stopped: ResumeFiles = { putBytes: never, delete: (k) => t.context.store.delete(k) }
  const r = newResume(t.context.accountId)
  void storeResume(sql, stopped, r, Buffer.from('cv'), { enqueue: noEnqueue })
  while ((await uploads(t, r.id)) === 0) await new Promise((resolve) => setTimeout(resolve, 10))
  t.true((await sweepResumeUploads(sql, t.context.store, { graceSeconds: 0 })) >= 1)
  t.is(await uploads(t, r.id), 0)
  t.false(fileOf(t, r.file_key))
})

test.serial('an upload whose file lands after the sweep claimed it gives up and deletes its own file', async (t) => {
  const { sql } = t.context.db
  let land!: () => void
  const landed = new Promise<void>((resolve) => (land = resolve))
  let reached!: () => void
  const writing = new Promise<void>((resolve) => (reached = resolve))
  const slow: ResumeFiles = {
    putBytes: async (k, b, ct) => {
      reached()
      await landed
      await t.context.store.putBytes(k, b, ct)
    },
    delete: (k) => t.context.store.delete(k),
  }
  const r = newResume(t.context.accountId)
  const upload = storeResume(sql, slow, r, Buffer.from('cv'), { enqueue: noEnqueue })
  await writing
  t.true((await sweepResumeUploads(sql, t.context.store, { graceSeconds: 0 })) >= 1)
  land()
  await t.throwsAsync(upload, { instanceOf: UploadSwept })
  t.false(fileOf(t, r.file_key))
  t.is(await findResume(sql, r.account_id, r.id), null)
  t.is(await uploads(t, r.id), 0)
})

test.serial('POST /v2/resumes sweeps the uploads a crash stopped more than the grace period ago', async (t) => {
  const { sql } = t.context.db
  const other = await createAccountWithKey(sql)
  const crashing: ResumeFiles = { putBytes: async (k, b, ct) => { await t.context.store.putBytes(k, b, ct); return never() }, delete: (k) => t.context.store.delete(k) }
  const r = newResume(other.accountId)
  void storeResume(sql, crashing, r, Buffer.from('cv'), { enqueue: noEnqueue })
  while (!fileOf(t, r.file_key)) await new Promise((resolve) => setTimeout(resolve, 10))
  await sql`update resume_uploads set created_at = now() - interval '2 hours' where id = ${r.id}`

  const { body, contentType } = multipart([{ name: 'file', bytes: textFile(), type: TYPES.txt, filename: 'cv.txt' }])
  const res = await fetch(t.context.base + '/v2/resumes', { method: 'POST', headers: { 'x-api-key': t.context.key, 'content-type': contentType }, body })
  t.is(res.status, 201)
  const deadline = Date.now() + 10_000
  while (fileOf(t, r.file_key) || (await uploads(t, r.id)) > 0) {
    if (Date.now() > deadline) return t.fail('the stale upload was not swept')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  // the new upload's file stays, named by its record
  const created = (await res.json()) as { _id: string }
  const files = await readdir(path.join(t.context.dir, 'resumes', t.context.accountId))
  t.true(files.some((f) => f.startsWith(created._id)))
  t.pass()
})
