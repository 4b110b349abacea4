/**
 * Experience written as a table: a header row of column labels ("Dates | Role | Company | Location")
 * and one row per job. Readers give a table in one of two shapes, and both are read here:
 *
 * - rows:  "Dates | Role | Company | Location" / "2021 – 2024 | Engineer | Acme Ltd. | Berlin, Germany"
 *          A cell the PDF wrapped continues on the next line with only the wrapped cells:
 *          "04/2024 — | Senior Software | Orbital Ltd. | Osaka, Japan" / "Present | Engineer".
 * - cells: one cell per line (DOCX and HTML tables): "Dates" / "Role" / "Company" / "Location" /
 *          "2021 – 2024" / "Engineer" / "Acme Ltd." / "Berlin, Germany" / ...
 *
 * Notes written below the table against a row's company ("Acme Ltd.: Cut build time by 60%")
 * become that job's bullets.
 */
import { findDateRange } from '../dates.ts'
import { readBullet } from '../entries.ts'
import { isPlace } from './places.ts'

export type Column = 'dates' | 'title' | 'company' | 'location'
export type TableRow = Partial<Record<Column, string>> & { notes: string[] }
export type Table = { rows: TableRow[]; /** the section's lines that are not part of the table */ rest: string[] }

/** Column labels, folded, to the field they hold. */
const LABELS: Record<string, Column> = {
  dates: 'dates', date: 'dates', period: 'dates', duration: 'dates', years: 'dates', year: 'dates', tenure: 'dates', when: 'dates', from: 'dates', 'from to': 'dates', timeline: 'dates',
  role: 'title', title: 'title', position: 'title', 'job title': 'title', designation: 'title', job: 'title', post: 'title', 'role title': 'title',
  company: 'company', employer: 'company', organization: 'company', organisation: 'company', firm: 'company', 'company name': 'company', workplace: 'company', client: 'company',
  location: 'location', city: 'location', place: 'location', where: 'location', country: 'location',
}

const fold = (s: string) => s.toLowerCase().replace(/[^\p{L}\s/]+/gu, ' ').replace(/\s+/g, ' ').trim()
const labelOf = (cell: string): Column | undefined => LABELS[fold(cell)]
const cellsOf = (line: string) => line.split('|').map((c) => c.trim()).filter(Boolean)

/** Header columns when every cell is a label and at least two fields are named, else null. */
function headerColumns(cells: string[]): Column[] | null {
  const cols = cells.map(labelOf)
  if (cols.length < 2 || cols.some((c) => !c)) return null
  return new Set(cols).size === cols.length ? (cols as Column[]) : null
}

/**
 * Finds a table in a section's lines.
 * e.g. ["Dates | Role | Company", "2019 – 2021 | Engineer | Acme", "• Acme: Built the API"]
 *   -> rows [{dates: "2019 – 2021", title: "Engineer", company: "Acme", notes: ["Built the API"]}]
 */
export function readTable(lines: string[]): Table | null {
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim()
    if (!line) continue
    const inRow = line.includes('|') ? headerColumns(cellsOf(line)) : null
    if (inRow) return finish(lines, i, readRowTable(lines, i + 1, inRow))
    const stacked = stackedHeader(lines, i)
    if (stacked) return finish(lines, i, readCellTable(lines, i + stacked.length, stacked))
    // a header whose cell borders OCR lost: "Dates Role Company Location" is dropped, its rows read as text
    const words = line.split(/\s+/)
    if (words.length >= 3 && headerColumns(words)) return { rows: [], rest: [...lines.slice(0, i), ...lines.slice(i + 1)] }
  }
  return null
}

/** Consecutive lines that are each one column label: the header of a one-cell-per-line table. */
function stackedHeader(lines: string[], i: number): Column[] | null {
  const cols: Column[] = []
  for (let k = i; k < lines.length; k++) {
    const c = labelOf(lines[k])
    if (!c || cols.includes(c)) break
    cols.push(c)
  }
  return cols.length >= 2 ? cols : null
}

