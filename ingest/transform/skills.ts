/**
 * Skills and technologies from title + description, using the vocabulary in seeds/skills.json
 * (compiled once into one phrase matcher), merged with the given lists.
 * e.g. "Senior Go Engineer" + "We use k8s, Postgres and Python" ->
 *   technologies ["Go", "Kubernetes", "PostgreSQL", "Python"]
 */
import vocabulary from '../../seeds/skills.json' with { type: 'json' }
import { compileTerms, matchTerms, type Matcher, type Term } from './phrase-matcher.ts'
import { dedupe } from './coerce.ts'

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
    canonical.set(t.name.toLowerCase(), t.name)
    for (const a of t.aliases ?? []) canonical.set(a.toLowerCase(), t.name)
    for (const e of t.exact ?? []) canonical.set(e.toLowerCase(), t.name)
  }
  compiled = { matcher, techNames, canonical }
  return compiled
}

/** A given skill in canonical spelling if the vocabulary knows it, else as given (trimmed). */
export function canonicalSkill(s: string): string {
  return vocab().canonical.get(s.trim().toLowerCase()) ?? s.trim()
}

/**
 * Extracts and merges. Given values come first and keep their place; a given value the vocabulary
 * files under the other list stays where it was given (the board knows best).
 */
export function extractSkills(title: string, text: string, given: { skills: string[]; technologies: string[] }): { skills: string[]; technologies: string[] } {
  const v = vocab()
  const found = matchTerms(`${title}\n${text}`, v.matcher)
  const technologies = dedupe([...given.technologies.map(canonicalSkill), ...found.filter((n) => v.techNames.has(n))])
  const skills = dedupe([...given.skills.map(canonicalSkill), ...found.filter((n) => !v.techNames.has(n))])
  return { skills: skills.slice(0, 50), technologies: technologies.slice(0, 50) }
}
