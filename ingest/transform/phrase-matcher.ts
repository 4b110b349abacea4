/**
 * Fast vocabulary look-up in text: tokenise once, then try the longest phrase starting at each
 * token with Map look-ups (no giant alternation regex, which backtracks at every position). A 3 KB
 * description is ~500 tokens, so matching a few hundred terms costs tens of microseconds.
 *
 * Tokens keep the characters that belong to technology names: "C++", "C#", "Node.js", ".NET",
 * "CI/CD", "scikit-learn". A compound token that is not itself a term ("Python/Django",
 * "full-stack") is also split into its parts.
 */

export type Term = {
  name: string // canonical output, e.g. "Kubernetes"
  aliases?: string[] // case-insensitive forms, e.g. ["k8s", "kube"]; the name itself is included
  exact?: string[] // case-sensitive forms for words that are also English ("Go", "R", "Swift")
  context?: boolean // exact forms count only next to another term or a word like "programming"
}

type Entry = { name: string; context: boolean }
// One Map look-up per token answers both "is this a term?" and "may a longer phrase start here?".
type Slot = { entry: Entry | null; prefix: boolean }

export type Matcher = {
  phrases: Map<string, Slot> // lowercase phrase (tokens joined by " ") -> term and/or phrase prefix
  exact: Map<string, Entry> // case-sensitive single token -> entry
  maxWords: number
}

const TOKEN_RE = /\.?[A-Za-z0-9\u00C0-\u024F][A-Za-z0-9\u00C0-\u024F+#]*(?:[./\-'’][A-Za-z0-9\u00C0-\u024F][A-Za-z0-9\u00C0-\u024F+#]*)*/g

export function tokenize(text: string): string[] {
  return text.match(TOKEN_RE) ?? []
}

function phraseKey(s: string): string {
  return tokenize(s).map((t) => t.toLowerCase()).join(' ')
}

export function compileTerms(terms: Term[]): Matcher {
  const phrases = new Map<string, Slot>()
  const exact = new Map<string, Entry>()
  let maxWords = 1
  const slot = (k: string) => {
    let s = phrases.get(k)
    if (!s) phrases.set(k, (s = { entry: null, prefix: false }))
    return s
  }
  for (const t of terms) {
    const entry: Entry = { name: t.name, context: !!t.context }
    const forms = [...(t.aliases ?? []), ...(t.exact ? [] : [t.name])]
    for (const f of forms) {
      const k = phraseKey(f)
      if (!k || phrases.get(k)?.entry) continue
      slot(k).entry = entry
      const words = k.split(' ')
      for (let i = 1; i < words.length; i++) slot(words.slice(0, i).join(' ')).prefix = true
      maxWords = Math.max(maxWords, words.length)
    }
    for (const f of t.exact ?? []) exact.set(f, entry)
  }
  return { phrases, exact, maxWords }
}

const CONTEXT_WORDS = new Set(['programming', 'language', 'languages', 'lang', 'developer', 'developers', 'engineer', 'engineers', 'dev', 'code', 'coding', 'scripting', 'stack'])

// A character loop: ~10x cheaper than a regex test per token, and this runs for every token.
function hasJoiner(tok: string): boolean {
  for (let i = 1; i < tok.length; i++) {
    const c = tok.charCodeAt(i)
    if (c === 46 || c === 47 || c === 45 || c === 39 || c === 0x2019) return true // . / - ' ’
  }
  return false
}

/** Splits compound tokens that are not terms themselves: "Python/Django" -> "Python", "Django". */
function expand(tokens: string[], m: Matcher): { raw: string[]; low: string[] } {
  const raw: string[] = []
  const low: string[] = []
  for (let tok of tokens) {
    let lower = tok.toLowerCase()
    if (lower[0] === '.' && !m.phrases.get(lower)?.entry) {
      tok = tok.slice(1)
      lower = lower.slice(1)
    }
    if (hasJoiner(tok) && !m.phrases.get(lower)?.entry && !m.exact.has(tok)) {
      for (const part of tok.split(/[/\-]|\.(?=[A-Za-z])/)) {
        if (!part) continue
        raw.push(part)
        low.push(part.toLowerCase())
      }
    } else {
      raw.push(tok)
      low.push(lower)
    }
  }
  return { raw, low }
}

/**
 * Canonical names of the terms found, in order of first appearance, deduplicated.
 * e.g. with Go (exact, context) and Python: "Python, Go and SQL" -> ["Python", "Go", "SQL"];
 * "Go to our careers page" -> []
 */
export function matchTerms(text: string, m: Matcher): string[] {
  const { raw, low } = expand(tokenize(text), m)
  const found: { name: string; at: number; context: boolean }[] = []
  for (let i = 0; i < low.length; i++) {
    let s = m.phrases.get(low[i])
    const c = raw[i].charCodeAt(0)
    // Exact (case-sensitive) forms all start with a capital letter, so skip the look-up otherwise.
    let hit: Entry | undefined = s?.entry ?? (c >= 65 && c <= 90 ? m.exact.get(raw[i]) : undefined)
    let width = 1
    // Extend word by word while the words so far start some longer phrase; keep the longest hit.
    let key = low[i]
    for (let n = 2; n <= m.maxWords && i + n <= low.length && s?.prefix; n++) {
      key += ' ' + low[i + n - 1]
      s = m.phrases.get(key)
      if (s?.entry) {
        hit = s.entry
        width = n
      }
    }
    if (hit) {
      found.push({ name: hit.name, at: i, context: hit.context && m.exact.get(raw[i]) === hit })
      i += width - 1
    }
  }
  const out = new Set<string>()
  for (const f of found) {
    if (f.context) {
      const near = found.some((g) => !g.context && g !== f && Math.abs(g.at - f.at) <= 3)
      const word = CONTEXT_WORDS.has(low[f.at + 1] ?? '') || CONTEXT_WORDS.has(low[f.at - 1] ?? '')
      if (!near && !word) continue
    }
    out.add(f.name)
  }
  return [...out]
}
