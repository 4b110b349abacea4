/**
 * Field-level scoring of a parsed resume against what the file says (pure functions).
 *
 * Single fields (name, email, phone) score per file: a correct value is a true positive,
 * a wrong one is both a false positive and a false negative, a missing one a false negative.
 * Work entries are aligned to expected entries by best match (title, company and dates),
 * then each field of an aligned pair scores like a single field; an unaligned predicted
 * entry's fields are false positives, an unaligned expected entry's false negatives.
 * Degrees, institutions and skills score as multisets. A field the truth lacks is unknown
 * and not scored at all, so a partial truth (a real resume's truth.jsonl) is fair.
 *
 * Matching is on normalized text: "Müller & Söhne, GmbH" and "muller and sohne gmbh" match.
 * `exact` counts the matches that were also equal as written (whitespace collapsed).
 */
import { parsePhoneNumberFromString } from 'libphonenumber-js'
import type { ParsedResume } from '../../ingest/resume/types.ts'

export type ExpectedWork = {
  title?: string
  company?: string
  /** acceptable normalized dates: "2020-01", "2019" (a season or a bare year), "present" */
  start?: string[]
  end?: string[]
}

export type Expected = {
  name?: string
  email?: string
  /** as written or E.164; compared on digits after normalizing with libphonenumber-js */
  phone?: string
  work?: ExpectedWork[]
  /** used only when `work` is absent: titles and companies without their pairing */
  titles?: Alternatives[]
  companies?: Alternatives[]
  /** an item that is a list holds alternative spellings, any one of which is right */
  degrees?: Alternatives[]
  institutions?: Alternatives[]
  skills?: string[]
  /** fields whose truth may leave items out: only recall counts there (extra items are no false positives) */
  partial?: FieldKey[]
  /**
   * The lists name each value once (a labelled set, as truth.jsonl's are): a degree earned twice at
   * one school is one institution there, so the parse's repeats of a value count once too.
   */
  distinct?: boolean
}

export type Alternatives = string | string[]

export const FIELDS = ['name', 'email', 'phone', 'work_title', 'work_company', 'work_start', 'work_end', 'edu_degree', 'edu_institution', 'skills'] as const
export type FieldKey = (typeof FIELDS)[number]
/** Skills are many per resume and scored for recall; the overall row leaves them out so they do not swamp it. */
export const OVERALL_FIELDS: FieldKey[] = FIELDS.filter((f) => f !== 'skills')

export type Counts = { tp: number; fp: number; fn: number; exact: number }
export type FieldCounts = Record<FieldKey, Counts>
export type Miss = { field: FieldKey; expected?: string; got?: string }
export type FileScore = { counts: FieldCounts; misses: Miss[] }

export const emptyCounts = (): Counts => ({ tp: 0, fp: 0, fn: 0, exact: 0 })
export function emptyFieldCounts(): FieldCounts {
  return Object.fromEntries(FIELDS.map((f) => [f, emptyCounts()])) as FieldCounts
}

/**
 * Case, accents, punctuation and spacing do not count: "Ó Súilleabháin" ~ "o suilleabhain",
 * "Łukasz" ~ "lukasz", "R&D" ~ "r and d".
 */
export function normalizeText(s: string): string {
  return s
    .replace(/[łŁ]/g, 'l')
    .replace(/[đĐ]/g, 'd')
    .replace(/[øØ]/g, 'o')
    .replace(/ı/g, 'i')
    .replace(/ß/g, 'ss')
    .replace(/[æÆ]/g, 'ae')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
}

const squash = (s: string) => s.normalize('NFC').replace(/\s+/g, ' ').trim()

