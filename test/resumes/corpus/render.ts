/**
 * Renders ground-truth resumes into files the reader has to cope with: PDFs from pdfkit
 * (one column, two columns, a shaded left sidebar, experience as a ruled table; Helvetica,
 * Times, Courier or an embedded Unicode font), image-only PDFs (the same layouts drawn on an
 * @napi-rs/canvas at 150-200 dpi, placed as one PNG per page, no text layer), DOCX from
 * `docx` (paragraphs with right tab stops, a two-cell sidebar table, experience as a table),
 * HTML and plain text, and two shapes of real resumes as text: flattened (one line, punctuation
 * stripped, as job sites export) and a builder's layout with its encoding damage. DOC is not produced: nothing installed writes the binary Word format.
 *
 * Each file also carries `expected`: what a parser can know from that file. A date written
 * "Summer 2019" only says the year (or a summer month), a name written in capitals is expected
 * in capitals.
 */
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import PDFDocument from 'pdfkit'
import { createCanvas, GlobalFonts, type SKRSContext2D, type Canvas } from '@napi-rs/canvas'
import { Document, HeadingLevel, Packer, Paragraph, ShadingType, Tab, TabStopType, Table, TableCell, TableRow, TextRun, WidthType, BorderStyle } from 'docx'
import { prng, type Rng, type TruthResume, type TruthWork, type YearMonth } from './truth.ts'
import type { Expected } from '../../eval/resume-score.ts'

export type Format = 'pdf' | 'image-pdf' | 'docx' | 'html' | 'text'
export type RenderedResume = { name: string; contentType: string; bytes: Buffer; truth: TruthResume; layout: string; format: Format; expected: Expected }

export const CONTENT_TYPES: Record<Format, string> = {
  pdf: 'application/pdf',
  'image-pdf': 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  html: 'text/html',
  text: 'text/plain',
}

// ---------------------------------------------------------------- style

type SectionKey = 'summary' | 'experience' | 'education' | 'skills' | 'projects' | 'certifications' | 'languages' | 'hobbies'
type DateFmt = 'Mon YYYY' | 'Month YYYY' | 'YYYY-MM' | 'MM/YYYY' | 'Mon. YYYY' | 'YYYY' | 'season'
type EntryPattern = 'title-comma-company' | 'title-at-company' | 'company-dash-title' | 'title-line-company-line' | 'company-line-title-line' | 'title-pipe-company'

type Style = {
  headings: Record<SectionKey, string>
  dateFmt: DateFmt
  sep: string
  present: string
  entry: EntryPattern
  datesAt: 'right' | 'below' | 'paren'
  bullet: string
  skills: 'category-lines' | 'flat' | 'bullets'
  contact: 'one-line' | 'lines' | 'labeled'
  educationFirst: boolean
  upperName: boolean
  showLocation: boolean
}

const HEADINGS: Record<SectionKey, string[]> = {
  summary: ['SUMMARY', 'Profile', 'Professional Summary', 'About Me', 'Objective', 'PERSONAL STATEMENT'],
  experience: ['EXPERIENCE', 'Work History', 'Professional Experience:', 'Employment', 'WORK EXPERIENCE', 'Career History', 'Experience', 'Employment History'],
  education: ['EDUCATION', 'Education & Training', 'Academic Background', 'Education:', 'Qualifications', 'Education'],
  skills: ['SKILLS', 'Core Competencies', 'Technical Skills', 'Key Skills', 'Skills & Tools', 'Skills:'],
  projects: ['PROJECTS', 'Selected Projects', 'Key Projects', 'Projects'],
  certifications: ['CERTIFICATIONS', 'Licenses & Certifications', 'Certificates', 'Certifications:'],
  languages: ['LANGUAGES', 'Languages', 'Languages Spoken'],
  hobbies: ['INTERESTS', 'Hobbies', 'Hobbies & Interests', 'Interests:'],
}

function pickStyle(r: Rng): Style {
  const headings = Object.fromEntries(Object.entries(HEADINGS).map(([k, v]) => [k, r.pick(v)])) as Record<SectionKey, string>
  return {
    headings,
    dateFmt: r.pick<DateFmt>(['Mon YYYY', 'Mon YYYY', 'Month YYYY', 'YYYY-MM', 'MM/YYYY', 'Mon. YYYY', 'YYYY', 'season']),
    sep: r.pick([' – ', ' - ', ' to ', ' — ', '–']),
    present: r.pick(['Present', 'Present', 'to date', 'Current', 'Now']),
    entry: r.pick<EntryPattern>(['title-comma-company', 'title-at-company', 'company-dash-title', 'title-line-company-line', 'company-line-title-line', 'title-pipe-company']),
    datesAt: r.pick<Style['datesAt']>(['right', 'right', 'below', 'paren']),
    bullet: r.pick(['•', '-', '*', '–']),
    skills: r.pick<Style['skills']>(['category-lines', 'flat', 'bullets']),
    contact: r.pick<Style['contact']>(['one-line', 'lines', 'labeled']),
    educationFirst: r.chance(0.2),
    upperName: r.chance(0.2),
    showLocation: r.chance(0.6),
  }
}

const MONTH_SHORT = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const MONTH_LONG = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']
const pad2 = (n: number) => String(n).padStart(2, '0')

/** A date as written in this style, with the normalized values a parser may give for it. */
function fmtDate(d: YearMonth, fmt: DateFmt): { text: string; expect: string[] } {
  const ym = `${d.year}-${pad2(d.month)}`
  switch (fmt) {
    case 'Mon YYYY': return { text: `${MONTH_SHORT[d.month - 1]} ${d.year}`, expect: [ym] }
    case 'Month YYYY': return { text: `${MONTH_LONG[d.month - 1]} ${d.year}`, expect: [ym] }
    case 'YYYY-MM': return { text: ym, expect: [ym] }
    case 'MM/YYYY': return { text: `${pad2(d.month)}/${d.year}`, expect: [ym] }
    case 'Mon. YYYY': return { text: d.month === 5 ? `May ${d.year}` : `${MONTH_SHORT[d.month - 1]}. ${d.year}`, expect: [ym] }
    case 'YYYY': return { text: String(d.year), expect: [String(d.year)] }
    case 'season': {
      // Only summer and autumn are unambiguous about the year; other months stay "Mon YYYY".
      if (d.month >= 6 && d.month <= 8) return { text: `Summer ${d.year}`, expect: [String(d.year), ...[6, 7, 8].map((m) => `${d.year}-${pad2(m)}`)] }
      if (d.month >= 9 && d.month <= 11) return { text: `Fall ${d.year}`, expect: [String(d.year), ...[9, 10, 11].map((m) => `${d.year}-${pad2(m)}`)] }
      return { text: `${MONTH_SHORT[d.month - 1]} ${d.year}`, expect: [ym] }
    }
  }
}

