/**
 * Education entries: degree, institution, location, dates, GPA, relevant courses and the
 * thesis or project, from an entry's header lines and labelled body lines.
 */
import { findDateRange } from '../dates.ts'
import { splitEntries, splitFields, type Entry } from '../entries.ts'
import type { Education } from '../types.ts'
import { isPlace, trailingPlace } from './places.ts'
import { splitList } from './lists.ts'
import { hasCompanyWord } from './experience.ts'

export const DEGREE_RE =
  /\b(bachelor'?s?|master'?s?|doctor(ate)?|ph\.?\s?d|mba|m\.?b\.?a|b\.?\s?sc?|m\.?\s?sc?|b\.?a|m\.?a|b\.?eng|m\.?eng|b\.?tech|m\.?tech|b\.?e|m\.?e|b\.?com|m\.?com|ll\.?[bm]|j\.?d|m\.?d|associate'?s?|diploma|certificate|high school|secondary school|a-levels?|gcse|baccalaur[ée]at|licen[cs]iatura|licence|abitur|degree|undergraduate|graduate|postgraduate|b\.?f\.?a|m\.?f\.?a|m\.?p\.?h|m\.?s\.?w|ed\.?d|hnd|bts)\b\.?/i
export const INSTITUTION_RE =
  /(?<!\p{L})(\p{L}*univ\p{L}*|uniwersytet\p{L}*|\p{L}*universit\p{L}*|üniversite\p{L}*|college|collège|colegio|institute|institut|instituto|istituto|school|academy|akademi\p{L}*|polytechn\p{L}*|politec\p{L}*|politechnika|conservato\p{L}*|seminary|hochschule|école|ecole|escola|escuela|faculdade|facultad|lyc[ée]e|liceo|lyceum|gymnasium|campus|iit|mit|ucla|nyu|eth)(?!\p{L})/iu

const GPA_RE = /\b(?:c?gpa|cpi|grade point average|grade)\s*(?:of\s*)?[:\-–]?\s*(\d+(?:[.,:]\d+)?(?:\s*\/\s*\d+(?:[.,]\d+)?)?(?:\s*\(\s*\d+(?:\.\d+)?\s*\/\s*\d+(?:\.\d+)?\s*\))?)/i
const GPA_AFTER_RE = /\b(\d\.\d{1,2}\s*\/\s*(?:4|5|10)(?:\.0+)?)\s*(?:c?gpa)\b/i

/**
 * e.g. ["Georgia Institute of Technology  Atlanta, GA", "Master of Science in Computer Science; GPA: 4.00  Aug 2012 – Dec 2013"]
 *   -> {institution: "Georgia Institute of Technology", location: "Atlanta, GA", degree: "Master of Science in Computer Science",
 *       GPA: "4.00", start_date: "2012-08", end_date: "2013-12"}
 */
export function extractEducation(lines: string[]): Education[] {
  return splitEntries(lines).map(readSchool).filter((e) => e.degree || e.institution)
}

function readSchool(entry: Entry): Education {
  const ed: Education = {}
  const lines: string[] = []
  for (let raw of entry.head) {
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
    if (prev && raw.trim() && (afterConnector || (isWrapTail(raw) && endsIncomplete(prev)))) lines[lines.length - 1] = `${prev} ${raw.trim()}`
    else lines.push(raw)
  }
  const fields: string[] = []
  for (const raw of lines) {
    const parts = splitFields(raw)
    const loc = !ed.location && parts.length ? lineEndPlace(parts[parts.length - 1], startsWithInstitution(parts[0])) : null
    if (loc) {
      ed.location = loc.place
      parts[parts.length - 1] = loc.rest
    }
    fields.push(...parts.flatMap(splitDegreeComma))
  }
  for (let f of fields) {
    f = f.replace(/^[\s,;:()]+|[\s,;:(]+$/g, '').trim()
    if (!f) continue
    // a town inside a field was left there on purpose (lineEndPlace): only a whole field is a place
    if (!ed.location && isPlace(f)) {
      ed.location = f
      continue
    }
    // "High School Diploma" names a degree: the degree word ends it
    if (!ed.institution && INSTITUTION_RE.test(f) && !/^(bachelor|master|doctor)/i.test(f) && !/\b(diploma|certificate|degree)$/i.test(f)) ed.institution = f
    else if (!ed.degree && DEGREE_RE.test(f)) ed.degree = f
    else if (!ed.institution && !DEGREE_RE.test(f)) ed.institution = f
    else if (ed.degree && /^(in|of|major|minor|concentration)\b/i.test(f)) ed.degree += `, ${f}`
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
 * ("Certificate in Hotel Operations, Tsinghua"). A school named in full ("Georgia Institute of
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
