/**
 * A PDF page's positioned text → lines in reading order, one visual line per line.
 *
 * Three steps, each a heuristic with its fallback:
 * 1. rows: items on one baseline (within 40% of the font size) are one row.
 * 2. segments: inside a row, items closer than SPLIT_GAP font sizes are one run of text
 *    joined with spaces; a wider gap (a tab stop, a table cell, another column) starts a
 *    new segment.
 * 3. regions: a vertical gutter, a strip at least GUTTER font sizes wide that no segment
 *    crosses, over enough consecutive rows, splits those rows into a left and a right
 *    part. Side by side columns (a sidebar, two columns of a page) are read one after
 *    the other, each top to bottom; parts whose rows line up (a table, dates beside
 *    entries) are read row by row, cells joined with " | ". The rows above and below
 *    the split (a full-width header) are read in their own place, and every part is
 *    split again the same way, so a table inside a column keeps its rows.
 *
 * Example, a header over a sidebar and a main column:
 *   Jane Doe                                      →  Jane Doe
 *   SKILLS          EXPERIENCE                    →  SKILLS
 *   Python          Engineer, Acme 2019-2023      →  Python
 *   Go              Built the billing system      →  Go
 *                                                 →  EXPERIENCE
 *                                                 →  Engineer, Acme 2019-2023 ...
 */

/** A piece of text with its position: x, top from the page's top edge, both in points. */
export type TextItem = { str: string; x: number; top: number; width: number; size: number }

type Segment = { text: string; x0: number; x1: number; top: number; size: number }
type Row = { top: number; segments: Segment[] }

/** gap, in font sizes, above which two items on a row are separate segments */
const SPLIT_GAP = 1
/** narrowest gutter, in font sizes (a word space is about 0.25) */
const GUTTER = 1.2
/** a column split needs at least this many rows with text on each side */
const MIN_SIDE_ROWS = 2
/** share of the sparser side's rows that must line up with the other side to read as a table */
const TABLE_ALIGNED = 0.7

export function pageLines(items: TextItem[]): string[] {
  const rows = toRows(items)
  return readRegion(rows).filter((l) => l.trim() !== '')
}

function toRows(items: TextItem[]): Row[] {
  const clean = items.filter((i) => i.str.trim() !== '' && Number.isFinite(i.x) && Number.isFinite(i.top))
  clean.sort((a, b) => a.top - b.top || a.x - b.x)
  const groups: { top: number; size: number; items: TextItem[] }[] = []
  for (const it of clean) {
    const last = groups[groups.length - 1]
    // compare with the row's first baseline, not the last item's, so rows never chain down the page
    if (last && Math.abs(it.top - last.top) <= 0.4 * Math.min(it.size, last.size)) last.items.push(it)
    else groups.push({ top: it.top, size: it.size, items: [it] })
  }
  return groups.map((g) => ({ top: g.top, segments: toSegments(g.items) }))
}

function toSegments(items: TextItem[]): Segment[] {
  items.sort((a, b) => a.x - b.x)
  const out: Segment[] = []
  for (const it of items) {
    const str = it.str.replace(/\s+/g, ' ')
    const last = out[out.length - 1]
    const size = Math.max(1, it.size)
    const gap = last ? it.x - last.x1 : Infinity
    // the same text drawn twice at one spot (fake bold) counts once
    if (last && last.text.endsWith(str.trim()) && Math.abs(it.x + it.width - last.x1) < 0.2 * size) continue
    if (last && gap <= SPLIT_GAP * size) {
      const glue = gap > 0.15 * size && !last.text.endsWith(' ') && !str.startsWith(' ') ? ' ' : ''
      last.text += glue + str
      last.x1 = Math.max(last.x1, it.x + it.width)
      last.size = Math.max(last.size, size)
    } else {
      out.push({ text: str, x0: it.x, x1: it.x + it.width, top: it.top, size })
    }
  }
  for (const s of out) s.text = s.text.trim()
  return out.filter((s) => s.text !== '')
}

