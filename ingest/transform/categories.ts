/**
 * Job categories: only names from seeds/categories.json, plus "Other". Given values are kept when
 * valid; otherwise the title is classified with the keyword table in seeds/category-keywords.json,
 * then (if the title says nothing) the description, and finally "Other".
 *
 * A few title keywords are ambiguous (the table's "ambiguous" list, each with the categories of its
 * other meaning): "Bank" is the NHS temporary staff pool as often as a bank, "Consultant" a
 * hospital doctor as often as a consultancy's. Such a word does not decide alone: the rest of the
 * posting (the rest of the title, the industry, the description) picks the meaning; see classify.
 */
import categoryList from '../../seeds/categories.json' with { type: 'json' }
import keywords from '../../seeds/category-keywords.json' with { type: 'json' }
import { compileTerms, matchTerms, type Matcher } from './phrase-matcher.ts'

export const OTHER = 'Other'
const CANONICAL = new Map([...categoryList, OTHER].map((c) => [c.toLowerCase(), c]))
// A description must name a category's keywords this often before it decides the category alone.
const MIN_DESCRIPTION_HITS = 3

type Table = { matcher: Matcher; byPhrase: Map<string, string[]>; otherMeaning: Map<string, string[]> }
let compiled: Table | null = null

function table(): Table {
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
  const otherMeaning = new Map(Object.entries(keywords.ambiguous as Record<string, { also: string[] }>).map(([p, a]) => [p, a.also]))
  // a phrase also matches in the plural, as boards list openings ("Software Engineers", "Product Managers")
  const terms = [...byPhrase.keys()].map((p) => ({ name: p, aliases: byPhrase.has(plural(p)) ? [] : [plural(p)] }))
  compiled = { matcher: compileTerms(terms), byPhrase, otherMeaning }
  return compiled
}

/** The phrase with its last word in the plural. e.g. "software engineer" -> "software engineers", "secretary" -> "secretaries", "coach" -> "coaches" */
function plural(phrase: string): string {
  if (/[^aeiou]y$/.test(phrase)) return `${phrase.slice(0, -1)}ies`
  if (/(?:s|x|z|ch|sh)$/.test(phrase)) return `${phrase}es`
  return `${phrase}s`
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

/** Distinct keywords per category in the description's first 2,500 characters. */
function descriptionCounts(text: string): Map<string, number> {
  const t = table()
  const counts = new Map<string, number>()
  const head = text.length > 2500 ? text.slice(0, 2500) : text
  for (const phrase of matchTerms(head, t.matcher)) {
    for (const c of t.byPhrase.get(phrase) ?? []) counts.set(c, (counts.get(c) ?? 0) + 1)
  }
  return counts
}

/**
 * Categories for a posting, at least one.
 * e.g. title "Senior Software Engineer" -> ["Software Engineer Jobs"]; "Registered Nurse (RN)" ->
 * ["Healthcare Services Jobs"]; "QA Automation Engineer" -> ["Quality Assurance Jobs", "Engineering Jobs"];
 * "Ninja" with a description about cooking ("kitchen", "chef", "line cook") -> ["Culinary Jobs"];
 * a title and description that say nothing, at a company in "Hospitals and Health Care" ->
 * ["Healthcare Services Jobs"]; nothing recognisable -> ["Other"]
 *
 * An ambiguous title keyword means its other meaning's categories instead of its own when the rest
 * of the posting speaks for them: another title keyword ("Bank Staff Nurse", "Consultant
 * Psychiatrist"), an industry whose name holds one of their keywords (the posting's `industry` or
 * the company's: "Healthcare"), or, when the posting names no industry, a description naming their
 * keywords at least MIN_DESCRIPTION_HITS times and more often than the keyword's own ("clinical",
 * "patients", "medical" for "Consultant in Emergency Medicine"). Otherwise it keeps its own:
 * "Business Consultant" -> ["Consulting Jobs"], "Bank Teller" -> ["Banking Jobs"].
 * `industries`: the posting's industry and its company's industries and subindustries, as written.
 */
export function classify(title: string, text: string, given: string[], industries: string[] = []): string[] {
  const valid = validCategories(given)
  if (valid.length) return valid
  const t = table()
  const phrases = matchTerms(title, t.matcher)
  const fromTitle = new Set<string>()
  const clear = new Set(phrases.filter((p) => !t.otherMeaning.has(p)).flatMap((p) => t.byPhrase.get(p) ?? []))
  let counts: Map<string, number> | null = null
  let named: Set<string> | null = null
  for (const phrase of phrases) {
    const own = t.byPhrase.get(phrase) ?? []
    const other = t.otherMeaning.get(phrase)
    if (other) {
      counts ??= descriptionCounts(text)
      named ??= new Set(industries.flatMap((i) => matchTerms(i, t.matcher).flatMap((p) => t.byPhrase.get(p) ?? [])))
      const ownHits = Math.max(0, ...own.map((c) => counts!.get(c) ?? 0))
      // the description speaks only when no industry does: a benefits paragraph ("medical, dental
      // and health insurance") must not make a risk consultant a doctor at a firm in Corporate Services
      const described = (c: string) => industries.length === 0 && (counts!.get(c) ?? 0) >= MIN_DESCRIPTION_HITS && counts!.get(c)! > ownHits
      // the rest of the title speaks first, then the industry or the description
      const fromRest = other.filter((c) => clear.has(c))
      const meant = fromRest.length ? fromRest : other.filter((c) => named!.has(c) || described(c))
      for (const c of meant.length ? meant : own) fromTitle.add(c)
    } else for (const c of own) fromTitle.add(c)
  }
  if (fromTitle.size) return [...fromTitle].slice(0, 3)
  const best = [...(counts ?? descriptionCounts(text))].sort((a, b) => b[1] - a[1])[0]
  if (best && best[1] >= MIN_DESCRIPTION_HITS) return [best[0]]
  // last, the industry: an NHS trust's "Team Leader" works in healthcare services
  const industry = industries.flatMap((i) => matchTerms(i, t.matcher).flatMap((p) => t.byPhrase.get(p) ?? []))[0]
  return [industry ?? OTHER]
}
