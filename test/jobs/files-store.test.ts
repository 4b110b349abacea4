/**
 * The file store on real files: a temp directory for the local store (and /dev/shm
 * as another filesystem, where there is one), and a real S3-compatible server (s3rver)
 * for the S3 store, whose presigned URLs are fetched.
 */
import test from 'ava'
import { randomBytes } from 'node:crypto'
import { existsSync, statSync } from 'node:fs'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3'
// @ts-expect-error s3rver ships no types
import S3rver from 's3rver'
import { contentDisposition, contentTypeFor, createFileStore, localStore, s3Store, type FileStore } from '../../jobs/files/store.ts'
import { loadConfig } from '../../sql/config.ts'

const tempDirs: string[] = []
async function tempDir(base = os.tmpdir()) {
  const dir = await mkdtemp(path.join(base, 'jds-files-'))
  tempDirs.push(dir)
  return dir
}
test.after.always(() => Promise.all(tempDirs.map((d) => rm(d, { recursive: true, force: true }))))

/** A finished local file, as an export writes one before handing it to the store. */
async function finishedFile(dir: string, bytes = randomBytes(64 * 1024 + 17)) {
  const file = path.join(dir, `out-${randomBytes(4).toString('hex')}.tmp`)
  await writeFile(file, bytes)
  return { file, bytes }
}

async function readAll(stream: NodeJS.ReadableStream) {
  const chunks: Buffer[] = []
  for await (const c of stream) chunks.push(Buffer.from(c as Buffer))
  return Buffer.concat(chunks)
}

// --- local ---------------------------------------------------------------------------

test('local: put moves the file under its key, download streams it back, delete removes it', async (t) => {
  const root = await tempDir()
  const work = await tempDir()
  const store = localStore(root)
  t.is(store.kind, 'local')
  const { file, bytes } = await finishedFile(work)

  const key = `exports/${randomBytes(4).toString('hex')}.csv`
  t.deepEqual(await store.put(key, file, 'text/csv'), { size: bytes.length })
  t.false(existsSync(file), 'the local file is gone')
  t.deepEqual(await readFile(path.join(root, key)), bytes)

  const got = await store.download(key, 'a.csv')
  if (!got || !('stream' in got)) return t.fail('expected a stream')
  t.is(got.size, bytes.length)
  t.deepEqual(await readAll(got.stream), bytes)

  await store.delete(key)
  t.false(existsSync(path.join(root, key)))
  t.is(await store.download(key, 'a.csv'), null, 'missing is null')
  await t.notThrowsAsync(store.delete(key), 'deleting a missing file is not an error')
})

test('local: put replaces a file of the same key whole', async (t) => {
  const root = await tempDir()
  const store = localStore(root)
  const first = await finishedFile(root, Buffer.from('old contents, longer than the new ones\n'))
  const second = await finishedFile(root, Buffer.from('new\n'))
  await store.put('exports/same.csv', first.file, 'text/csv')
  t.deepEqual(await store.put('exports/same.csv', second.file, 'text/csv'), { size: 4 })
  t.is(await readFile(path.join(root, 'exports/same.csv'), 'utf8'), 'new\n')
})

test('local: keys that leave the directory are refused by put, download and delete', async (t) => {
  const root = await tempDir()
  const store = localStore(path.join(root, 'downloads'))
  const { file } = await finishedFile(root)
  for (const key of ['../outside.csv', 'exports/../../outside.csv', '/etc/passwd', '', '.', 'exports/..']) {
    await t.throwsAsync(store.put(key, file, 'text/csv'), { message: /outside the downloads directory/ }, key)
    await t.throwsAsync(store.download(key, 'x.csv'), { message: /outside the downloads directory/ }, key)
    await t.throwsAsync(store.delete(key), { message: /outside the downloads directory/ }, key)
  }
  t.true(existsSync(file), 'the refused put left the file alone')
  t.deepEqual(await readdir(root), [path.basename(file)], 'nothing was written beside the downloads directory')
})

// ava wants tests declared synchronously
const otherDevice = (() => {
  try {
    return statSync('/dev/shm').dev !== statSync(os.tmpdir()).dev
  } catch {
    return false
  }
})()

;(otherDevice ? test : test.skip)('local: a file on another filesystem is copied, then renamed into place, and the source removed', async (t) => {
  const root = await tempDir()
  const work = await tempDir('/dev/shm')
  const { file, bytes } = await finishedFile(work)
  const store = localStore(root)
  t.deepEqual(await store.put('exports/far.jsonl', file, 'application/x-ndjson'), { size: bytes.length })
  t.false(existsSync(file))
  t.deepEqual(await readFile(path.join(root, 'exports/far.jsonl')), bytes)
  t.deepEqual(await readdir(path.join(root, 'exports')), ['far.jsonl'], 'no partial file left behind')
})

