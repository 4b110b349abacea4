/**
 * Contact e-mail and phone number from the description, when the posting names one.
 */
const EMAIL_RE = /\b[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*\.[A-Za-z]{2,24}\b/g
// A phone number needs either an international "+" prefix or a phone word just before it, so salary
// figures, requisition ids and dates are not taken for numbers. Numbers are found first (cheap scan
// from a digit), then the 30 characters before each are checked for the word.
const NUMBER_RE = /\+?\(?\d[\d\s().\/-]{6,18}\d/g
const PHONE_WORD_RE = /\b(?:phone|tel(?:ephone)?|call|mobile|cell|contact|text|whatsapp|reach us)\b[^\d]{0,12}$/i

/**
 * First e-mail that is not a no-reply address. e.g. "Send your CV to jobs@acme.com" -> "jobs@acme.com"
 */
export function extractEmail(text: string): string | null {
  if (!text.includes('@')) return null
  for (const m of text.matchAll(EMAIL_RE)) {
    const e = m[0]
    if (/^(?:no-?reply|do-?not-?reply)@/i.test(e) || /\.(?:png|jpe?g|gif|svg)$/i.test(e)) continue
    return e.toLowerCase()
  }
  return null
}

/**
 * First phone number with 7-15 digits. e.g. "Call us at (555) 123-4567" -> "(555) 123-4567",
 * "+49 30 1234567" -> "+49 30 1234567"; "Salary 120000-150000" -> null
 */
export function extractPhone(text: string): string | null {
  for (const m of text.matchAll(NUMBER_RE)) {
    const n = m[0].trim()
    const digits = n.replace(/\D/g, '').length
    if (digits < 7 || digits > 15) continue
    if (n.startsWith('+') || PHONE_WORD_RE.test(text.slice(Math.max(0, m.index! - 30), m.index))) return n
  }
  return null
}
