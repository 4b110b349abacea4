/**
 * Where finished export files and stored resumes are kept: a directory (DOWNLOADS_DIR),
 * or an S3 bucket when S3_BUCKET is set. Keys are relative paths such as
 * `exports/<task-id>.csv` or `resumes/<account-id>/<resume-id>.pdf`; the S3 store puts
 * its prefix in front. The download route serves local files itself and
 * sends S3 downloads to a presigned URL (docs/downloads.md).
 */
import { randomBytes } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { copyFile, mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3'
import { getSignedUrl } from '@aws-sdk/s3-request-presigner'
import type { Config } from '../../sql/config.ts'

export type Download = { stream: NodeJS.ReadableStream; size: number } | { redirect: string }

export interface FileStore {
  readonly kind: 'local' | 's3'
  /** moves (local) or uploads (s3) a finished local file to `key`; the local file is gone afterwards; returns its size in bytes */
  put(key: string, localPath: string, contentType: string): Promise<{ size: number }>
  /** writes a small file (an uploaded resume) whole; a reader never sees half of it */
  putBytes(key: string, bytes: Buffer, contentType: string): Promise<void>
  /** the whole file, for files small enough to hold (resumes); null when it is missing */
  read(key: string): Promise<Buffer | null>
  /** how to serve it: a stream (local) or a fresh presigned URL (s3); null when the object is missing */
  download(key: string, filename: string): Promise<Download | null>
  /** missing is not an error */
  delete(key: string): Promise<void>
}

export type S3Config = NonNullable<Config['files']['s3']>

export function createFileStore(config: Pick<Config, 'downloadsDir' | 'files'>): FileStore {
  return config.files.s3 ? s3Store(config.files.s3) : localStore(config.downloadsDir)
}

const contentTypes: Record<string, string> = {
  '.csv': 'text/csv; charset=utf-8',
  '.jsonl': 'application/x-ndjson',
  '.ndjson': 'application/x-ndjson',
  // stored resumes
  '.pdf': 'application/pdf',
  '.doc': 'application/msword',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.txt': 'text/plain; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
}

/** The Content-Type a download is served with, by its file name's extension. */
export function contentTypeFor(filename: string) {
  return contentTypes[path.extname(filename).toLowerCase()] ?? 'application/octet-stream'
}

/**
 * `attachment` with the name twice: a plain ASCII one for old clients and the exact
 * one in RFC 5987 form, so no name can break out of the header's quotes.
 */
export function contentDisposition(filename: string) {
  const ascii = filename.replace(/[^\w.-]/g, '_')
  const exact = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  return `attachment; filename="${ascii}"; filename*=UTF-8''${exact}`
}

const errorCode = (e: unknown) => (e as NodeJS.ErrnoException).code

export function localStore(dir: string): FileStore {
  const root = path.resolve(dir)
  const pathOf = (key: string) => {
    const full = path.resolve(root, key)
    if (!key || path.isAbsolute(key) || !full.startsWith(root + path.sep)) throw new Error(`file key ${JSON.stringify(key)} is outside the downloads directory`)
    return full
  }

  return {
    kind: 'local',

    async put(key, localPath) {
      const target = pathOf(key)
      await mkdir(path.dirname(target), { recursive: true })
      try {
        await rename(localPath, target)
      } catch (e) {
        if (errorCode(e) !== 'EXDEV') throw e
        // another filesystem: copy beside the target and rename there, so a download never sees half a file
        const part = `${target}.${randomBytes(6).toString('hex')}.part`
        try {
          await copyFile(localPath, part)
          await rename(part, target)
        } finally {
          await rm(part, { force: true })
        }
        await rm(localPath, { force: true })
      }
      return { size: (await stat(target)).size }
    },

    async putBytes(key, bytes) {
      const target = pathOf(key)
      await mkdir(path.dirname(target), { recursive: true })
      const part = `${target}.${randomBytes(6).toString('hex')}.part`
      try {
        await writeFile(part, bytes)
        await rename(part, target)
      } finally {
        await rm(part, { force: true })
      }
    },

    async read(key) {
      return readFile(pathOf(key)).catch((e) => {
        if (errorCode(e) === 'ENOENT') return null
        throw e
      })
    },

    async download(key) {
      // open first, then size the open file: a cleanup between the two cannot leave a stream on nothing
      const handle = await open(pathOf(key), 'r').catch((e) => {
        if (errorCode(e) === 'ENOENT') return null
        throw e
      })
      if (!handle) return null
      try {
        const { size } = await handle.stat()
        return { stream: handle.createReadStream(), size }
      } catch (e) {
        await handle.close()
        throw e
      }
    },

    async delete(key) {
      await rm(pathOf(key), { force: true })
    },
  }
}

export function s3Store(s3: S3Config): FileStore {
  const client = new S3Client({
    region: s3.region,
    ...(s3.endpoint ? { endpoint: s3.endpoint } : {}),
    forcePathStyle: s3.forcePathStyle,
    ...(s3.accessKeyId && s3.secretAccessKey ? { credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } } : {}),
    // By default the SDK sends a streamed upload aws-chunked with a CRC32 trailer, which
    // S3-compatible servers without that encoding refuse or store framing and all (s3rver
    // does); checksums only where an operation requires them.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  })
  const objectKey = (key: string) => s3.prefix + key
  const status = (e: unknown) => (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode

  return {
    kind: 's3',

    async put(key, localPath, contentType) {
      const { size } = await stat(localPath)
      await client.send(
        new PutObjectCommand({ Bucket: s3.bucket, Key: objectKey(key), Body: createReadStream(localPath), ContentLength: size, ContentType: contentType }),
      )
      await rm(localPath, { force: true })
      return { size }
    },

    async putBytes(key, bytes, contentType) {
      await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: objectKey(key), Body: bytes, ContentLength: bytes.length, ContentType: contentType }))
    },

    async read(key) {
      try {
        const res = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: objectKey(key) }))
        return Buffer.from(await res.Body!.transformToByteArray())
      } catch (e) {
        if (status(e) === 404) return null
        throw e
      }
    },

    async download(key, filename) {
      // a presigned URL is only arithmetic; ask the bucket first, so a missing object is the route's 404 and not S3's
      try {
        await client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: objectKey(key) }))
      } catch (e) {
        if (status(e) === 404) return null
        throw e
      }
      const get = new GetObjectCommand({
        Bucket: s3.bucket,
        Key: objectKey(key),
        ResponseContentDisposition: contentDisposition(filename),
        ResponseContentType: contentTypeFor(filename),
      })
      return { redirect: await getSignedUrl(client, get, { expiresIn: s3.presignSeconds }) }
    },

    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: objectKey(key) }))
    },
  }
}