function fmtRange(start: YearMonth, end: YearMonth | null, s: Style) {
  const a = fmtDate(start, s.dateFmt)
  if (end === null) {
    const text = s.present === 'to date' ? `${a.text} to date` : `${a.text}${s.sep}${s.present}`
    return { text, start: a.expect, end: ['present'] }
  }
  const b = fmtDate(end, s.dateFmt)
  return { text: `${a.text}${s.sep}${b.text}`, start: a.expect, end: b.expect }
}

// ---------------------------------------------------------------- document model

/** One visual line (before wrapping): left text, optional right-aligned text on the same line. */
type Line = { text: string; right?: string; bold?: boolean; italic?: boolean; bullet?: boolean; gapBefore?: boolean }
type Section = { key: SectionKey; heading: string; lines: Line[]; table?: { header: string[]; rows: string[][]; widths: number[] } }
type Model = { name: string; headline: string; contact: string[]; sections: Section[]; style: Style; expected: Expected }

function entryLines(w: TruthWork, s: Style): Line[] {
  const range = fmtRange(w.start, w.end, s)
  const dates = range.text
  const loc = s.showLocation ? w.location : undefined
  const out: Line[] = []
  const oneLine = (text: string) => {
    if (s.datesAt === 'right') out.push({ text, right: dates, bold: true, gapBefore: true })
    else if (s.datesAt === 'paren') out.push({ text: `${text} (${dates})`, bold: true, gapBefore: true })
    else out.push({ text, bold: true, gapBefore: true }, { text: loc ? `${dates} | ${loc}` : dates, italic: true })
    if (loc && s.datesAt !== 'below') out.push({ text: loc, italic: true })
  }
  switch (s.entry) {
    case 'title-comma-company': oneLine(`${w.title}, ${w.company}`); break
    case 'title-at-company': oneLine(`${w.title} at ${w.company}`); break
    case 'company-dash-title': oneLine(`${w.company} — ${w.title}`); break
    case 'title-pipe-company': oneLine(`${w.title} | ${w.company}`); break
    case 'title-line-company-line':
      if (s.datesAt === 'right') out.push({ text: w.title, right: dates, bold: true, gapBefore: true }, { text: loc ? `${w.company}, ${loc}` : w.company, italic: true })
      else if (s.datesAt === 'paren') out.push({ text: `${w.title} (${dates})`, bold: true, gapBefore: true }, { text: loc ? `${w.company}, ${loc}` : w.company, italic: true })
      else out.push({ text: w.title, bold: true, gapBefore: true }, { text: w.company, italic: true }, { text: loc ? `${dates}, ${loc}` : dates })
      break
    case 'company-line-title-line':
      out.push({ text: w.company, right: loc, bold: true, gapBefore: true })
      if (s.datesAt === 'paren') out.push({ text: `${w.title} (${dates})`, italic: true })
      else if (s.datesAt === 'right') out.push({ text: w.title, right: dates, italic: true })
      else out.push({ text: w.title, italic: true }, { text: dates })
      break
  }
  for (const b of w.bullets) out.push({ text: b, bullet: true })
  return out
}

function buildModel(t: TruthResume, s: Style, experienceTable: boolean): Model {
  const sections: Section[] = []
  const name = s.upperName ? t.name.toUpperCase() : t.name
  const contactParts = [t.email, t.phone.display, `${t.city}, ${t.country}`, ...t.links]
  const contact = s.contact === 'labeled'
    ? [`Email: ${t.email}`, `Phone: ${t.phone.display}`, `Address: ${t.city}, ${t.country}`, ...t.links.map((l) => `Web: ${l}`)]
    : contactParts

  sections.push({ key: 'summary', heading: s.headings.summary, lines: [{ text: t.summary }] })

  const work = t.work.map((w) => ({ w, range: fmtRange(w.start, w.end, s) }))
  const exp: Section = { key: 'experience', heading: s.headings.experience, lines: [] }
  if (experienceTable) {
    exp.table = {
      header: ['Dates', 'Role', 'Company', 'Location'],
      rows: work.map(({ w, range }) => [range.text, w.title, w.company, w.location]),
      widths: [0.22, 0.3, 0.28, 0.2],
    }
    for (const { w } of work) for (const b of w.bullets.slice(0, 1)) exp.lines.push({ text: `${w.company}: ${b}`, bullet: true })
  } else {
    for (const { w } of work) exp.lines.push(...entryLines(w, s))
  }

  const edu: Section = { key: 'education', heading: s.headings.education, lines: [] }
  for (const e of t.education) {
    const years = s.dateFmt === 'YYYY' || s.dateFmt === 'season' ? `${e.start.year}${s.sep}${e.end.year}` : fmtRange(e.start, e.end, s).text
    if (s.entry === 'company-line-title-line' || s.entry === 'title-line-company-line') {
      edu.lines.push({ text: e.degree, right: years, bold: true, gapBefore: true }, { text: `${e.institution}, ${e.location}`, italic: true })
    } else if (s.entry === 'company-dash-title') {
      edu.lines.push({ text: `${e.institution} — ${e.degree}`, right: years, bold: true, gapBefore: true })
    } else {
      edu.lines.push({ text: `${e.degree}, ${e.institution}`, right: years, bold: true, gapBefore: true })
    }
    if (e.gpa) edu.lines.push({ text: /^\d/.test(e.gpa) ? `GPA: ${e.gpa}` : `Grade: ${e.gpa}` })
  }
  if (s.educationFirst) sections.push(edu, exp)
  else sections.push(exp, edu)

  const sk: Section = { key: 'skills', heading: s.headings.skills, lines: [] }
  if (s.skills === 'category-lines') for (const g of t.skills) sk.lines.push({ text: `${g.category}: ${g.items.join(', ')}` })
  else if (s.skills === 'flat') sk.lines.push({ text: t.skills.flatMap((g) => g.items).join(', ') })
  else for (const x of t.skills.flatMap((g) => g.items)) sk.lines.push({ text: x, bullet: true })
  sections.push(sk)

  if (t.projects) sections.push({ key: 'projects', heading: s.headings.projects, lines: t.projects.flatMap((p) => [{ text: p.name, bold: true, gapBefore: true }, { text: `${p.description} (${p.technologies.join(', ')})` }]) })
  if (t.certifications) sections.push({ key: 'certifications', heading: s.headings.certifications, lines: t.certifications.map((c) => ({ text: `${c.name} — ${c.issuer}, ${c.year}`, bullet: true })) })
  if (t.languages) sections.push({ key: 'languages', heading: s.headings.languages, lines: [{ text: t.languages.join(', ') }] })
  if (t.hobbies) sections.push({ key: 'hobbies', heading: s.headings.hobbies, lines: [{ text: t.hobbies.join(', ') }] })

  const expected: Expected = {
    name,
    email: t.email,
    phone: t.phone.e164,
    work: work.map(({ w, range }) => ({ title: w.title, company: w.company, start: range.start, end: range.end })),
    degrees: t.education.map((e) => e.degree),
    institutions: t.education.map((e) => e.institution),
    skills: t.skills.flatMap((g) => g.items),
  }
  return { name, headline: t.work[0].title, contact, sections, style: s, expected }
}

