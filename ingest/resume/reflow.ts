/**
 * Flattened resumes: text with (almost) no line breaks, as pasted from a web page or extracted by
 * another tool, often with its punctuation stripped. Job sites' exports keep one trace of the
 * layout: two spaces where a line, a bullet or a separator was. This module puts the lines back, so
 * that the ordinary section, entry and field readers can work on them.
 *
 * e.g. "… Work Experience Data Intern Larkspur Analytics  Pune Maharashtra June 2020 to September 2020
 *       Built KPI dashboards  Cleaned survey data IoT Developer Vektor Labs  Pune August 2018 to May 2019 …
 *       Education Master of Science in Computer Science Lakeshore State University  Duluth MN 2021 …"
 *   -> "Work Experience" / "Data Intern | Larkspur Analytics" / "Pune Maharashtra June 2020 to September 2020" /
 *      "• Built KPI dashboards" / "• Cleaned survey data" / "IoT Developer | Vektor Labs" / … /
 *      "Education" / "Master of Science in Computer Science Lakeshore State University" / "Duluth MN 2021"
 *
 * Three steps, each a heuristic with its fallback:
 * 1. headings: a known heading's words in title case inside the running text ("Work Experience",
 *    "Education", "Skills"): the experience heading at its first appearance, the others at their
 *    first appearance after it (a summary that praises "interpersonal Skills" is no section).
 * 2. segments: two spaces or more end a segment; a date range ends one too, so the next entry's
 *    first words ("… to Present Bachelor of Engineering …") start a line of their own.
 * 3. entry headers: a segment followed by a dated one holds the next entry's title and employer,
 *    after the previous entry's last bullet: the title is cut out around its last role word
 *    ("Developer"), with at most three capitalised words before it, and the employer follows it.
 */
import { findDateRange } from './dates.ts'
import { flatJobLines } from './flat-jobs.ts'
import { hasTitleWord } from './extract/experience.ts'
import { DEGREE_RE, INSTITUTION_RE } from './extract/education.ts'
import { isPlace } from './extract/places.ts'
import { foldHeading, headingKind, type SectionKind } from './sections.ts'

/** At most this many characters per line on average, or the text is flattened. */
const FLAT_LINE_CHARS = 400

export function isFlattened(text: string): boolean {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '')
  return text.length >= 300 && text.length / Math.max(1, lines.length) > FLAT_LINE_CHARS
}

type Heading = { index: number; length: number; kind: SectionKind }

const ONE_WORD_HEADINGS = new Set(['Experience', 'Education', 'Skills', 'Certifications', 'Certification', 'Languages', 'Awards', 'Projects', 'Publications'])
const CAP_WORD = /^(\p{Lu}[\p{L}&]*|and|&|of)$/u

/** Known headings in the running text: word runs of one to three capitalised words. */
function findHeadings(text: string): Heading[] {
  const words = [...text.matchAll(/\S+/g)]
  const found: Heading[] = []
  for (let i = 0; i < words.length; i++) {
    if (!/^\p{Lu}/u.test(words[i][0])) continue
    for (let n = 3; n >= 1; n--) {
      const run = words.slice(i, i + n)
      if (run.length < n || !run.every((w) => CAP_WORD.test(w[0])) || !/^\p{Lu}/u.test(run[n - 1][0])) continue
      const phrase = run.map((w) => w[0]).join(' ')
      const kind = headingKind(foldHeading(phrase))
      // one-word headings only for the sections every resume has: "Summary" or "Profile" inside a sentence is a word
      if (!kind || (n === 1 && !ONE_WORD_HEADINGS.has(phrase))) continue
      found.push({ index: run[0].index!, length: phrase.length, kind })
      i += n - 1
      break
    }
  }
  // "Experience managing migrations" opens a sentence; "Work Experience" is the heading
  const exp = found.find((h) => h.kind === 'experience' && /\s/.test(text.slice(h.index, h.index + h.length))) ?? found.find((h) => h.kind === 'experience')
  const seen = new Set<SectionKind>()
  return found.filter((h) => {
    if (exp && h.index < exp.index) return false
    if (seen.has(h.kind)) return false
    seen.add(h.kind)
    return true
  })
}

