/** A reader thread (read.ts): one file at a time, its text or its client-facing error back. */
import { parentPort } from 'node:worker_threads'
import { readFile, type FileText } from './read-file.ts'
import { ResumeFileError } from './types.ts'

export type ReadRequest = { id: number; bytes: Uint8Array; mediaType: string }
export type ReadResponse = { id: number; ok: true; file: FileText } | { id: number; ok: false; message: string; internal?: string }

parentPort!.on('message', async ({ id, bytes, mediaType }: ReadRequest) => {
  try {
    const file = await readFile(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), mediaType)
    parentPort!.postMessage({ id, ok: true, file } satisfies ReadResponse, file.scans?.map((s) => s.image.buffer as ArrayBuffer) ?? [])
  } catch (e) {
    const cause = e instanceof ResumeFileError ? e.cause : e
    const message = e instanceof ResumeFileError ? e.message : 'The file could not be read: it is damaged or not the format its content type says.'
    parentPort!.postMessage({ id, ok: false, message, internal: cause ? String((cause as Error)?.stack ?? cause) : undefined } satisfies ReadResponse)
  }
})
