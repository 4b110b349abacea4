/**
 * The hiring contacts a company profile lists (`make ingest-companies`): a `contacts` list
 * of {name, role, email, phone}, each with an e-mail or a phone. A profile without the key
 * leaves the company's stored contacts as they are; a list replaces them (so `[]` clears
 * them). Anything else in `contacts` rejects the profile, with the entry it names.
 * e.g. {"contacts": [{"name": "Jane Doe", "role": "Head of Talent", "email": "Jane@Acme.example"}]}
 *   -> [{name: "Jane Doe", role: "Head of Talent", email: "jane@acme.example", phone: null}]
 */
import { extractEmail } from './transform/contacts.ts'

export type ProfileContact = { name: string | null; role: string | null; email: string | null; phone: string | null }

/** At most this many contacts a profile: a page of POST /v2/jobs/contacts. */
export const MAX_PROFILE_CONTACTS = 100
const MAX_FIELD = 200

function field(entry: Record<string, unknown>, key: string, at: string): string | null {
  const v = entry[key]
  if (v === undefined || v === null) return null
  if (typeof v !== 'string') throw new Error(`${at}.${key}: expected a string`)
  const s = v.replace(/\s+/g, ' ').trim()
  if (s.length > MAX_FIELD) throw new Error(`${at}.${key}: at most ${MAX_FIELD} characters`)
  return s || null
}

/** The profile's contacts, or null when it has no `contacts` key; throws on a malformed list. */
export function profileContacts(raw: Record<string, unknown>): ProfileContact[] | null {
  if (!('contacts' in raw) || raw.contacts === undefined || raw.contacts === null) return null
  if (!Array.isArray(raw.contacts)) throw new Error('contacts: expected a list of {name, role, email, phone}')
  if (raw.contacts.length > MAX_PROFILE_CONTACTS) throw new Error(`contacts: at most ${MAX_PROFILE_CONTACTS}`)
  const seen = new Set<string>()
  const out: ProfileContact[] = []
  raw.contacts.forEach((entry, i) => {
    const at = `contacts[${i}]`
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) throw new Error(`${at}: expected an object`)
    const e = entry as Record<string, unknown>
    const given = field(e, 'email', at)
    const email = given ? extractEmail(given) : null
    if (given && email !== given.toLowerCase()) throw new Error(`${at}.email: not an e-mail address`)
    const phone = field(e, 'phone', at)
    if (phone && !/^\+?[\d\s().\/-]{7,25}$/.test(phone)) throw new Error(`${at}.phone: not a phone number`)
    if (!email && !phone) throw new Error(`${at}: needs an email or a phone`)
    // the same address twice in one profile is one contact
    if (email && seen.has(email)) return
    if (email) seen.add(email)
    out.push({ name: field(e, 'name', at), role: field(e, 'role', at), email, phone })
  })
  return out
}