/** "… to Present Bachelor of …" -> ["… to Present", "Bachelor of …"]: what follows a date range starts a line. */
function splitAfterDates(seg: string): string[] {
  const out: string[] = []
  let rest = seg
  for (let k = 0; k < 10; k++) {
    const m = rest.match(/^(.*?\b(?:(?:19|20)\d\d|Present|Current|Now|Till Date)\b)\s+(\p{Lu}.*)$/u)
    if (!m || !findDateRange(m[1]) || findDateRange(m[2])?.rest === '') break
    const r = findDateRange(m[1])!
    if (!r.end_date && !r.start_date) break
    out.push(m[1])
    rest = m[2]
  }
  out.push(rest)
  return out
}

/**
 * "Tested Azure Functions Cosmos DB Edge Cloud Software Developer Vektor Labs" -> the bullet's
 * tail "Tested Azure Functions Cosmos DB", and "Edge Cloud Software Developer | Vektor Labs".
 */
function cutHeader(seg: string): { tail: string; header: string } {
  const words = seg.split(/\s+/)
  let role = -1
  for (let i = words.length - 2; i >= 0; i--) {
    if (hasTitleWord(words[i]) && /^\p{Lu}/u.test(words[i]) && /^\p{Lu}/u.test(words[i + 1] ?? '')) {
      role = i
      break
    }
  }
  // no role word: a short segment is all header, a long one all body
  if (role < 0) return words.length <= 8 ? { tail: '', header: seg } : { tail: seg, header: '' }
  let start = role
  while (start > 0 && role - start < 3 && /^(\p{Lu}|[&/])/u.test(words[start - 1]) && !/^(I|A|The)$/.test(words[start - 1])) start--
  // "Senior Software Engineer" keeps its modifiers even when the bullet before it ends in capitals
  const title = words.slice(start, role + 1).join(' ')
  const company = words.slice(role + 1).join(' ')
  return { tail: words.slice(0, start).join(' '), header: company ? `${title} | ${company}` : title }
}

/** Lines back into a flattened resume's text. */
export function reflow(text: string): string {
  const flat = text.replace(/\s*\r?\n\s*/g, '  ')
  const headings = findHeadings(flat)
  const out: string[] = []
  const bodies: { kind: SectionKind | 'header'; text: string }[] = []
  let pos = 0
  let kind: SectionKind | 'header' = 'header'
  for (const h of headings) {
    bodies.push({ kind, text: flat.slice(pos, h.index) })
    out.length = 0
    bodies.push({ kind: h.kind, text: '' })
    kind = h.kind
    pos = h.index + h.length
    bodies[bodies.length - 1].text = flat.slice(h.index, h.index + h.length)
  }
  bodies.push({ kind, text: flat.slice(pos) })
  const lines: string[] = []
  let inHeading = false
  for (let b = 0; b < bodies.length; b++) {
    const { kind: k, text: t } = bodies[b]
    // every second item after the first is a heading's own text
    inHeading = b > 0 && b % 2 === 1
    if (inHeading) {
      lines.push('', t.trim())
      continue
    }
    const segs = t.split(/\s{2,}/).map((s) => s.trim()).filter(Boolean).flatMap(splitAfterDates)
    if (k === 'experience') lines.push(...(flatJobLines(t) ?? experienceLines(segs)))
    else if (k === 'education') lines.push(...educationLines(segs))
    else lines.push(...segs)
  }
  return lines.join('\n')
}

/** An experience section's segments: each dated one, with the header before it, starts an entry; the rest are bullets. */
function experienceLines(segs: string[]): string[] {
  const out: string[] = []
  const dated = segs.map((s) => !!findDateRange(s) && (findDateRange(s)!.rest.split(/\s+/).length <= 5))
  for (let i = 0; i < segs.length; i++) {
    if (dated[i]) {
      out.push(segs[i])
      continue
    }
    if (dated[i + 1]) {
      const { tail, header } = cutHeader(segs[i])
      if (tail) out.push(`• ${tail}`)
      if (header) out.push('', header)
      continue
    }
    out.push(`• ${segs[i]}`)
  }
  return out
}