/** Digits of a phone number, via E.164 when libphonenumber-js can parse it ("(+82) 10-2468-1357" -> "821024681357"). */
export function phoneDigits(s: string): string {
  const p = parsePhoneNumberFromString(s)
  return (p?.number ?? s).replace(/\D/g, '')
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']
const SEASONS: Record<string, number[]> = { spring: [3, 4, 5], summer: [6, 7, 8], fall: [9, 10, 11], autumn: [9, 10, 11], winter: [12, 1, 2] }

/**
 * A date as written -> the normalized values a parser may give for it:
 * "Apr. 2019" -> ["2019-04"], "Summer 2015" -> ["2015", "2015-06", "2015-07", "2015-08"],
 * "2019" -> ["2019"], "Present" / "to date" / "Current" -> ["present"].
 */
export function dateAlternatives(s: string): string[] | undefined {
  const t = s.trim().toLowerCase()
  if (/^(present|current|now|to date|today|ongoing)$/.test(t)) return ['present']
  let m = /^(\d{4})-(\d{2})$/.exec(t)
  if (m) return [`${m[1]}-${m[2]}`]
  m = /^(\d{1,2})\/(\d{4})$/.exec(t)
  if (m) return [`${m[2]}-${m[1].padStart(2, '0')}`]
  m = /^([a-z]+)\.?\s+(\d{4})$/.exec(t)
  if (m) {
    const season = SEASONS[m[1]]
    if (season) return [m[2], ...season.map((mo) => `${m![2]}-${String(mo).padStart(2, '0')}`)]
    const i = MONTHS.indexOf(m[1].slice(0, 3))
    if (i >= 0) return [`${m[2]}-${String(i + 1).padStart(2, '0')}`]
  }
  m = /^(\d{4})$/.exec(t)
  if (m) return [m[1]]
  return undefined
}

/** "Apr. 2019 - Nov. 2021" -> start/end alternatives; a range it cannot read ("Summer 2015 and 2016") gives nothing. */
export function rangeAlternatives(s: string): { start?: string[]; end?: string[] } {
  const parts = s.split(/\s+(?:-|–|—|to)\s+|\s*[–—]\s*/)
  if (parts.length !== 2) return {}
  const start = dateAlternatives(parts[0])
  const end = dateAlternatives(parts[1])
  return start && end ? { start, end } : {}
}

/** A parser's date ("2020-01", "2020", "Present") in the form dateAlternatives uses. */
export function normalizeDate(s: string): string {
  const t = s.trim().toLowerCase()
  return /^(present|current|now|to date|today|ongoing)$/.test(t) ? 'present' : t
}

function tokens(s: string | undefined): Set<string> {
  return new Set(s ? normalizeText(s).split(' ').filter(Boolean) : [])
}
function jaccard(a: Set<string>, b: Set<string>): number {
  if (!a.size || !b.size) return 0
  let n = 0
  for (const x of a) if (b.has(x)) n++
  return n / (a.size + b.size - n)
}

type PredWork = { title?: string; company?: string; start?: string; end?: string }

function pairScore(e: ExpectedWork, p: PredWork): number {
  let s = jaccard(tokens(e.title), tokens(p.title)) + jaccard(tokens(e.company), tokens(p.company))
  // Company and title swapped still says the entry is the same one.
  s = Math.max(s, 0.5 * (jaccard(tokens(e.title), tokens(p.company)) + jaccard(tokens(e.company), tokens(p.title))))
  if (p.start && e.start?.includes(normalizeDate(p.start))) s += 0.3
  if (p.end && e.end?.includes(normalizeDate(p.end))) s += 0.2
  return s
}

/** Greedy best-first alignment: pairs (expected index, predicted index) with a positive score. */
export function alignEntries(expected: ExpectedWork[], predicted: PredWork[]): [number, number][] {
  const cands: [number, number, number][] = []
  expected.forEach((e, i) => predicted.forEach((p, j) => {
    const s = pairScore(e, p)
    if (s > 0) cands.push([s, i, j])
  }))
  cands.sort((a, b) => b[0] - a[0] || a[1] - b[1] || a[2] - b[2])
  const usedE = new Set<number>()
  const usedP = new Set<number>()
  const pairs: [number, number][] = []
  for (const [, i, j] of cands) {
    if (usedE.has(i) || usedP.has(j)) continue
    usedE.add(i)
    usedP.add(j)
    pairs.push([i, j])
  }
  return pairs.sort((a, b) => a[0] - b[0])
}

function scoreOne(c: Counts, misses: Miss[], field: FieldKey, expected: string | undefined, got: string | undefined, same: (a: string, b: string) => boolean, isExact: (a: string, b: string) => boolean) {
  if (expected === undefined) return
  if (got === undefined || got.trim() === '') {
    c.fn++
    misses.push({ field, expected })
  } else if (same(expected, got)) {
    c.tp++
    if (isExact(expected, got)) c.exact++
  } else {
    c.fp++
    c.fn++
    misses.push({ field, expected, got })
  }
}

const textSame = (a: string, b: string) => normalizeText(a) === normalizeText(b)
const textExact = (a: string, b: string) => squash(a) === squash(b)

function scoreBag(c: Counts, misses: Miss[], field: FieldKey, expected: Alternatives[] | undefined, got: string[], partial = false, distinct = false) {
  if (!expected) return
  if (distinct) got = got.filter((g, i) => got.findIndex((h) => normalizeText(h) === normalizeText(g)) === i)
  const left = got.map((g) => ({ g, n: normalizeText(g), used: false }))
  // items with fewer alternatives first, so that "Bachelors" does not take the only match of a stricter item
  const items = expected.map((e) => (Array.isArray(e) ? e : [e])).sort((a, b) => a.length - b.length)
  for (const alts of items) {
    const ns = alts.map(normalizeText)
    const hit = left.find((x) => !x.used && ns.includes(x.n))
    if (hit) {
      hit.used = true
      c.tp++
      if (alts.some((e) => textExact(e, hit.g))) c.exact++
    } else {
      c.fn++
      misses.push({ field, expected: alts.join(' | ') })
    }
  }
  if (partial) return
  for (const x of left) if (!x.used) {
    c.fp++
    misses.push({ field, got: x.g })
  }
}

/** Skill details as a flat list; "TypeScript, Python" in one detail counts as two skills. */
export function predictedSkills(parsed: ParsedResume): string[] {
  return (parsed.skills ?? []).flatMap((g) => g.details.flatMap((d) => d.split(/\s*[,;·•|]\s*/))).filter((s) => s.trim() !== '')
}

export function scoreResume(expected: Expected, parsed: ParsedResume): FileScore {
  const counts = emptyFieldCounts()
  const misses: Miss[] = []
  const partial = new Set(expected.partial ?? [])
  const pi = parsed.personal_information?.data ?? {}
  scoreOne(counts.name, misses, 'name', expected.name, pi.full_name, textSame, textExact)
  scoreOne(counts.email, misses, 'email', expected.email, pi.email, (a, b) => a.trim().toLowerCase() === b.trim().toLowerCase(), textExact)
  scoreOne(counts.phone, misses, 'phone', expected.phone, pi.phone_number, (a, b) => phoneDigits(a) === phoneDigits(b), (a, b) => {
    const e164 = parsePhoneNumberFromString(a)?.number
    return e164 !== undefined && e164 === b.trim()
  })

  const pw: PredWork[] = (parsed.work_experience ?? []).map((w) => ({ title: w.title, company: w.company, start: w.start_date, end: w.end_date }))
  if (expected.work) {
    const pairs = alignEntries(expected.work, pw)
    const pairedE = new Map(pairs.map(([i, j]) => [i, j]))
    const pairedP = new Set(pairs.map(([, j]) => j))
    const dateSame = (alts: string) => (_a: string, b: string) => alts.split('|').includes(normalizeDate(b))
    expected.work.forEach((e, i) => {
      const j = pairedE.get(i)
      const p: PredWork = j === undefined ? {} : pw[j]
      scoreOne(counts.work_title, misses, 'work_title', e.title, p.title, textSame, textExact)
      scoreOne(counts.work_company, misses, 'work_company', e.company, p.company, textSame, textExact)
      const start = e.start?.join('|')
      const end = e.end?.join('|')
      scoreOne(counts.work_start, misses, 'work_start', start, p.start, dateSame(start ?? ''), () => true)
      scoreOne(counts.work_end, misses, 'work_end', end, p.end, dateSame(end ?? ''), () => true)
    })
    pw.forEach((p, j) => {
      if (pairedP.has(j)) return
      const extra: [FieldKey, string | undefined, boolean][] = [
        ['work_title', p.title, expected.work!.some((e) => e.title !== undefined)],
        ['work_company', p.company, expected.work!.some((e) => e.company !== undefined)],
        ['work_start', p.start, expected.work!.some((e) => e.start !== undefined)],
        ['work_end', p.end, expected.work!.some((e) => e.end !== undefined)],
      ]
      for (const [f, v, known] of extra) if (v && known) {
        counts[f].fp++
        misses.push({ field: f, got: v })
      }
    })
  } else {
    scoreBag(counts.work_title, misses, 'work_title', expected.titles, pw.flatMap((w) => (w.title ? [w.title] : [])), partial.has('work_title'), expected.distinct)
    scoreBag(counts.work_company, misses, 'work_company', expected.companies, pw.flatMap((w) => (w.company ? [w.company] : [])), partial.has('work_company'), expected.distinct)
  }
  const edu = parsed.education ?? []
  scoreBag(counts.edu_degree, misses, 'edu_degree', expected.degrees, edu.flatMap((e) => (e.degree ? [e.degree] : [])), partial.has('edu_degree'), expected.distinct)
  scoreBag(counts.edu_institution, misses, 'edu_institution', expected.institutions, edu.flatMap((e) => (e.institution ? [e.institution] : [])), partial.has('edu_institution'), expected.distinct)
  scoreBag(counts.skills, misses, 'skills', expected.skills, expected.skills ? predictedSkills(parsed) : [], partial.has('skills'), expected.distinct)
  return { counts, misses }
}

export function addCounts(into: FieldCounts, from: FieldCounts): FieldCounts {
  for (const f of FIELDS) {
    into[f].tp += from[f].tp
    into[f].fp += from[f].fp
    into[f].fn += from[f].fn
    into[f].exact += from[f].exact
  }
  return into
}

export function sumFields(c: FieldCounts, fields: readonly FieldKey[] = OVERALL_FIELDS): Counts {
  const out = emptyCounts()
  for (const f of fields) {
    out.tp += c[f].tp
    out.fp += c[f].fp
    out.fn += c[f].fn
    out.exact += c[f].exact
  }
  return out
}

/**
 * Precision, recall and F1. Nothing predicted means nothing predicted wrongly: precision 1,
 * so that P answers "when the parser says something, is it right" and a parser that leaves
 * a field out shows in R and F1 (both 0), not as a wrong answer.
 */
export function prf(c: Counts): { precision: number; recall: number; f1: number } {
  const precision = c.tp + c.fp === 0 ? 1 : c.tp / (c.tp + c.fp)
  const recall = c.tp + c.fn === 0 ? 1 : c.tp / (c.tp + c.fn)
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall)
  return { precision, recall, f1 }
}

