/**
 * A resume's text to the parsed-resume schema (v1), heuristics only: sections by
 * headings (sections.ts), then one extractor per section kind. A field that is not
 * detected is left out, never guessed: no empty strings, no empty arrays.
 */
import { splitEntries } from './entries.ts'
import { extractContact, findName, findStandaloneName } from './extract/contact.ts'
import { extractEducation } from './extract/education.ts'
import { extractExperience } from './extract/experience.ts'
import { extractAwards, extractCertifications, extractContent, extractProjects, extractVolunteer } from './extract/items.ts'
import { extractLanguages, extractList, isSpokenLanguage } from './extract/lists.ts'
import { headerTowns } from './extract/places.ts'
import { extractSkills } from './extract/skills.ts'
import { isFlattened, reflow } from './reflow.ts'
import { repairText } from './repair-text.ts'
import { splitSections, type Section } from './sections.ts'
import type { ParsedResume } from './types.ts'

export function parseResume(text: string): ParsedResume {
  // a character lost to encoding damage stood between fields: "Bookkeeper Company Name ï¼ City , State"
  const repaired = repairText(text)
  const clean = (isFlattened(repaired) ? reflow(repaired) : repaired).replace(/[ \t]*\ufffd[ \t]*/g, ' | ').replace(/[\u200b\ufeff]/g, '').replace(/\f/g, '\n')
  const { header, sections } = splitSections(dropPageArtifacts(clean))
  const out: ParsedResume = { version: 'v1' }
  const allLines = clean.split(/\r?\n/).map((l) => l.trim()).filter(Boolean)
  const sidebarName = findName(header.length ? header : allLines.slice(0, 3)) ? undefined : takeStandaloneName(header, sections)
  const contact = extractContact(header, allLines, sidebarName)
  if (contact) out.personal_information = { data: contact }
  const towns = headerTowns(header)
  for (const s of sections) addSection(out, s, towns)
  return prune(out) as ParsedResume
}

/** Sections that hold the resume's entries: a name is never found inside them. */
const MAIN_KINDS = new Set(['experience', 'education', 'projects', 'volunteer'])

/**
 * The name of a resume laid out with a sidebar read first, looked for in the header and the
 * sidebar's sections before the first main one. The name line and its headline are taken out of
 * the section they fell into, so "Ifeoma Obi" is not listed among the languages.
 */
function takeStandaloneName(header: string[], sections: Section[]): string | undefined {
  const inHeader = findStandaloneName(header)
  if (inHeader >= 0) return header[inHeader].trim()
  for (const s of sections) {
    if (MAIN_KINDS.has(s.kind)) break
    const lines = s.lines.filter((l) => l.trim() !== '')
    const i = findStandaloneName(lines)
    if (i < 0) continue
    const taken = new Set([lines[i], lines[i + 1]])
    s.lines = s.lines.filter((l) => !taken.has(l))
    return lines[i].trim()
  }
  return undefined
}

function addSection(out: ParsedResume, section: Section, towns: ReadonlySet<string>) {
  // blank lines matter to entries (splitEntries); list-like sections do without them
  const s = ['experience', 'education', 'projects', 'volunteer', 'custom', 'summary'].includes(section.kind)
    ? section
    : { ...section, lines: section.lines.filter((l) => l.trim() !== '') }
  const push = <K extends keyof ParsedResume>(key: K, items: unknown[]) => {
    if (!items.length) return
    ;(out[key] as unknown[]) = [...((out[key] as unknown[] | undefined) ?? []), ...items]
  }
  switch (s.kind) {
    case 'summary': {
      const text = splitEntries(s.lines).flatMap((e) => [...e.head, ...e.body.map((b) => b.text)]).join(' ').replace(/\s+/g, ' ').trim()
      if (text) out.summary_or_objective = out.summary_or_objective ? `${out.summary_or_objective} ${text}` : text
      return
    }
    case 'experience': return push('work_experience', extractExperience(s.lines, towns))
    case 'education': return push('education', extractEducation(s.lines))
    case 'skills': {
      const groups = extractSkills(s.lines)
      for (const g of groups) {
        // "Languages | Korean, English, Spanish" inside skills lists spoken languages, not skills
        if (/languages?$/i.test(g.category) && g.details.length && g.details.every(isSpokenLanguage)) {
          push('languages', extractLanguages(g.details).filter((l) => !out.languages?.includes(l)))
          continue
        }
        const same = out.skills?.find((x) => x.category === g.category)
        if (same) same.details.push(...g.details.filter((d) => !same.details.includes(d)))
        else push('skills', [g])
      }
      return
    }
    case 'projects': return push('projects', extractProjects(s.lines))
    case 'certifications': return push('certifications', extractCertifications(s.lines))
    case 'awards': return push('awards', extractAwards(s.lines))
    case 'volunteer': return push('volunteer_experience', extractVolunteer(s.lines))
    case 'languages': return push('languages', extractLanguages(s.lines))
    case 'hobbies': return push('hobbies_and_interests', extractList(s.lines))
    case 'custom': {
      const content = extractContent(s.lines)
      if (content.length) push('custom_sections', [{ title: s.title, content }])
      return
    }
  }
}

/**
 * Removes running page headers and footers: "Page 2 of 3", and lines repeated with only their
 * numbers changed that name the document ("March 3, 2025 Minji Seo · Résumé 1").
 */
export function dropPageArtifacts(text: string): string {
  const lines = text.split(/\r?\n/)
  // separators count as little as numbers: "… Vitae | 1" and "… Vitae 2" are one footer
  const key = (l: string) => l.trim().replace(/\d+/g, '#').replace(/[^\p{L}#]+/gu, ' ').trim()
  const counts = new Map<string, number>()
  for (const l of lines) if (/\d/.test(l)) counts.set(key(l), (counts.get(key(l)) ?? 0) + 1)
  return lines
    .filter((l) => {
      const t = l.trim()
      // "2 / 3" is a page number, "06/2012" a date
      const n = t.match(/^(-\s*)?(page\s*)?(\d+)\s*(of|\/)\s*(\d+)(\s*-)?$/i)
      if (n && Number(n[3]) <= Number(n[5]) && Number(n[5]) < 100) return false
      if (/^-?\s*page\s+\d+\s*-?$/i.test(t)) return false
      return !((counts.get(key(l)) ?? 0) >= 2 && /(?<!\p{L})(page|r[ée]sum[ée]|curriculum|cv)(?!\p{L})/iu.test(t))
    })
    .join('\n')
}

/** Drops empty strings, empty arrays and empty objects, recursively. */
export function prune(v: unknown): unknown {
  if (Array.isArray(v)) {
    const a = v.map(prune).filter((x) => x !== undefined)
    return a.length ? a : undefined
  }
  if (v && typeof v === 'object') {
    const o: Record<string, unknown> = {}
    for (const [k, x] of Object.entries(v)) {
      const p = prune(x)
      if (p !== undefined) o[k] = p
    }
    return Object.keys(o).length ? o : undefined
  }
  if (typeof v === 'string') return v.trim() ? v.trim() : undefined
  return v ?? undefined
}

