/**
 * A resume upload: multipart/form-data with exactly one part, `file`, of at most
 * MAX_RESUME_BYTES, held in memory (never on disk) and bounded while it streams, so no
 * request makes the server buffer more than the limit. What reaches the route is
 * ctx.state.upload = { bytes, contentType, filename }.
 *
 *   no part named `file` (or no multipart body)      422 missing at ["body", "file"]
 *   a second file part, or any other part            400
 *   `file` without a content type                    400 (formidable reads such a part as a text field)
 *   more than MAX_RESUME_BYTES                       400, as soon as the limit is passed
 *   an empty file                                    400
 *
 * Whether the content type is one of the accepted ones, and whether the bytes are what
 * it says, is the reader's check (ingest/resume/read.ts).
 */
import type { Context, Middleware, Next } from 'koa'
import { koaBody } from 'koa-body'
import { Writable } from 'node:stream'
import { errors } from '../errors.ts'

export const MAX_RESUME_BYTES = 5 * 1024 * 1024
const MB = MAX_RESUME_BYTES / 1024 / 1024

export type Upload = { bytes: Buffer; contentType: string; filename: string | null }

type Part = { mimetype?: string | null; originalFilename?: string | null }

const fileMissing = () => errors.validation([{ type: 'missing', loc: ['body', 'file'], msg: 'Field required', input: null }])

/** formidable's error codes (formidable/src/FormidableError.js) and what each means for the client */
const refusals: Record<number, string> = {
  1006: `The file is larger than ${MB} MB`, // maxFieldsSizeExceeded: a part without a content type, read as a field
  1007: 'Send exactly one part, file', // maxFieldsExceeded
  1009: `The file is larger than ${MB} MB`, // biggerThanTotalMaxFileSize
  1010: 'The file is empty', // noEmptyFiles
  1012: 'The multipart body is malformed', // malformedMultipart
  1013: 'The multipart body has no boundary', // missingMultipartBoundary
  1015: 'Send exactly one file part, file', // maxFilesExceeded
  1016: `The file is larger than ${MB} MB`, // biggerThanMaxFileSize
}

export function resumeUpload(): Middleware {
  return async (ctx: Context, next: Next) => {
    if (!ctx.is('multipart/form-data')) throw fileMissing()
    const received = new Map<object, Buffer[]>()
    const parse = koaBody({
      multipart: true,
      json: false,
      urlencoded: false,
      text: false,
      formidable: {
        maxFiles: 1,
        maxFileSize: MAX_RESUME_BYTES,
        maxTotalFileSize: MAX_RESUME_BYTES,
        // a part without a content type arrives as a field: bounded the same way
        maxFieldsSize: MAX_RESUME_BYTES,
        maxFields: 1,
        fileWriteStreamHandler: (file?: object) => {
          const chunks: Buffer[] = []
          received.set(file!, chunks)
          return new Writable({
            write(chunk: Buffer, _enc, done) {
              chunks.push(chunk)
              done()
            },
          })
        },
      },
      onError: (e: Error) => {
        const code = (e as { code?: number }).code
        throw errors.badRequest(code !== undefined && refusals[code] ? refusals[code] : 'The multipart body could not be read')
      },
    })
    await parse(ctx, async () => {})
    const files = (ctx.request.files ?? {}) as Record<string, (Part & object) | (Part & object)[]>
    const fields = (ctx.request.body ?? {}) as Record<string, unknown>
    const names = [...Object.keys(files), ...Object.keys(fields)]
    if ('file' in fields) throw errors.badRequest('The file part has no Content-Type: send the file with its type (application/pdf, application/msword, the DOCX type, text/plain or text/html)')
    const file = files.file
    if (!file) throw fileMissing()
    if (Array.isArray(file) || names.length > 1) throw errors.badRequest('Send exactly one part, file')
    ctx.state.upload = {
      bytes: Buffer.concat(received.get(file) ?? []),
      contentType: file.mimetype ?? '',
      filename: file.originalFilename ?? null,
    } satisfies Upload
    return next()
  }
}
