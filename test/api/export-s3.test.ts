/**
 * POST /v2/jobs/export end to end with the file store on S3: a real S3-compatible
 * server (s3rver) started here, and the app and its in-process workers both configured
 * with it (each calls createFileStore(config)). The worker uploads the finished file
 * under the prefix and keeps nothing on disk; the signed link answers 302 to a
 * presigned URL whose bytes are the file; the cleanup deletes the object once the file
 * expired, and the link then answers 410. A CSV export round-trips through S3 too, and
 * an object deleted behind the service's back makes the link a 404 (docs/downloads.md).
 */
import anyTest, { type TestFn } from 'ava'
import { parse } from 'csv-parse/sync'
import { existsSync } from 'node:fs'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { DeleteObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3'
// @ts-expect-error s3rver ships no types
import S3rver from 's3rver'
import { ingest } from '../../ingest/pipeline.ts'
import { cleanupFiles } from '../../jobs/files-cleanup.ts'
import { createFileStore, type S3Config } from '../../jobs/files/store.ts'
import { loadConfig, type Config } from '../../sql/config.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { download as fetchDownload, waitForTask, type Task } from '../helpers/tasks.ts'
import { rawPosting } from '../helpers/factories.ts'

type Ctx = { app: TestApp; dir: string; config: Pick<Config, 'dataDir' | 'downloadsDir' | 'files'>; s3: S3Config; endpoint: string; client: S3Client; stopS3: () => Promise<void> }
const test = anyTest as TestFn<Ctx>

const BUCKET = 'jds-export-s3'
const POSTINGS = 14

test.before(async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'jds-export-s3-'))
  const s3rver = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: path.join(dir, 's3rver'), configureBuckets: [{ name: BUCKET }] })
  const { port } = (await s3rver.run()) as AddressInfo
  const endpoint = `http://127.0.0.1:${port}`
  const s3: S3Config = {
    bucket: BUCKET, endpoint, region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER',
    forcePathStyle: true, prefix: 'exports/', presignSeconds: 900,
  }
  const base = loadConfig()
  const config = {
    dataDir: path.join(dir, 'data'),
    downloadsDir: path.join(dir, 'data', 'downloads'),
    tasks: { ...base.tasks, retryLimit: 0, retryDelay: 0, maintenanceSeconds: 1 },
    rateLimits: { key: { limit: 100_000, windowSeconds: 60 }, search: { limit: 100_000, windowSeconds: 1 }, anonymous: { limit: 100_000, windowSeconds: 60 } },
    // the app's own cleanup schedule (hourly by default) must not delete files while a test expects them, or before the test's own run
    files: { ...base.files, cleanupCron: '0 0 1 1 *', s3 },
  }
  const app = await startTestApp({ tasks: true, embedder: null, config })
  await app.db.sql`update accounts set plan = 'scale' where id = ${app.accountId}`
  await app.sync()
  await ingest(
    app.db.sql,
    Array.from({ length: POSTINGS }, (_, i) => ({
      line: i + 1,
      raw: rawPosting({ source_id: `s3-export-${i}`, job_title: `Export Engineer ${i}`, date_posted: `2026-10-${String(i + 1).padStart(2, '0')}`, description: `<p>Posting <b>${i}</b>, "quoted", with a comma.</p>` }, i) as never,
    })),
    { source: 'export-s3-test' },
  )
  // a client of the test's own, to look in the bucket as an operator would
  const client = new S3Client({
    region: s3.region, endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED',
  })
  t.context = { app, dir, config, s3, endpoint, client, stopS3: () => s3rver.close() }
})

test.after.always(async (t) => {
  await t.context?.app?.close()
  t.context?.client?.destroy()
  await t.context?.stopS3?.()
  if (t.context?.dir) await rm(t.context.dir, { recursive: true, force: true })
})