type Read = { rows: TableRow[]; /** the first line after the table */ end: number }

function finish(lines: string[], headerAt: number, read: Read): Table {
  const after = attachNotes(read.rows, lines.slice(read.end))
  return { rows: read.rows, rest: [...lines.slice(0, headerAt), ...after] }
}

/**
 * One cell per line: rows of as many lines as the header has labels, for as long as each row's
 * dates cell holds a date (a table without a dates column ends at the first blank or bullet line).
 */
function readCellTable(lines: string[], from: number, cols: Column[]): Read {
  const rows: TableRow[] = []
  let i = from
  while (i + cols.length <= lines.length) {
    const cells = lines.slice(i, i + cols.length).map((l) => l.trim())
    if (cells.some((c) => !c || readBullet(c).bullet)) break
    const d = cols.indexOf('dates')
    if (d >= 0 && !findDateRange(cells[d])) break
    rows.push(toRow(cols, cells))
    i += cols.length
  }
  return { rows, end: i }
}

/**
 * One row per line, cells split at '|'. A line continues the row above when that row's dates are
 * still open ("04/2024 —", "May 2022 — Jun") or when it has no date of its own; its cells, fewer
 * than the columns, are placed by what they look like (see placeCells). A wrapped cell alone on
 * its line has no '|' at all: "2023", "School".
 */
function readRowTable(lines: string[], from: number, cols: Column[]): Read {
  const rows: TableRow[] = []
  const d = cols.indexOf('dates')
  let i = from
  for (; i < lines.length; i++) {
    const line = lines[i].trim()
    if (!line) continue
    const prev = rows[rows.length - 1]
    const piped = line.includes('|')
    // a wrapped cell is short and followed by another row, the notes or the end, not by an entry's own lines
    const after = lines[i + 1]?.trim() ?? ''
    const wrapped = prev && !piped && !readBullet(line).bullet && line.split(/\s+/).length <= 4 && !line.includes(':') && (!after || after.includes('|') || readBullet(after).bullet)
    if ((!piped && !wrapped) || readBullet(line).bullet) break
    const cells = cellsOf(line).flatMap(splitDateCell)
    const dated = cells.some(looksDated)
    if (prev && (!piped || (isOpen(prev.dates) && cells.length < cols.length) || (d >= 0 && !dated))) {
      for (const [k, c] of placeCells(cols, cells, prev)) prev[cols[k]] = prev[cols[k]] ? `${prev[cols[k]]} ${c}` : c
      continue
    }
    const placed = cells.length === cols.length ? cells.map((c, k) => [k, c] as [number, string]) : placeCells(cols, cells)
    const row: TableRow = { notes: [] }
    for (const [k, c] of placed) row[cols[k]] = c
    rows.push(row)
  }
  return { rows, end: i }
}

/**
 * A dates cell the reader merged with its neighbour, split again:
 * "Dec. 2019 - Jul. 2023 Content Marketing Manager" -> ["Dec. 2019 - Jul. 2023", "Content Marketing Manager"].
 */
function splitDateCell(cell: string): string[] {
  const r = findDateRange(cell)
  // "May 2022 — Jun": the end's year wrapped to the next line, nothing to split off
  if (!r || !r.rest || r.rest.includes('|') || MONTH_ONLY.test(r.rest.replace(/^(to|until)\s+/i, ''))) return [cell]
  if (cell.endsWith(r.rest)) return [cell.slice(0, cell.length - r.rest.length).trim(), r.rest]
  if (cell.startsWith(r.rest)) return [r.rest, cell.slice(r.rest.length).trim()]
  return [cell]
}

/** Dates a wrapped cell cut short: "04/2024 —", "May 2022 — Jun", "2019 to". */
const isOpen = (dates: string | undefined) =>
  !!dates && /(?:[-–—~]|\bto|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?)\s*$/i.test(dates)

function toRow(cols: Column[], cells: string[]): TableRow {
  const row: TableRow = { notes: [] }
  cols.forEach((c, k) => {
    if (cells[k]) row[c] = cells[k]
  })
  return row
}