const SIDE_KEYS: SectionKey[] = ['skills', 'languages', 'hobbies']
const RIGHT_COLUMN_KEYS: SectionKey[] = ['education', 'skills', 'certifications', 'languages', 'hobbies']

// ---------------------------------------------------------------- paged surfaces (PDF and image)

type FontKind = 'regular' | 'bold' | 'italic'
interface Surface {
  readonly width: number
  readonly height: number
  measure(text: string, font: FontKind, size: number): number
  text(text: string, x: number, y: number, font: FontKind, size: number): void
  rule(x1: number, y1: number, x2: number, y2: number): void
  shade(x: number, y: number, w: number, h: number): void
  page(i: number): void
}

const require = createRequire(import.meta.url)
const PDFJS_FONTS = path.join(path.dirname(require.resolve('pdfjs-dist/package.json')), 'standard_fonts')
const DEJAVU = '/usr/share/fonts/truetype/dejavu'
/**
 * Names like "Nguyễn" need glyphs that neither the 14 standard PDF fonts (WinAnsi) nor
 * Liberation Sans (shipped with pdfjs-dist) have; DejaVu Sans has them when the system has it.
 */
const UNICODE_FONTS: Record<FontKind, string> = existsSync(path.join(DEJAVU, 'DejaVuSans.ttf'))
  ? { regular: path.join(DEJAVU, 'DejaVuSans.ttf'), bold: path.join(DEJAVU, 'DejaVuSans-Bold.ttf'), italic: path.join(DEJAVU, 'DejaVuSans-Oblique.ttf') }
  : { regular: path.join(PDFJS_FONTS, 'LiberationSans-Regular.ttf'), bold: path.join(PDFJS_FONTS, 'LiberationSans-Bold.ttf'), italic: path.join(PDFJS_FONTS, 'LiberationSans-Italic.ttf') }
export const UNICODE_FONT_FILE = UNICODE_FONTS.regular

const STANDARD: Record<string, Record<FontKind, string>> = {
  Helvetica: { regular: 'Helvetica', bold: 'Helvetica-Bold', italic: 'Helvetica-Oblique' },
  Times: { regular: 'Times-Roman', bold: 'Times-Bold', italic: 'Times-Italic' },
  Courier: { regular: 'Courier', bold: 'Courier-Bold', italic: 'Courier-Oblique' },
}
const WIN_ANSI_EXTRA = new Set('ŒœŠšŽžŸƒ–—‘’‚“”„†‡•…‰‹›€™ˆ˜')
const winAnsiSafe = (s: string) => [...s].every((c) => c.charCodeAt(0) < 0x7f || (c.charCodeAt(0) >= 0xa0 && c.charCodeAt(0) <= 0xff) || WIN_ANSI_EXTRA.has(c))

function modelText(m: Model): string {
  return [m.name, m.headline, ...m.contact, ...m.sections.flatMap((s) => [s.heading, ...s.lines.flatMap((l) => [l.text, l.right ?? '']), ...(s.table ? [...s.table.header, ...s.table.rows.flat()] : [])])].join('\n')
}

class PdfSurface implements Surface {
  readonly width = 612
  readonly height = 792
  doc: PDFKit.PDFDocument
  private pages = 1
  private fonts: Record<FontKind, string>
  constructor(family: string, unicode: boolean) {
    this.doc = new PDFDocument({ size: 'LETTER', margin: 0, bufferPages: true, info: { Title: 'Resume', CreationDate: new Date(Date.UTC(2025, 5, 1)) } })
    if (unicode) {
      for (const k of ['regular', 'bold', 'italic'] as FontKind[]) this.doc.registerFont(`U-${k}`, UNICODE_FONTS[k])
      this.fonts = { regular: 'U-regular', bold: 'U-bold', italic: 'U-italic' }
    } else this.fonts = STANDARD[family]
  }
  measure(text: string, font: FontKind, size: number) {
    return this.doc.font(this.fonts[font]).fontSize(size).widthOfString(text)
  }
  text(text: string, x: number, y: number, font: FontKind, size: number) {
    this.doc.font(this.fonts[font]).fontSize(size).text(text, x, y, { lineBreak: false })
  }
  rule(x1: number, y1: number, x2: number, y2: number) {
    this.doc.moveTo(x1, y1).lineTo(x2, y2).lineWidth(0.6).strokeColor('#444').stroke()
  }
  shade(x: number, y: number, w: number, h: number) {
    this.doc.save().rect(x, y, w, h).fillColor('#e8ecf0').fill().restore().fillColor('black')
  }
  page(i: number) {
    while (this.pages <= i) {
      this.doc.addPage({ size: 'LETTER', margin: 0 })
      this.pages++
    }
    this.doc.switchToPage(i)
  }
  async finish(): Promise<Buffer> {
    const chunks: Buffer[] = []
    this.doc.on('data', (c: Buffer) => chunks.push(c))
    const done = new Promise<void>((resolve) => this.doc.on('end', () => resolve()))
    this.doc.end()
    await done
    return Buffer.concat(chunks)
  }
}

let canvasFontsReady = false
function canvasFamily(): string {
  if (!canvasFontsReady) {
    GlobalFonts.registerFromPath(UNICODE_FONTS.regular, 'ResumeSans')
    GlobalFonts.registerFromPath(UNICODE_FONTS.bold, 'ResumeSans')
    GlobalFonts.registerFromPath(UNICODE_FONTS.italic, 'ResumeSans')
    canvasFontsReady = true
  }
  return 'ResumeSans'
}

