/**
 * A resume file → its text in reading order (ResumeText), or a ResumeFileError whose
 * message is the client's 400.
 *
 * The checks that need no parsing (content type, empty file, first bytes against the
 * declared type, UTF-8 for text) run here and at once, as sniffResume. Parsing runs on
 * reader threads (read-worker.ts, at most READER_THREADS, files queue beyond that) so
 * a 5 MB PDF never holds up the API's event loop; OCR of a scanned PDF runs on one more
 * thread holding the one tesseract worker (ocr-worker.ts). A parse that takes longer
 * than timeoutMs, or an OCR longer than timeoutMs a page, has its thread terminated and
 * the file is refused. The limit counts from when a thread takes the file, not while
 * it waits in the queue behind others.
 */
import { sniff, FORMAT_NAMES } from './detect-type.ts'
import { SCANNED_CHARS_PER_PAGE } from './read-file.ts'
import { decodeText } from './read-text.ts'
import type { OcrRequest, OcrResponse } from './ocr-worker.ts'
import type { ReadRequest, ReadResponse } from './read-worker.ts'
import { ThreadDied, Threads, ThreadTimeout } from './threads.ts'
import { ResumeFileError, type ResumeText } from './types.ts'

export const PDF = 'application/pdf'
export const DOC = 'application/msword'
export const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'

export const RESUME_TYPES: readonly string[] = [PDF, DOC, DOCX, 'text/plain', 'text/html']

const ACCEPTED = 'application/pdf, application/msword, application/vnd.openxmlformats-officedocument.wordprocessingml.document, text/plain or text/html'

/** Two threads: a third PDF waits a second rather than the API sharing its cores three ways. */
const READER_THREADS = 2
const DEFAULT_TIMEOUT_MS = 20_000
/** pdfjs on a hostile PDF can grow without bound; the thread dies instead of the process */
const THREAD_HEAP_MB = 512

/** The bare media type (`Application/PDF; x=y` → `application/pdf`), or the client's 400. */
export function checkContentType(contentType: string | undefined): string {
  const media = (contentType ?? '').split(';')[0].trim().toLowerCase()
  if (media === '' || media === 'application/octet-stream') {
    throw new ResumeFileError(`The file part must carry its file's content type: one of ${ACCEPTED}.`)
  }
  if (!RESUME_TYPES.includes(media)) {
    throw new ResumeFileError(
      `The file must be a PDF or Word document (DOC or DOCX); plain text and HTML are also accepted. Got content type ${media}.`,
    )
  }
  return media
}

/**
 * The checks that need no parsing: the content type is accepted, the file is not empty,
 * and its first bytes are those of the declared format (text and HTML: valid text that
 * is none of the binary formats). Returns the bare media type.
 */
export function sniffResume(bytes: Buffer, contentType: string | undefined): string {
  const media = checkContentType(contentType)
  if (bytes.length === 0) throw new ResumeFileError('The file is empty.')
  const found = sniff(bytes)
  const expected = media === PDF ? 'pdf' : media === DOCX ? 'docx' : media === DOC ? 'doc' : null
  if (expected ? found !== expected : found !== 'unknown') {
    const what = found === 'unknown' ? 'not' : `${FORMAT_NAMES[found]}, not`
    throw new ResumeFileError(`The file is ${what} ${DESCRIBED[media]} as its content type ${media} says.`)
  }
  if (!expected) decodeText(bytes, DESCRIBED[media])
  return media
}

const DESCRIBED: Record<string, string> = {
  [PDF]: 'a PDF',
  [DOC]: 'a Word 97-2003 document (DOC)',
  [DOCX]: 'a Word document (DOCX)',
  'text/plain': 'plain text',
  'text/html': 'HTML',
}

const readers = new Threads<ReadResponse>(new URL('./read-worker.ts', import.meta.url), READER_THREADS, {
  resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
  // pdfjs's fake worker uses the module already imported (globalThis.pdfjsWorker) rather than importing its own
  preload: [import.meta.resolve('pdfjs-dist/legacy/build/pdf.mjs'), import.meta.resolve('pdfjs-dist/legacy/build/pdf.worker.mjs')],
})
const ocr = new Threads<OcrResponse>(new URL('./ocr-worker.ts', import.meta.url), 1)

/**
 * The file's text in reading order, one visual line per line. Throws ResumeFileError
 * (the client's 400) for every file it cannot read; `timeoutMs` defaults to 20 s.
 */
export async function readResume(bytes: Buffer, contentType: string, { timeoutMs = DEFAULT_TIMEOUT_MS }: { timeoutMs?: number } = {}): Promise<ResumeText> {
  const mediaType = sniffResume(bytes, contentType)
  // a copy the thread can own: the caller's Buffer may share its memory with others
  const copy = new Uint8Array(bytes)
  const res = await onThread(() => readers.run({ bytes: copy, mediaType } satisfies Omit<ReadRequest, 'id'>, { transfer: [copy.buffer], timeoutMs }))
  if (!res.ok) throw new ResumeFileError(res.message, { cause: res.internal ? new Error(res.internal) : undefined })
  const { file } = res
  let lines = file.lines
  const warnings = [...file.warnings]
  let usedOcr = false
  if (file.scans?.length) {
    const scans = file.scans
    // OCR takes seconds a page (4 to 12 on a busy 2-core machine), so its limit is per page
    const ocrLimit = timeoutMs * scans.length
    const done = await onThread(() => ocr.run({ images: scans } satisfies Omit<OcrRequest, 'id'>, { transfer: scans.map((s) => s.image.buffer as ArrayBuffer), timeoutMs: ocrLimit }))
    if (!done.ok) throw new ResumeFileError('The scanned PDF could not be read by OCR.', { cause: new Error(done.message) })
    const ocrLines = done.pages.flatMap((p) => p.split('\n').map((l) => l.replace(/\s+/g, ' ').trim()))
    // the text layer of a scan is at most a few stamps or a header: OCR's reading replaces it when longer
    if (chars(ocrLines) > chars(lines)) lines = ocrLines
    usedOcr = true
    warnings.push('OCR used')
    if (chars(lines) < SCANNED_CHARS_PER_PAGE * Math.min(file.pages, scans.length)) warnings.push('little text found')
  }
  const text = tidy(lines)
  if (!usedOcr && text === '') warnings.push('little text found')
  return { text, warnings, ocr: usedOcr, pages: file.pages }
}

async function onThread<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (e) {
    if (e instanceof ThreadTimeout) throw new ResumeFileError('The file took too long to read.', { cause: e })
    if (e instanceof ThreadDied) throw new ResumeFileError('The file could not be read: it is too large or complex.', { cause: e })
    throw e
  }
}

function chars(lines: string[]) {
  return lines.join('').replace(/\s/g, '').length
}

/** trailing spaces off, at most one blank line in a row, none at the ends */
function tidy(lines: string[]) {
  return lines
    .map((l) => l.trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
}

/** Stops the reader and OCR threads (a later read starts new ones). */
export async function closeResumeReaders() {
  await Promise.all([readers.close(), ocr.close()])
}
