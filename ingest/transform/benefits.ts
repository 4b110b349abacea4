/**
 * Benefits, equity and visa sponsorship from the description, merged with given values.
 * The benefit patterns live in seeds/benefits.json so they can be tuned without code changes.
 */
import table from '../../seeds/benefits.json' with { type: 'json' }
import { dedupe } from './coerce.ts'

type Rule = { triggers: string[]; patterns: string[] }
type Compiled = { rules: { name: string; re: RegExp }[]; trigger: RegExp; ruleByTrigger: Map<string, number[]> }
let compiled: Compiled | null = null

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

function rules(): Compiled {
  if (compiled) return compiled
  const list = Object.entries(table.benefits as Record<string, Rule>).filter(([, r]) => r.patterns.length)
  const ruleByTrigger = new Map<string, number[]>()
  list.forEach(([, r], i) => {
    for (const t of r.triggers) ruleByTrigger.set(t, [...(ruleByTrigger.get(t) ?? []), i])
  })
  // One scan for all trigger words (longest first so "paid time off" wins over "leave" at a position).
  const words = [...ruleByTrigger.keys()].sort((a, b) => b.length - a.length).map(escapeRe)
  compiled = {
    rules: list.map(([name, r]) => ({ name, re: new RegExp(r.patterns.join('|'), 'i') })),
    trigger: new RegExp(words.join('|'), 'g'),
    ruleByTrigger,
  }
  return compiled
}

const CANONICAL = new Map(Object.keys(table.benefits).map((b) => [b.toLowerCase(), b]))

/**
 * Benefits named in text, canonical names, given ones first.
 * e.g. "We offer medical, dental & vision insurance, a 401(k) match and 25 days annual leave" ->
 *   ["Health Insurance", "Dental Insurance", "Vision Insurance", "401(k)", "Paid Time Off"]
 */
export function extractBenefits(text: string, given: string[], visaSponsored: boolean | null): string[] {
  // Patterns are tested only in a window around their trigger words, found in one pass over the
  // lowercased text: far cheaper than 25 regexes scanning 3 KB each. Every pattern contains a trigger.
  const c = rules()
  const lower = text.toLowerCase()
  const hit = new Set<number>()
  const tried = new Map<number, number>()
  for (const m of lower.matchAll(c.trigger)) {
    for (const i of c.ruleByTrigger.get(m[0]) ?? []) {
      if (hit.has(i) || (tried.get(i) ?? 0) >= 8) continue
      tried.set(i, (tried.get(i) ?? 0) + 1)
      if (c.rules[i].re.test(lower.slice(Math.max(0, m.index! - 40), m.index! + 80))) hit.add(i)
    }
  }
  const found = [...hit].sort((a, b) => a - b).map((i) => c.rules[i].name)
  if (visaSponsored === true) found.push('Visa Sponsorship')
  return dedupe([...given.map((g) => CANONICAL.get(g.toLowerCase()) ?? g), ...found])
}

// Negatives first: "sponsorship is not available" also contains "sponsorship ... available".
const NO_VISA_RE = /\b(?:no (?:visa )?sponsorship|(?:unable|not able) to (?:provide |offer )?(?:visa )?sponsor|(?:cannot|can ?not|can't|won't|will not|do not|does not|don't) (?:provide |offer )?(?:visa )?sponsor|without (?:the need for |requiring )?(?:current or future )?(?:visa )?sponsorship|sponsorship (?:is )?not (?:available|provided|offered|possible)|not (?:offer(?:ing)?|provid(?:e|ing)) (?:visa )?sponsorship)/i
const VISA_RE = /\b(?:visa sponsorship (?:is )?(?:available|provided|offered|possible)|(?:we|will|can) (?:also )?(?:provide |offer )?(?:visa )?sponsor(?:ship)?(?: for)? (?:your |a |work )?(?:visa|work permit)|sponsorship (?:is )?available|offer(?:s|ing)? (?:visa )?sponsorship|relocation and visa support|visa support)/i

/**
 * Whether the text says visa sponsorship is offered; null when it says nothing. Text wins over a
 * given value because the description is what the employer wrote last.
 * e.g. "Visa sponsorship available" -> true; "We are unable to sponsor visas" -> false;
 * "No sponsorship" -> false; "Great team" -> given ?? null
 */
export function visaFromText(text: string, given: boolean | null): boolean | null {
  if (!/sponsor|visa/i.test(text)) return given
  if (NO_VISA_RE.test(text)) return false
  if (VISA_RE.test(text)) return true
  return given
}

const EQUITY_RE = /\b(?:stock options?|equity (?:package|grant|compensation|stake|plan)|(?:competitive|meaningful|generous|early[- ]stage) equity|rsus?|esop|employee stock|share options?|ownership stake|virtual shares|vsop)\b/i

/**
 * offers_equity: the given value, else true when the text mentions equity compensation, else null
 * (silence is not a "no"). e.g. "competitive salary + equity package" -> true
 */
export function equityFromText(text: string, given: boolean | null): boolean | null {
  if (given !== null) return given
  if (!/equity|stock|rsu|esop|share|ownership|vsop/i.test(text)) return null
  return EQUITY_RE.test(text) ? true : /\bsalary (?:\+|and|&) equity\b/i.test(text) ? true : null
}