const LABELS: Record<FieldKey, string> = {
  name: 'name', email: 'email', phone: 'phone', work_title: 'work title', work_company: 'work company',
  work_start: 'work start date', work_end: 'work end date', edu_degree: 'education degree',
  edu_institution: 'education institution', skills: 'skills',
}

/** The table `make eval-resumes` prints. */
export function formatTable(c: FieldCounts): string {
  const pct = (x: number) => (100 * x).toFixed(1).padStart(6)
  const rows = [`${'field'.padEnd(22)} ${'P'.padStart(6)} ${'R'.padStart(6)} ${'F1'.padStart(6)} ${'exact'.padStart(6)} ${'tp'.padStart(5)} ${'fp'.padStart(5)} ${'fn'.padStart(5)}`]
  const row = (label: string, x: Counts) => {
    const s = prf(x)
    const exact = x.tp ? pct(x.exact / x.tp) : '     -'
    rows.push(`${label.padEnd(22)} ${pct(s.precision)} ${pct(s.recall)} ${pct(s.f1)} ${exact} ${String(x.tp).padStart(5)} ${String(x.fp).padStart(5)} ${String(x.fn).padStart(5)}`)
  }
  for (const f of FIELDS) if (c[f].tp + c[f].fp + c[f].fn > 0) row(LABELS[f], c[f])
  row('overall (micro)', sumFields(c))
  return rows.join('\n')
}
