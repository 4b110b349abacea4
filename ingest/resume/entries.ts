/**
 * A section's lines grouped into entries (one job, one school, one project): each entry is
 * a few header lines (title, company, place, dates) and a body of bullets or sentences.
 * Lines wrapped by the PDF's layout are joined back to the bullet they continue.
 */
import { findDateRange as findAnyDate } from './dates.ts'

export type BodyLine = { text: string; bullet: boolean; /** the sub-heading it sits under: "achievements", "relevant coursework" */ label?: string }
export type Entry = { head: string[]; body: BodyLine[] }

export const BULLET_RE = /^\s*([•●▪■◦○◆◇►▸‣⁃∙·*➢➤✓✔→»›❖◉⦿□❑➔➜✦✧]|o(?=\s+\p{Lu})|[-–—](?=\s)|\d{1,2}[.)](?=\s)|[a-z][.)](?=\s))\s*/u

/** Labels that head part of an entry's body ("Achievements:", "Relevant Coursework: ..."). */
const BODY_LABEL_RE = /^\s*(key achievements|achievements|accomplishments|results|impact|responsibilities|key responsibilities|duties|relevant coursework|relevant courses|coursework|courses|thesis|dissertation|capstone|senior project|final project|research project|project|technologies|tech stack|tools|stack|environment|skills used|honors|activities|description)\s*:\s*(.*)$/i

/** A year inside a sentence of the body, after a preposition: "Exceeded annual quota by 127% in 2022". */
const PROSE_YEAR_RE = /\b(in|by|during|for|of|before|after|until|through)\s+(?:(?:early|mid|late|the)\s+)?(?:19|20)\d\d\b/i

/**
 * An entry's dates in a line, or null. A single year inside a sentence is not one: a body line
 * the reader lost the bullet of would otherwise start a new entry.
 */
function findDateRange(text: string) {
  const r = findAnyDate(text)
  if (r && !r.start_date && PROSE_YEAR_RE.test(text) && (ACTION_RE.test(text) || words(text) >= 6)) return null
  return r
}

type Line = { text: string; bullet: boolean; glyph?: string; /** a blank line came before it */ gap?: boolean }

