/**
 * New-graduate listings as the shared newgrad-listings.json.gz ships them (Simplify's list): a
 * JSON array (or JSON lines) of {id, source, company_name, title, locations: ["City, ST"], url,
 * date_posted, date_updated (epoch seconds), active, sponsorship, company_url, is_visible}.
 * There is no description.
 *
 * The board is the one the url points at (boards.greenhouse.io -> Greenhouse, *.myworkdayjobs.com
 * -> Workday; a company's own site -> "Acme Careers"), else the list's `source`.
 *
 * An inactive listing (`active: false`) is a closed posting: it gets valid_through = date_updated,
 * the last time the list saw it, so the loader stores it as expired on arrival with that date as
 * date_expired (a valid_through in the past expires a posting, ingest/load.ts), and it goes to the
 * archive with the other expired jobs.
 *
 * sponsorship: "Offers Sponsorship" -> visa_sponsored true; "Does Not Offer Sponsorship" and
 * "U.S. Citizenship is Required" -> false; "Other" says nothing.
 */
import type { RawPosting } from '../types.ts'
import { isObject, keyScore, type Adapter } from './adapter.ts'
import { boardFromUrl } from './board-name.ts'
import { isoFromEpoch, text } from './board-feed.ts'
import { jsonRecords } from './json-records.ts'
import type { ReadItem } from '../read.ts'

const KEYS = ['company_name', 'title', 'locations', 'url', 'date_posted', 'date_updated', 'active', 'sponsorship']

function visa(sponsorship: unknown): boolean | undefined {
  const s = text(sponsorship)?.toLowerCase() ?? ''
  if (/does not offer|citizenship is required|no sponsorship/.test(s)) return false
  if (/offers sponsorship/.test(s)) return true
  return undefined
}

export function newgradListing(r: Record<string, unknown>): RawPosting {
  const url = text(r.url)
  return {
    source_id: text(r.id),
    job_board: boardFromUrl(url) ?? text(r.source),
    job_board_link: url,
    application_link: url,
    job_title: r.title,
    locations: Array.isArray(r.locations) ? r.locations : undefined,
    date_posted: isoFromEpoch(r.date_posted),
    valid_through: r.active === false ? (isoFromEpoch(r.date_updated) ?? isoFromEpoch(r.date_posted)) : undefined,
    visa_sponsored: visa(r.sponsorship),
    company: { name: r.company_name },
  }
}

async function* read(records: AsyncIterable<{ n: number; value?: unknown; error?: string }>): AsyncGenerator<ReadItem> {
  for await (const r of records) {
    if (r.error !== undefined) yield { line: r.n, error: r.error }
    else if (!isObject(r.value)) yield { line: r.n, error: 'not a JSON object' }
    else yield { line: r.n, raw: newgradListing(r.value) }
  }
}

export const newgradListings: Adapter = {
  name: 'newgrad-listings',
  summary: 'new-graduate listings (Simplify\'s list, as newgrad-listings.json.gz ships it): a JSON array of company_name, title, locations, url, active, sponsorship',
  detect: (s) => {
    if (s.layout !== 'array' && s.layout !== 'lines') return 0
    const score = Math.max(0, ...s.records.slice(0, 3).map((r) => keyScore(r, KEYS)))
    return score >= 0.75 ? score : 0
  },
  read: (source) => read(jsonRecords(source.open(), source.sample.layout)),
}
