/**
 * A section's lines grouped into entries (one job, one school, one project): each entry is
 * a few header lines (title, company, place, dates) and a body of bullets or sentences.
 * Lines wrapped by the PDF's layout are joined back to the bullet they continue.
 */
import { findDateRange } from './dates.ts'

export type BodyLine = { text: string; bullet: boolean; /** the sub-heading it sits under: "achievements", "relevant coursework" */ label?: string }
export type Entry = { head: string[]; body: BodyLine[] }

export const BULLET_RE = /^\s*([•●▪■◦○◆◇►▸‣⁃∙·*➢➤✓✔→»›❖◉⦿□❑➔➜✦✧]|o(?=\s+\p{Lu})|[-–—](?=\s)|\d{1,2}[.)](?=\s)|[a-z][.)](?=\s))\s*/u

/** Labels that head part of an entry's body ("Achievements:", "Relevant Coursework: ..."). */
const BODY_LABEL_RE = /^\s*(key achievements|achievements|accomplishments|results|impact|responsibilities|key responsibilities|duties|relevant coursework|relevant courses|coursework|courses|thesis|dissertation|capstone|senior project|final project|research project|project|technologies|tech stack|tools|stack|environment|skills used|honors|activities|description)\s*:\s*(.*)$/i

type Line = { text: string; bullet: boolean; glyph?: string; /** a blank line came before it */ gap?: boolean }

const words = (s: string) => s.split(/\s+/).filter(Boolean).length
const endsSentence = (s: string) => /[.;!?:]["')\]]?$/.test(s)

/** Strips a bullet glyph and notes which one it was. */
export function readBullet(raw: string): Line {
  const m = raw.match(BULLET_RE)
  if (!m) return { text: raw.trim(), bullet: false }
  const text = raw.slice(m[0].length).trim()
  return { text, bullet: text.length > 0, glyph: /\d/.test(m[1]) ? '1.' : /^[a-z]/.test(m[1]) ? 'a.' : m[1] }
}

/**
 * When a section marks entries and their bullets with two glyphs ("• Google  Mountain View, CA"
 * then "◦ Built ..."), the glyph whose lines are followed by a dated line marks headers.
 */
function headerGlyph(lines: Line[]): string | null {
  const glyphs = [...new Set(lines.filter((l) => l.glyph).map((l) => l.glyph!))]
  if (glyphs.length === 0) return null
  for (const g of glyphs) {
    const idx = lines.map((l, i) => (l.glyph === g ? i : -1)).filter((i) => i >= 0)
    const dated = idx.filter((i) => {
      const l = lines[i]
      const n = lines[i + 1]
      return findDateRange(l.text) || (n && !n.bullet && findDateRange(n.text))
    })
    // with one glyph, every marked line must head a dated entry: one bullet per job is not a header mark
    if (dated.length >= Math.max(1, glyphs.length > 1 ? idx.length * 0.6 : idx.length)) return g
  }
  return null
}

/**
 * Joins a line the layout wrapped to the bullet or sentence it continues.
 * e.g. "• Designed Terraform modules to efficiently manage and scale infrastructure across dozens of AWS accounts, enabling standardized, repeatable"
 *      "deployments."  -> one bullet. A line continues the previous one when it starts in lower case,
 * or when the previous one reached the column's width without ending a sentence and this one has no date.
 */
function joinWrapped(lines: Line[]): Line[] {
  const lengths = lines.map((l) => l.text.length).sort((a, b) => a - b)
  const width = lengths[Math.floor(lengths.length * 0.9)] ?? 0
  const out: Line[] = []
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]
    const prev = out[out.length - 1]
    const next = lines[i + 1]
    // a header row ("Acme Corp      Berlin", "Engineer | 2019") or the line before a dated one starts an entry
    const headerish = /\s{3,}|\s\|\s|\t/.test(l.text) || (next && !next.bullet && !next.gap && findDateRange(next.text))
    const labelled = /^[\p{L} ]{2,25}:(\s|$)/u.test(l.text)
    const canContinue = prev && !l.bullet && !l.gap && !headerish && !labelled && (prev.bullet || (words(prev.text) >= 8 && !findDateRange(prev.text)))
    if (canContinue) {
      const lower = /^[\p{Ll}(&,]/u.test(l.text) || /^(and|or|to|of|in|for|with)\b/.test(l.text)
      const wrapped = prev.text.length >= width * 0.75 && width >= 50 && !endsSentence(prev.text) && !findDateRange(l.text)
      if (lower || wrapped) {
        prev.text = prev.text.replace(/-$/, '') + (/-$/.test(prev.text) && /^\p{Ll}/u.test(l.text) ? '' : ' ') + l.text
        continue
      }
    }
    out.push({ ...l })
  }
  return out
}

/**
 * A line opening with an action verb, as bullets do when the reader lost their glyphs (HTML lists):
 * "Designed a blended-learning curriculum used by five colleagues".
 */