/** A degree that opens a school's entry: "BCA", "Bachelors", "Higher Secondary", "Class XII". */
const ENTRY_DEGREE = /^(?:bachelor'?s?|master'?s?|doctor(?:ate)?|ph\.?d|diploma|associate'?s?|b\.?tech|m\.?tech|btech|mtech|b\.?sc|m\.?sc|bca|mca|mba|pgdca|bcom|mcom|b\.?e|m\.?e|ba|ma|bs|ms|certificate|higher|secondary|class|high)$/i
/** Words that end a field of study ("Computer Science", "Mechanical Engineering", "Finance"). */
const SUBJECT_END = /^(\p{L}{3,}(ing|tion|sion|ment|ics|ogy|ance|ence|ies|ure|ism|ical)s?|science|sciences|arts|art|law|medicine|business|design|history|english|nursing|commerce|studies|security|systems|behaviou?r|applications?|ece|cse|it)$/iu
/** Words of schools' names that end as fields do ("Government Polytechnic College") */
const SCHOOL_NAME_WORD = /^(government|national|international|regional|central|state|city)$/i
const FIELD_LINK = /^(and|&|of|in|with)$/i

/**
 * "Masters in Computer Application Sahyadri National Open University BCA in Computer Application …"
 * -> one line per degree: a degree word that follows a school's name opens the next entry.
 */
function splitDegrees(seg: string): string[] {
  const words = seg.split(/\s+/)
  const out: string[][] = [[]]
  for (let i = 0; i < words.length; i++) {
    const cur = out[out.length - 1]
    const opens = i > 0 && /^\p{Lu}/u.test(words[i]) && ENTRY_DEGREE.test(words[i]) && !FIELD_LINK.test(words[i - 1]) &&
      (/^(in|degree|of)$/i.test(words[i + 1] ?? '') || /^(bca|mca|mba|pgdca|btech|mtech|b\.?tech|m\.?tech|bsc|msc|b\.?sc|m\.?sc|ba|ma|bs|ms|be)$/i.test(words[i])) && INSTITUTION_RE.test(cur.join(' '))
    if (opens) out.push([words[i]])
    else cur.push(words[i])
  }
  return out.map((w) => w.join(' '))
}

/**
 * A job site writes a school's entry as "Degree in Field School  Town Region  Dates". With its
 * punctuation stripped, the field runs into the school's name: the field ends at its last word
 * that ends a field of study ("Science", "Engineering") before a capitalised word that is none,
 * and the school follows. The field written twice ("Masters in Computer Application in Computer
 * Application") is written once.
 * e.g. "Bachelors in Computer Science Government Polytechnic College" -> "Bachelors in Computer Science | Government Polytechnic College"
 */
export function splitFieldSchool(seg: string): string {
  const twice = seg.match(/^(.*?\bin\s+)(.+?)\s+in\s+\2\b(.*)$/i)
  if (twice) seg = `${twice[1]}${twice[2]}${twice[3]}`
  // the site's own field after the degree as written, one word long: "Bachelor of Technology in
  // Computer Science in Technology Kaveri Valley Engineering College" keeps the degree as written
  const extra = seg.match(/^(\S+.*?\bin\s+\S.*?)\s+in\s+\p{L}+\s+(\p{Lu}.*)$/u)
  if (extra && INSTITUTION_RE.test(extra[2]) && !SUBJECT_END.test(extra[2].split(/\s+/)[0])) seg = `${extra[1]} ${extra[2]}`
  // "Bachelor of Science in Field School", or an abbreviation and its field: "MSc Field School"
  const abbrev = /^\p{Lu}[\p{Lu}.]{1,6}$/u.test(seg.split(/\s+/)[0])
  const m = seg.match(/^(.*?\b(?:in|of)\s+)(.+)$/) ?? seg.match(/^(\p{Lu}[\p{L}.]{1,5}\s+)(\p{Lu}.+)$/u)
  // a degree the vocabulary lacks is still one when an abbreviation opens the entry: "BECSE in CSE Kaveri Valley University"
  // "B Tech in …": the degree's abbreviation with its dot stripped to a space
  const spaced = /^[BM]\s+(?:Tech|Sc|Com|E|Eng|Ed|Pharm|Arch)\s/u.test(seg)
  if (!m || !(ENTRY_DEGREE.test(seg.split(/\s+/)[0]) || spaced || (abbrev && /^\S+\s+in\s/.test(seg)))) return seg
  const words = m[2].split(/\s+/)
  for (let i = 0; i < words.length - 1; i++) {
    if (!SUBJECT_END.test(words[i]) || INSTITUTION_RE.test(words[i])) continue
    const next = words[i + 1]
    if (FIELD_LINK.test(next) || (SUBJECT_END.test(next) && !SCHOOL_NAME_WORD.test(next) && !INSTITUTION_RE.test(next)) || !/^\p{Lu}/u.test(next)) continue
    return `${m[1]}${words.slice(0, i + 1).join(' ')} | ${words.slice(i + 1).join(' ')}`
  }
  // an abbreviation alone before a school's name: "PGDCA Narmada Valley University"
  if (abbrev && !/\s(in|of)\s/.test(seg) && INSTITUTION_RE.test(m[2])) return `${m[1].trim()} | ${m[2]}`
  return seg
}

/**
 * A job site's school levels, "Higher Secondary(12th Pass)", "Secondary(10th Pass)", "Class XII", lose
 * their brackets and the space before them: "Higher Secondary12th Pass Riverside Public School 2015
 * Secondary10th Pass Green Meadows High School". Each opens an entry, the level its degree and what follows
 * the school (or "in" and the stream, then the school): "Higher Secondary (12th Pass) | Riverside Public School 2015".
 */
const LEVEL_RE = /\b((?:Higher\s+|Senior\s+)?Secondary)\s*\(?(1[02])th\s+Pass\)?|\bClass\s+(XII|X|10th|12th)\b/gu
function splitLevels(seg: string): string[] {
  const starts = [...seg.matchAll(LEVEL_RE)].map((m) => m.index!).filter((i) => i > 0)
  const pieces = [0, ...starts].map((s, k, a) => seg.slice(s, a[k + 1] ?? seg.length).trim()).filter(Boolean)
  return pieces.map((p) => p.replace(/^((?:Higher\s+|Senior\s+)?Secondary\s+Education)\s+(?=\p{Lu}\S*(?:\s+\S+){0,6}?\s+(?:School|College|Academy|Vidyalaya)\b)/u, '$1 | ').replace(/^((?:Higher\s+|Senior\s+)?Secondary)\s*\(?(1[02])th\s+Pass\)?\s+(?!in\b)(?=\p{Lu})/u, '$1 ($2th Pass) | ').replace(/^((?:Higher\s+|Senior\s+)?Secondary)\s*\(?(1[02])th\s+Pass\)?(?=\s+in\b)/u, '$1 ($2th Pass)').replace(/^Class\s+(XII|X|10th|12th)\s+(?!in\b)(?=\p{Lu})/u, 'Class $1 | '))
}

/**
 * An education section's segments: one line per degree, its field cut from the school's name; a
 * town written alone after a school's name (two spaces apart, no dates) is the school's place.
 */
function educationLines(segs: string[]): string[] {
  const out: string[] = []
  for (const seg of segs.flatMap(splitLevels).flatMap(splitDegrees)) {
    const prev = out[out.length - 1]
    const words = seg.split(/\s+/)
    // "Institute of Science  Technology": the "&" a job site strips leaves a gap inside the name
    if (words.length === 1 && SUBJECT_END.test(seg) && prev !== undefined && INSTITUTION_RE.test(prev) && !isPlace(seg)) {
      out[out.length - 1] = `${prev} ${seg}`
      continue
    }
    const town = words.length <= 4 && words.every((w) => /^\p{Lu}/u.test(w)) && !INSTITUTION_RE.test(seg) && !DEGREE_RE.test(seg) && !findDateRange(seg)
    if (town && prev !== undefined && INSTITUTION_RE.test(prev) && !prev.includes(' | ')) out[out.length - 1] = `${prev} | ${seg}`
    else if (town && prev !== undefined && prev.includes(' | ') && !/\|[^|]*\|/.test(prev)) out[out.length - 1] = `${prev} | ${seg}`
    else {
      // a degree opens an entry of its own
      if (out.length && ENTRY_DEGREE.test(words[0])) out.push('')
      out.push(splitFieldSchool(seg))
    }
  }
  return out
}