const words = (s: string) => s.split(/\s+/).filter(Boolean).length
/** Ends like a sentence; an abbreviation's dot ("Lumen & Co.", "Pvt. Ltd.", "S.A.") does not count. */
const endsSentence = (s: string) => /[.;!?:]["')\]]?$/.test(s) && !/(?:\b(?:co|inc|ltd|corp|llc|plc|pvt|bros|jr|sr|st|dept|intl)|\b\p{L}\.\p{L})\.$/iu.test(s)

/** Strips a bullet glyph and notes which one it was. */
export function readBullet(raw: string): Line {
  const m = raw.match(BULLET_RE)
  if (!m) return { text: raw.trim(), bullet: false }
  const text = raw.slice(m[0].length).trim()
  return { text, bullet: text.length > 0, glyph: /\d/.test(m[1]) ? '1.' : /^[a-z]/.test(m[1]) ? 'a.' : m[1] }
}

/**
 * When a section marks entries and their bullets with two glyphs ("• Brightwave  Mountain View, CA"
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
 * e.g. "• Wrote Ansible playbooks to provision and patch build agents across several regional data centres, keeping images consistent, auditable"
 *      "and current."  -> one bullet. A line continues the previous one when it starts in lower case,
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
    // a parenthesis the layout cut: "Partner, Greenfield Foods (November" / "2019 - November 2021)"
    if (prev && !l.bullet && unclosed(prev.text) && /^[^(]*\)/.test(l.text)) {
      prev.text = `${prev.text} ${l.text}`
      continue
    }
    const row = /\s{3,}|\s\|\s|\t/.test(l.text)
    const headerish = row || (next && !next.bullet && !next.gap && findDateRange(next.text))
    const labelled = /^[\p{L} ]{2,25}:(\s|$)/u.test(l.text)
    // a line in lower case continues the bullet above even right before the next entry's dates
    // ("… for a 20,000 m²" / "warehouse" / "Logistics Coordinator 2019 — 2023"); "eBay" is a name
    const lower = /^[\p{Ll}(&,]/u.test(l.text) && !/^\p{Ll}+\p{Lu}/u.test(l.text) || /^(and|or|to|of|in|for|with)\b/.test(l.text)
    const canContinue = prev && !l.bullet && !l.gap && !row && !labelled && (!headerish || lower) && (prev.bullet || (words(prev.text) >= 8 && !findDateRange(prev.text)))
    if (canContinue) {
      // a line above a short one above a date heads the next entry ("Nurse at Lagos University" / "Teaching Hospital" / "2014 – 2016")
      const after = lines[i + 2]
      const headsNext = next && after && !next.bullet && words(next.text) <= 6 && !endsSentence(next.text) && !after.bullet && findDateRange(after.text)
      const wrapped = prev.text.length >= width * 0.75 && width >= 50 && !endsSentence(prev.text) && !findDateRange(l.text) && !headsNext
      if (lower || wrapped) {
        prev.text = prev.text.replace(/-$/, '') + (/-$/.test(prev.text) && /^\p{Ll}/u.test(l.text) ? '' : ' ') + l.text
        continue
      }
    }
    out.push({ ...l })
  }
  return out
}

const unclosed = (s: string) => (s.match(/\(/g)?.length ?? 0) > (s.match(/\)/g)?.length ?? 0)

/**
 * A line opening with an action verb, as bullets do when the reader lost their glyphs (HTML lists):
 * "Designed a blended-learning curriculum used by five colleagues".
 */
const ACTION_RE = /^(\p{Lu}\p{Ll}{2,}ed|Led|Built|Ran|Taught|Wrote|Grew|Cut|Made|Won|Drove|Kept|Held|Sold|Oversaw|Spearheaded|(Manage|Develop|Lead|Design|Build|Coordinate|Support|Maintain|Create|Implement|Handle|Provide|Ensure|Prepare|Assist|Conduct|Train|Mentor|Oversee|Deliver|Analy[sz]e|Work|Own|Run|Write|Teach|Plan)s?)\s/u
const ORG_MARK_RE = /\b(inc|llc|ltd|gmbh|corp|plc|s\.a|university|college|school|bank|airlines)\b/i

/** Most words capitalised, as names are and sentences are not: "Young Makers Fellowship (funded by the Busan Tech Council …) Seoul". */
function titleCased(text: string): boolean {
  const ws = text.split(/\s+/).filter((w) => /\p{L}/u.test(w))
  return ws.filter((w) => /^[(\[]?\p{Lu}/u.test(w)).length >= ws.length / 2
}

/** A non-bullet line that reads as a sentence of the body rather than a header. */
function isSentence(text: string): boolean {
  const r = findDateRange(text)
  // "Taught 3rd grade (2010-2011 school year)": a dated line opening with a verb, in lower case after it, is a bullet
  if (r && ACTION_RE.test(text) && !titleCased(r.rest)) return true
  // a long header is still one when its words are capitalised as names and titles are:
  // "Northwind Systems - Junior Software Developer - Outdoor and Garden Hà Nội , Vietnam 11/2019 - 04/2022"
  if (r && (words(r.rest) < 14 || (words(r.rest) < 22 && titleCased(r.rest) && !endsSentence(text) && !/[:$%§]/.test(r.rest) && (r.rest.match(/\d+/g)?.length ?? 0) <= 1))) return false
  if (!r && words(text) >= 4 && ACTION_RE.test(text) && !ORG_MARK_RE.test(text)) return true
  // six words or more, mostly in lower case: prose, as no title or name is ("Responsible for managing a team of five")
  if (!r && words(text) >= 6 && !titleCased(text)) return true
  return words(text) >= 10 || (endsSentence(text) && words(text) >= 6 && !/:$/.test(text))
}

/**
 * How long a job lasted, as LinkedIn and many templates add it: "5 years 2 months" on its own line,
 * "(3 years 1 month)" or "· 3 mos" after the dates. It is neither title nor company.
 */
const DURATION_RE = /\(?\b\d{1,2}\+?\s*(?:years?|yrs?|months?|mos?)(?:,?\s*\d{1,2}\s*(?:months?|mos?))?\b\)?/gi
const DURATION_AFTER_DATES_RE = /\s*\(\d{1,2}\+?\s*(?:years?|yrs?|months?|mos?)[^)]*\)|\s*[·|,]\s*\d{1,2}\+?\s*(?:years?|yrs?|months?|mos?)(?:,?\s*\d{1,2}\s*(?:months?|mos?))?\s*$/i
const isDuration = (s: string) => /\d/.test(s) && s.replace(DURATION_RE, '').replace(/[\s(),·|-]/g, '') === ''

/**
 * Groups a section's lines into entries. An entry starts at a header line that follows body
 * lines; a header block holding several date lines (jobs without bullets) is split so each
 * part keeps its dates where the first entry had them.
 * e.g. "Acme Inc.  Berlin" / "Engineer  2019 – 2021" / "Beta GmbH  Munich" / "Intern  2018" -> two entries.
 */
export function splitEntries(raw: string[]): Entry[] {
  let lines: Line[] = []
  let gap = false
  for (let r of raw) {
    if (isDuration(r.trim())) continue
    // a duration after the dates: "January 2020 - Present (3 years 1 month)"
    if (findDateRange(r)) r = r.replace(DURATION_AFTER_DATES_RE, '')
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
  const ranged = lines.some((l) => !l.bullet && findDateRange(l.text)?.start_date)
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
    // a long line directly above a dated line is that entry's header, however many words it has,
    // unless it opens with an action verb as bullets do:
    // "Young Makers Fellowship (funded by the Busan Tech Council of Industry and Trade) Seoul, S.Korea"
    const next = lines[i + 1]
    const aboveDate = next && !next.bullet && findDateRange(next.text) && !endsSentence(l.text) && !findDateRange(l.text) && !ACTION_RE.test(l.text) && titleCased(l.text)
    if (l.bullet || (isSentence(l.text) && !aboveDate)) {
      if (!cur) entries.push((cur = { head: [], body: [] }))
      cur.body.push({ text: l.text, bullet: l.bullet, ...(label ? { label } : {}) })
      continue
    }
    // "Received Regional Service Award - 2010.": among entries dated by ranges, a line in the
    // body with a year alone that ends as a sentence does is a note of the body, not an entry
    const lone = findDateRange(l.text)
    if (cur && cur.body.length > 0 && ranged && lone && !lone.start_date && endsSentence(l.text)) {
      cur.body.push({ text: l.text, bullet: false, ...(label ? { label } : {}) })
      continue
    }
    // a header-like line: does it start a new entry?
    const nearDate = [0, 1, 2].some((k) => lines[i + k] && !lines[i + k].bullet && findDateRange(lines[i + k].text))
    if (cur && cur.body.length > 0 && dated && !nearDate) {
      // a short line among the body of a dated section: body text, not a new job
      cur.body.push({ text: l.text, bullet: false, ...(label ? { label } : {}) })
      continue
    }
    // a blank line after a dated header also ends an entry: schools often have no body
    if (!cur || cur.body.length > 0 || (l.gap && cur.head.some((h) => findDateRange(h)))) {
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
