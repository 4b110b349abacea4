/**
 * The loader: writes a batch of normalized postings in one transaction.
 *
 * A posting is matched first by its source (board + the board's id), then by its
 * duplicate group (md5_hash). Known and unchanged, it only moves last_seen_at; known
 * and changed at its source, it is rewritten; the same posting from another board
 * joins the first one's group as another source; otherwise it is a new job.
 *
 * A source is written once per run: a line whose source (board + id, or its duplicate hash
 * when it has no id) an earlier line of the same run already wrote is a duplicate, counted as
 * one and not written. Otherwise two lines sharing a source would each overwrite the other's
 * content hash, and every re-run of the same file would "update" one of them.
 */
import type { Db, Sql } from '../sql/db.ts'
import {
  findJobsByHash,
  findJobsBySource,
  insertJobs,
  replaceLocations,
  touchJobs,
  updateJob,
  upsertCompanies,
  upsertSources,
  type CompanyRow,
  type JobRow,
  type LocationRow,
  type SourceRow,
} from '../sql/postings.ts'
import { placeKeys } from '../seeds/places/place-keys.ts'
import { slugify } from './transform/slug.ts'
import type { Posting } from './types.ts'

export type BatchCounts = {
  inserted: number
  updated: number
  duplicates: number
  unchanged: number
  /** of the postings above, those already past valid_through: stored as expired */
  expired_on_arrival: number
}

const sourceKey = (p: Posting) => p.source_id ?? p.md5_hash

/** A source's identity within a run: its board and its key. */
export const sourceOf = (p: Posting) => `${p.job_board}\u0000${sourceKey(p)}`

const pastValidThrough = (p: Posting, seenAt: Date) => p.valid_through !== null && new Date(p.valid_through) <= seenAt


/** Unique and stable: the same posting always gets the same slug. */
export function jobSlug(p: Posting) {
  return `${slugify(p.job_title).slice(0, 60).replace(/-+$/, '')}-${p.company.slug}-${p.md5_hash.slice(0, 8)}`
}

function companyRow(p: Posting): CompanyRow {
  const c = p.company
  return {
    slug: c.slug, name: c.name, logo: c.logo, link: c.link, linkedin_link: c.linkedin_link,
    description_summary: c.description_summary, services: c.services, size_min: c.size_min, size_max: c.size_max,
    size_bucket: c.size_bucket, industries: c.industries, subindustries: c.subindustries, type: c.type,
    is_recruiting_agency: c.is_recruiting_agency, job_board: p.job_board,
  }
}

/** Two postings of one company in a batch: what either tells us, the later one winning. */
function mergeCompany(earlier: CompanyRow | undefined, later: CompanyRow): CompanyRow {
  if (!earlier) return later
  const merged = { ...earlier }
  for (const [k, v] of Object.entries(later) as [keyof CompanyRow, unknown][]) {
    const given = Array.isArray(v) ? v.length > 0 : v !== null && v !== false
    if (given) (merged as Record<string, unknown>)[k] = v
  }
  return merged
}

function jobRow(db: Db, p: Posting, companyId: string, seenAt: Date): JobRow {
  const s = p.salary
  const expired = pastValidThrough(p, seenAt)
  return {
    company_id: companyId,
    job_slug: jobSlug(p),
    md5_hash: p.md5_hash,
    source_key: sourceKey(p),
    job_title: p.job_title,
    job_title_raw: p.job_title_raw,
    description: p.description,
    description_raw: p.description_raw,
    location_raw: p.location_raw,
    locations: db.json(
      p.locations.map((l) => ({
        city: l.city, region: l.region, country: l.country,
        ...(l.lat !== null && l.lng !== null ? { coordinates: { lat: l.lat, lng: l.lng } } : {}),
      })),
    ),
    location_type: p.location_type,
    remote_countries: p.remote_countries,
    place_keys: placeKeys(p.locations, p.remote_countries),
    job_type: p.job_type,
    salary_min: s?.min ?? null,
    salary_max: s?.max ?? null,
    salary_currency: s?.currency ?? null,
    salary_period: s?.period ?? null,
    salary_annual_min: s?.annual_min ?? null,
    salary_annual_max: s?.annual_max ?? null,
    yoe_min: p.yoe_min,
    yoe_max: p.yoe_max,
    experience_level: p.experience_level,
    education_level: p.education_level,
    language: p.language,
    team: p.team,
    requirements_summary: p.requirements_summary,
    job_categories: p.job_categories,
    skills: p.skills,
    technologies: p.technologies,
    benefits: p.benefits,
    visa_sponsored: p.visa_sponsored,
    recruiter_agency: p.recruiter_agency,
    offers_equity: p.offers_equity,
    date_posted: p.date_posted,
    job_board: p.job_board,
    job_board_link: p.job_board_link,
    application_link: p.application_link,
    platform_job_id: p.source_id,
    contact_email: p.contact_email,
    contact_phone: p.contact_phone,
    ...p.scores,
    valid_through: p.valid_through,
    expired,
    date_expired: expired ? p.valid_through!.slice(0, 10) : null,
    first_seen_at: seenAt,
    last_seen_at: seenAt,
  }
}