/** Every object key in the bucket under the prefix, with its size. */
async function listObjects({ client, s3 }: Ctx) {
  const out = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: s3.prefix }))
  return new Map((out.Contents ?? []).map((o) => [o.Key!, o.Size!]))
}

/** Files (not directories) under `dir`, relative to it; none when it does not exist. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return []
    throw e
  })
  return entries.filter((e) => !e.isDirectory()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

async function fileKey(app: TestApp, taskId: string) {
  const [row] = await app.db.sql<{ file_key: string | null; file_deleted_at: Date | null }[]>`select file_key, file_deleted_at from tasks where id = ${taskId}`
  return row
}

async function searchIds(app: TestApp, search: Record<string, unknown>) {
  const res = await app.post('/v2/jobs/search', search)
  if (res.status !== 200) throw new Error(`search: ${res.status} ${await res.text()}`)
  return ((await res.json()) as { jobs: { _id: string }[] }).jobs.map((j) => j._id)
}

test.serial('json: the worker uploads the file to S3, the link redirects to a presigned URL serving it, and the cleanup deletes it once expired', async (t) => {
  const { app, s3, endpoint, config } = t.context
  const search = { job_titles: ['export engineer'], sort_by: 'date_posted', limit: 10 }
  const res = await app.post('/v2/jobs/export', { search, format: 'json' })
  t.is(res.status, 200, await res.clone().text())
  const { id } = (await res.json()) as Task

  const done = await waitForTask(app, id)
  t.is(done.state, 'finished', done.error ?? '')
  const result = done.result!
  t.is(result.record_count, 10)
  const filename = `jobs-export-${id.slice(0, 8)}.jsonl`
  t.regex(result.download_url, new RegExp(`^${escape(loadConfig().publicUrl)}/v2/downloads/${id}/\\d+/[\\w-]{43}/${escape(filename)}$`), 'the API\'s signed link, not a presigned URL')

  // the object sits in the bucket under the prefix, and nothing stayed on local disk
  const row = await fileKey(app, id)
  t.truthy(row.file_key)
  const objects = await listObjects(t.context)
  t.is(objects.get(`${s3.prefix}${row.file_key}`), result.file_size, `the object under the prefix has file_size bytes: ${[...objects.keys()].join(', ')}`)
  t.true(existsSync(path.join(config.dataDir, 'tmp')), 'the export wrote under this DATA_DIR')
  t.deepEqual(await filesUnder(path.join(config.dataDir, 'tmp')), [], 'no partial file left in DATA_DIR/tmp')
  t.deepEqual(await filesUnder(config.downloadsDir), [], 'nothing in DATA_DIR/downloads: the store is S3')

  // the link: a 302 to a presigned GetObject on the S3 endpoint, never cached
  const link = await download(app, result.download_url)
  t.is(link.status, 302, await link.clone().text())
  t.is(link.headers.get('cache-control'), 'no-store')
  const location = new URL(link.headers.get('location') ?? 'about:blank')
  t.is(location.origin, endpoint)
  t.is(location.pathname, `/${s3.bucket}/${s3.prefix}${row.file_key}`)
  t.regex(location.searchParams.get('X-Amz-Signature') ?? '', /^[0-9a-f]{64}$/)
  t.is(location.searchParams.get('X-Amz-Expires'), '900')

  // the presigned URL serves exactly the file: file_size bytes, record_count lines, the search's jobs in its order
  const file = await fetch(location)
  t.is(file.status, 200)
  t.is(file.headers.get('content-type'), 'application/x-ndjson')
  t.is(file.headers.get('content-disposition'), `attachment; filename="${filename}"; filename*=UTF-8''${filename}`)
  const bytes = Buffer.from(await file.arrayBuffer())
  t.is(bytes.length, result.file_size)
  const text = bytes.toString('utf8')
  t.true(text.endsWith('\n'), 'NDJSON: every line ends with a newline')
  const lines = text.trimEnd().split('\n').map((l) => JSON.parse(l) as { _id: string; meta: { position: number; task_id: string } })
  t.is(lines.length, result.record_count)
  t.deepEqual(lines.map((l) => l._id), await searchIds(app, search), 'the search\'s jobs, in its order')
  t.deepEqual(lines.map((l) => l.meta.position), Array.from({ length: 10 }, (_, i) => i + 1))
  t.true(lines.every((l) => l.meta.task_id === id))

  // expired: the cleanup deletes the object, then the task is marked and the link is a 410
  await app.db.sql`update tasks set file_expires_at = now() - interval '1 minute' where id = ${id}`
  t.deepEqual(await cleanupFiles(app.db.sql, createFileStore({ downloadsDir: config.downloadsDir, files: config.files })), { deleted: 1 })
  t.false((await listObjects(t.context)).has(`${s3.prefix}${row.file_key}`), 'the object is gone from the bucket')
  t.truthy((await fileKey(app, id)).file_deleted_at, 'the task records the deletion')
  t.is((await fetch(location)).status, 404, 'the old presigned URL serves nothing any more')
  const gone = await download(app, result.download_url)
  t.is(gone.status, 410, 'past file_expires_at the link is a 410, deleted or not (docs/downloads.md)')
  t.regex(((await gone.json()) as { detail: string }).detail, /^Download expired at .+; export again for a new link$/)
  t.is(gone.headers.get('location'), null)
})

test.serial('csv: the presigned download parses as CSV with the search\'s jobs; an object deleted behind the service\'s back is a 404', async (t) => {
  const { app, s3, endpoint, client } = t.context
  const search = { job_titles: ['export engineer'], sort_by: 'date_posted', sort_order: 'asc', return_raw_description: 'true', limit: 7 }
  const res = await app.post('/v2/jobs/export', { search, format: 'csv' })
  t.is(res.status, 200, await res.clone().text())
  const { id } = (await res.json()) as Task
  const done = await waitForTask(app, id)
  t.is(done.state, 'finished', done.error ?? '')
  const result = done.result!
  t.is(result.record_count, 7)
  t.true(result.download_url.endsWith(`/jobs-export-${id.slice(0, 8)}.csv`))
  const row = await fileKey(app, id)
  t.is((await listObjects(t.context)).get(`${s3.prefix}${row.file_key}`), result.file_size)

  const link = await download(app, result.download_url)
  t.is(link.status, 302)
  const location = link.headers.get('location') ?? ''
  t.true(location.startsWith(`${endpoint}/${s3.bucket}/${s3.prefix}`), location)
  const file = await fetch(location)
  t.is(file.status, 200)
  t.is(file.headers.get('content-type'), 'text/csv; charset=utf-8')
  const bytes = Buffer.from(await file.arrayBuffer())
  t.is(bytes.length, result.file_size)
  const rows = parse(bytes, { columns: true }) as Record<string, string>[]
  t.is(rows.length, result.record_count)
  t.deepEqual(rows.map((r) => r._id), await searchIds(app, search))
  t.deepEqual(rows.map((r) => JSON.parse(r.meta).position), [1, 2, 3, 4, 5, 6, 7])
  t.deepEqual(rows.map((r) => r.date_posted), ['2026-10-01', '2026-10-02', '2026-10-03', '2026-10-04', '2026-10-05', '2026-10-06', '2026-10-07'])
  t.regex(rows[0].description_raw, /"quoted", with a comma/, 'quotes and commas survive the CSV round trip through S3')

  // the store no longer has it, before its expiry: the documented 404, not a redirect to S3's own 404
  await client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: `${s3.prefix}${row.file_key}` }))
  const missing = await download(app, result.download_url)
  t.is(missing.status, 404)
  t.deepEqual(await missing.json(), { detail: 'Download not found' })
})

/** Downloads without following redirects, to see the 302 to S3. */
function download(app: TestApp, url: string) {
  return fetchDownload(app, url, { redirect: 'manual' })
}
