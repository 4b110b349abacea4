/**
 * The OCR thread (ocr.ts): one tesseract.js worker, started on the first scan and kept
 * for the next. Its English model comes from @tesseract.js-data/eng in node_modules
 * (LSTM-only "best_int", the smaller and faster of its two) and cacheMethod 'none'
 * keeps tesseract from writing a copy into the working directory or fetching anything.
 */
import { createRequire } from 'node:module'
import path from 'node:path'
import { parentPort } from 'node:worker_threads'
import { createWorker, OEM, PSM, type Worker } from 'tesseract.js'

export type OcrRequest = { id: number; images: { image: Uint8Array; dpi: number }[] }
export type OcrResponse = { id: number; ok: true; pages: string[] } | { id: number; ok: false; message: string }

const langPath = path.join(path.dirname(createRequire(import.meta.url).resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int')

let tesseract: Promise<Worker> | null = null
function start() {
  tesseract ??= createWorker('eng', OEM.LSTM_ONLY, { langPath, cacheMethod: 'none', gzip: true }).then(async (w) => {
    // a resume page is one or more blocks of text in columns: let tesseract find them
    await w.setParameters({ tessedit_pageseg_mode: PSM.AUTO, preserve_interword_spaces: '1' })
    return w
  })
  tesseract.catch(() => (tesseract = null))
  return tesseract
}

parentPort!.on('message', async ({ id, images }: OcrRequest) => {
  try {
    const w = await start()
    const pages: string[] = []
    for (const { image, dpi } of images) {
      // a PGM carries no resolution; told it, tesseract need not guess (and say so on stderr)
      await w.setParameters({ user_defined_dpi: String(dpi) })
      pages.push((await w.recognize(Buffer.from(image.buffer, image.byteOffset, image.byteLength))).data.text)
    }
    parentPort!.postMessage({ id, ok: true, pages } satisfies OcrResponse)
  } catch (e) {
    parentPort!.postMessage({ id, ok: false, message: String((e as Error)?.message ?? e) } satisfies OcrResponse)
  }
})
