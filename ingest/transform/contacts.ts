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

export type ContactPerson = { name: string | null; role: string | null }

// A role a posting gives its contact: a hiring title, with what comes before its head word
// ("Senior Technical Recruiter", "Head of Talent", "VP of Engineering", "hiring manager").
const ROLE_HEAD =
  '(?:recruiter|recruiting (?:lead|manager|partner|coordinator)|talent (?:partner|acquisition(?: (?:lead|manager|partner|specialist))?|lead|manager)|' +
  'hiring manager|hr (?:manager|business partner|director|lead)|people (?:partner|lead|operations)|' +
  'head of [a-z&]+(?: [a-z&]+)?|(?:vp|vice president|director) of [a-z&]+|(?:engineering|product|design|team|project|people|office|hr) manager|' +
  'engineering lead|tech lead|team lead|cto|ceo|coo|cfo|chief [a-z]+ officer|co-?founder|founder)'
const ROLE_RE = new RegExp(`(?:\\b(?:senior|sr\\.?|lead|principal|technical|tech|our|your|the)\\s+)*\\b${ROLE_HEAD}\\b`, 'gi')
// a personal name: one to three capitalized words ("Jane Doe", "Anne-Marie O'Neil", "Bill")
const NAME = "[A-Z][a-z]+(?:[-'’][A-Z]?[a-z]+)?"
const NAME_RE = new RegExp(`\\b${NAME}(?: (?:(?:van|von|de|da|del|der|di|du|le|la) )?${NAME}){0,2}\\b`, 'g')
// capitalized words that start a sentence or name a team, never a person
const NOT_NAMES = new Set([
  'please', 'email', 'e-mail', 'mail', 'contact', 'contacts', 'apply', 'send', 'reach', 'write', 'call', 'text', 'questions', 'question', 'feel', 'free',
  'drop', 'ping', 'shoot', 'for', 'the', 'our', 'your', 'you', 'we', 'us', 'me', 'or', 'and', 'to', 'at', 'if', 'any', 'more', 'info', 'information',
  'hiring', 'manager', 'recruiter', 'recruiting', 'talent', 'team', 'people', 'hr', 'human', 'resources', 'careers', 'career', 'jobs', 'job', 'head',
  'director', 'founder', 'cofounder', 'co-founder', 'lead', 'partner', 'acquisition', 'senior', 'engineering', 'product', 'interested', 'thanks',
  'hello', 'hi', 'hey', 'dear', 'phone', 'tel', 'telephone', 'mobile', 'cell', 'whatsapp', 'resume', 'cv', 'subject', 'note', 'regards', 'best',
  'cheers', 'via', 'with', 'from', 'by', 'on', 'in', 'an', 'a', 'is', 'are', 'of', 'hn', 'remote', 'us', 'usa', 'uk', 'eu',
])
// what a contact sentence says just before a name: "contact Jane Doe", "reach out to Jane", "ask for Jane"
const LEADS_TO_NAME = /(?:contact|reach out to|write to|talk to|speak (?:to|with)|ask for|email|e-mail|message|ping|call)\s*:?\s*$/i
const CLAUSE_END = /(?:[.!?](?=\s)|\s(?:or|but)\s|;|\n)/g

const isName = (s: string) => s.split(/\s+/).every((w) => !NOT_NAMES.has(w.toLowerCase()))
const tidy = (s: string) => s.replace(/\s+/g, ' ').replace(/^(?:our|your|the)\s+/i, '').trim()

/** The last name-shaped words in `s` that are a name, and where they start. */
function lastName(s: string): { name: string; at: number } | null {
  let found: { name: string; at: number } | null = null
  for (const m of s.matchAll(NAME_RE)) {
    // "Email Jane Doe" is found whole: drop leading words that are not names
    const words = m[0].split(' ')
    let skip = 0
    while (skip < words.length && NOT_NAMES.has(words[skip].toLowerCase())) skip++
    const rest = words.slice(skip).join(' ')
    if (rest && isName(rest)) found = { name: rest, at: m.index! + m[0].length - rest.length }
  }
  return found
}