/** Draws in PDF points on canvases at `dpi`; each page becomes a PNG on a pdfkit page. */
class ImageSurface implements Surface {
  readonly width = 612
  readonly height = 792
  private canvases: Canvas[] = []
  private ctx!: SKRSContext2D
  private scale: number
  constructor(private dpi: number) {
    this.scale = dpi / 72
    canvasFamily()
    this.page(0)
  }
  private font(font: FontKind, size: number) {
    return `${font === 'bold' ? 'bold ' : font === 'italic' ? 'italic ' : ''}${size}px ResumeSans`
  }
  measure(text: string, font: FontKind, size: number) {
    this.ctx.font = this.font(font, size)
    return this.ctx.measureText(text).width
  }
  text(text: string, x: number, y: number, font: FontKind, size: number) {
    this.ctx.font = this.font(font, size)
    this.ctx.fillStyle = '#111'
    this.ctx.fillText(text, x, y + size * 0.9)
  }
  rule(x1: number, y1: number, x2: number, y2: number) {
    this.ctx.strokeStyle = '#444'
    this.ctx.lineWidth = 0.6
    this.ctx.beginPath()
    this.ctx.moveTo(x1, y1)
    this.ctx.lineTo(x2, y2)
    this.ctx.stroke()
  }
  shade(x: number, y: number, w: number, h: number) {
    this.ctx.fillStyle = '#e8ecf0'
    this.ctx.fillRect(x, y, w, h)
  }
  page(i: number) {
    while (this.canvases.length <= i) {
      const c = createCanvas(Math.round(this.width * this.scale), Math.round(this.height * this.scale))
      const ctx = c.getContext('2d')
      ctx.fillStyle = 'white'
      ctx.fillRect(0, 0, c.width, c.height)
      ctx.scale(this.scale, this.scale)
      this.canvases.push(c)
    }
    this.ctx = this.canvases[i].getContext('2d')
  }
  pngs(): Promise<Buffer[]> {
    return Promise.all(this.canvases.map((c) => c.encode('png')))
  }
  async finish(): Promise<Buffer> {
    const doc = new PDFDocument({ size: 'LETTER', margin: 0, autoFirstPage: false, info: { Title: 'Resume (scan)', CreationDate: new Date(Date.UTC(2025, 5, 1)) } })
    const chunks: Buffer[] = []
    doc.on('data', (c: Buffer) => chunks.push(c))
    const done = new Promise<void>((resolve) => doc.on('end', () => resolve()))
    for (const c of this.canvases) {
      doc.addPage({ size: 'LETTER', margin: 0 })
      doc.image(await c.encode('png'), 0, 0, { width: this.width, height: this.height })
    }
    doc.end()
    await done
    return Buffer.concat(chunks)
  }
}

/** A column that flows lines down the page and on to the same column of the next page. */
class Flow {
  y: number
  pageIndex = 0
  constructor(private s: Surface, private x: number, private w: number, private top: number, private bottom: number, private size: number, private bulletChar: string, startY?: number, private onNewPage?: (page: number) => void) {
    this.y = startY ?? top
  }
  get lh() {
    return this.size * 1.35
  }
  private ensure(h: number) {
    if (this.y + h <= this.bottom) return
    this.pageIndex++
    this.s.page(this.pageIndex)
    this.onNewPage?.(this.pageIndex)
    this.y = this.top
  }
  wrap(text: string, font: FontKind, size: number, width: number): string[] {
    const out: string[] = []
    let cur = ''
    for (const word of text.split(/\s+/).filter(Boolean)) {
      const next = cur ? `${cur} ${word}` : word
      if (cur && this.s.measure(next, font, size) > width) {
        out.push(cur)
        cur = word
      } else cur = next
    }
    if (cur) out.push(cur)
    return out.length ? out : ['']
  }
  gap(h: number) {
    this.y += h
  }
  heading(text: string, size = this.size + 2, underline = true) {
    this.ensure(size * 1.4 + this.lh * 2)
    this.y += size * 0.5
    this.s.page(this.pageIndex)
    this.s.text(text, this.x, this.y, 'bold', size)
    this.y += size * 1.3
    if (underline) {
      this.s.rule(this.x, this.y - 2, this.x + this.w, this.y - 2)
      this.y += 3
    }
  }
  line(l: Line) {
    const font: FontKind = l.bold ? 'bold' : l.italic ? 'italic' : 'regular'
    if (l.gapBefore) this.y += this.size * 0.4
    const indent = l.bullet ? this.size * 1.2 : 0
    const rightW = l.right ? this.s.measure(l.right, 'regular', this.size) + 12 : 0
    if (l.right && rightW > this.w * 0.35) {
      // A narrow column has no room for right-aligned dates: they go on the next line.
      this.line({ text: l.text, bold: l.bold, italic: l.italic, bullet: l.bullet })
      this.line({ text: l.right })
      return
    }
    const parts = this.wrap(l.text, font, this.size, this.w - indent - rightW)
    parts.forEach((p, i) => {
      this.ensure(this.lh)
      this.s.page(this.pageIndex)
      if (l.bullet && i === 0) this.s.text(this.bulletChar, this.x + 2, this.y, 'regular', this.size)
      this.s.text(p, this.x + indent, this.y, font, this.size)
      if (l.right && i === 0) this.s.text(l.right, this.x + this.w - rightW + 12, this.y, 'regular', this.size)
      this.y += this.lh
    })
  }
  table(t: NonNullable<Section['table']>) {
    const widths = t.widths.map((f) => f * this.w)
    const rows = [t.header, ...t.rows]
    rows.forEach((row, ri) => {
      const font: FontKind = ri === 0 ? 'bold' : 'regular'
      const cells = row.map((c, ci) => this.wrap(c, font, this.size, widths[ci] - 8))
      const h = Math.max(...cells.map((c) => c.length)) * this.lh + 6
      this.ensure(h)
      this.s.page(this.pageIndex)
      if (ri === 0) this.s.rule(this.x, this.y, this.x + this.w, this.y)
      let cx = this.x
      cells.forEach((c, ci) => {
        c.forEach((p, pi) => this.s.text(p, cx + 4, this.y + 3 + pi * this.lh, font, this.size))
        cx += widths[ci]
      })
      cx = this.x
      for (const w of [0, ...widths]) {
        cx += w
        this.s.rule(cx, this.y, cx, this.y + h)
      }
      this.y += h
      this.s.rule(this.x, this.y, this.x + this.w, this.y)
    })
  }
  section(sec: Section, headingSize?: number) {
    this.heading(sec.heading, headingSize)
    if (sec.table) {
      this.table(sec.table)
      this.y += 4
    }
    for (const l of sec.lines) this.line(l)
  }
}

