/**
 * One file's text, by format, on the thread that calls it (read-worker.ts). Parsers are
 * imported when first needed, so a thread that only ever sees DOCX never loads pdfjs.
 * A scanned PDF comes back with its pages drawn as images, for read.ts to OCR.
 */
import { ResumeFileError } from './types.ts'

export type FileText = { lines: string[]; pages: number; warnings: string[]; scans?: { image: Uint8Array; dpi: number }[] }

/** below this many characters a page on average, a PDF's text layer is taken for a scan */
export const SCANNED_CHARS_PER_PAGE = 100
/** OCR takes about a second a page, and a resume's first pages hold what matters */
export const OCR_MAX_PAGES = 4

const DAMAGED = (what: string) => `The ${what} could not be read: the file is damaged or incomplete.`

export async function readFile(bytes: Buffer, mediaType: string): Promise<FileText> {
  switch (mediaType) {
    case 'application/pdf':
      return readPdf(bytes)
    case 'application/vnd.openxmlformats-officedocument.wordprocessingml.document': {
      const { readDocx } = await import('./read-docx.ts')
      return { lines: await parse(() => readDocx(bytes), 'Word document'), pages: 1, warnings: [] }
    }
    case 'application/msword': {
      const { readDoc } = await import('./read-doc.ts')
      return { lines: await parse(() => readDoc(bytes), 'Word document'), pages: 1, warnings: [] }
    }
    case 'text/html': {
      const { readHtml } = await import('./read-html.ts')
      return { lines: readHtml(bytes), pages: 1, warnings: [] }
    }
    case 'text/plain': {
      const { readText } = await import('./read-text.ts')
      return { lines: readText(bytes), pages: 1, warnings: [] }
    }
    default:
      throw new ResumeFileError(`Unsupported content type ${mediaType}.`)
  }
}

/** a parser's own error on a file is a damaged file; its message is not for the client */
async function parse<T>(run: () => Promise<T>, what: string): Promise<T> {
  try {
    return await run()
  } catch (e) {
    if (e instanceof ResumeFileError) throw e
    throw new ResumeFileError(DAMAGED(what), { cause: e })
  }
}

async function readPdf(bytes: Buffer): Promise<FileText> {
  const { openPdf, readPdfText, renderPages } = await import('./read-pdf.ts')
  const doc = await openPdf(bytes)
  try {
    const pages = await parse(() => readPdfText(doc), 'PDF')
    const lines = pages.flat()
    const chars = lines.join('').replace(/\s/g, '').length
    if (chars >= SCANNED_CHARS_PER_PAGE * doc.numPages) return { lines, pages: doc.numPages, warnings: [] }
    const scans = await parse(() => renderPages(doc, OCR_MAX_PAGES), 'PDF')
    const warnings = doc.numPages > OCR_MAX_PAGES ? [`only the first ${OCR_MAX_PAGES} of ${doc.numPages} pages were read by OCR`] : []
    return { lines, pages: doc.numPages, warnings, scans }
  } finally {
    await doc.destroy().catch(() => {})
  }
}