/**
 * The name and role a posting gives next to its contact e-mail or phone: read in the clause
 * that leads to the address (the text before it in its block, from the last sentence end,
 * "or" or ";"), and in up to two short blocks just above it (a signature: "Jane Doe" /
 * "Head of Talent" / "jane@acme.com"). A role is a hiring title (ROLE_HEAD); a name is one to
 * three capitalized words that sit where a name does: in parentheses ("reach out to me
 * (Sasha)"), beside the role ("the hiring manager, Bill, at", "Jane Doe, Head of Talent"),
 * after a contact verb ("contact Jane Doe at"), or alone on a signature line. A single
 * capitalized word elsewhere is a sentence's first word, not a name.
 * e.g. "Questions? Email the hiring manager, Bill, at bill@pbs.org" -> {name: "Bill", role: "hiring manager"}
 *      "Contact Jane Doe (Head of Talent) at jane@acme.com" -> {name: "Jane Doe", role: "Head of Talent"}
 *      "Please email careers@acme.com" -> {name: null, role: null}
 *      "speak to your talent partner or email us at jobs@acme.com" -> {name: null, role: null}
 *      "send me (Justin, co-founder & CTO) a note at justin@acme.com" -> {name: "Justin", role: "CTO"}
 *      "hit me up (I'm an engineer, not a recruiter) at gabriel@acme.com" -> {name: null, role: null}
 */
export function contactPerson(blocks: string[], contact: { email: string | null; phone: string | null }): ContactPerson {
  const none = { name: null, role: null }
  const needles = [contact.email, contact.phone].filter((v): v is string => !!v)
  if (!needles.length) return none
  let index = -1
  let at = -1
  for (let i = 0; i < blocks.length && index < 0; i++) {
    const lower = blocks[i].toLowerCase()
    for (const n of needles) {
      const pos = lower.indexOf(n.toLowerCase())
      if (pos >= 0) {
        index = i
        at = pos
        break
      }
    }
  }
  if (index < 0) return none

  // the clause leading to the address
  let clause = blocks[index].slice(Math.max(0, at - 200), at)
  let cut = 0
  for (const m of clause.matchAll(CLAUSE_END)) cut = m.index! + m[0].length
  clause = clause.slice(cut)
  // a signature above: short blocks without a sentence in them
  const above: string[] = []
  if (clause.trim().split(/\s+/).filter(Boolean).length <= 2) {
    for (let i = index - 1; i >= Math.max(0, index - 2); i--) {
      const b = blocks[i].trim()
      if (!b || b.length > 60 || /[.!?:]$/.test(b) || /@/.test(b)) break
      above.unshift(b)
    }
  }

  let role: string | null = null
  let roleAt = -1
  let roleEnd = -1
  for (const m of clause.matchAll(ROLE_RE)) {
    // "not a recruiter", "our team lead role": a role nobody here has, or the job's own
    if (/\bnot\s+(?:an?|the)\s+$/i.test(clause.slice(0, m.index)) || /^\s+(?:role|position|opening|job|vacancy)\b/i.test(clause.slice(m.index! + m[0].length))) continue
    role = tidy(m[0])
    roleAt = m.index!
    roleEnd = m.index! + m[0].length
  }

  let name: string | null = null
  // "(Sasha)", "(Justin, co-founder & CTO)"
  const paren = /\(\s*([A-Z][a-z]+(?: [A-Z][a-z]+){0,2})\s*[,)]/.exec(clause)
  if (paren && isName(paren[1])) name = paren[1]
  if (!name && role) {
    // "hiring manager, Bill, at" / "recruiter Jane Doe at"
    const after = new RegExp(`^\\s*,?\\s*(${NAME_RE.source})`).exec(clause.slice(roleEnd))
    if (after && isName(after[1])) name = after[1]
    // "Jane Doe, Head of Talent" / "Jane Doe (Head of Talent)"
    const before = lastName(clause.slice(0, roleAt).replace(/[\s,(–—-]+$/, ''))
    if (!name && before && /^[\s,(–—-]*$/.test(clause.slice(0, roleAt).slice(before.at + before.name.length))) name = before.name
  }
  if (!name) {
    // "contact Jane Doe at" (two words at least: one capitalized word could be anything)
    const m = new RegExp(`(${NAME_RE.source})\\s*(?:\\(|,|-|–|at|via|on|:)?\\s*$`).exec(clause)
    if (m && m[1].includes(' ') && isName(m[1]) && LEADS_TO_NAME.test(clause.slice(0, m.index))) name = m[1]
  }
  for (const line of above) {
    const r = new RegExp(`^${ROLE_RE.source}$`, 'i').exec(line)
    if (r && !role) role = tidy(line)
    else if (!name && new RegExp(`^(?:${NAME_RE.source})$`).test(line) && line.includes(' ') && isName(line)) name = line
  }
  return { name, role }
}