function locationRows(jobId: string, p: Posting): LocationRow[] {
  return p.locations.map((l, position) => ({ job_id: jobId, position, city: l.city, region: l.region, country: l.country, lat: l.lat, lng: l.lng }))
}

/**
 * Writes a batch in one transaction. `written` holds the sources (sourceOf) earlier batches of
 * this run wrote; a posting of one of them, or of a source an earlier posting of this batch
 * wrote, is a duplicate and is skipped. Returns the counts, the companies it wrote (their ids) and the sources this batch wrote,
 * which the caller adds to `written` once the transaction has committed. `afterWrite` runs
 * last in the same transaction with the batch's duplicate groups (md5_hash), so what it
 * records (the jobs queued for vectors) commits with the batch or not at all.
 */
export async function loadBatch(
  sql: Sql,
  postings: Posting[],
  seenAt: Date,
  written: ReadonlySet<string> = new Set(),
  afterWrite?: (tx: Db, md5Hashes: string[]) => Promise<void>,
): Promise<BatchCounts & { sources: string[]; companies: string[] }> {
  return sql.begin(async (tx) => {
    const counts = await loadInTransaction(tx, postings, seenAt, written)
    await afterWrite?.(tx, [...new Set(postings.map((p) => p.md5_hash))])
    return counts
  })
}

async function loadInTransaction(tx: Db, all: Posting[], seenAt: Date, written: ReadonlySet<string>): Promise<BatchCounts & { sources: string[]; companies: string[] }> {
  const counts: BatchCounts = { inserted: 0, updated: 0, duplicates: 0, unchanged: 0, expired_on_arrival: 0 }
  const claimed = new Set<string>()
  const postings: Posting[] = []
  for (const p of all) {
    const source = sourceOf(p)
    if (written.has(source) || claimed.has(source)) counts.duplicates++
    else {
      claimed.add(source)
      postings.push(p)
      if (pastValidThrough(p, seenAt)) counts.expired_on_arrival++
    }
  }
  const companies = new Map<string, CompanyRow>()
  for (const p of postings) companies.set(p.company.slug, mergeCompany(companies.get(p.company.slug), companyRow(p)))
  const companyIds = await upsertCompanies(tx, [...companies.values()])

  const bySource = new Map(
    (await findJobsBySource(tx, postings.map((p) => ({ job_board: p.job_board, source_key: sourceKey(p) })))).map((k) => [
      `${k.job_board}\u0000${k.source_key}`,
      k,
    ]),
  )
  const byHash = new Map((await findJobsByHash(tx, postings.map((p) => p.md5_hash))).map((k) => [k.md5_hash, k.job_id]))

  const fresh = new Map<string, { row: JobRow; posting: Posting }>() // md5_hash → new job; later copies join it
  const touched = new Set<string>()
  const sources: (Omit<SourceRow, 'job_id'> & { job_id?: string; md5_hash: string })[] = []

  for (const p of postings) {
    const key = sourceKey(p)
    const hash = p.content_hash
    const known = bySource.get(`${p.job_board}\u0000${key}`)
    const source = {
      job_board: p.job_board, source_key: key, content_hash: hash, job_board_link: p.job_board_link,
      application_link: p.application_link, first_seen_at: seenAt, last_seen_at: seenAt, md5_hash: p.md5_hash,
    }
    const group = byHash.has(p.md5_hash) || fresh.has(p.md5_hash)
    if (known && known.content_hash === hash) {
      touched.add(known.job_id)
      sources.push({ ...source, job_id: known.job_id })
      counts.unchanged++
    } else if (known && known.primary && (known.md5_hash === p.md5_hash || !group)) {
      // edited at the source the job shows: same id, and its group follows the new hash
      await updateJob(tx, known.job_id, jobRow(tx, p, companyIds.get(p.company.slug)!, seenAt))
      await replaceLocations(tx, [known.job_id], locationRows(known.job_id, p))
      byHash.set(p.md5_hash, known.job_id)
      sources.push({ ...source, job_id: known.job_id })
      counts.updated++
    } else if (group) {
      // another board's copy (or a source edited into a copy of another job) joins the group
      const jobId = byHash.get(p.md5_hash)
      if (jobId) touched.add(jobId)
      sources.push({ ...source, job_id: jobId })
      if (known) counts.updated++
      else counts.duplicates++
    } else {
      // new; or a duplicate's source edited into a posting of its own, which becomes a job
      fresh.set(p.md5_hash, { row: jobRow(tx, p, companyIds.get(p.company.slug)!, seenAt), posting: p })
      sources.push(source)
      if (known) counts.updated++
      else counts.inserted++
    }
  }

  const inserted = await insertJobs(tx, [...fresh.values()].map((f) => f.row))
  for (const r of inserted) byHash.set(r.md5_hash, r.id)
  await replaceLocations(tx, [], [...fresh.values()].flatMap(({ posting }) => locationRows(byHash.get(posting.md5_hash)!, posting)))
  await touchJobs(tx, [...touched], seenAt)
  // one row per source (the repeats were left out above)
  await upsertSources(tx, sources.map(({ md5_hash, ...s }) => ({ ...s, job_id: s.job_id ?? byHash.get(md5_hash)! })))
  return { ...counts, sources: [...claimed], companies: [...companyIds.values()] }
}