function readRegion(rows: Row[]): string[] {
  rows = rows.filter((r) => r.segments.length > 0)
  if (rows.length === 0) return []
  const split = findSplit(rows)
  if (!split) return rows.map((r) => r.segments.map((s) => s.text).join(' '))
  const { from, to, x } = split
  const run = rows.slice(from, to)
  const left = run.map((r) => ({ top: r.top, segments: r.segments.filter((s) => s.x1 <= x) }))
  const right = run.map((r) => ({ top: r.top, segments: r.segments.filter((s) => s.x0 >= x) }))
  const middle = isTable(left, right)
    ? run.map((r) => r.segments.map((s) => s.text).join(' | '))
    : [...readRegion(left), ...readRegion(right)]
  return [...readRegion(rows.slice(0, from)), ...middle, ...readRegion(rows.slice(to))]
}

/**
 * The gutter that splits the longest run of consecutive rows, if any. A row is "free" at
 * x when none of its segments reaches within half a gutter of x. Each side needs text on
 * MIN_SIDE_ROWS rows of the run, and more than a bullet's worth of it.
 */
function findSplit(rows: Row[]): { from: number; to: number; x: number } | null {
  const segs = rows.flatMap((r) => r.segments)
  const size = median(segs.map((s) => s.size))
  const half = (GUTTER * size) / 2
  const minX = Math.min(...segs.map((s) => s.x0))
  const maxX = Math.max(...segs.map((s) => s.x1))
  let best: { from: number; to: number; x: number; rows: number } | null = null
  for (let x = minX + half; x <= maxX - half; x += 2) {
    let from = 0
    for (let i = 0; i <= rows.length; i++) {
      const free = i < rows.length && rows[i].segments.every((s) => s.x1 <= x - half || s.x0 >= x + half)
      if (free) continue
      if (i - from >= 2 * MIN_SIDE_ROWS - 1 && (!best || i - from > best.rows)) {
        const run = rows.slice(from, i)
        if (sideOk(run, (s) => s.x1 <= x) && sideOk(run, (s) => s.x0 >= x)) best = { from, to: i, x, rows: i - from }
      }
      from = i + 1
    }
  }
  return best
}

function sideOk(run: Row[], onSide: (s: Segment) => boolean) {
  const texts = run.map((r) => r.segments.filter(onSide).map((s) => s.text).join(' ')).filter((t) => t !== '')
  if (texts.length < MIN_SIDE_ROWS) return false
  // a column of bullets or numbers beside its items is not a column of text
  return texts.reduce((n, t) => n + t.length, 0) / texts.length >= 3
}

/**
 * Table or columns? In a table (or dates beside entries) nearly every row of the sparser
 * side has a partner on the other side's row; two columns of text have their own line
 * spacing and only meet by chance, unless both sides are wrapped prose, which tables
 * rarely hold.
 */
function isTable(left: Row[], right: Row[]) {
  const both = left.filter((r, i) => r.segments.length > 0 && right[i].segments.length > 0).length
  const l = left.filter((r) => r.segments.length > 0).length
  const r = right.filter((r) => r.segments.length > 0).length
  if (both / Math.min(l, r) < TABLE_ALIGNED) return false
  return !(isProse(left) && isProse(right))
}

/** most lines long and filling the side's width, as wrapped paragraphs do */
function isProse(rows: Row[]) {
  const segs = rows.flatMap((r) => r.segments)
  if (segs.length < 3) return false
  const widest = Math.max(...segs.map((s) => s.x1 - s.x0))
  const full = segs.filter((s) => s.x1 - s.x0 >= 0.6 * widest && s.text.length >= 25).length
  return full / segs.length >= 0.6
}

function median(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b)
  return s.length ? s[Math.floor(s.length / 2)] : 10
}
