/**
 * Job categories: only names from seeds/categories.json, plus "Other". Given values are kept when
 * valid; otherwise the title is classified with the keyword table in seeds/category-keywords.json,
 * then (if the title says nothing) the description, and finally "Other".
 */
import categoryList from '../../seeds/categories.json' with { type: 'json' }
import keywords from '../../seeds/category-keywords.json' with { type: 'json' }
import { compileTerms, matchTerms, type Matcher } from './phrase-matcher.ts'

export const OTHER = 'Other'
const CANONICAL = new Map([...categoryList, OTHER].map((c) => [c.toLowerCase(), c]))
// A description must name a category's keywords this often before it decides the category alone.
const MIN_DESCRIPTION_HITS = 3

let compiled: { matcher: Matcher; byPhrase: Map<string, string[]> } | null = null

function table() {
  if (compiled) return compiled
  // Each phrase is its own term (name = phrase) because one phrase may belong to several categories.
  const byPhrase = new Map<string, string[]>()
  for (const [category, phrases] of Object.entries(keywords.categories as Record<string, string[]>)) {
    for (const p of phrases) {
      const list = byPhrase.get(p) ?? []
      list.push(category)
      byPhrase.set(p, list)
    }
  }
  compiled = { matcher: compileTerms([...byPhrase.keys()].map((p) => ({ name: p }))), byPhrase }
  return compiled
}

/** Given categories mapped to canonical spelling; unknown ones dropped. e.g. "software engineer jobs" -> "Software Engineer Jobs" */
export function validCategories(given: string[]): string[] {
  const out = new Set<string>()
  for (const g of given) {
    const c = CANONICAL.get(g.trim().toLowerCase()) ?? CANONICAL.get(`${g.trim().toLowerCase()} jobs`)
    if (c) out.add(c)
  }
  return [...out]
}

/**
 * Categories for a posting, at least one.
 * e.g. title "Senior Software Engineer" -> ["Software Engineer Jobs"]; "Registered Nurse (RN)" ->
 * ["Healthcare Services Jobs"]; "QA Automation Engineer" -> ["Quality Assurance Jobs", "Engineering Jobs"];
 * "Ninja" with a description about cooking ("kitchen", "chef", "line cook") -> ["Culinary Jobs"];
 * nothing recognisable -> ["Other"]
 */
export function classify(title: string, text: string, given: string[]): string[] {
  const valid = validCategories(given)
  if (valid.length) return valid
  const t = table()
  const fromTitle = new Set<string>()
  for (const phrase of matchTerms(title, t.matcher)) for (const c of t.byPhrase.get(phrase) ?? []) fromTitle.add(c)
  if (fromTitle.size) return [...fromTitle].slice(0, 3)
  const counts = new Map<string, number>()
  const head = text.length > 2500 ? text.slice(0, 2500) : text
  for (const phrase of matchTerms(head, t.matcher)) {
    for (const c of t.byPhrase.get(phrase) ?? []) counts.set(c, (counts.get(c) ?? 0) + 1)
  }
  const best = [...counts].sort((a, b) => b[1] - a[1])[0]
  return best && best[1] >= MIN_DESCRIPTION_HITS ? [best[0]] : [OTHER]
}
