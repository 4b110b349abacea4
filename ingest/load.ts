/**
 * The loader: writes a batch of normalized postings in one transaction.
 *
 * A posting is matched first by its source (board + the board's id), then by its
 * duplicate group (md5_hash). Known and unchanged, it only moves last_seen_at; known
 * and changed at its source, it is rewritten; the same posting from another board
 * joins the first one's group as another source; otherwise it is a new job.
 *
 * A duplicate group holds one job per posting period: at most one live job, and the
 * expired jobs of its earlier periods. A posting belongs to the period its dates fall in
 * (periodFor); one listed again after its period ended (a re-posting) starts a new job, so
 * a period is one row of jobs and, once it ends, one row of the archive. The rule, case by
 * case: docs/ingest.md, "Re-posted jobs".
 *
 * A source is written once per run: a line whose source (board + id, or its duplicate hash
 * when it has no id) an earlier line of the same run already wrote is a duplicate, counted as
 * one and not written. Otherwise two lines sharing a source would each overwrite the other's
 * content hash, and every re-run of the same file would "update" one of them.
 */
import type { Db, Sql } from '../sql/db.ts'
import {
  findCompanies,
  findJobsByHash,
  findJobsBySource,
  insertJobs,
  markSeen,
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
import { recordForMatching } from '../sql/saved-searches.ts'
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

/** A posting's key at its board: the board's id, or its duplicate hash when it has none. */
export const sourceKey = (p: Posting) => p.source_id ?? p.md5_hash

/** A source's identity within a run: its board and its key. */
export const sourceOf = (p: Posting) => `${p.job_board}\u0000${sourceKey(p)}`

/** The sources of these postings already stored, by sourceOf, with their jobs. */
async function knownSources(db: Db, postings: Posting[]) {
  const known = await findJobsBySource(db, postings.map((p) => ({ job_board: p.job_board, source_key: sourceKey(p) })))
  return new Map(known.map((k) => [`${k.job_board}\u0000${k.source_key}`, k]))
}

const pastValidThrough = (p: Posting, seenAt: Date) => p.valid_through !== null && new Date(p.valid_through) <= seenAt


/**
 * Unique and stable: the same posting always gets the same slug. A later period of its
 * duplicate group (`period` 2, 3 …, a re-posting) takes the number as a suffix.
 */
export function jobSlug(p: Posting, period = 1) {
  return `${slugify(p.job_title).slice(0, 60).replace(/-+$/, '')}-${p.company.slug}-${p.md5_hash.slice(0, 8)}${period > 1 ? `-${period}` : ''}`
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

/** The fields a feed can change: a company's board is the one that first listed it. */
const companyFields = ['name', 'logo', 'link', 'linkedin_link', 'description_summary', 'services', 'size_min', 'size_max', 'size_bucket', 'industries', 'subindustries', 'type', 'is_recruiting_agency'] as const

/** The postings' companies, each merged from its postings in order. */
function batchCompanies(postings: Posting[]): CompanyRow[] {
  const companies = new Map<string, CompanyRow>()
  for (const p of postings) companies.set(p.company.slug, mergeCompany(companies.get(p.company.slug), companyRow(p)))
  return [...companies.values()]
}

/** The stored companies of `rows`, and those of `rows` that would create or change one (mergeCompany's rule, upsertCompanies's). */
async function companyChanges(db: Db, rows: CompanyRow[]) {
  const stored = await findCompanies(db, rows.map((r) => r.slug))
  const changes = (r: CompanyRow) => {
    const s = stored.get(r.slug)
    if (!s) return true
    const merged = mergeCompany(s, r)
    return companyFields.some((f) => JSON.stringify(merged[f]) !== JSON.stringify(s[f]))
  }
  return { stored, changed: rows.filter(changes) }
}

/**
 * Writes the companies that are new or would change and returns slug → id for all. An
 * unchanged company is left unlocked: upsertCompanies would lock it even where it writes
 * nothing, and a batch written beside this one (pipeline.ts) would wait for this whole
 * transaction on every company the two share.
 */
async function writeCompanies(tx: Db, rows: CompanyRow[]): Promise<Map<string, string>> {
  const { stored, changed } = await companyChanges(tx, rows)
  const written = await upsertCompanies(tx, changed)
  return new Map(rows.map((r) => [r.slug, written.get(r.slug) ?? stored.get(r.slug)!.id]))
}

/**
 * What writing each posting reads and changes beyond rows of its own, as keys that two
 * batches written at once (pipeline.ts) must not share: its source, its duplicate group
 * (md5_hash), the group of the job its source already shows (a posting edited at its source
 * moves its job out of that group), and its company when the batch creates or changes it
 * (the first board to list a company is its board; a later posting's details win). Read
 * outside the batch's transaction, before it starts: a batch in flight has not committed,
 * so what it changes reads as it was, and its own keys, read the same way, hold it.
 */
export async function postingKeys(db: Db, postings: Posting[]): Promise<string[][]> {
  const known = await knownSources(db, postings)
  const { changed } = await companyChanges(db, batchCompanies(postings))
  const changing = new Set(changed.map((c) => c.slug))
  return postings.map((p) => {
    const source = sourceOf(p)
    const shown = known.get(source)?.md5_hash
    return [source, `#${p.md5_hash}`, ...(shown ? [`#${shown}`] : []), ...(changing.has(p.company.slug) ? [`@${p.company.slug}`] : [])]
  })
}

function jobRow(db: Db, p: Posting, companyId: string, seenAt: Date, period = 1): JobRow {
  const s = p.salary
  const expired = pastValidThrough(p, seenAt)
  return {
    company_id: companyId,
    job_slug: jobSlug(p, period),
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

/** A job of a duplicate group, stored or inserted by this batch: one posting period. */
type Period = {
  /** null until the batch inserts it (`fresh`) */
  id: string | null
  md5: string
  live: boolean
  /** date_posted and date_expired (null while live), YYYY-MM-DD */
  posted: string
  ended: string | null
  /** expired before its valid_through, because no board listed it any more: seen again, it comes back */
  revivable: boolean
  fresh?: { row: JobRow; posting: Posting }
}

function periodOf(p: Posting, seenAt: Date, id: string | null = null): Period {
  const expired = pastValidThrough(p, seenAt)
  return { id, md5: p.md5_hash, live: !expired, posted: p.date_posted, ended: expired ? p.valid_through!.slice(0, 10) : null, revivable: false }
}

/**
 * The job of the group `candidates` whose posting period `p` belongs to, if any.
 *
 * A live posting belongs to the live job; with none, to the period that ended last if
 * that one ended only because no board listed it any more and `p` was posted before it
 * ended (the same listing, seen again: the job comes back). Otherwise `p` is listed again
 * after its period ended, a re-posting: no job, a new period.
 *
 * A posting already past its valid_through belongs to the job whose dates overlap its own,
 * the live one first, then the latest ended first; with none it is a period of its own.
 */
function periodFor(candidates: Period[], p: Posting, seenAt: Date): Period | undefined {
  const current = candidates.find((j) => j.live)
  // latest end first; among equal ends the later job (stored by id, this batch's last)
  const ended = candidates.filter((j) => !j.live).reverse().sort((a, b) => (a.ended! < b.ended! ? 1 : a.ended! > b.ended! ? -1 : 0))
  if (!pastValidThrough(p, seenAt)) {
    if (current) return current
    const last = ended[0]
    return last?.revivable && p.date_posted <= last.ended! ? last : undefined
  }
  const end = p.valid_through!.slice(0, 10)
  return [...(current ? [current] : []), ...ended].find((j) => j.posted <= end && (j.live || p.date_posted <= j.ended!))
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
  const companyIds = await writeCompanies(tx, batchCompanies(postings))

  const bySource = await knownSources(tx, postings)
  // every job, live and ended, of the batch's groups and of the groups its known sources' jobs are in
  const groups = new Map<string, Period[]>()
  const groupOf = (md5: string) => groups.get(md5) ?? groups.set(md5, []).get(md5)!
  const byId = new Map<string, Period>()
  const hashes = new Set([...postings.map((p) => p.md5_hash), ...[...bySource.values()].map((k) => k.md5_hash)])
  for (const j of await findJobsByHash(tx, [...hashes], seenAt)) {
    const period: Period = { id: j.job_id, md5: j.md5_hash, live: j.live, posted: j.date_posted, ended: j.date_expired, revivable: j.revivable }
    groupOf(j.md5_hash).push(period)
    byId.set(j.job_id, period)
  }
  const liveOf = (md5: string) => groups.get(md5)?.find((j) => j.live)

  const fresh: Period[] = [] // the jobs this batch inserts; later postings of their periods join them
  const touched = new Set<string>() // seen live: last_seen_at, and back to live if it ended only unlisted (touchJobs)
  const seen = new Set<string>() // ended, seen by a posting that has ended too: last_seen_at only
  const sources: (Omit<SourceRow, 'job_id'> & { job: Period })[] = []

  /** `p` is a posting of `job`: a job that ended comes back only for a live posting (periodFor picks one that may). */
  const see = (job: Period, p: Posting) => {
    if (job.id === null) return // inserted by this batch, as seen now
    if (job.live || !pastValidThrough(p, seenAt)) {
      touched.add(job.id)
      job.live = true
    } else seen.add(job.id)
  }
  const startPeriod = (p: Posting) => {
    const group = groupOf(p.md5_hash)
    const job: Period = { ...periodOf(p, seenAt), fresh: { row: jobRow(tx, p, companyIds.get(p.company.slug)!, seenAt, group.length + 1), posting: p } }
    group.push(job)
    fresh.push(job)
    return job
  }
  /** The posting changed at the source the job shows: same id, and the job follows its group and dates. */
  const rewrite = async (job: Period, p: Posting) => {
    await updateJob(tx, job.id!, jobRow(tx, p, companyIds.get(p.company.slug)!, seenAt))
    await replaceLocations(tx, [job.id!], locationRows(job.id!, p))
    if (job.md5 !== p.md5_hash) {
      const old = groups.get(job.md5)!
      old.splice(old.indexOf(job), 1)
      groupOf(p.md5_hash).push(job)
    }
    Object.assign(job, periodOf(p, seenAt, job.id))
  }

  for (const p of postings) {
    const key = sourceKey(p)
    const hash = p.content_hash
    const known = bySource.get(sourceOf(p))
    const own = known && byId.get(known.job_id)!
    const source = {
      job_board: p.job_board, source_key: key, content_hash: hash, job_board_link: p.job_board_link,
      application_link: p.application_link, first_seen_at: seenAt, last_seen_at: seenAt,
    }
    const live = !pastValidThrough(p, seenAt)
    let job: Period
    if (own && known.content_hash === hash) {
      // seen again, unchanged
      const current = own.live || !live ? own : liveOf(p.md5_hash) ?? (own.revivable && !liveOf(own.md5) ? own : undefined)
      if (current) {
        // its job (which comes back if it ended only because no board listed it), or, its
        // job having ended, the live job of its group
        see(current, p)
        job = current
        counts.unchanged++
      } else {
        // live, while its job ended at that job's own valid_through (a copy with a later one)
        job = startPeriod(p)
        counts.updated++
      }
    } else if (own && known.primary && (own.live ? own.md5 === p.md5_hash || !liveOf(p.md5_hash) : periodFor(own.md5 === p.md5_hash ? groupOf(p.md5_hash) : [...groupOf(p.md5_hash), own], p, seenAt) === own)) {
      // edited at the source the job shows, within its period: same id, and its group follows the new hash
      await rewrite(own, p)
      job = own
      counts.updated++
    } else {
      // another board's copy joins its period's job; or a re-posting, or a source edited into a
      // posting of its own, which becomes a job
      const match = periodFor(groupOf(p.md5_hash), p, seenAt)
      if (match) see(match, p)
      job = match ?? startPeriod(p)
      if (known) counts.updated++
      else if (match) counts.duplicates++
      else counts.inserted++
    }
    sources.push({ ...source, job })
  }

  const inserted = await insertJobs(tx, fresh.map((j) => j.fresh!.row))
  const ids = new Map(inserted.map((r) => [r.job_slug, r.id]))
  for (const j of fresh) j.id = ids.get(j.fresh!.row.job_slug as string)!
  await replaceLocations(tx, [], fresh.flatMap((j) => locationRows(j.id!, j.fresh!.posting)))
  // the live jobs this batch inserted (a re-posting included) are new to saved searches:
  // recorded for the matcher in this transaction, so they are matched once it commits, and only then
  await recordForMatching(tx, 'job.new', fresh.filter((j) => !j.fresh!.row.expired).map((j) => j.id!))
  await touchJobs(tx, [...touched], seenAt)
  await markSeen(tx, [...seen].filter((id) => !touched.has(id)), seenAt)
  // one row per source (the repeats were left out above)
  await upsertSources(tx, sources.map(({ job, ...s }) => ({ ...s, job_id: job.id! })))
  return { ...counts, sources: [...claimed], companies: [...companyIds.values()] }
}
