/**
 * Projects, certifications, awards, volunteer work and custom sections. The spec leaves the
 * fields of certifications, awards and volunteer items open; these use
 * certification {name, issuer, date}, award {title, issuer, date, description},
 * volunteer {role, organization, location, start_date, end_date, description[]}.
 */
import { findDateRange } from '../dates.ts'
import { readBullet, splitEntries, splitFields } from '../entries.ts'
import type { Project, SectionItem } from '../types.ts'
import { readJob } from './experience.ts'
import { splitList } from './lists.ts'

const URL_RE = /\b(?:https?:\/\/|www\.)[^\s|,;)]+|\b(?:github\.com|gitlab\.com|bitbucket\.org)\/[^\s|,;)]+/i
const withScheme = (u: string) => (/^https?:\/\//i.test(u) ? u.replace(/^http:/i, 'https:') : `https://${u}`).replace(/[.,]$/, '')

/** "Name: description" or "Name – description" written on one bullet. */
const NAMED_RE = /^([^:–—]{2,60}?)\s*(?::|\s[–—-]\s)\s*(.+)$/

/**
 * e.g. ["Job Board API | TypeScript, PostgreSQL | github.com/x/jobs", "• Search over 1M postings"]
 *   -> {name: "Job Board API", technologies: ["TypeScript", "PostgreSQL"], link: "https://github.com/x/jobs", description: "Search over 1M postings"}
 * "• Tidewater Toolkit: Python library for tide prediction ..." (bullets alone) -> one project per bullet.
 */
export function extractProjects(lines: string[]): Project[] {
  const out: Project[] = []
  for (const e of splitEntries(lines)) {
    if (e.head.length === 0) {
      for (const b of e.body) {
        const m = b.text.match(NAMED_RE)
        if (m) out.push(project(m[1], [m[2]], []))
        else if (out.length) (out[out.length - 1].description = [out[out.length - 1].description, b.text].filter(Boolean).join(' '))
        else out.push(project(b.text.split(/[.:]/)[0].slice(0, 60), [b.text], []))
      }
      continue
    }
    const [first, ...more] = e.head
    out.push(project(first, [...more, ...e.body.filter((b) => !b.label || !/tech|stack|tools|environment/.test(b.label)).map((b) => b.text)], e.body.filter((b) => b.label && /tech|stack|tools|environment/.test(b.label)).map((b) => b.text)))
  }
  return out.filter((p) => p.name)
}

function project(head: string, body: string[], techLines: string[]): Project {
  const p: Project = {}
  const links: string[] = []
  let line = head
  for (const text of [head, ...body]) {
    const u = text.match(new RegExp(URL_RE.source, 'gi'))
    if (u) links.push(...u.map(withScheme))
  }
  line = line.replace(new RegExp(URL_RE.source, 'gi'), ' ')
  const r = findDateRange(line)
  if (r) line = r.rest
  const fields = splitFields(line)
  const paren = fields[0]?.match(/^(.+?)\s*\(([^)]*,[^)]*)\)\s*$/)
  const tech: string[] = []
  if (paren) {
    fields[0] = paren[1]
    tech.push(...splitList(paren[2]))
  }
  if (fields[0]) p.name = fields[0].replace(/[:,\s]+$/, '')
  for (const f of fields.slice(1)) tech.push(...splitList(f.replace(/^(tech(nologies)?|stack|tools|built with)\s*:\s*/i, '')))
  for (const t of techLines) tech.push(...splitList(t))
  const desc = body.map((b) => b.replace(new RegExp(URL_RE.source, 'gi'), '').trim()).filter(Boolean).join(' ')
  if (desc) p.description = desc
  if (tech.length) p.technologies = [...new Set(tech)]
  if (links.length) {
    p.link = links[0]
    if (links.length > 1) p.images_or_links = links.slice(1)
  }
  return p
}

/** One item per line: "AWS Certified Solutions Architect – Amazon Web Services, 2021" -> {name, issuer, date}. */
function namedItems(lines: string[], nameKey: 'name' | 'title'): SectionItem[] {
  const items: SectionItem[] = []
  for (const raw of lines) {
    const { text, bullet } = readBullet(raw)
    const r = findDateRange(text)
    const rest = r ? r.rest : text
    const prev = items[items.length - 1]
    // a line without a bullet, starting in lower case or long, describes the item above it
    if (prev && !bullet && (/^\p{Ll}/u.test(rest) || rest.split(/\s+/).length > 14)) {
      prev.description = [prev.description as string | undefined, rest].filter(Boolean).join(' ')
      continue
    }
    let fields = splitFields(rest)
    if (fields.length === 1) {
      const paren = rest.match(/^(.+?)\s*\(([^)]+)\)\s*$/)
      const comma = rest.match(/^(.+),\s*([^,]{2,50})$/)
      if (paren && !/^[A-Z0-9-]{2,8}$/.test(paren[2])) fields = [paren[1], paren[2]]
      else if (comma) fields = [comma[1], comma[2]]
    }
    if (!fields[0]) continue
    const item: SectionItem = { [nameKey]: fields[0].replace(/[,:\s]+$/, '') }
    if (fields[1]) item.issuer = fields[1].replace(/^(issued by|by|from)\s+/i, '')
    if (fields.length > 2) item.description = fields.slice(2).join(', ')
    const date = r?.end_date ?? r?.start_date
    if (date) item.date = date
    items.push(item)
  }
  return items
}

export const extractCertifications = (lines: string[]) => namedItems(lines, 'name')
export const extractAwards = (lines: string[]) => namedItems(lines, 'title')

export function extractVolunteer(lines: string[]): SectionItem[] {
  return splitEntries(lines).map((e) => {
    const j = readJob(e)
    const item: SectionItem = {}
    if (j.title) item.role = j.title
    if (j.company) item.organization = j.company
    if (j.location) item.location = j.location
    if (j.start_date) item.start_date = j.start_date
    if (j.end_date) item.end_date = j.end_date
    const desc = [...(j.responsibilities ?? []), ...(j.achievements ?? [])]
    if (desc.length) item.description = desc
    return item
  }).filter((i) => Object.keys(i).length > 0)
}

/** A custom section's lines, bullets removed and wrapped lines joined. */
export function extractContent(lines: string[]): string[] {
  return splitEntries(lines).flatMap((e) => [...e.head, ...e.body.map((b) => (b.label ? `${b.label}: ${b.text}` : b.text))])
}
