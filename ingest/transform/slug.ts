/**
 * URL slugs: lowercase ASCII words joined by "-", with accents transliterated by
 * @sindresorhus/slugify. Used for company slugs and, by ingest/load.ts, for job slugs.
 * e.g. "Société Générale" -> "societe-generale", "AT&T" -> "at-and-t", "Müller GmbH" -> "mueller-gmbh",
 * "Senior C++ Engineer" -> "senior-c-engineer"
 */
import slugifyLib from '@sindresorhus/slugify'
import { LRUCache } from 'lru-cache'

// Many postings share a company or title; slugify transliterates per character, so cache recent input.
const cache = new LRUCache<string, string>({ max: 10_000 })

/**
 * Slug of any text; never empty. Text with no Latin transliteration ("数据") becomes "x-" plus its
 * code points in base 36, so it is still stable and unique.
 */
export function slugify(text: string): string {
  const hit = cache.get(text)
  if (hit !== undefined) return hit
  // decamelize off: "FooBar" is a brand, not two words.
  let slug = slugifyLib(text, { decamelize: false })
  if (!slug) slug = `x-${[...text].map((c) => c.codePointAt(0)!.toString(36)).join('').slice(0, 40)}` || 'x'
  cache.set(text, slug)
  return slug
}
