/**
 * Description language as an ISO 639-1 code, by counting very common function words in the first
 * ~300 words. Cheap (one pass, Set look-ups) and good enough for job ads, which are long prose.
 * e.g. "We are looking for a developer to join our team" -> "en";
 *      "Wir suchen ab sofort eine:n Entwickler:in für unser Team" -> "de"
 */
const STOPWORDS: Record<string, string[]> = {
  en: ['the', 'and', 'to', 'of', 'a', 'in', 'you', 'we', 'our', 'with', 'for', 'is', 'are', 'will', 'be', 'your', 'this', 'on', 'as', 'an'],
  de: ['der', 'die', 'und', 'das', 'wir', 'sie', 'mit', 'für', 'ist', 'ein', 'eine', 'zu', 'von', 'den', 'auf', 'du', 'dich', 'unser', 'bei', 'oder', 'nicht', 'auch'],
  fr: ['le', 'la', 'les', 'et', 'de', 'des', 'vous', 'nous', 'pour', 'une', 'un', 'est', 'dans', 'du', 'en', 'avec', 'sur', 'notre', 'votre', 'au'],
  es: ['el', 'la', 'los', 'las', 'y', 'de', 'que', 'en', 'para', 'con', 'una', 'un', 'es', 'por', 'del', 'nuestro', 'nuestra', 'tu', 'se', 'como'],
  it: ['il', 'la', 'di', 'che', 'e', 'per', 'un', 'una', 'con', 'del', 'della', 'nel', 'sono', 'siamo', 'le', 'gli', 'nostro', 'nostra', 'alla', 'dei'],
  nl: ['de', 'het', 'een', 'en', 'van', 'je', 'wij', 'we', 'voor', 'met', 'is', 'op', 'zijn', 'ons', 'jouw', 'bij', 'naar', 'ook', 'niet', 'dat'],
  pt: ['o', 'a', 'os', 'as', 'e', 'de', 'do', 'da', 'que', 'em', 'para', 'com', 'uma', 'um', 'é', 'não', 'por', 'nosso', 'nossa', 'você'],
  pl: ['i', 'w', 'na', 'z', 'do', 'się', 'nie', 'jest', 'oraz', 'dla', 'że', 'od', 'po', 'jako', 'przez', 'będzie', 'nasz', 'twoje'],
}

const WORD_LANGS = new Map<string, string[]>()
for (const [lang, words] of Object.entries(STOPWORDS)) {
  for (const w of words) WORD_LANGS.set(w, [...(WORD_LANGS.get(w) ?? []), lang])
}

const NAMES: Record<string, string> = {
  english: 'en', german: 'de', deutsch: 'de', french: 'fr', français: 'fr', francais: 'fr', spanish: 'es', español: 'es', espanol: 'es',
  italian: 'it', italiano: 'it', dutch: 'nl', nederlands: 'nl', portuguese: 'pt', português: 'pt', polish: 'pl', polski: 'pl',
}

/** A given language as a code: "English" -> "en", "de-DE" -> "de", "EN" -> "en"; unknown text kept lowercased. */
export function mapLanguage(v: string): string {
  const s = v.trim().toLowerCase()
  if (NAMES[s]) return NAMES[s]
  const m = /^([a-z]{2})(?:[-_][a-z]{2,4})?$/.exec(s)
  return m ? m[1] : s
}

/** Detected code, or null for short or mixed text (fewer than 5 stopword hits or no clear winner). */
export function detectLanguage(text: string): string | null {
  const scores = new Map<string, number>()
  // Latin-1 letters cover the stopwords above well enough; a non-Unicode regex is several times faster.
  // ~150 words give a clear majority for prose; the first words may be a title or a company name.
  const words = text.slice(0, 1000).toLowerCase().match(/[a-zß-ÿ]+/g) ?? []
  for (let i = 0; i < words.length && i < 150; i++) {
    const langs = WORD_LANGS.get(words[i])
    if (langs) for (const l of langs) scores.set(l, (scores.get(l) ?? 0) + 1)
  }
  const ranked = [...scores].sort((a, b) => b[1] - a[1])
  if (!ranked.length || ranked[0][1] < 5) return null
  if (ranked[1] && ranked[1][1] * 1.3 > ranked[0][1]) return null
  return ranked[0][0]
}
