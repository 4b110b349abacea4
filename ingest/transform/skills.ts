/**
 * Skills and technologies from title + description, using the vocabulary in seeds/skills.json
 * (compiled once into one phrase matcher), merged with the given lists.
 * e.g. "Senior Go Engineer" + "We use k8s, Postgres and Python" ->
 *   technologies ["Go", "Kubernetes", "PostgreSQL", "Python"]
 */
import vocabulary from '../../seeds/skills.json' with { type: 'json' }
import { compileTerms, matchTerms, type Matcher, type Term } from './phrase-matcher.ts'

let compiled: { matcher: Matcher; techNames: Set<string>; canonical: Map<string, string> } | null = null

function vocab() {
  if (compiled) return compiled
  const tech = vocabulary.technologies as Term[]
  const soft = vocabulary.skills as Term[]
  const matcher = compileTerms([...tech, ...soft])
  const techNames = new Set(tech.map((t) => t.name))
  // Given values are mapped to canonical casing through the same aliases: "postgres" -> "PostgreSQL".
  const canonical = new Map<string, string>()
  for (const t of [...tech, ...soft]) {
    canonical.set(fold(t.name), t.name)
    for (const a of t.aliases ?? []) canonical.set(fold(a), t.name)
    for (const e of t.exact ?? []) canonical.set(fold(e), t.name)
  }
  compiled = { matcher, techNames, canonical }
  return compiled
}

/**
 * The key two spellings of one skill share: case, and hyphens, underscores and spaces between
 * words, aside. e.g. "machine-learning", "Machine Learning" and "machine_learning" -> "machine learning"
 */
const fold = (s: string) => s.trim().toLowerCase().replace(/[\s_-]+/g, ' ')

/**
 * A given skill in canonical spelling if the vocabulary knows it, else as given (trimmed).
 * e.g. "postgres" -> "PostgreSQL"; "machine-learning" (a board's tag) -> "Machine Learning"
 */
export function canonicalSkill(s: string): string {
  return vocab().canonical.get(fold(s)) ?? s.trim()
}

/** Each skill once, by its fold key, keeping the first spelling; none that `taken` already holds. */
function unique(list: string[], taken: Set<string> = new Set()): string[] {
  const seen = new Set(taken)
  return list.filter((s) => {
    const k = fold(s)
    return k !== '' && !seen.has(k) && !!seen.add(k)
  })
}

/**
 * The company's name blanked out of a text, so it is not read as a skill: "Unity Manufacturing"
 * is a company, not the Unity engine, and "Go Fresh Foods" says nothing about Go.
 */
function withoutCompany(text: string, company: string | null | undefined): string {
  const name = company?.trim()
  if (!name || name.length < 2) return text
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+')
  // not inside a longer word; Latin letters spelled out, since a Unicode-property regex costs
  // six times as much over a description and this runs for every posting
  return text.replace(new RegExp(`(?<![A-Za-z0-9\\u00C0-\\u024F])${escaped}(?![A-Za-z0-9\\u00C0-\\u024F])`, 'gi'), ' ')
}

/**
 * Extracts and merges. Given values come first and keep their place, in their normalized form
 * only ("machine-learning" is stored as "Machine Learning", once); a given value the vocabulary
 * files under the other list stays where it was given (the board knows best), and is not added
 * to the other list again. The company's name is no source: its words are blanked out of the title
 * and text before matching.
 * e.g. title "Game Developer", text "Unity Manufacturing builds in C#", company "Unity Manufacturing",
 *      given technologies ["machine-learning"] -> technologies ["Machine Learning", "C#"]
 */
export function extractSkills(
  title: string,
  text: string,
  given: { skills: string[]; technologies: string[] },
  company?: string | null,
): { skills: string[]; technologies: string[] } {
  const v = vocab()
  const found = matchTerms(withoutCompany(`${title}\n${text}`, company), v.matcher)
  const givenTech = unique(given.technologies.map(canonicalSkill))
  const givenSkills = unique(given.skills.map(canonicalSkill), new Set(givenTech.map(fold)))
  const technologies = unique([...givenTech, ...found.filter((n) => v.techNames.has(n))], new Set(givenSkills.map(fold)))
  const skills = unique([...givenSkills, ...found.filter((n) => !v.techNames.has(n))], new Set(technologies.map(fold)))
  return { skills: skills.slice(0, 50), technologies: technologies.slice(0, 50) }
}
