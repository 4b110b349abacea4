/**
 * Education entries: degree, institution, location, dates, GPA, relevant courses and the
 * thesis or project, from an entry's header lines and labelled body lines.
 */
import { findDateRange } from '../dates.ts'
import { splitEntries, splitFields, type Entry } from '../entries.ts'
import type { Education } from '../types.ts'
import { countryCode, isPlace, splitAtPlaceholder, trailingPlace } from './places.ts'
import { splitList } from './lists.ts'
import { hasCompanyWord } from './experience.ts'

export const DEGREE_RE =
  /\b(bachelor'?s?|master'?s?|doctor(ate)?|ph\.?\s?d|mba|m\.?b\.?a|b\.?\s?sc?|m\.?\s?sc?|b\.?a|m\.?a|b\.?eng|m\.?eng|b\.?tech|m\.?tech|b\.?e|m\.?e|b\.?com|m\.?com|ll\.?[bm]|j\.?d|m\.?d|associate'?s?|diploma|certificate|high school|secondary school|a-levels?|gcse|baccalaur[ée]at|licen[cs]iatura|licence|abitur|degree|undergraduate|graduate|postgraduate|b\.?f\.?a|m\.?f\.?a|m\.?p\.?h|m\.?s\.?w|ed\.?d|hnd|bts|bca|mca|bba|pgdca|pgdm|(?:(?:higher|senior) )?secondary(?= \(1[02]th| education)|secondary education|b tech|m tech|(?:higher|senior) secondary(?! school)|class (?:xii|x|10th|12th))\b\.?/i
export const INSTITUTION_RE =
  /(?<!\p{L})(\p{L}*univ\p{L}*|uniwersytet\p{L}*|\p{L}*universit\p{L}*|üniversite\p{L}*|college|collège|colegio|institute|institut|instituto|istituto|school|academy|akademi\p{L}*|polytechn\p{L}*|politec\p{L}*|politechnika|conservato\p{L}*|seminary|hochschule|école|ecole|escola|escuela|faculdade|facultad|lyc[ée]e|liceo|lyceum|gymnasium|campus|iit|mit|ucla|nyu|eth)(?!\p{L})/iu

const GPA_RE = /\b(?:c?gpa|cpi|grade point average|grade)\s*(?:of\s*)?[:\-–]?\s*(\d+(?:[.,:]\d+)?(?:\s*\/\s*\d+(?:[.,]\d+)?)?(?:\s*\(\s*\d+(?:\.\d+)?\s*\/\s*\d+(?:\.\d+)?\s*\))?)/i
const GPA_AFTER_RE = /\b(\d\.\d{1,2}\s*\/\s*(?:4|5|10)(?:\.0+)?)\s*(?:c?gpa)\b/i

/**
 * e.g. ["Lakeshore Institute of Technology  Duluth, MN", "Master of Science in Computer Science; GPA: 3.85  Sep 2014 – May 2016"]
 *   -> {institution: "Lakeshore Institute of Technology", location: "Duluth, MN", degree: "Master of Science in Computer Science",
 *       GPA: "3.85", start_date: "2014-09", end_date: "2016-05"}
 */
export function extractEducation(lines: string[]): Education[] {
  return regroup(splitEntries(lines)).map(readSchool).filter((e) => e.degree || e.institution)
}

/** A line that opens with a degree: "Associate of Science : Graphic Arts …, 2011 WSCC Pinecrest". */
const DEGREE_START_RE = new RegExp(`^(?:${DEGREE_RE.source.replace(/^\\b/, '')})`, 'i')
const STRONG_DEGREE_RE = /^(bachelor|master|doctor|associate|diploma|high school|ph\.?\s?d|mba|btech|bsc|msc|b\.?\s?sc?\b|m\.?\s?sc?\b|b\.?a\b|m\.?a\b|b\.?tech|m\.?tech|b\.?e\b|m\.?e\b|b\.?com|m\.?com|bca|mca|pgdca|b\.?eng|m\.?eng)/i

/**
 * Builders write a school's line long (degree, field, year, school and place in one line), which
 * entries.ts reads as a sentence of the body, and its notes ("Dean's List") short, which it reads
 * as a header. In education, a body line that opens with a degree starts an entry, and a header of
 * notes alone (no degree, school or date) belongs to the entry above.
 * e.g. head [] body ["Associate of Science : … WSCC Pinecrest"], head ["Dean's List"] body ["Bachelor of Science : …"]
 *   -> ["Associate of Science : …"] with the note, then ["Bachelor of Science : …"].
 */
function regroup(entries: Entry[]): Entry[] {
  const out: Entry[] = []
  for (const e of entries) {
    // two schools' lines under one another with nothing between: a line opening with a degree, or
    // one naming a school and a date, starts the next entry once the lines above hold a school and a degree
    const heads: string[][] = [[]]
    for (const h of e.head) {
      const cur = heads[heads.length - 1]
      // "High School Diploma" names a degree, not a school
      const school = cur.some((x) => INSTITUTION_RE.test(x.replace(/\b(high|secondary) school (diploma|certificate)\b/gi, '')))
      const degree = cur.some((x) => DEGREE_RE.test(x))
      if (school && degree && (STRONG_DEGREE_RE.test(h) || (INSTITUTION_RE.test(h) && !!findDateRange(h)))) heads.push([h])
      else cur.push(h)
    }
    for (const h of heads.slice(0, -1)) out.push({ head: h, body: [] })
    let cur: Entry = { head: [...heads[heads.length - 1]], body: [] }
    const notesOnly = cur.head.length > 0 && cur.head.every((h) => !DEGREE_RE.test(h) && !INSTITUTION_RE.test(h) && !findDateRange(h))
    if (notesOnly && out.length) {
      out[out.length - 1].body.push(...cur.head.map((text) => ({ text, bullet: false })))
      cur = { head: [], body: [] }
    }
    for (const b of e.body) {
      if (!b.bullet && !b.label && STRONG_DEGREE_RE.test(b.text) && DEGREE_START_RE.test(b.text)) {
        if (cur.head.length || cur.body.length) out.push(cur)
        cur = { head: [b.text], body: [] }
      } else cur.body.push(b)
    }
    if (cur.head.length || cur.body.length) out.push(cur)
  }
  return out
}

function readSchool(entry: Entry): Education {
  const ed: Education = {}
  const lines: string[] = []
  for (let raw of entry.head.map(tidySchoolLine)) {
    const gpa = raw.match(GPA_RE) ?? raw.match(GPA_AFTER_RE)
    if (gpa && !ed.GPA) {
      ed.GPA = gpa[1].trim()
      raw = raw.replace(gpa[0], ' ').replace(/\b(cum(ulative)?|overall|major)\b\.?\s*$/i, ' ')
    }
    if (!ed.start_date && !ed.end_date) {
      const r = findDateRange(raw)
      if (r) {
        if (r.start_date) ed.start_date = r.start_date
        if (r.end_date) ed.end_date = r.end_date
        raw = r.rest.replace(/\b(expected|graduat(ed|ion)|anticipated|class of)\b:?/gi, ' ')
      }
    }
    const prev = lines[lines.length - 1]
    // after a connector the tail is certain, even a town's name: "National University of" / "Singapore"
    const afterConnector = prev && CONNECTOR_END.test(prev.trim()) && raw.trim().split(/\s+/).length <= 3 && !findDateRange(raw)
    // a field of study under a bare degree is its field: "Bachelor of Science" / "Psychology"
    if (prev && raw.trim() && BARE_DEGREE_RE.test(prev.trim()) && isWrapTail(raw) && !INSTITUTION_RE.test(raw)) lines[lines.length - 1] = `${prev.trim()} in ${raw.trim()}`
    else if (prev && raw.trim() && (afterConnector || (isWrapTail(raw) && endsIncomplete(prev)))) lines[lines.length - 1] = `${prev} ${raw.trim()}`
    else lines.push(raw)
  }
  const fields: string[] = []
  for (const raw of lines) {
    const parts = splitFields(splitAtPlaceholder(raw)).flatMap(splitDegreeSchool)
    const loc = !ed.location && parts.length ? lineEndPlace(parts[parts.length - 1], startsWithInstitution(parts[0])) : null
    if (loc) {
      ed.location = loc.place
      parts[parts.length - 1] = loc.rest
    }
    fields.push(...parts.flatMap(splitDegreeComma))
  }
  const others: string[] = []
  for (let f of fields) {
    f = f.replace(/^[\s,;:()]+|[\s,;:(]+$/g, '').trim()
    if (!f) continue
    // a town inside a field was left there on purpose (lineEndPlace): only a whole field is a place
    if (!ed.location && isPlace(f)) {
      ed.location = f
      continue
    }
    // "High School Diploma" names a degree: the degree word ends it
    // "High School Diploma in Hospitality" names a degree too: a field that opens with one is no school
    const degreeFirst = STRONG_DEGREE_RE.test(f) && (!/^(high|secondary) school\b/i.test(f) || /\b(diploma|certificate|degree)\b/i.test(f))
    if (!ed.institution && INSTITUTION_RE.test(f) && !degreeFirst && !/^(bachelor|master|doctor)/i.test(f) && !/\b(diploma|certificate|degree)$/i.test(f)) ed.institution = f
    else if (!ed.degree && DEGREE_RE.test(f)) ed.degree = f
    else if (!ed.institution && !DEGREE_RE.test(f)) {
      // a field with no school word is the school only when no later field has one
      if (fields.some((g) => g !== f && INSTITUTION_RE.test(g) && !DEGREE_RE.test(g))) others.push(f)
      else ed.institution = f
    } else if (ed.degree && /^(in|of|major|minor|concentration)\b/i.test(f)) ed.degree += `, ${f}`
  }
  // … and a field without a degree too: "Finance , 2004 Western State University Finance"
  for (const o of others) if (ed.institution?.endsWith(` ${o}`) && o.split(/\s+/).length >= 1) ed.institution = ed.institution.slice(0, -o.length - 1).trim()
  if (!ed.institution && others.length) ed.institution = others[0]
  // a builder repeats the field after the school: "Brookfield College of Applied Arts Interior Design"
  const subject = ed.degree?.match(/\s(?:in|:)\s+(.+)$/)?.[1]
  // ("… Institute of Technology" after "in Technology" keeps its last word: a name does not end in "of")
  const cutSchool = subject && ed.institution?.endsWith(` ${subject}`) ? ed.institution.slice(0, -subject.length - 1).trim() : undefined
  if (cutSchool && !/\s(of|and|for|&|de|der|the)$/i.test(cutSchool)) ed.institution = cutSchool
  // "PSR-ITM Business School India": a country written after a school's word is its place
  const country = ed.institution?.match(/^(.*\S)\s+(\p{Lu}\p{L}{3,}(?:\s+\p{Lu}\p{L}+)?)$/u)
  if (country && !ed.location && countryCode(country[2]) && SCHOOL_WORD_RE.test(country[1].split(/\s+/).pop()!)) {
    ed.institution = country[1]
    ed.location = country[2]
  }
  for (const b of entry.body) {
    const gpa = b.text.match(GPA_RE) ?? b.text.match(GPA_AFTER_RE)
    if (gpa && !ed.GPA) ed.GPA = gpa[1].trim()
    if (b.label && /cours/.test(b.label)) {
      const courses = splitList(b.text)
      if (courses.length) ed.relevant_courses = [...(ed.relevant_courses ?? []), ...courses]
    } else if (b.label && /thesis|dissertation|project|capstone/.test(b.label) && !ed.thesis_or_project) {
      ed.thesis_or_project = b.text.trim()
    }
  }
  return ed
}

/** A degree named without its field: "Bachelor of Science", "Master of Arts", "BS". */
const BARE_DEGREE_RE = /^(?:(?:bachelor|master|associate)'?s?(?:\s+of\s+(?:science|arts|fine arts|engineering|education|business administration|applied science))?|b\.?s\.?|b\.?a\.?|m\.?s\.?|m\.?a\.?|b\.?sc\.?|m\.?sc\.?)$/i

/**
 * What a builder writes into a school's line that is neither degree nor school:
 * "B.Com2008" (the year glued to the degree) -> "B.Com 2008"; "96 credit hours earned" is a note;
 * "City Associate of Applied Science" holds the anonymized town's placeholder before the degree.
 */
function tidySchoolLine(line: string): string {
  return line
    .replace(/(\p{L}\.?)((?:19|20)\d\d)(?!\d)/gu, '$1 $2')
    .replace(/\s*\b\d+(?:\.\d+)?\s+(?:credit|semester|quarter)\s+hours?(?:\s+(?:earned|completed))?/gi, '')
    .replace(/(^|\|\s*)City\s+(?=(?:high school|bachelor|master|associate|diploma)\b)/gi, '$1')
}

/**
 * Words that end a field of study: "Business Administration", "Accounting", "Plant Pathology",
 * "Mathematics", "Biology", "Computer Science". A school's name does not start after one of these.
 */
const SUBJECT_END_RE = /^(\p{L}+(ing|tion|sion|ment|ics|ogy|ance|ence|ies|ure|ism|ity)s?|science|sciences|arts|art|law|medicine|business|design|history|english|nursing|commerce|studies)$/iu
const SCHOOL_WORD_RE = new RegExp(`^${INSTITUTION_RE.source.replace(/^\(\?<!\\p\{L\}\)/, '').replace(/\(\?!\\p\{L\}\)$/, '')}$`, 'iu')

/**
 * A builder writes a degree, its field and the school in one run: "Master of Science : Curriculum
 * Design", "Bachelor : Public Administration Halvorsen University", "Masters of Business Administration :
 * Accounting Ridgeway Graduate School of Management". The degree's " : " becomes " in "; a school named
 * after the field is cut off where its capitalised name starts, which is after the last word that ends
 * a field of study ("Administration", "Accounting") or after a small word. A school written first
 * ("Bachelors : NORTHFIELD STATE UNIVERSITY") is split off whole.
 */
export function splitDegreeSchool(field: string): string[] {
  const colon = field.match(/^(.+?)\s+:\s+(.+)$/)
  const degree = colon ? colon[1].trim() : field
  const rest = colon ? colon[2].trim() : ''
  if (colon && !DEGREE_RE.test(degree)) return [field]
  if (!colon && !(DEGREE_RE.test(field) && INSTITUTION_RE.test(field) && (STRONG_DEGREE_RE.test(field) || /^certificate\b/i.test(field)))) return [field]
  const words = (colon ? rest : field).split(/\s+/)
  // "High School Diploma" is a degree, not a school: a school word before a degree word does not count
  const first = words.findIndex((w, i) => SCHOOL_WORD_RE.test(w.replace(/[,.]$/, '')) && (i > 0 || !!colon) && !/^(diploma|certificate|degree)$/i.test(words[i + 1] ?? ''))
  if (first < 0) return colon ? [`${degree} in ${rest}`] : [field]
  let start = first
  while (start > 0) {
    const w = words[start - 1]
    if (!/^\p{Lu}/u.test(w) || /[,;]$/.test(w) || w.split(/[/&]/).some((x) => SUBJECT_END_RE.test(x.replace(/[,.]$/, ''))) || (DEGREE_RE.test(w) && !/^(high|secondary|(under|post)?graduate)$/i.test(w))) break
    start--
  }
  if (!colon && start === 0) return [field]
  const school = words.slice(start).join(' ')
  const subject = words.slice(0, start).join(' ').replace(/[\s,]+$/, '')
  if (colon) return subject ? [`${degree} in ${subject}`, school] : [degree, school]
  return [subject, school]
}

const CONNECTOR_END = /(?:^|\s)(of|and|in|for|the|at|&|de|da|do|du|des|del|der|di|von|van|y|und|für)$/i

/**
 * A line a narrow column wrapped off the one above: a few words, no date, no separator, not a place,
 * and not a whole degree or school of its own (a bare "University" is a school's tail).
 * e.g. "Behaviour" (of "MSc Organisational"), "Wrocławski" (of "Uniwersytet"), "University" (of "Tsinghua").
 */
function isWrapTail(line: string): boolean {
  const t = line.trim()
  if (!t || t.split(/\s+/).length > 4 || /[|–—:\t,]|\s{3,}/.test(t) || findDateRange(t) || isPlace(t) || DEGREE_RE.test(t)) return false
  return !INSTITUTION_RE.test(t) || /^\p{L}+$/u.test(t)
}

/**
 * Whether a line's last field reads as cut short: a degree ("MSc Organisational"), a connector
 * ("National University of"), a school word alone ("Uniwersytet"), or a name piece after a degree
 * ("Certificate in Hotel Operations, Tsinghua"). A school named in full ("Lakeshore Institute of
 * Technology") is complete, so a major written under it stays apart.
 */
function endsIncomplete(line: string): boolean {
  const fields = splitFields(line)
  const last = fields[fields.length - 1]?.split(/\s*,\s*/).pop()?.trim()
  if (!last || isPlace(fields[fields.length - 1])) return false
  if (CONNECTOR_END.test(last) || DEGREE_RE.test(last)) return true
  if (INSTITUTION_RE.test(last)) return /^\p{L}+(\s+(de|di|do|da|of))?$/u.test(last)
  return /,/.test(fields[fields.length - 1]) || fields.length > 1
}

const startsWithInstitution = (s: string) => INSTITUTION_RE.test(s.split(',')[0]) && !/^(bachelor|master|doctor|diploma|certificate)/i.test(s)

/** Words of a town's name: capitalised, with the particles of "Ciudad de México", "Rio de Janeiro". */
const TOWN_RE = /^\p{Lu}[\p{L}\p{M}.'’-]*(?:\s+(?:(?:de|da|do|del|la|le|am|an|im|on|upon|sur)\s+)?\p{Lu}[\p{L}\p{M}.'’-]*){0,3}$/u
/** A town written after a school's name: a few capitalised words, none of them a school's or a degree's. */
const isTownLike = (s: string) => TOWN_RE.test(s.trim()) && !INSTITUTION_RE.test(s) && !DEGREE_RE.test(s) && !hasCompanyWord(s)

/**
 * "University of California, Berkeley", "University of Nigeria, Nsukka": a school named after a
 * state or system is told apart by its campus, which is part of the name. A school that names its
 * own town ("University of Lagos, Lagos") writes the town again as its place.
 */
function isCampus(school: string, town: string): boolean {
  const of = school.match(/(?<!\p{L})(?:of|de|di|do|da|del)\s+([\p{L}\s]+)$/iu)
  if (!of) return false
  const [named, written] = [foldText(of[1]), foldText(town)]
  // "Universidad … de México, Ciudad de México" names its town too
  return !written.includes(named) && !named.includes(written)
}
const foldText = (s: string) => s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().trim()

/**
 * The place at the end of an education line. "City, Region" is always a place. A bare town after
 * a comma is the school's location only on a line that starts with the school, as the classic
 * "school ... town" header does: "Universidade de Lisboa, Lisboa" -> Lisboa. After a degree it is
 * part of the school's name: "MBA, University of Nigeria, Nsukka" keeps "University of Nigeria, Nsukka".
 */
function lineEndPlace(part: string, schoolFirst: boolean): { place: string; rest: string } | null {
  if (DEGREE_RE.test(part) && !schoolFirst) return null
  const tp = trailingPlace(part)
  if (tp?.rest && (tp.place.includes(',') || (schoolFirst && !isCampus(tp.rest, tp.place)))) return tp
  const m = part.match(/^(.+),\s*([^,]+)$/)
  if (schoolFirst && m && INSTITUTION_RE.test(m[1]) && isTownLike(m[2]) && !isCampus(m[1], m[2])) return { place: m[2].trim(), rest: m[1].trim() }
  return null
}

/**
 * "B.S. in Computer Science, Stanford University" -> degree and school as two fields;
 * "University of California, Berkeley" and "Master of Science, Computer Science" stay one field each.
 */
function splitDegreeComma(part: string): string[] {
  if (isPlace(part)) return [part]
  const pieces = part.split(/\s*[,;]\s+/)
  if (pieces.length < 2) return [part]
  const out: string[] = []
  for (let k = 0; k < pieces.length; k++) {
    const p = pieces[k]
    const prev = out[out.length - 1]
    const area = pieces[k + 1]
    // "Stanford, CA" after a school is its location: kept as one field for the place check
    if (prev !== undefined && area !== undefined && k + 2 === pieces.length && isPlace(`${p}, ${area}`)) {
      out.push(`${p}, ${area}`)
      break
    }
    const school = prev !== undefined && INSTITUTION_RE.test(prev) && !DEGREE_RE.test(prev)
    if (school && isTownLike(p)) out[out.length - 1] = `${prev}, ${p}`
    else if (prev !== undefined && DEGREE_RE.test(prev) && !INSTITUTION_RE.test(p) && !isPlace(p) && !DEGREE_RE.test(p)) out[out.length - 1] = `${prev}, ${p}`
    else out.push(p)
  }
  return out
}
