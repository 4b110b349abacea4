/**
 * PDF with pdfjs-dist's legacy build, which runs in Node without a browser. It runs on
 * the calling thread (pdfjs's "fake worker"); read.ts already keeps this off the API's
 * event loop. Fonts, CMaps and image decoders come from the package's own folders, so
 * nothing is fetched.
 *
 * The text layer's items keep their positions, and lines.ts turns each page into lines in
 * reading order. A page with little text is probably a scan: renderPages draws the first
 * pages as grey images for OCR (ocr.ts).
 */
import { createRequire } from 'node:module'
import path from 'node:path'
import { getDocument, type PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs'
import type { TextItem as PdfTextItem } from 'pdfjs-dist/types/src/display/api.js'
import { pageLines, type TextItem } from './lines.ts'
import { ResumeFileError } from './types.ts'

const pdfjsDir = path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'))
// pdfjs reads these with fs when they are file paths in Node; they need the trailing slash
const dir = (name: string) => path.join(pdfjsDir, name) + path.sep

const OCR_DPI = 200
const OCR_MAX_W = 2500
const OCR_MAX_H = 3500

export async function openPdf(bytes: Buffer): Promise<PDFDocumentProxy> {
  const task = getDocument({
    data: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    standardFontDataUrl: dir('standard_fonts'),
    cMapUrl: dir('cmaps'),
    cMapPacked: true,
    wasmUrl: dir('wasm'),
    useSystemFonts: false,
    disableFontFace: true,
    isEvalSupported: false,
    useWorkerFetch: false,
    verbosity: 0,
  })
  try {
    return await task.promise
  } catch (e) {
    await task.destroy().catch(() => {})
    const name = (e as Error)?.name
    if (name === 'PasswordException') {
      throw new ResumeFileError('The PDF is password protected. Send a copy without a password.')
    }
    throw new ResumeFileError('The PDF could not be read: the file is damaged or incomplete.', { cause: e })
  }
}

export async function readPdfText(doc: PDFDocumentProxy): Promise<string[][]> {
  const pages: string[][] = []
  for (let n = 1; n <= doc.numPages; n++) {
    const page = await doc.getPage(n)
    const viewport = page.getViewport({ scale: 1 })
    const content = await page.getTextContent()
    const items: TextItem[] = []
    for (const it of content.items) {
      if (!('str' in it) || !it.str.trim()) continue
      const [a, b, c, d, e, f] = (it as PdfTextItem).transform as number[]
      const [x, top] = viewport.convertToViewportPoint(e, f)
      items.push({ str: it.str, x, top, width: it.width, size: Math.hypot(c, d) || Math.hypot(a, b) || it.height || 10 })
    }
    pages.push(pageLines(items))
    page.cleanup()
  }
  return pages
}

/**
 * The first `maxPages` pages as 8-bit grey PGM images at OCR_DPI, at most
 * OCR_MAX_W × OCR_MAX_H pixels. PGM because Leptonica (inside tesseract) reads it
 * without decoding, and making it is one pass over the pixels.
 */
export async function renderPages(doc: PDFDocumentProxy, maxPages: number): Promise<{ image: Uint8Array; dpi: number }[]> {
  // pdfjs's own factory: it makes @napi-rs/canvas canvases from the copy pdfjs depends on.
  // A canvas from another copy of the package (the app's own) crashes the process when
  // pdfjs draws its images into it.
  const factory = doc.canvasFactory as CanvasFactory
  const images: { image: Uint8Array; dpi: number }[] = []
  for (let n = 1; n <= Math.min(doc.numPages, maxPages); n++) {
    const page = await doc.getPage(n)
    const base = page.getViewport({ scale: 1 })
    const scale = Math.min(OCR_DPI / 72, OCR_MAX_W / base.width, OCR_MAX_H / base.height)
    const viewport = page.getViewport({ scale })
    const w = Math.max(1, Math.floor(viewport.width))
    const h = Math.max(1, Math.floor(viewport.height))
    const { canvas, context } = factory.create(w, h)
    context.fillStyle = '#ffffff'
    context.fillRect(0, 0, w, h)
    await page.render({ canvas, canvasContext: context, viewport }).promise
    images.push({ image: toPgm(context.getImageData(0, 0, w, h).data, w, h), dpi: Math.round(scale * 72) })
    factory.destroy({ canvas, context })
    page.cleanup()
  }
  return images
}

type CanvasAndContext = { canvas: HTMLCanvasElement; context: CanvasRenderingContext2D }
type CanvasFactory = { create(w: number, h: number): CanvasAndContext; destroy(c: CanvasAndContext): void }

function toPgm(rgba: Uint8ClampedArray, w: number, h: number): Uint8Array {
  const header = Buffer.from(`P5\n${w} ${h}\n255\n`, 'latin1')
  const out = new Uint8Array(header.length + w * h)
  out.set(header)
  for (let i = 0, o = header.length; i < rgba.length; i += 4, o++) {
    const lum = 0.299 * rgba[i] + 0.587 * rgba[i + 1] + 0.114 * rgba[i + 2]
    const a = rgba[i + 3] / 255
    out[o] = lum * a + 255 * (1 - a)
  }
  return out
}