export type PagedLayout = 'single' | 'two-column' | 'sidebar' | 'table'

function drawPaged(s: Surface, m: Model, layout: PagedLayout, size: number) {
  const margin = 48
  const b = m.style.bullet
  const header = (x: number, w: number, withContact: boolean) => {
    const f = new Flow(s, x, w, margin, s.height - margin, size, b)
    s.text(m.name, x, f.y, 'bold', size * 2.1)
    f.gap(size * 2.6)
    s.text(m.headline, x, f.y, 'italic', size + 1)
    f.gap(size * 1.8)
    if (withContact) {
      if (m.style.contact === 'one-line') f.line({ text: m.contact.join('  |  ') })
      else for (const c of m.contact) f.line({ text: c })
    }
    f.gap(size * 0.5)
    return f
  }
  if (layout === 'single' || layout === 'table') {
    const f = header(margin, s.width - 2 * margin, true)
    for (const sec of m.sections) f.section(sec)
  } else if (layout === 'two-column') {
    const top = header(margin, s.width - 2 * margin, true)
    const gutter = 18
    const leftW = (s.width - 2 * margin - gutter) * 0.6
    const rightW = s.width - 2 * margin - gutter - leftW
    const left = new Flow(s, margin, leftW, margin, s.height - margin, size, b, top.y)
    const right = new Flow(s, margin + leftW + gutter, rightW, margin, s.height - margin, size, b, top.y)
    for (const sec of m.sections) (RIGHT_COLUMN_KEYS.includes(sec.key) ? right : left).section(sec)
  } else {
    // Shaded sidebar with the contact details and the short sections; the rest on the right.
    const sideW = 170
    s.shade(0, 0, sideW, s.height)
    const side = new Flow(s, 18, sideW - 30, margin, s.height - margin, size - 0.5, b, undefined, () => s.shade(0, 0, sideW, s.height))
    side.heading('CONTACT', size + 1, false)
    for (const c of m.contact) side.line({ text: c })
    const main = header(sideW + 24, s.width - sideW - 24 - margin, false)
    const mainFlow = new Flow(s, sideW + 24, s.width - sideW - 24 - margin, margin, s.height - margin, size, b, main.y, (p) => {
      if (p > side.pageIndex) s.shade(0, 0, sideW, s.height)
    })
    for (const sec of m.sections) {
      if (SIDE_KEYS.includes(sec.key)) {
        s.page(side.pageIndex)
        // Skills in a sidebar: one per line, under their category when they have one.
        const lines = sec.key !== 'skills' ? sec.lines : sec.lines.flatMap((l): Line[] => {
          if (l.bullet) return [l]
          const m = /^([^:]+):\s*(.*)$/.exec(l.text)
          const items = (m ? m[2] : l.text).split(/,\s*/).map((t) => ({ text: t }))
          return m ? [{ text: m[1], bold: true, gapBefore: true }, ...items] : items
        })
        side.section({ ...sec, lines }, size + 1)
      } else {
        s.page(mainFlow.pageIndex)
        mainFlow.section(sec)
      }
    }
  }
}

async function renderPdf(m: Model, layout: PagedLayout, family: string, size: number): Promise<{ bytes: Buffer; font: string }> {
  const unicode = !winAnsiSafe(modelText(m))
  const surface = new PdfSurface(family, unicode)
  drawPaged(surface, m, layout, size)
  return { bytes: await surface.finish(), font: unicode ? 'unicode' : family.toLowerCase() }
}

async function renderImagePdf(m: Model, layout: PagedLayout, dpi: number, size: number): Promise<Buffer> {
  const surface = new ImageSurface(dpi)
  drawPaged(surface, m, layout, size)
  return surface.finish()
}

/** The pages of a paged layout as PNGs, for looking at the corpus: `previewPngs(truth, 'sidebar')`. */
export async function previewPngs(t: TruthResume, layout: PagedLayout, dpi = 100): Promise<Buffer[]> {
  const surface = new ImageSurface(dpi)
  drawPaged(surface, buildModel(t, pickStyle(prng(1)), layout === 'table'), layout, 10.5)
  return surface.pngs()
}

// ---------------------------------------------------------------- DOCX

export type DocxLayout = 'paragraphs' | 'sidebar-table' | 'experience-table'

function docxLine(l: Line, font: string): Paragraph {
  const runs: (TextRun)[] = [new TextRun({ text: l.text, bold: l.bold, italics: l.italic, font })]
  if (l.right) runs.push(new TextRun({ children: [new Tab(), l.right], font }))
  return new Paragraph({
    children: runs,
    ...(l.bullet ? { bullet: { level: 0 } } : {}),
    ...(l.right ? { tabStops: [{ type: TabStopType.RIGHT, position: 9000 }] } : {}),
    spacing: { before: l.gapBefore ? 120 : 0 },
  })
}

function docxSection(sec: Section, font: string): (Paragraph | Table)[] {
  const out: (Paragraph | Table)[] = [new Paragraph({ heading: HeadingLevel.HEADING_2, children: [new TextRun({ text: sec.heading, font })] })]
  if (sec.table) {
    out.push(new Table({
      width: { size: 100, type: WidthType.PERCENTAGE },
      rows: [sec.table.header, ...sec.table.rows].map((row, ri) => new TableRow({
        children: row.map((c, ci) => new TableCell({
          width: { size: Math.round(sec.table!.widths[ci] * 100), type: WidthType.PERCENTAGE },
          children: [new Paragraph({ children: [new TextRun({ text: c, bold: ri === 0, font })] })],
        })),
      })),
    }))
  }
  for (const l of sec.lines) out.push(docxLine(l, font))
  return out
}

