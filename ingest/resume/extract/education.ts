/**
 * Education entries: degree, institution, location, dates, GPA, relevant courses and the
 * thesis or project, from an entry's header lines and labelled body lines.
 */
import { findDateRange } from '../dates.ts'
import { splitEntries, splitFields, type Entry } from '../entries.ts'
import type { Education } from '../types.ts'
import { isPlace, trailingPlace } from './places.ts'
import { splitList } from './lists.ts'

export const DEGREE_RE =
  /\b(bachelor'?s?|master'?s?|doctor(ate)?|ph\.?\s?d|mba|m\.?b\.?a|b\.?\s?sc?|m\.?\s?sc?|b\.?a|m\.?a|b\.?eng|m\.?eng|b\.?tech|m\.?tech|b\.?e|m\.?e|b\.?com|m\.?com|ll\.?[bm]|j\.?d|m\.?d|associate'?s?|diploma|certificate|high school|secondary school|a-levels?|gcse|baccalaur[ée]at|licen[cs]iatura|licence|abitur|degree|undergraduate|graduate|postgraduate|b\.?f\.?a|m\.?f\.?a|m\.?p\.?h|m\.?s\.?w|ed\.?d|hnd|bts)\b\.?/i
export const INSTITUTION_RE =
  /(?<!\p{L})(\p{L}*univ\p{L}*|uniwersytet\p{L}*|\p{L}*universit\p{L}*|üniversite\p{L}*|college|collège|colegio|institute|institut|instituto|istituto|school|academy|akademi\p{L}*|polytechn\p{L}*|politec\p{L}*|politechnika|conservato\p{L}*|seminary|hochschule|école|ecole|escola|escuela|faculdade|facultad|lyc[ée]e|liceo|lyceum|gymnasium|campus|iit|mit|ucla|nyu|eth)(?!\p{L})/iu

const GPA_RE = /\b(?:c?gpa|grade point average|grade)\s*(?:of\s*)?[:\-–]?\s*(\d+(?:[.,:]\d+)?(?:\s*\/\s*\d+(?:[.,]\d+)?)?(?:\s*\(\s*\d+(?:\.\d+)?\s*\/\s*\d+(?:\.\d+)?\s*\))?)/i
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
  const fields: string[] = []
  for (let raw of entry.head) {
    const gpa = raw.match(GPA_RE) ?? raw.match(GPA_AFTER_RE)
    if (gpa && !ed.GPA) {
      ed.GPA = gpa[1].trim()
      raw = raw.replace(gpa[0], ' ')
    }
    if (!ed.start_date && !ed.end_date) {
      const r = findDateRange(raw)
      if (r) {
        if (r.start_date) ed.start_date = r.start_date
        if (r.end_date) ed.end_date = r.end_date
        raw = r.rest.replace(/\b(expected|graduat(ed|ion)|anticipated|class of)\b:?/gi, ' ')
      }
    }
    const parts = splitFields(raw)
    const last = parts[parts.length - 1]
    const tp = !ed.location && last && !DEGREE_RE.test(last) ? trailingPlace(last) : null
    if (tp?.rest) {
      ed.location = tp.place
      parts[parts.length - 1] = tp.rest
    }
    fields.push(...parts.flatMap(splitDegreeComma))
  }
  for (let f of fields) {
    f = f.replace(/^[\s,;:()]+|[\s,;:(]+$/g, '').trim()
    if (!f) continue
    const tp = !ed.location && !DEGREE_RE.test(f) ? trailingPlace(f) : null
    if (tp?.rest) {
      ed.location = tp.place
      f = tp.rest
    } else if (!ed.location && isPlace(f)) {
      ed.location = f
      continue
    }
    if (!ed.institution && INSTITUTION_RE.test(f) && !/^(bachelor|master|doctor)/i.test(f)) ed.institution = f
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

/** "B.S. in Computer Science, Stanford University" -> degree and school as two fields. */
function splitDegreeComma(part: string): string[] {
  if (isPlace(part)) return [part]
  const pieces = part.split(/\s*[,;]\s+/)
  if (pieces.length < 2) return [part]
  const out: string[] = []
  for (const p of pieces) {
    const prev = out[out.length - 1]
    // keep "Master of Science, Computer Science" and "University of California, Berkeley" together
    const joinable = prev !== undefined && !INSTITUTION_RE.test(p) && !isPlace(p) && !(DEGREE_RE.test(p) && !DEGREE_RE.test(prev))
    if (joinable && (DEGREE_RE.test(prev) || INSTITUTION_RE.test(prev))) {
      if (INSTITUTION_RE.test(prev) && /^[\p{Lu}]/u.test(p) && p.split(/\s+/).length <= 3 && !DEGREE_RE.test(prev)) out[out.length - 1] = `${prev}, ${p}`
      else if (DEGREE_RE.test(prev)) out[out.length - 1] = `${prev}, ${p}`
      else out.push(p)
    } else out.push(p)
  }
  return out
}
