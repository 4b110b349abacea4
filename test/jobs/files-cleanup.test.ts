/** The cleanup run deletes expired export files from the store, then marks their tasks; nothing else. */
import anyTest, { type TestFn } from 'ava'
import { randomBytes, randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import type PgBoss from 'pg-boss'
import pino from 'pino'
import { cleanupFiles, handler } from '../../jobs/files-cleanup.ts'
import { localStore, type FileStore } from '../../jobs/files/store.ts'
import { beginResumeUpload } from '../../sql/resumes.ts'
import { insertTask } from '../../sql/tasks.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'
import { createAccountWithKey } from '../helpers/factories.ts'

type Ctx = TestDb & { root: string; store: FileStore; accountId: string }
const test = anyTest as TestFn<Ctx>
test.before(async (t) => {
  const db = await testDatabase()
  const root = await mkdtemp(path.join(os.tmpdir(), 'jds-cleanup-'))
  const { accountId } = await createAccountWithKey(db.sql)
  t.context = { ...db, root, store: localStore(root), accountId }
})
test.after.always(async (t) => {
  await t.context?.close()
  if (t.context?.root) await rm(t.context.root, { recursive: true, force: true })
})

const day = 86_400_000

/** A finished export whose file is in the store and expires at `expiresAt`. */
async function exportTask(t: { context: Ctx }, expiresAt: Date, { deletedAt = null as Date | null, inStore = true } = {}) {
  const { sql, store, root, accountId } = t.context
  const task = await insertTask(sql, { account_id: accountId, type: 'export_job_data', input: { format: 'csv' } })
  const key = `exports/${task.id}.csv`
  if (inStore) {
    const tmp = path.join(root, `${task.id}.tmp`)
    await writeFile(tmp, `_id\n${task.id}\n`)
    await store.put(key, tmp, 'text/csv')
  }
  await sql`
    update tasks set state = 'finished', progress = 1, completed_at = now(),
      file_key = ${key}, file_expires_at = ${expiresAt}, file_deleted_at = ${deletedAt}
    where id = ${task.id}`
  return { id: task.id, key, file: path.join(root, key) }
}

const deletedAt = async (t: { context: Ctx }, id: string) =>
  (await t.context.sql<{ file_deleted_at: Date | null }[]>`select file_deleted_at from tasks where id = ${id}`)[0].file_deleted_at

// The runs see every expired file in the database, so the tests take turns.
test.serial('deletes expired files in batches and marks their tasks; leaves live, already deleted and fileless tasks alone', async (t) => {
  const { sql, store, accountId } = t.context
  const now = Date.now()
  const expired = await Promise.all([1, 2, 3].map((d) => exportTask(t, new Date(now - d * day))))
  const live = await exportTask(t, new Date(now + day))
  // deleted earlier: its file is back in the store only to show the run does not look at it again
  const done = await exportTask(t, new Date(now - 5 * day), { deletedAt: new Date(now - 4 * day) })
  const queued = await insertTask(sql, { account_id: accountId, type: 'export_job_data', input: { format: 'csv' } })

  t.deepEqual(await cleanupFiles(sql, store, 2), { deleted: 3 }, 'two batches: 2, then 1')
  for (const e of expired) {
    t.false(existsSync(e.file), 'expired file deleted')
    t.truthy(await deletedAt(t, e.id), 'and its task marked')
  }
  t.true(existsSync(live.file), 'a live file stays')
  t.is(await deletedAt(t, live.id), null)
  t.true(existsSync(done.file), 'an already deleted task is not listed again')
  t.deepEqual(await deletedAt(t, done.id), new Date(now - 4 * day), 'and keeps its time')
  t.is(await deletedAt(t, queued.id), null)

  t.deepEqual(await cleanupFiles(sql, store, 2), { deleted: 0 }, 'a second run finds nothing')
  await rm(done.file)
})

test.serial('a file already gone from the store (a run that died before marking) is marked on the next run', async (t) => {
  const { sql, store } = t.context
  const task = await exportTask(t, new Date(Date.now() - day), { inStore: false })
  t.deepEqual(await cleanupFiles(sql, store), { deleted: 1 })
  t.truthy(await deletedAt(t, task.id))
})

test.serial('a file the store refuses to delete stays unmarked, the run marks the others and fails for a retry', async (t) => {
  const { sql, store } = t.context
  const [good, bad] = await Promise.all([exportTask(t, new Date(Date.now() - day)), exportTask(t, new Date(Date.now() - 2 * day))])
  const refusing: FileStore = {
    ...store,
    delete: (key) => (key === bad.key ? Promise.reject(new Error('access denied')) : store.delete(key)),
  }
  await t.throwsAsync(cleanupFiles(sql, refusing), { message: /^1 expired files could not be deleted \(1 were\): access denied/ })
  t.truthy(await deletedAt(t, good.id))
  t.false(existsSync(good.file))
  t.is(await deletedAt(t, bad.id), null, 'left for the next run')
  t.true(existsSync(bad.file))

  t.deepEqual(await cleanupFiles(sql, store), { deleted: 1 }, 'the retry deletes it')
  t.truthy(await deletedAt(t, bad.id))
  t.false(existsSync(bad.file))
})

test.serial('the queue handler runs the cleanup, sweeps the files of uploads a crash stopped, and logs the counts with the job id', async (t) => {
  const { sql, store } = t.context
  const task = await exportTask(t, new Date(Date.now() - day))
  const lines: string[] = []
  const log = pino({ level: 'info' }, new Writable({ write: (chunk, _enc, cb) => (lines.push(String(chunk)), cb()) }))
  const job = { id: `job-${randomBytes(4).toString('hex')}`, name: 'files.cleanup', data: {} } as PgBoss.Job<object>
  // an upload a crash stopped two hours ago, and one under way now
  const stale = { id: randomUUID(), key: `resumes/${randomUUID()}.pdf` }
  const young = { id: randomUUID(), key: `resumes/${randomUUID()}.pdf` }
  for (const u of [stale, young]) {
    await beginResumeUpload(sql, u.id, u.key)
    await store.putBytes(u.key, Buffer.from('%PDF-1.4'), 'application/pdf')
  }
  await sql`update resume_uploads set created_at = now() - interval '2 hours' where id = ${stale.id}`
  t.deepEqual(await handler(sql, store, log)([job]), { deleted: 1, swept_uploads: 1 })
  t.false(existsSync(task.file))
  t.false(existsSync(path.join(t.context.root, stale.key)), "the stopped upload's file is swept")
  t.true(existsSync(path.join(t.context.root, young.key)), 'an upload under way is left alone')
  t.deepEqual((await sql<{ id: string }[]>`select id::text from resume_uploads`).map((r) => r.id), [young.id])
  const logged = lines.map((l) => JSON.parse(l)).find((l) => l.job_id === job.id)
  t.like(logged, { msg: 'expired files deleted', deleted: 1, swept_uploads: 1, store: 'local' })
})