/**
 * Places cells (fewer than the columns, in column order) by what they look like: a date in the
 * dates column, a place in the location column, a legal form in the company column, a role word
 * in the title column. The best order-keeping assignment wins; ties go to the leftmost columns.
 * e.g. columns [dates, title, company, location], cells ["01/2024", "Pvt. Ltd."] -> dates, company.
 */
export function placeCells(cols: Column[], cells: string[], above?: TableRow): [number, string][] {
  // a tie goes to the column whose cell above is longest: the one most likely to have wrapped
  const fit = (col: Column, cell: string) => fitCell(col, cell) + (above?.[col]?.length ?? 0) / 100
  const n = cells.length
  const m = cols.length
  // best[i][j]: best score placing cells i.. into columns j..
  const best: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(-Infinity))
  for (let j = 0; j <= m; j++) best[n][j] = 0
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) best[i][j] = Math.max(best[i][j + 1] - 0.01, fit(cols[j], cells[i]) + best[i + 1][j + 1])
  }
  const out: [number, string][] = []
  let j = 0
  for (let i = 0; i < n; i++) {
    while (j < m && best[i][j] !== fit(cols[j], cells[i]) + best[i + 1][j + 1]) j++
    out.push([Math.min(j, m - 1), cells[i]])
    j++
  }
  return out
}

/** How well a cell's text fits a column: positive for its kind of text, negative for a date elsewhere. */
function fitCell(col: Column, cell: string): number {
  const date = looksDated(cell)
  if (col === 'dates') return date ? 3 : -3
  if (date) return -3
  if (col === 'location') return isPlace(cell) || /,$/.test(cell) || isPlace(cell.replace(/^,\s*/, '')) ? 2 : 0
  if (col === 'company') return COMPANY_TAIL.test(cell) ? 2 : 0
  return ROLE_WORD.test(cell) ? 2 : 0
}

/** A date or a piece of one: "2019", "Present", "October" (its year wrapped below). */
const looksDated = (cell: string) => /\b(19|20)\d\d\b|^(present|current|now|today|to date|ongoing)$/i.test(cell) || MONTH_ONLY.test(cell)
const MONTH_ONLY = /^(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s*([-–—]\s*)?$/i
const COMPANY_TAIL = /(?<!\p{L})(inc|llc|ltd|limited|corp|corporation|co|gmbh|ag|s\.?a|plc|pty|pvt|llp|labs?|group|systems|solutions|technologies|bank|holdings|school|university|college|hospital|institute|agency|studios?|foundation)\.?$/iu
const ROLE_WORD = /\b(engineer|developer|manager|director|analyst|consultant|designer|architect|scientist|intern|assistant|associate|specialist|coordinator|officer|lead|head|supervisor|planner|agent|executive|representative|administrator|technician|teacher|lecturer|nurse|chef|accountant|recruiter|partner|advisor)s?\b/i

/**
 * Lines below the table that start with a row's company ("• Acme Ltd.: Built the API") are that
 * row's notes, with the lines that wrap them. The other lines are returned to be read as text.
 */
function attachNotes(rows: TableRow[], lines: string[]): string[] {
  const rest: string[] = []
  let last: TableRow | null = null
  for (const raw of lines) {
    const { text, bullet } = readBullet(raw)
    const m = text.match(/^(.{2,80}?):\s+(.+)$/)
    const row = m ? rows.find((r) => r.company && fold(r.company) === fold(m[1])) : undefined
    if (row && m) {
      row.notes.push(m[2])
      last = row
      continue
    }
    // the wrapped end of the note above: no bullet, no heading-like colon
    if (last && text && !bullet && !/^[^:]{2,40}:/.test(text) && /^[\p{Ll}\d(]/u.test(text)) {
      last.notes[last.notes.length - 1] += ` ${text}`
      continue
    }
    last = null
    rest.push(raw)
  }
  return rest
}
