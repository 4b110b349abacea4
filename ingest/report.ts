/**
 * `npm run ingest -- FILE --dry-run --report`: what normalization made of a feed, for a data
 * engineer to read before a load. Per field, how many postings have a value; then the values
 * worth a look, each counted with a few examples (line numbers are the input's):
 * - a salary out of bounds for its period: kept as stated, left out of salary filters and sorts
 * - a salary of a few whole units that is not hourly or daily: a pay band or grade read as pay?
 * - a salary without a period: kept as stated, never annualized
 * - a location without a country, and location text that resolves to no place (kept in location_raw)
 * - a title that lost words in cleaning, other than the decorations the cleaner removes on purpose
 *   (gender markers, urgency and new-posting tags) and a trailing place taken as the location
 * - an HTML entity still in a title, company name or location
 * - a posting no category fits ("Other")
 */
import { cleanTitle } from './transform/clean-title.ts'
import { decodeEntities } from './transform/decode-entities.ts'
import { OTHER } from './transform/categories.ts'
import type { Normalized } from './pipeline.ts'
import type { Posting } from './types.ts'

const EXAMPLES = 3
const ENTITY_RE = /&(?:[a-z][a-z0-9]{1,31}|#\d{1,7}|#x[0-9a-f]{1,6});/i

/** A field and whether a posting has it. */
const FIELDS: [string, (p: Posting) => boolean][] = [
  ['job_title', (p) => !!p.job_title],
  ['company.name', (p) => !!p.company.name],
  ['company.link', (p) => !!p.company.link],
  ['company.logo', (p) => !!p.company.logo],
  ['company.size', (p) => !!p.company.size_bucket],
  ['company.industries', (p) => p.company.industries.length > 0],
  ['description', (p) => p.description_text.trim() !== ''],
  ['location_raw', (p) => !!p.location_raw],
  ['locations', (p) => p.locations.length > 0],
  ['location_type', (p) => !!p.location_type],
  ['remote_countries', (p) => p.remote_countries.length > 0],
  ['job_type', (p) => !!p.job_type],
  ['salary', (p) => !!p.salary],
  ['salary (annualized)', (p) => p.salary?.annual_min != null || p.salary?.annual_max != null],
  ['yoe', (p) => p.yoe_min !== null || p.yoe_max !== null],
  ['experience_level', (p) => !!p.experience_level],
  ['education_level', (p) => !!p.education_level],
  ['language', (p) => !!p.language],
  ['team', (p) => !!p.team],
  ['requirements_summary', (p) => !!p.requirements_summary],
  ['job_categories (not Other)', (p) => !p.job_categories.includes(OTHER)],
  ['skills', (p) => p.skills.length > 0],
  ['technologies', (p) => p.technologies.length > 0],
  ['benefits', (p) => p.benefits.length > 0],
  ['visa_sponsored', (p) => p.visa_sponsored !== null],
  ['offers_equity', (p) => p.offers_equity !== null],
  ['valid_through', (p) => !!p.valid_through],
  ['contact_email', (p) => !!p.contact_email],
  ['contact_phone', (p) => !!p.contact_phone],
  ['application_link', (p) => !!p.application_link],
  ['job_board_link', (p) => !!p.job_board_link],
  ['source_id', (p) => !!p.source_id],
]

const words = (s: string | null | undefined) => (s ?? '').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []

function salaryText(s: NonNullable<Posting['salary']>) {
  const amount = s.min !== null && s.max !== null && s.min !== s.max ? `${s.min}–${s.max}` : String(s.min ?? s.max)
  return `${s.currency ?? '(no currency)'} ${amount}${s.period ? ` ${s.period}` : ''}`
}

/** The words cleaning took from a title that are neither a decoration nor the place it moved to the location. */
function lostWords(p: Posting): string[] {
  const { locationHint, removed } = cleanTitle(p.job_title_raw)
  const kept = new Set([...words(p.job_title), ...words(locationHint), ...removed.flatMap(words)])
  return [...new Set(words(decodeEntities(p.job_title_raw)))].filter((w) => !kept.has(w))
}

/** Each check: what it looks for, and for a posting, the example to show when it finds it (null when not). */
const CHECKS: [string, (p: Posting) => string | null][] = [
  ['salary out of bounds for its period (kept as stated, not annualized)', (p) =>
    p.salary?.period && p.salary.annual_min === null && p.salary.annual_max === null ? salaryText(p.salary) : null],
  ['salary of a few whole units, not hourly or daily (a pay band or grade read as pay?)', (p) => {
    const s = p.salary
    const small = (n: number | null) => n === null || (Number.isInteger(n) && n <= 12)
    return s && small(s.min) && small(s.max) && s.period !== 'hourly' && s.period !== 'daily' ? salaryText(s) : null
  }],
  ['salary without a period (kept as stated, not annualized)', (p) => (p.salary && !p.salary.period ? salaryText(p.salary) : null)],
  ['location without a country', (p) => {
    const l = p.locations.find((x) => !x.country)
    return l ? `${[l.city, l.region].filter(Boolean).join(', ')} (from "${p.location_raw ?? ''}")` : null
  }],
  ['location text that is not a place (kept in location_raw only)', (p) =>
    p.location_raw && !p.locations.length && !p.remote_countries.length && p.location_type !== 'Remote' ? `"${p.location_raw}"` : null],
  ['title that lost words in cleaning', (p) => {
    const lost = lostWords(p)
    return lost.length ? `"${p.job_title_raw}" -> "${p.job_title}" (lost: ${lost.join(', ')})` : null
  }],
  ['HTML entity left in a title, company name or location', (p) => {
    const text = [p.job_title, p.company.name, p.location_raw, ...p.locations.flatMap((l) => [l.city, l.region])].find((s) => s && ENTITY_RE.test(s))
    return text ? `"${text}"` : null
  }],
  ['no category fits (Other)', (p) => (p.job_categories.includes(OTHER) ? `"${p.job_title}"` : null)],
]

export class IngestReport {
  private postings = 0
  private filled = new Map<string, number>()
  private found = new Map<string, { count: number; examples: string[] }>()

  add(batch: Normalized[]) {
    for (const { line, posting } of batch) {
      this.postings++
      for (const [field, has] of FIELDS) if (has(posting)) this.filled.set(field, (this.filled.get(field) ?? 0) + 1)
      for (const [check, example] of CHECKS) {
        const shown = example(posting)
        if (shown === null) continue
        const f = this.found.get(check) ?? { count: 0, examples: [] }
        f.count++
        if (f.examples.length < EXAMPLES) f.examples.push(`line ${line}: ${shown}`)
        this.found.set(check, f)
      }
    }
  }

  /** Counts per field and per check, for tests and for the printed report. */
  get counts() {
    return {
      postings: this.postings,
      filled: Object.fromEntries(FIELDS.map(([f]) => [f, this.filled.get(f) ?? 0])),
      found: Object.fromEntries(CHECKS.map(([c]) => [c, this.found.get(c) ?? { count: 0, examples: [] }])),
    }
  }

  format(): string {
    const n = this.postings
    const pct = (k: number) => (n ? `${((100 * k) / n).toFixed(1)} %` : '-')
    const lines = [`report: ${n} postings normalized`, '', `${'field'.padEnd(28)} ${'filled'.padStart(8)} ${'postings'.padStart(9)}`]
    for (const [field] of FIELDS) {
      const k = this.filled.get(field) ?? 0
      lines.push(`${field.padEnd(28)} ${pct(k).padStart(8)} ${String(k).padStart(9)}`)
    }
    lines.push('', 'values worth a look:')
    for (const [check] of CHECKS) {
      const f = this.found.get(check)
      lines.push(`  ${String(f?.count ?? 0).padStart(7)}  ${check}`)
      for (const e of f?.examples ?? []) lines.push(`           ${e}`)
    }
    return lines.join('\n')
  }
}
