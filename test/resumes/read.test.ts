/**
 * The resume file reader (ingest/resume/read.ts) on real files made here: PDFs from
 * pdfkit (one column, two columns, a sidebar, a table, encrypted, a scan), DOCX from
 * docx, DOC from the fixture, HTML and text; and the files it must refuse, each with a
 * ResumeFileError.
 */
import test from 'ava'
import { createCanvas } from '@napi-rs/canvas'
import { Document, Packer, Paragraph, Table, TableCell, TableRow, TextRun } from 'docx'
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import PDFDocument from 'pdfkit'
import { checkContentType, closeResumeReaders, readResume, RESUME_TYPES, sniffResume } from '../../ingest/resume/read.ts'
import { pageLines } from '../../ingest/resume/lines.ts'
import { ResumeFileError } from '../../ingest/resume/types.ts'

const PDF = 'application/pdf'
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'

test.after.always(() => closeResumeReaders())

function pdf(draw: (d: PDFKit.PDFDocument) => void, options: PDFKit.PDFDocumentOptions = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ size: 'LETTER', margin: 50, ...options })
    const chunks: Buffer[] = []
    doc.on('data', (c: Buffer) => chunks.push(c))
    doc.on('end', () => resolve(Buffer.concat(chunks)))
    doc.on('error', reject)
    draw(doc)
    doc.end()
  })
}

