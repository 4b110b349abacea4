/**
 * Duplicate key: md5 over the normalised company name, title, primary location (or remote scope)
 * and description text, each lowercased and whitespace-collapsed. Board-specific parts (ids,
 * links, raw HTML, decorations like "(m/f/d)") are left out so the same posting on two boards
 * hashes equal. e.g. "Acme" + "Senior Engineer" + "berlin|state of berlin|germany" + "we build ..."
 */
import { createHash } from 'node:crypto'
import type { Location } from '../types.ts'

const fold = (s: string | null | undefined) => (s ?? '').toLowerCase().replace(/\s+/g, ' ').trim()

export function primaryLocationKey(locations: Location[], remoteCountries: string[], remote: boolean): string {
  const l = locations[0]
  if (l) return [l.city, l.region, l.country].map(fold).join('|')
  if (remote || remoteCountries.length) return `remote:${remoteCountries.map(fold).sort().join(',')}`
  return ''
}

/** `text` is description_text, whose whitespace sanitizeDescription has already collapsed. */
export function postingHash(p: { companyName: string; title: string; location: string; text: string }): string {
  return createHash('md5').update(`${fold(p.companyName)}\n${fold(p.title)}\n${p.location}\n${p.text.toLowerCase()}`).digest('hex')
}

/**
 * Over everything a posting carries, so a re-ingest that changes nothing is known
 * without comparing fields. The long texts are hashed as they are, not JSON-escaped.
 */
export function contentHash(p: { description: string; description_raw: string; description_text: string } & Record<string, unknown>): string {
  const { description, description_raw, description_text: _derived, content_hash: _self, ...rest } = p
  return createHash('md5').update(description_raw).update('\u0000').update(description).update(JSON.stringify(rest)).digest('hex')
}