test('createFileStore: local without S3_BUCKET, S3 with it', (t) => {
  t.is(createFileStore(loadConfig({ DOWNLOADS_DIR: '/tmp/x' })).kind, 'local')
  t.is(createFileStore(loadConfig({ S3_BUCKET: 'b', S3_ENDPOINT: 'http://127.0.0.1:1' })).kind, 's3')
})

test('content types and dispositions by file name', (t) => {
  t.is(contentTypeFor('a.csv'), 'text/csv; charset=utf-8')
  t.is(contentTypeFor('a.JSONL'), 'application/x-ndjson')
  t.is(contentTypeFor('a.ndjson'), 'application/x-ndjson')
  t.is(contentTypeFor('a.bin'), 'application/octet-stream')
  t.is(contentDisposition('abc-1.csv'), `attachment; filename="abc-1.csv"; filename*=UTF-8''abc-1.csv`)
  t.is(contentDisposition('ré"; x=1.csv'), `attachment; filename="r____x_1.csv"; filename*=UTF-8''r%C3%A9%22%3B%20x%3D1.csv`)
})

// --- S3 ------------------------------------------------------------------------------

const BUCKET = 'jds-exports'

async function startS3() {
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: await tempDir(), configureBuckets: [{ name: BUCKET }] })
  const { port } = (await server.run()) as AddressInfo
  const s3 = {
    bucket: BUCKET, endpoint: `http://127.0.0.1:${port}`, region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER',
    forcePathStyle: true, prefix: 'exports/', presignSeconds: 900,
  }
  return { s3, close: () => server.close() }
}

test('s3: put uploads under the prefix, download presigns a URL that serves the bytes as an attachment, delete removes the object', async (t) => {
  const { s3, close } = await startS3()
  t.teardown(close)
  const store: FileStore = s3Store(s3)
  t.is(store.kind, 's3')
  const { file, bytes } = await finishedFile(await tempDir())
  const key = `${randomBytes(4).toString('hex')}.csv`

  t.deepEqual(await store.put(key, file, 'text/csv; charset=utf-8'), { size: bytes.length })
  t.false(existsSync(file), 'the local file is gone')
  const raw = new S3Client({ region: s3.region, endpoint: s3.endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } })
  const head = await raw.send(new HeadObjectCommand({ Bucket: BUCKET, Key: `exports/${key}` }))
  t.is(head.ContentLength, bytes.length, 'the object sits under the prefix')

  const got = await store.download(key, 'my export.csv')
  if (!got || !('redirect' in got)) return t.fail('expected a redirect')
  const url = new URL(got.redirect)
  t.is(url.origin, s3.endpoint)
  t.is(url.searchParams.get('X-Amz-Expires'), '900')
  const res = await fetch(got.redirect)
  t.is(res.status, 200)
  t.deepEqual(Buffer.from(await res.arrayBuffer()), bytes)
  t.is(res.headers.get('content-disposition'), `attachment; filename="my_export.csv"; filename*=UTF-8''my%20export.csv`)
  t.is(res.headers.get('content-type'), 'text/csv; charset=utf-8')

  await store.delete(key)
  t.is(await store.download(key, 'my export.csv'), null, 'missing is null')
  t.is((await fetch(got.redirect)).status, 404, 'the old URL no longer serves it')
  await t.notThrowsAsync(store.delete(key), 'deleting a missing object is not an error')
})

test('s3: a failing bucket is an error, not a missing file', async (t) => {
  const { s3, close } = await startS3()
  t.teardown(close)
  const store = s3Store({ ...s3, bucket: 'no-such-bucket' })
  const { file } = await finishedFile(await tempDir())
  await t.throwsAsync(store.put('x.csv', file, 'text/csv'))
  t.true(existsSync(file), 'a failed upload keeps the local file')
})

// --- small files held whole (stored resumes) ----------------------------------------------

test('putBytes and read: a file written whole and read back, locally and on S3; missing is null', async (t) => {
  const { s3, close } = await startS3()
  t.teardown(close)
  for (const store of [localStore(await tempDir()), s3Store(s3)]) {
    const bytes = randomBytes(200 * 1024 + 3)
    const key = `resumes/acct/${randomBytes(4).toString('hex')}.pdf`
    await store.putBytes(key, bytes, 'application/pdf')
    t.deepEqual(await store.read(key), bytes, store.kind)
    await store.putBytes(key, Buffer.from('replaced'), 'application/pdf')
    t.is((await store.read(key))?.toString(), 'replaced', `${store.kind}: replaced whole`)
    const got = await store.download(key, 'resume.pdf')
    t.truthy(got, store.kind)
    await store.delete(key)
    t.is(await store.read(key), null, `${store.kind}: missing is null`)
  }
  const local = localStore(await tempDir())
  await t.throwsAsync(local.putBytes('../escape.pdf', Buffer.from('x'), 'application/pdf'), { message: /outside/ })
  await t.throwsAsync(local.read('../escape.pdf'), { message: /outside/ })
})
