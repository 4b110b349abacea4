/**
 * Real resume files for the route tests and the bench, made from a list of lines:
 * a PDF with a text layer (pdfkit), the same as an image-only scan (the text drawn on a
 * canvas, placed as a PNG), a DOCX (docx), HTML and plain text.
 */
import { createCanvas } from '@napi-rs/canvas'
import { Document, Packer, Paragraph, TextRun } from 'docx'
import PDFDocument from 'pdfkit'

export const SAMPLE_RESUME = [
  'Maria Gonzalez',
  'maria.gonzalez@example.com | +1 (415) 555-0134 | San Francisco, CA',
  'linkedin.com/in/mariagonzalez',
  'SUMMARY',
  'Backend engineer with eight years of building payment systems in Python and Go.',
  'EXPERIENCE',
  'Senior Software Engineer, Stripe',
  'Jan 2020 - Present',
  '• Led the migration of the ledger service to PostgreSQL, cutting latency by 40%',
  '• Designed the idempotency layer used by 30 teams',
  'Software Engineer, Square',
  'Jun 2016 - Dec 2019',
  '• Built the card reader firmware update pipeline',
  'EDUCATION',
  'B.S. in Computer Science, University of California, Berkeley',
  '2012 - 2016',
  'SKILLS',
  'Languages: Python, Go, SQL',
  'Tools: PostgreSQL, Kafka, Docker, Kubernetes',
]

export const TYPES = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  doc: 'application/msword',
  txt: 'text/plain',
  html: 'text/html',
} as const

function pdfBuffer(draw: (doc: PDFKit.PDFDocument) => void, options: PDFKit.PDFDocumentOptions = {}): Promise<Buffer> {
  const doc = new PDFDocument({ size: 'LETTER', margin: 54, ...options })
  const chunks: Buffer[] = []
  doc.on('data', (c: Buffer) => chunks.push(c))
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)))
    doc.on('error', reject)
  })
  draw(doc)
  doc.end()
  return done
}

/** A text PDF; with `pages` > 1 the lines are spread over that many pages. */
export function textPdf(lines = SAMPLE_RESUME, { pages = 1 } = {}) {
  const perPage = Math.ceil(lines.length / pages)
  return pdfBuffer((doc) => {
    lines.forEach((line, i) => {
      if (i > 0 && i % perPage === 0) doc.addPage()
      doc.font(/^[A-Z ]+$/.test(line) ? 'Helvetica-Bold' : 'Helvetica').fontSize(11).text(line)
    })
  })
}

/** A text PDF that opens only with a password. */
export const encryptedPdf = (lines = SAMPLE_RESUME) => pdfBuffer((doc) => lines.forEach((line) => doc.text(line)), { userPassword: 'secret', ownerPassword: 'owner' })

/** An image-only PDF of one page: no text layer, only what OCR can read. */
export function scannedPdf(lines = SAMPLE_RESUME) {
  const canvas = createCanvas(1275, 1650) // letter at 150 dpi
  const ctx = canvas.getContext('2d')
  ctx.fillStyle = '#fff'
  ctx.fillRect(0, 0, canvas.width, canvas.height)
  ctx.fillStyle = '#000'
  ctx.font = '26px sans-serif'
  lines.forEach((line, i) => ctx.fillText(line, 90, 110 + i * 44))
  const png = canvas.toBuffer('image/png')
  return pdfBuffer((doc) => doc.image(png, 0, 0, { width: 612, height: 792 }))
}

export function docxFile(lines = SAMPLE_RESUME) {
  const doc = new Document({ sections: [{ children: lines.map((line) => new Paragraph({ children: [new TextRun({ text: line, bold: /^[A-Z ]+$/.test(line) })] })) }] })
  return Packer.toBuffer(doc)
}

export const textFile = (lines = SAMPLE_RESUME) => Buffer.from(lines.join('\n'), 'utf8')

export const htmlFile = (lines = SAMPLE_RESUME) =>
  Buffer.from(`<!doctype html><html><body>${lines.map((l) => (/^[A-Z ]+$/.test(l) ? `<h2>${l}</h2>` : `<p>${l.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</p>`)).join('')}</body></html>`)

/** A multipart body of these parts, each { name, bytes, type?, filename? }; a part without `type` carries no Content-Type. */
export function multipart(parts: { name: string; bytes: Buffer; type?: string; filename?: string }[]) {
  const boundary = `----resume${Math.random().toString(16).slice(2)}`
  const chunks: Buffer[] = []
  for (const p of parts) {
    const head = [`--${boundary}`, `Content-Disposition: form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`]
    if (p.type) head.push(`Content-Type: ${p.type}`)
    chunks.push(Buffer.from(`${head.join('\r\n')}\r\n\r\n`), p.bytes, Buffer.from('\r\n'))
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` }
}
