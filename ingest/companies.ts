/**
 * Company profiles on their own (`make ingest-companies FILE=…`, or a file of company
 * records given to `make ingest`): each creates or updates the company with its slug.
 * A profile's fields replace what postings brought only where the profile has them.
 *
 * Size words (the source's `company_size`) map to the spec's size buckets, unless the
 * profile states a head count ("125 and growing" in its "Company size" section), which
 * wins:
 *
 * | word | employees | bucket |
 * |---|---|---|
 * | tiny, startup | 1–10 | 1-10 |
 * | small | 11–50 | 11-50 |
 * | medium | 51–200 | 51-200 |
 * | large | 201–1,000 | 501-1000 |
 * | enterprise | 1,001 or more | 10000+ … by the count; 1001-5000 without one |
 */
import { canonicalSkill } from './transform/skills.ts'
import { parseSizeRange, sizeBucket } from './transform/company.ts'
import { slugify } from './transform/slug.ts'
import type { CompanyProfileRow } from '../sql/companies.ts'
import { refreshCompanyStatsBySlug, upsertCompanyProfiles } from '../sql/companies.ts'
import type { Sql } from '../sql/db.ts'
import { replaceCompanyContacts } from '../sql/contacts.ts'
import { profileContacts, type ProfileContact } from './profile-contacts.ts'

export type CompanyItem = { line: number; company: Record<string, unknown> } | { line: number; error: string }

export const SIZE_WORDS: Record<string, { min: number; max: number | null }> = {
  tiny: { min: 1, max: 10 },
  startup: { min: 1, max: 10 },
  small: { min: 11, max: 50 },
  medium: { min: 51, max: 200 },
  large: { min: 201, max: 1000 },
  enterprise: { min: 1001, max: null },
}

const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null)
const MAX_DESCRIPTION = 2000

/** Markdown as plain text: links keep their words, emphasis and list marks go. */
function plain(markdown: string) {
  return markdown
    .replace(/!\[[^\]]*\]\([^)]*\)/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_`#>]+/g, '')
    .replace(/[ \t]+/g, ' ')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
}

function cut(s: string, max: number) {
  if (s.length <= max) return s
  const at = s.lastIndexOf(' ', max)
  return `${s.slice(0, at > max / 2 ? at : max)}…`
}

/** The head count a sentence states: "125 and growing" → 125–125, "11-50 employees" → 11–50, "about 1,200 people" → 1200–1200. */
function headCount(s: string | null): { min: number; max: number } | null {
  const m = s && /(\d[\d,]*)(?:\s*(?:-|–|to)\s*(\d[\d,]*))?/i.exec(s)
  if (!m) return null
  const n = (t: string) => Number(t.replace(/,/g, ''))
  const min = n(m[1])
  const max = m[2] ? n(m[2]) : min
  return min > 0 && max >= min && max < 5_000_000 ? { min, max } : null
}

/** A profile record (remote-companies' shape, or the project's company shape) as a row, or why not. */
export function companyProfile(raw: Record<string, unknown>): CompanyProfileRow {
  const sections = (raw.sections && typeof raw.sections === 'object' ? raw.sections : {}) as Record<string, unknown>
  const name = text(raw.name) ?? text(raw.title)
  if (!name) throw new Error('name (or title): required non-empty string')
  const slug = slugify(text(raw.slug) ?? name)

  let size: { min: number | null; max: number | null } = { min: null, max: null }
  const count = headCount(text(sections['Company size']))
  const word = text(raw.company_size)?.toLowerCase() ?? null
  if (count !== null) size = count
  else if (word && SIZE_WORDS[word]) size = SIZE_WORDS[word]
  else if (raw.size_range !== undefined) size = parseSizeRange(raw.size_range)
  const bucket = size.min === null ? null : word === 'enterprise' && count === null ? '1001-5000' : sizeBucket(size.min, size.max)

  const description = text(raw.description_summary) ?? text(raw.description) ?? text(sections['Company blurb'])
  const technologies = Array.isArray(raw.technologies) ? raw.technologies.filter((t): t is string => typeof t === 'string' && t.trim() !== '') : []
  return {
    slug,
    name,
    link: text(raw.website) ?? text(raw.link),
    careers_url: text(raw.careers_url),
    description_summary: description ? cut(plain(description), MAX_DESCRIPTION) : null,
    size_min: size.min,
    size_max: size.max,
    size_bucket: bucket,
    // profile tags are slugs ("machine-learning"): their words find the canonical name
    technologies: [...new Set(technologies.map((t) => canonicalSkill(t.trim().replace(/[-_]+/g, ' '))))],
    remote_policy: text(raw.remote_policy),
    hiring_region: text(raw.region),
  }
}

export type CompanySummary = { read: number; inserted: number; updated: number; unchanged: number; rejected: number; seconds: number }

/** Creates or updates every profile, 500 to a statement; rejected records are reported, not fatal. */
export async function ingestCompanies(sql: Sql, items: AsyncIterable<CompanyItem>, onRejected?: (line: number, reason: string) => void) {
  const started = Date.now()
  const s: CompanySummary = { read: 0, inserted: 0, updated: 0, unchanged: 0, rejected: 0, seconds: 0 }
  let batch = new Map<string, CompanyProfileRow>()
  // a profile's `contacts` list, when it has one (ingest/profile-contacts.ts)
  let contacts = new Map<string, ProfileContact[]>()
  const flush = async () => {
    if (batch.size === 0) return
    const c = await upsertCompanyProfiles(sql, [...batch.values()])
    // the tags read the profile (size, description, remote policy): derived again with it
    await refreshCompanyStatsBySlug(sql, [...batch.keys()])
    s.inserted += c.inserted
    s.updated += c.updated
    s.unchanged += c.unchanged
    await replaceCompanyContacts(sql, contacts)
    batch = new Map()
    contacts = new Map()
  }
  for await (const item of items) {
    s.read++
    try {
      if ('error' in item) throw new Error(item.error)
      const row = companyProfile(item.company)
      const listed = profileContacts(item.company)
      // the same slug twice in a batch: the later record wins, as it would across batches
      if (batch.has(row.slug)) s.unchanged++
      batch.set(row.slug, row)
      if (listed) contacts.set(row.slug, listed)
    } catch (e) {
      s.rejected++
      onRejected?.(item.line, (e as Error).message)
    }
    if (batch.size >= 500) await flush()
  }
  await flush()
  s.seconds = (Date.now() - started) / 1000
  return s
}