async function renderDocx(m: Model, layout: DocxLayout, font: string): Promise<Buffer> {
  const nameP = new Paragraph({ heading: HeadingLevel.TITLE, children: [new TextRun({ text: m.name, font })] })
  const headlineP = new Paragraph({ children: [new TextRun({ text: m.headline, italics: true, font })] })
  const contactPs = m.style.contact === 'one-line' ? [new Paragraph({ children: [new TextRun({ text: m.contact.join(' · '), font })] })] : m.contact.map((c) => new Paragraph({ children: [new TextRun({ text: c, font })] }))
  let children: (Paragraph | Table)[]
  if (layout === 'sidebar-table') {
    const none = { style: BorderStyle.NONE, size: 0, color: 'FFFFFF' }
    const borders = { top: none, bottom: none, left: none, right: none }
    const side = [new Paragraph({ heading: HeadingLevel.HEADING_2, children: [new TextRun({ text: 'Contact', font })] }), ...m.contact.map((c) => new Paragraph({ children: [new TextRun({ text: c, font })] })), ...m.sections.filter((s) => SIDE_KEYS.includes(s.key)).flatMap((s) => docxSection(s, font))]
    const main = [nameP, headlineP, ...m.sections.filter((s) => !SIDE_KEYS.includes(s.key)).flatMap((s) => docxSection(s, font))]
    children = [new Table({
      width: { size: 100, type: WidthType.PERCENTAGE },
      borders: { ...borders, insideHorizontal: none, insideVertical: none },
      rows: [new TableRow({
        children: [
          new TableCell({ width: { size: 32, type: WidthType.PERCENTAGE }, shading: { type: ShadingType.CLEAR, fill: 'E8ECF0', color: 'auto' }, borders, children: side }),
          new TableCell({ width: { size: 68, type: WidthType.PERCENTAGE }, borders, children: main as Paragraph[] }),
        ],
      })],
    })]
  } else {
    children = [nameP, headlineP, ...contactPs, ...m.sections.flatMap((s) => docxSection(s, font))]
  }
  const doc = new Document({
    creator: 'resume corpus',
    styles: { default: { document: { run: { font, size: 21 } } } },
    sections: [{ properties: {}, children }],
  })
  return Packer.toBuffer(doc)
}

// ---------------------------------------------------------------- HTML and text

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

