/**
 * Sections that are lists of short items: languages, hobbies and interests. Items are
 * separated by commas, semicolons, bullets, pipes or lines; commas inside parentheses stay.
 */
import { readBullet } from '../entries.ts'

/**
 * Splits a written list into items, respecting parentheses.
 * e.g. "Python (NumPy, Pandas), Go • Rust; SQL" -> ["Python (NumPy, Pandas)", "Go", "Rust", "SQL"]
 */
export function splitList(text: string): string[] {
  const out: string[] = []
  let depth = 0
  let cur = ''
  const flush = () => {
    const t = cur.trim().replace(/^(and|&)\s+/i, '').replace(/[.;,]+$/, '').trim()
    if (t) out.push(t)
    cur = ''
  }
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === '(' || c === '[') depth++
    if ((c === ')' || c === ']') && depth > 0) depth--
    const sep = depth === 0 && (c === ',' || c === ';' || c === '|' || c === '•' || c === '·' || c === '▪' || c === '/' && text[i - 1] === ' ' && text[i + 1] === ' ')
    if (sep) flush()
    else cur += c
  }
  flush()
  return out
}

/** The items of a list section, one or many per line, bullets removed. */
export function extractList(lines: string[]): string[] {
  const items = lines.flatMap((l) => splitList(readBullet(l).text))
  return [...new Set(items)].filter((s) => s.length <= 80)
}

/**
 * Languages: "English (Native), Spanish – Fluent" -> ["English (Native)", "Spanish (Fluent)"];
 * a level written after a dash or colon is put in parentheses, as the first form writes it.
 */
export function extractLanguages(lines: string[]): string[] {
  return extractList(lines).map((item) => {
    const m = item.match(/^([\p{L} ]+?)\s*(?:[-–—:]\s*|\s+)\(?((?:native|fluent|bilingual|proficient|professional|conversational|intermediate|advanced|basic|beginner|elementary|limited|full|working|mother tongue|[ABC][12])[\p{L}\d ]*)\)?$/iu)
    return m ? `${m[1].trim()} (${m[2].trim()})` : item
  })
}

/** Spoken languages, to tell "Languages: Korean, English" (spoken) from "Languages: Python, Go" (programming). */
const SPOKEN = new Set([
  'english', 'spanish', 'french', 'german', 'italian', 'portuguese', 'dutch', 'flemish', 'swedish', 'norwegian', 'danish', 'finnish',
  'icelandic', 'irish', 'gaelic', 'welsh', 'polish', 'czech', 'slovak', 'hungarian', 'romanian', 'bulgarian', 'greek', 'russian',
  'ukrainian', 'belarusian', 'serbian', 'croatian', 'bosnian', 'slovenian', 'macedonian', 'albanian', 'lithuanian', 'latvian',
  'estonian', 'turkish', 'arabic', 'hebrew', 'persian', 'farsi', 'dari', 'pashto', 'kurdish', 'armenian', 'georgian', 'azerbaijani',
  'kazakh', 'uzbek', 'mandarin', 'cantonese', 'chinese', 'japanese', 'korean', 'vietnamese', 'thai', 'lao', 'khmer', 'burmese',
  'malay', 'indonesian', 'tagalog', 'filipino', 'hindi', 'urdu', 'bengali', 'bangla', 'punjabi', 'gujarati', 'marathi', 'tamil',
  'telugu', 'kannada', 'malayalam', 'sinhala', 'nepali', 'swahili', 'amharic', 'somali', 'yoruba', 'igbo', 'hausa', 'zulu', 'xhosa',
  'afrikaans', 'catalan', 'basque', 'galician', 'latin', 'esperanto', 'sign language', 'asl', 'bsl', 'maltese', 'luxembourgish',
])

/** Whether an item names a spoken language, with or without its level: "Korean", "English (fluent)", "German – B2". */
export function isSpokenLanguage(item: string): boolean {
  const name = item.replace(/\s*[(:\-–—].*$/, '').replace(/\b(native|fluent|basic|intermediate|advanced|business|conversational)\b/gi, '').trim().toLowerCase()
  return SPOKEN.has(name)
}