const sentences = (tag: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${tag} sentence number ${i + 1} describes work on payment systems and teams.`).join(' ')

/** index of the first and last line holding `word` */
function span(lines: string[], word: string) {
  const at = lines.flatMap((l, i) => (l.includes(word) ? [i] : []))
  return { first: at[0] ?? -1, last: at[at.length - 1] ?? -1, count: at.length }
}

test('content types: bare, lower-cased, parameters stripped; missing and generic types are refused', (t) => {
  t.is(checkContentType('Application/PDF; name="cv.pdf"'), PDF)
  t.is(checkContentType('text/plain;charset=utf-8'), 'text/plain')
  t.deepEqual([...RESUME_TYPES].sort(), [PDF, 'application/msword', DOCX, 'text/html', 'text/plain'].sort())
  for (const missing of [undefined, '', 'application/octet-stream']) {
    const e = t.throws(() => checkContentType(missing), { instanceOf: ResumeFileError })
    t.regex(e!.message, /must carry its file's content type/)
    t.regex(e!.message, /application\/pdf/)
  }
  const e = t.throws(() => checkContentType('image/png'), { instanceOf: ResumeFileError })
  t.regex(e!.message, /The file must be a PDF or Word document \(DOC or DOCX\)/)
  t.regex(e!.message, /plain text and HTML/)
})

test('a one-column PDF: one visual line per line, in order, words spaced', async (t) => {
  const bytes = await pdf((d) => {
    d.fontSize(20).text('Jane Doe')
    d.fontSize(11).text('jane@example.com  +1 415 555 0100')
    d.moveDown().fontSize(14).text('Experience')
    d.fontSize(11).text(sentences('Acme', 4))
  })
  const r = await readResume(bytes, PDF)
  const lines = r.text.split('\n')
  t.is(lines[0], 'Jane Doe')
  t.is(lines[1], 'jane@example.com +1 415 555 0100')
  t.is(lines[2], 'Experience')
  t.true(lines.length >= 6, 'the paragraph wraps into several lines')
  t.regex(r.text, /Acme sentence number 4 describes work on payment systems and teams\.$/)
  t.deepEqual([r.pages, r.ocr, r.warnings], [1, false, []])
})

test('a two-column PDF is read column by column', async (t) => {
  const bytes = await pdf((d) => {
    d.fontSize(18).text('Jane Doe', { align: 'center' })
    d.moveDown()
    // pdfkit flows the text into two columns with the same line spacing: the baselines line up
    d.fontSize(11).text(`${sentences('Alpha', 8)} ${sentences('Bravo', 8)}`, { columns: 2, columnGap: 24, height: 300 })
  })
  const lines = (await readResume(bytes, PDF)).text.split('\n')
  const alpha = span(lines, 'Alpha')
  const bravo = span(lines, 'Bravo')
  t.is(lines[0], 'Jane Doe')
  t.true(alpha.count >= 5 && bravo.count >= 5)
  t.true(alpha.last <= bravo.first, `${alpha.last} <= ${bravo.first}`)
  t.false(lines.some((l) => l.includes(' | ')), 'columns of prose are not a table')
})

test('a left sidebar is read before the main column, and a full-width header before both', async (t) => {
  const skills = ['Python', 'TypeScript', 'PostgreSQL', 'Kubernetes', 'Terraform', 'GraphQL']
  const bytes = await pdf((d) => {
    d.fontSize(22).text('Sam Sidebar', 50, 50)
    d.fontSize(10).text('sam@example.com | London', 50, 78)
    d.fontSize(12).text('SKILLS', 50, 120)
    d.fontSize(9)
    skills.forEach((s, i) => d.text(s, 50, 140 + i * 14))
    d.fontSize(12).text('LANGUAGES', 50, 240)
    d.fontSize(9).text('English', 50, 258).text('German', 50, 272)
    d.fontSize(12).text('EXPERIENCE', 200, 120)
    d.fontSize(11).text(sentences('Mainline', 6), 200, 140, { width: 360 })
  })
  const lines = (await readResume(bytes, PDF)).text.split('\n')
  t.deepEqual(lines.slice(0, 2), ['Sam Sidebar', 'sam@example.com | London'])
  const sidebar = ['SKILLS', ...skills, 'LANGUAGES', 'English', 'German']
  t.deepEqual(lines.slice(2, 2 + sidebar.length), sidebar)
  t.is(lines[2 + sidebar.length], 'EXPERIENCE')
  t.regex(lines.slice(3 + sidebar.length).join(' '), /^Mainline sentence number 1 .*Mainline sentence number 6 describes work on payment systems and teams\.$/)
})

test("a table's rows stay rows, cells separated by ' | '", async (t) => {
  const bytes = await pdf((d) => {
    d.fontSize(14).text('Skills matrix')
    d.moveDown()
    d.fontSize(10).table({
      columnStyles: [150, 120, 120],
      data: [
        ['Skill', 'Years', 'Level'],
        ['Python', '7 years', 'Expert'],
        ['PostgreSQL', '5 years', 'Advanced'],
        ['Kubernetes', '3 years', 'Intermediate'],
      ],
    })
  })
  const lines = (await readResume(bytes, PDF)).text.split('\n')
  t.is(lines[0], 'Skills matrix')
  t.deepEqual(lines.slice(1), ['Skill | Years | Level', 'Python | 7 years | Expert', 'PostgreSQL | 5 years | Advanced', 'Kubernetes | 3 years | Intermediate'])
})

test('dates in a column beside their entries read as rows, not as a column of dates', (t) => {
  // positions as pdfjs reports them; the entries' second lines have no date beside them
  const item = (str: string, x: number, top: number) => ({ str, x, top, width: str.length * 5, size: 10 })
  const lines = pageLines([
    item('2019 - 2023', 50, 100),
    item('Engineer, Acme', 150, 100),
    item('Built the billing system', 150, 114),
    item('2015 - 2019', 50, 140),
    item('Developer, Initech', 150, 140),
    item('Kept the reports running', 150, 154),
  ])
  t.deepEqual(lines, ['2019 - 2023 | Engineer, Acme', 'Built the billing system', '2015 - 2019 | Developer, Initech', 'Kept the reports running'])
})

test('pages counts every page of a PDF', async (t) => {
  const bytes = await pdf((d) => {
    d.fontSize(11).text(sentences('First', 5))
    d.addPage().text(sentences('Second', 5))
  })
  const r = await readResume(bytes, PDF)
  t.is(r.pages, 2)
  t.true(span(r.text.split('\n'), 'First').last < span(r.text.split('\n'), 'Second').first)
})

/** a page of text drawn as pixels, 150 dpi: a scan, with no text layer */
async function scannedPdf(lines: string[]): Promise<Buffer> {
  const canvas = createCanvas(1275, 1650)
  const ctx = canvas.getContext('2d')
  ctx.fillStyle = '#fff'
  ctx.fillRect(0, 0, 1275, 1650)
  ctx.fillStyle = '#000'
  ctx.font = '40px sans-serif'
  lines.forEach((l, i) => ctx.fillText(l, 120, 200 + i * 70))
  const png = await canvas.encode('png')
  return pdf((d) => d.image(png, 0, 0, { width: 612, height: 792 }), { margin: 0 })
}

// OCR is slow on a busy machine (a test run beside others): these are about what it reads, not how fast
const SLOW = { timeoutMs: 120_000 }

test('a scanned PDF is read by OCR, with a warning', async (t) => {
  const bytes = await scannedPdf(['Morgan Example', 'Senior Software Engineer', 'Experience', 'Designed distributed payment systems', 'Education', 'University of Edinburgh'])
  const r = await readResume(bytes, PDF, SLOW)
  t.true(r.ocr)
  t.deepEqual(r.warnings, ['OCR used'])
  for (const word of ['Morgan', 'Engineer', 'Experience', 'payment', 'Education', 'Edinburgh']) t.true(r.text.includes(word), word)
  t.is(r.pages, 1)
})

test('a blank scanned page: OCR used, little text found', async (t) => {
  const r = await readResume(await scannedPdf([]), PDF, SLOW)
  t.deepEqual(r.warnings, ['OCR used', 'little text found'])
})

test('DOCX: paragraphs, list items and table cells are lines', async (t) => {
  const doc = new Document({
    sections: [
      {
        children: [
          new Paragraph({ children: [new TextRun({ text: 'Dana Docx', bold: true })] }),
          new Paragraph('dana@example.com'),
          new Paragraph({ text: 'Built APIs & pipelines', bullet: { level: 0 } }),
          new Table({ rows: [new TableRow({ children: [new TableCell({ children: [new Paragraph('Python')] }), new TableCell({ children: [new Paragraph('Expert')] })] })] }),
        ],
      },
    ],
  })
  const r = await readResume(await Packer.toBuffer(doc), DOCX)
  t.deepEqual(r.text.split('\n'), ['Dana Docx', 'dana@example.com', 'Built APIs & pipelines', 'Python', 'Expert'])
  t.deepEqual([r.pages, r.ocr, r.warnings], [1, false, []])
})

test('DOC (Word 97-2003) with word-extractor', async (t) => {
  const bytes = readFileSync(new URL('../fixtures/resumes/sample.doc', import.meta.url))
  const r = await readResume(bytes, 'application/msword')
  // made with `soffice --headless --convert-to 'doc:MS Word 97'` from these lines
  t.deepEqual(r.text.split('\n'), [
    'Riley Wordsmith',
    'riley@example.com | +44 20 7946 0000',
    '',
    'Experience',
    'Senior Engineer, Initech (2019 - 2023)',
    'Maintained the invoicing service and its reports.',
    '',
    'Education',
    'BSc Computer Science, University of Leeds',
  ])
  t.deepEqual([r.pages, r.ocr, r.warnings], [1, false, []])
})

test('HTML: blocks are lines, entities decoded, scripts and styles skipped', async (t) => {
  const html = `<!doctype html><html><head><title>CV</title><style>p{color:red}</style></head><body>
    <h1>Harper  Html</h1><p>Python &amp; Go<br>SQL</p><script>alert("x")</script>
    <ul><li>Led   a team</li><li>Shipped&nbsp;v2</li></ul></body></html>`
  const r = await readResume(Buffer.from(html), 'text/html; charset=utf-8')
  t.deepEqual(r.text.split('\n'), ['Harper Html', 'Python & Go', 'SQL', 'Led a team', 'Shipped v2'])
})

test('plain text: line endings normalized, UTF-8 and UTF-16 with a BOM', async (t) => {
  const text = 'Tomás Text\r\nEngineer\r\n\r\n\r\n\r\nSkills: Python\rGo'
  t.is((await readResume(Buffer.from(text), 'text/plain')).text, 'Tomás Text\nEngineer\n\nSkills: Python\nGo')
  const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Zoë Ünicode\nDeveloper', 'utf16le')])
  t.is((await readResume(utf16, 'text/plain')).text, 'Zoë Ünicode\nDeveloper')
})

const refused: [string, () => Promise<Buffer>, string, RegExp][] = [
  ['an empty file', async () => Buffer.alloc(0), PDF, /empty/],
  ['a truncated PDF', async () => (await pdf((d) => d.text(sentences('Cut', 20)))).subarray(0, 400), PDF, /damaged or incomplete/],
  ['an encrypted PDF', () => pdf((d) => d.text(sentences('Secret', 5)), { userPassword: 'hunter2', ownerPassword: 'owner' }), PDF, /password/],
  ['a PDF sent as text/plain', () => pdf((d) => d.text('hello')), 'text/plain', /is a PDF, not plain text/],
  ['text sent as a PDF', async () => Buffer.from('Jane Doe\nEngineer\n'), PDF, /is not a PDF/],
  ['a DOCX sent as a PDF', async () => Packer.toBuffer(new Document({ sections: [{ children: [new Paragraph('x')] }] })), PDF, /is a Word document \(DOCX\), not a PDF/],
  ['a DOCX sent as DOC', async () => Packer.toBuffer(new Document({ sections: [{ children: [new Paragraph('x')] }] })), 'application/msword', /not a Word 97-2003/],
  ['binary sent as text', async () => Buffer.from([0x4a, 0x61, 0x00, 0x01, 0x02, 0xff, 0xfe, 0x41]), 'text/plain', /not plain text/],
  ['plain text sent as HTML', async () => Buffer.from('Jane Doe, a < b and c > d'), 'text/html', /no HTML markup/],
  ['a zip that is not a DOCX', async () => Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(100)]), DOCX, /ZIP archive, not a Word document/],
  ['a damaged DOCX', async () => Buffer.concat([Buffer.from('PK\x03\x04word/document.xml'), Buffer.alloc(100)]), DOCX, /damaged or incomplete/],
  ['a damaged DOC', async () => Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(600, 7)]), 'application/msword', /damaged or incomplete/],
  ['an image', async () => Buffer.from([0x89, 0x50, 0x4e, 0x47]), 'image/png', /must be a PDF or Word document/],
]
for (const [name, make, type, message] of refused) {
  test(`refused: ${name}`, async (t) => {
    const bytes = await make()
    const e = await t.throwsAsync(readResume(bytes, type), { instanceOf: ResumeFileError, message })
    t.is(e!.constructor, ResumeFileError)
    // the message is for the client: no parser internals, no file content
    t.notRegex(e!.message, /Error:|at .*\.js|hunter2|Cut sentence|Jane Doe/)
  })
}

test('sniffResume: the synchronous checks alone', (t) => {
  t.is(sniffResume(Buffer.from('%PDF-1.7\n'), 'application/pdf; x=1'), PDF)
  t.throws(() => sniffResume(Buffer.from('hello'), PDF), { instanceOf: ResumeFileError })
})

test('a reader that runs past its time limit is stopped and the file refused', async (t) => {
  // a large two-column text: real work that 1 ms cannot finish
  const bytes = await pdf((d) => {
    for (let i = 0; i < 3; i++) d.addPage().fontSize(8).text(sentences(`P${i}`, 40), { columns: 2 })
  })
  await t.throwsAsync(readResume(bytes, PDF, { timeoutMs: 1 }), { instanceOf: ResumeFileError, message: /took too long to read/ })
  // the pool carries on with a fresh thread
  t.regex((await readResume(Buffer.from('still here'), 'text/plain')).text, /still here/)
})

// serial: the other tests make their files on this thread, which would stall it themselves.
// How long the event loop is held meanwhile is a bench figure (test/bench/resumes.ts,
// "longest event-loop stall ms"), not a bound a busy test machine could keep.
test.serial('six PDFs at once on two threads: all read alike', async (t) => {
  const bytes = await pdf((d) => {
    for (let i = 0; i < 3; i++) d.addPage().fontSize(10).text(sentences(`Q${i}`, 30), { columns: 2 })
  })
  const alone = await readResume(bytes, PDF)
  const results = await Promise.all(Array.from({ length: 6 }, () => readResume(bytes, PDF)))
  t.is(alone.pages, 4)
  t.regex(alone.text, /^Q0 sentence number 1\s[^]*\sQ2 sentence number 30\s/, 'every page, in order')
  for (const r of results) t.deepEqual(r, alone)
})

test('an idle reader thread does not keep the process alive', async (t) => {
  // a script that reads a PDF and never calls closeResumeReaders: it must still exit
  const script = `
    import { readResume } from ${JSON.stringify(new URL('../../ingest/resume/read.ts', import.meta.url).href)}
    const r = await readResume(Buffer.from(${JSON.stringify((await pdf((d) => d.text('Exit Test'))).toString('base64'))}, 'base64'), 'application/pdf')
    console.log(r.text)`
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { timeout: 60_000 })
  t.is(stdout.trim(), 'Exit Test')
})