function renderHtml(m: Model): string {
  const body: string[] = [`<header><h1>${esc(m.name)}</h1><p class="headline">${esc(m.headline)}</p>`]
  if (m.style.contact === 'one-line') body.push(`<p class="contact">${m.contact.map(esc).join(' &middot; ')}</p>`)
  else body.push(`<ul class="contact">${m.contact.map((c) => `<li>${esc(c)}</li>`).join('')}</ul>`)
  body.push('</header>')
  for (const sec of m.sections) {
    body.push(`<section class="${sec.key}"><h2>${esc(sec.heading)}</h2>`)
    if (sec.table) {
      body.push('<table><thead><tr>' + sec.table.header.map((h) => `<th>${esc(h)}</th>`).join('') + '</tr></thead><tbody>')
      for (const r of sec.table.rows) body.push('<tr>' + r.map((c) => `<td>${esc(c)}</td>`).join('') + '</tr>')
      body.push('</tbody></table>')
    }
    let inList = false
    for (const l of sec.lines) {
      if (l.bullet && !inList) body.push('<ul>')
      if (!l.bullet && inList) body.push('</ul>')
      inList = !!l.bullet
      const text = l.bold ? `<strong>${esc(l.text)}</strong>` : l.italic ? `<em>${esc(l.text)}</em>` : esc(l.text)
      const right = l.right ? ` <span class="dates">${esc(l.right)}</span>` : ''
      body.push(l.bullet ? `<li>${text}</li>` : `<div class="line">${text}${right}</div>`)
    }
    if (inList) body.push('</ul>')
    body.push('</section>')
  }
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${esc(m.name)} – Resume</title>
<style>body{font-family:Georgia,serif;max-width:46em;margin:2em auto}.dates{float:right}h2{border-bottom:1px solid #999}</style>
</head><body>\n${body.join('\n')}\n</body></html>\n`
}

function renderText(m: Model, underlined: boolean): string {
  const W = 78
  const out: string[] = [m.name, m.headline]
  if (m.style.contact === 'one-line') out.push(m.contact.join(' | '))
  else out.push(...m.contact)
  for (const sec of m.sections) {
    out.push('')
    out.push(underlined ? sec.heading : sec.heading.toUpperCase())
    if (underlined) out.push('-'.repeat(sec.heading.length))
    if (sec.table) {
      for (const r of sec.table.rows) out.push(r.join(' | '))
    }
    for (const l of sec.lines) {
      if (l.gapBefore) out.push('')
      const left = l.bullet ? `${m.style.bullet} ${l.text}` : l.text
      out.push(l.right ? `${left}${' '.repeat(Math.max(3, W - left.length - l.right.length))}${l.right}` : left)
    }
  }
  return out.join('\n') + '\n'
}

const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']
const monthYear = (d: YearMonth) => `${MONTH_NAMES[d.month - 1]} ${d.year}`
const mmYYYY = (d: YearMonth) => `${String(d.month).padStart(2, '0')}/${d.year}`
/** What a job site's export leaves of a line: no punctuation, two spaces where the line ended. */
const stripPunct = (s: string) => s.replace(/[^\p{L}\p{N}\s]+/gu, '').replace(/\s+/g, ' ').trim()

/** "&" stripped leaves the two spaces that were around it: "Cedar & Stone" -> "Cedar  Stone". */
const stripAmp = (s: string) => s.split(/\s+&\s+/).map(stripPunct).join('  ')

const FLAT_SPECIALTIES = ['RF', 'SAP', 'L2']
const FLAT_CLIENTS = [{ name: 'Harborline Insurance', role: 'Migration Engineer' }, { name: 'Meadowbrook Retail Group', role: 'Support Analyst' }, { name: 'Kestrel Freight', role: 'Release Coordinator' }]
const FLAT_TOOLS = ['Java Hibernate JSP Spring', 'Excel PowerPivot Tableau Looker', 'Python Django Redis Celery']
const FLAT_LEVELS = [{ written: 'Higher Secondary12th Pass', degree: 'Higher Secondary 12th Pass' }, { written: 'Secondary10th Pass', degree: 'Secondary 10th Pass' }]
const FLAT_SCHOOLS = ['Riverside Public School', 'Hillcrest Senior Secondary School', 'Green Meadows High School', 'St Clares Convent School']

/**
 * A resume as job sites export it and other tools extract it: one line, punctuation stripped,
 * two spaces where a line break or a bullet was; "Title Company  Town Region Month YYYY to Month YYYY".
 * Some exports lose the gap before a job's header, so the header runs on from the previous job's
 * last bullet ("… reduced downtime Network Engineer Acme Systems  Pune Maharashtra May 2015 to …"),
 * and a "&" stripped from a name leaves a gap inside it. The current title may be in capitals, a
 * bullet may end in a list of tools right before the next title, a job may name the client it was spent
 * with and the role held there, a title may name a specialty before "in" and the employer, and school
 * levels follow the degrees.
 */
function renderFlattened(t: TruthResume): { text: string; expected: Expected } {
  // a sentence that opens with a heading's word ("Experience managing …") before the real heading
  const parts: string[] = [`${t.name} ${stripPunct(t.city)} ${stripPunct(t.country)}`, stripPunct(t.summary), 'Experience working with cross functional teams', 'Work Experience']
  const glued = Number(t.id.replace(/\D/g, '')) % 3 === 0
  const clients: { name: string; role: string }[] = []
  const titles: string[] = []
  t.work.forEach((w, k) => {
    // a title in capitals, as some write the one they hold now
    // a specialty after the title, then "in" and the employer, with a one-word town in lower case after it
    const town = w.location.split(',')[0].trim()
    const specialty = k === 1 && Number(t.id.replace(/\D/g, '')) % 5 === 2 && /^\p{L}+$/u.test(town) ? FLAT_SPECIALTIES[k % FLAT_SPECIALTIES.length] : null
    const title = k === 0 && t.work.length > 2 ? stripAmp(w.title).toUpperCase() : specialty ? `${stripAmp(w.title)} ${specialty}` : stripAmp(w.title)
    titles.push(title)
    const header = specialty ? `${title} in ${stripAmp(w.company)}` : `${title} ${stripAmp(w.company)}`
    const dates = `${specialty ? town.toLowerCase() : stripPunct(w.location)} ${monthYear(w.start)} to ${w.end ? monthYear(w.end) : 'Present'}`
    // the last bullet may end in a list of tools right before a title that opens with a rank or a
    // department's abbreviation ("… using Java Hibernate JSP Spring HR Business Partner")
    const opener = /^(Senior|Lead|Junior|Principal|Head|Chief|Assistant|Associate|\p{Lu}{2,3})\s/u.test(w.title)
    if (glued && k > 0 && parts.length && opener) parts[parts.length - 1] = `${parts[parts.length - 1]} using ${FLAT_TOOLS[k % FLAT_TOOLS.length]}`
    // the header run on from the last bullet, and the place from the employer
    if (glued && k > 0 && parts.length) parts[parts.length - 1] = `${parts[parts.length - 1]} ${header} ${dates}`
    else parts.push(header, dates)
    // an IT services firm's job spent with a client, its dates with the dash stripped and the role held there
    const client = k === 0 && Number(t.id.replace(/\D/g, '')) % 4 === 1 ? FLAT_CLIENTS[Number(t.id.replace(/\D/g, '')) % FLAT_CLIENTS.length] : null
    if (client) {
      parts.push(`Client ${client.name} ${monthYear(w.start)}  ${w.end ? monthYear(w.end) : 'Present'} Role ${client.role} Responsibilities`)
      clients.push(client)
    }
    parts.push(...w.bullets.map(stripPunct))
  })
  parts.push('Education')
  // as job sites export schools: "Degree in Field School  Town Region  Dates"; a school's dates may be
  // missing, leaving its town alone; some resumes list their schools in one run without towns or dates
  const odd = Number(t.id.replace(/\D/g, '')) % 2 === 1
  if (odd && t.education.length > 1) parts.push(t.education.map((e) => `${stripPunct(e.degree)} ${stripPunct(e.institution)}`).join(' '))
  else {
    // a site writes the field it asks for after the degree as written: "BSc in Physics in Physics", "… in Science"
    const field = (e: { degree: string }, k: number) => {
      const f = e.degree.match(/\bin\s+(.+)$/)?.[1]
      return !f ? '' : k % 2 ? ` in ${stripPunct(f)}` : ` in ${stripPunct(f).split(' ').pop()}`
    }
    t.education.forEach((e, k) => parts.push(`${stripPunct(e.degree)}${glued ? field(e, k) : ''} ${stripAmp(e.institution)}`, k % 2 ? stripPunct(e.location) : `${stripPunct(e.location)} ${monthYear(e.start)} to ${monthYear(e.end)}`))
  }
  // the site's school levels, "Higher Secondary(12th Pass)" with the brackets stripped or "Secondary Education", one after the other
  const levelNames = Number(t.id.replace(/\D/g, '')) % 4 === 0 ? FLAT_LEVELS : [{ written: 'Secondary Education', degree: 'Secondary Education' }]
  const levels = !odd && glued ? levelNames.map((l, k) => ({ ...l, school: FLAT_SCHOOLS[(Number(t.id.replace(/\D/g, '')) + k) % FLAT_SCHOOLS.length], year: t.education[0].start.year - 2 * (k + 1) })) : []
  if (levels.length) parts[parts.length - 1] = `${parts[parts.length - 1]} ${levels.map((l) => `${l.written} ${l.school} ${l.year}`).join(' ')}`
  parts.push('Skills', ...t.skills.flatMap((g) => g.items.map(stripPunct)))
  return {
    text: `${parts.join('  ')}\n`,
    expected: {
      titles: [...titles.map(stripPunct), ...clients.map((c) => c.role)],
      companies: [...t.work.map((w) => stripPunct(w.company)), ...clients.map((c) => c.name)],
      degrees: [...t.education.map((e) => stripPunct(e.degree)), ...levels.map((l) => l.degree)],
      institutions: [...t.education.map((e) => stripPunct(e.institution)), ...levels.map((l) => l.school)],
    },
  }
}

const BUILDER_DEPARTMENTS = ['Online Channels', 'Outdoor and Garden', 'Consumer Lending', 'Regional Operations']
const BUILDER_AWARDS = ['Regional Service Award', 'Team Spirit Award', 'Quarterly Excellence Award']

/**
 * A resume builder's rendering as resume sites publish it: "Company - Title Town , Region MM/YYYY - Current",
 * "Degree : Field , YYYY School ï¼ Town , Region", with UTF-8 read as windows-1252 left in ("Â", "â€“", and a
 * full-width comma whose last byte was lost); titles with a department after a dash or a space lost before
 * the role word, an employer in lower case after the title, and award notes with a year among the bullets.
 */
function renderBuilder(t: TruthResume, r: Rng): { text: string; expected: Expected } {
  const damage = (s: string) => s.replace(/ /g, () => (r.chance(0.05) ? 'Â ' : ' ')).replace(/ - /g, ' â€“ ')
  const place = (s: string) => s.replace(/\s*,\s*/g, ' , ')
  const out: string[] = [t.name, t.work[0].title.toUpperCase(), 'Professional Summary', damage(t.summary), 'Work History']
  const titles: string[] = []
  const companies: string[] = []
  t.work.forEach((w, k) => {
    const dates = `${mmYYYY(w.start)} - ${w.end ? mmYYYY(w.end) : 'Current'}`
    // a title with its department after a dash ("Buyer - Outdoor and Garden"), and a font that lost
    // the space before a role word ("OfficeManager")
    const companyFirst = r.chance(0.5)
    const title = k % 3 === 1 && !companyFirst ? `${w.title} - ${BUILDER_DEPARTMENTS[k % BUILDER_DEPARTMENTS.length]}` : w.title
    const written = k % 4 === 2 ? title.replace(/ (Manager|Engineer|Director|Developer|Analyst|Specialist|Coordinator|Consultant)\b/, '$1') : title
    titles.push(title)
    if (k % 5 === 3) {
      // an employer that writes its name in lower case, right after the title, the dated line with the place alone
      companies.push(w.company.toLowerCase())
      out.push(`${written} ${w.company.toLowerCase()}`, `${dates} ${place(w.location)}`)
    } else {
      companies.push(w.company)
      out.push(companyFirst ? `${w.company} - ${written} ${place(w.location)} ${dates}` : `${written} ${dates} ${w.company} ï¼ ${place(w.location)}`)
    }
    out.push(...w.bullets.map(damage))
    // a note with a year alone, ending as a sentence does, among the bullets
    if (k % 2 === 0) out.push(`Received the ${BUILDER_AWARDS[k % BUILDER_AWARDS.length]} - ${w.start.year}.`)
  })
  out.push('Education')
  t.education.forEach((e, k) => {
    const m = e.degree.match(/^(.+?) in (.+)$/)
    const degree = m ? `${m[1]} : ${m[2]}` : e.degree
    // a degree without a field may have its year glued to it ("MBA2012 Cairo University ï¼ …"),
    // and a school's lines follow the one above with nothing between
    if (!m && k % 2) out.push(`${e.degree}${e.end.year} ${e.institution} ï¼ ${place(e.location)}`)
    else out.push(`${degree} , ${e.end.year} ${e.institution} ï¼ ${place(e.location)}`)
  })
  out.push('Skills', ...t.skills.flatMap((g) => g.items))
  return {
    text: `${out.join('\n')}\n`,
    expected: { titles, companies, degrees: t.education.map((e) => e.degree), institutions: t.education.map((e) => e.institution) },
  }
}

// ---------------------------------------------------------------- corpus

export type PlanItem = { truthIndex: number; format: Format; layout: string }

const PDF_LAYOUTS: PagedLayout[] = ['single', 'two-column', 'sidebar', 'table']
const IMAGE_LAYOUTS: PagedLayout[] = ['single', 'sidebar', 'single', 'table', 'two-column', 'single', 'single', 'sidebar']
const DOCX_LAYOUTS: DocxLayout[] = ['paragraphs', 'sidebar-table', 'experience-table']
const FONTS = ['Helvetica', 'Times', 'Courier', 'Helvetica', 'Times']

/**
 * Which files the corpus holds: every resume as a PDF, a DOCX, HTML and text, and every
 * eighth one also as an image-only PDF (OCR is slow, so there are few of them).
 */
export function corpusPlan(truthCount: number): PlanItem[] {
  const plan: PlanItem[] = []
  for (let i = 0; i < truthCount; i++) {
    plan.push({ truthIndex: i, format: 'pdf', layout: `pdf-${PDF_LAYOUTS[i % PDF_LAYOUTS.length]}` })
    plan.push({ truthIndex: i, format: 'docx', layout: `docx-${DOCX_LAYOUTS[i % DOCX_LAYOUTS.length]}` })
    plan.push({ truthIndex: i, format: 'html', layout: i % 2 ? 'html-experience-table' : 'html-semantic' })
    plan.push({ truthIndex: i, format: 'text', layout: i % 2 ? 'text-underlined' : 'text-plain' })
    plan.push({ truthIndex: i, format: 'text', layout: i % 2 ? 'text-builder' : 'text-flattened' })
    if (i % 8 === 0) plan.push({ truthIndex: i, format: 'image-pdf', layout: `image-${IMAGE_LAYOUTS[(i / 8) % IMAGE_LAYOUTS.length]}` })
  }
  return plan
}

/** One planned file; the style depends only on the resume and the format, so any subset renders the same. */
export async function renderOne(t: TruthResume, item: PlanItem, seed = 7): Promise<RenderedResume> {
  const r = prng(seed * 100003 + item.truthIndex * 17 + ['pdf', 'docx', 'html', 'text', 'image-pdf'].indexOf(item.format))
  const style = pickStyle(r)
  const table = item.layout.endsWith('table') && !item.layout.includes('sidebar')
  const m = buildModel(t, style, table)
  const base = `${t.id}-${item.layout}`
  const out = (bytes: Buffer, ext: string, layout = item.layout): RenderedResume => ({ name: `${base}.${ext}`, contentType: CONTENT_TYPES[item.format], bytes, truth: t, layout, format: item.format, expected: m.expected })
  switch (item.format) {
    case 'pdf': {
      const paged = item.layout.slice(4) as PagedLayout
      const { bytes } = await renderPdf(m, paged, FONTS[item.truthIndex % FONTS.length], r.pick([9.5, 10, 10.5, 11]))
      return out(bytes, 'pdf')
    }
    case 'image-pdf': {
      const paged = item.layout.slice(6) as PagedLayout
      return out(await renderImagePdf(m, paged, r.pick([150, 170, 200]), r.pick([10, 10.5, 11])), 'pdf')
    }
    case 'docx': return out(await renderDocx(m, item.layout.slice(5) as DocxLayout, r.pick(['Calibri', 'Arial', 'Times New Roman', 'Cambria'])), 'docx')
    case 'html': return out(Buffer.from(renderHtml(m), 'utf8'), 'html')
    case 'text': {
      if (item.layout === 'text-flattened' || item.layout === 'text-builder') {
        const { text, expected } = item.layout === 'text-flattened' ? renderFlattened(t) : renderBuilder(t, r)
        return { ...out(Buffer.from(text, 'utf8'), 'txt'), expected }
      }
      return out(Buffer.from(renderText(m, item.layout === 'text-underlined'), 'utf8'), 'txt')
    }
  }
}

export async function renderCorpus(truths: TruthResume[], opts: { onProgress?: (done: number, total: number) => void; filter?: (p: PlanItem) => boolean } = {}): Promise<RenderedResume[]> {
  const plan = corpusPlan(truths.length).filter(opts.filter ?? (() => true))
  const out: RenderedResume[] = []
  for (const item of plan) {
    out.push(await renderOne(truths[item.truthIndex], item))
    opts.onProgress?.(out.length, plan.length)
  }
  return out
}