const ACTION_RE = /^(\p{Lu}\p{Ll}{2,}ed|Led|Built|Ran|Taught|Wrote|Grew|Cut|Made|Won|Drove|Kept|Held|Sold|Oversaw|Spearheaded|(Manage|Develop|Lead|Design|Build|Coordinate|Support|Maintain|Create|Implement|Handle|Provide|Ensure|Prepare|Assist|Conduct|Train|Mentor|Oversee|Deliver|Analy[sz]e|Work|Own|Run|Write|Teach|Plan)s?)\s/u
const ORG_MARK_RE = /\b(inc|llc|ltd|gmbh|corp|plc|s\.a|university|college|school|bank|airlines)\b/i

/** A non-bullet line that reads as a sentence of the body rather than a header. */
function isSentence(text: string): boolean {
  const r = findDateRange(text)
  if (r && words(r.rest) < 14) return false
  if (!r && words(text) >= 4 && ACTION_RE.test(text) && !ORG_MARK_RE.test(text)) return true
  return words(text) >= 10 || (endsSentence(text) && words(text) >= 6 && !/:$/.test(text))
}

/**
 * Groups a section's lines into entries. An entry starts at a header line that follows body
 * lines; a header block holding several date lines (jobs without bullets) is split so each
 * part keeps its dates where the first entry had them.
 * e.g. "Acme Inc.  Berlin" / "Engineer  2019 – 2021" / "Beta GmbH  Munich" / "Intern  2018" -> two entries.
 */
export function splitEntries(raw: string[]): Entry[] {
  let lines: Line[] = []
  let gap = false
  for (const r of raw) {
    if (r.trim() === '') {
      gap = lines.length > 0
      continue
    }
    lines.push({ ...readBullet(r), ...(gap ? { gap } : {}) })
    gap = false
  }
  const hg = headerGlyph(lines)
  if (hg) lines = lines.map((l) => (l.glyph === hg ? { text: l.text, bullet: false } : l))
  lines = joinWrapped(lines)
  const dated = lines.some((l) => !l.bullet && findDateRange(l.text))
  const entries: Entry[] = []
  let cur: Entry | null = null
  let label: string | undefined
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]
    const lab = l.bullet ? null : l.text.match(BODY_LABEL_RE)
    if (lab && cur) {
      label = lab[1].toLowerCase()
      if (lab[2]) cur.body.push({ text: lab[2], bullet: false, label })
      continue
    }
    if (l.bullet || isSentence(l.text)) {
      if (!cur) entries.push((cur = { head: [], body: [] }))
      cur.body.push({ text: l.text, bullet: l.bullet, ...(label ? { label } : {}) })
      continue
    }
    // a header-like line: does it start a new entry?
    const nearDate = [0, 1, 2].some((k) => lines[i + k] && !lines[i + k].bullet && findDateRange(lines[i + k].text))
    if (cur && cur.body.length > 0 && dated && !nearDate) {
      // a short line among the body of a dated section: body text, not a new job
      cur.body.push({ text: l.text, bullet: false, ...(label ? { label } : {}) })
      continue
    }
    if (!cur || cur.body.length > 0) {
      entries.push((cur = { head: [], body: [] }))
      label = undefined
    }
    cur.head.push(l.text)
  }
  return splitMergedHeads(entries)
}

function splitMergedHeads(entries: Entry[]): Entry[] {
  const dateIdx = (e: Entry) => e.head.map((h, i) => (findDateRange(h) ? i : -1)).filter((i) => i >= 0)
  const single = entries.map(dateIdx).filter((d) => d.length === 1).map((d) => d[0])
  const offset = single.length ? mode(single) : 0
  const out: Entry[] = []
  for (const e of entries) {
    const idx = dateIdx(e)
    if (idx.length < 2) {
      out.push(e)
      continue
    }
    const off = single.length ? offset : idx[0]
    const starts = idx.map((d) => Math.max(0, d - off))
    const cuts = [...new Set([0, ...starts.slice(1)])].filter((s, k, a) => k === 0 || s > a[k - 1])
    cuts.forEach((s, k) => {
      const head = e.head.slice(s, cuts[k + 1] ?? e.head.length)
      out.push({ head, body: k === cuts.length - 1 ? e.body : [] })
    })
  }
  return out.filter((e) => e.head.length || e.body.length)
}

function mode(xs: number[]): number {
  const counts = new Map<number, number>()
  for (const x of xs) counts.set(x, (counts.get(x) ?? 0) + 1)
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0][0]
}

/** Splits a line on the separators resumes put between fields: " | ", " — ", " · ", tabs, wide gaps. */
export function splitFields(line: string): string[] {
  return line
    .split(/\s+[|｜•·▪]\s+|\s*\|\s*|\t+|\s{3,}|\s+[–—]\s+|\s+-\s+/u)
    .map((p) => p.trim().replace(/^[,;]\s*|[,;]$/g, '').trim())
    .filter(Boolean)
}
