/**
 * personal_information from the header (the lines before the first heading), with the
 * rest of the text as a fallback for contact details written at the bottom or in a
 * "Contact" section: name, email, phone (E.164 when libphonenumber-js can place it),
 * address parts written in the header, and profile links normalized to https://.
 */
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js'
import type { Address, PersonalInformation } from '../types.ts'
import { foldHeading, headingKind, isHeadingWords } from '../sections.ts'
import { hasCompanyWord, hasTitleWord } from './experience.ts'
import { countryCode, isCity, isPlace, isRegion, US_STATE_RE } from './places.ts'

const EMAIL_RE = /[\p{L}\d._%+-]+@[\p{L}\d.-]+\.[\p{L}]{2,}/u
const PHONE_RE = /(?:\(\s*\+?\d{1,3}\s*\)|\+)?\s*\d[\d\s().\-–]{5,}\d(?:\s*(?:x|ext\.?)\s*\d{1,5})?/g
const LABEL_RE = /\b(e-?mail|phone|mobile|cell|tel(?:ephone)?|contact|address|location|linkedin|github|website|web|portfolio|home|office)\b\s*[:.]?/gi
// the top-level domain must end the host: "nibhriain.design" is not "nibhriain.de"
const DOMAIN_RE = /\b(?:https?:\/\/)?(?:www\.)?[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.(?:com|io|dev|me|net|org|co|ai|app|xyz|tech|site|page|info|us|uk|de|fr|in|ca|eu|cc|blog|design|studio|codes|sh|gg|to)(?![\w-])(?:\/[^\s|,;)]*)?/gi
const PROFILE_RE = /\b(?:https?:\/\/)?(?:[a-z]{2,3}\.)?(?:linkedin\.com|github\.com|gitlab\.com|bitbucket\.org|behance\.net|dribbble\.com|stackoverflow\.com|medium\.com|kaggle\.com|twitter\.com|x\.com)\/[^\s|,;)]+/gi

/** Surname particles written in lower case: "Ludwig van Beethoven", "Maria de la Cruz". */
const PARTICLES = new Set(['de', 'da', 'das', 'do', 'dos', 'del', 'della', 'der', 'den', 'van', 'von', 'la', 'le', 'di', 'du', 'bin', 'binti', 'bint', 'al', 'el', 'y', 'e', 'ter', 'ten', 'zu', 'af', 'av'])
const NAME_WORD = /^(?:\p{Lu}[\p{L}\p{M}'’.-]*|\p{Lu}\.|[\p{Ll}]{1,2}['’]\p{Lu}[\p{L}\p{M}'’-]*)$/u
const CJK_NAME = /^[\p{Script=Han}\p{Script=Hangul}\p{Script=Hiragana}\p{Script=Katakana}]{2,5}$/u

/**
 * e.g. header ["José Álvarez", "Madrid, Spain | +34 612 345 678 | jose@example.com | linkedin.com/in/jalvarez"]
 *   -> {full_name: "José Álvarez", email, phone_number: "+34612345678", address: {city: "Madrid", country: "Spain"},
 *       links: ["https://linkedin.com/in/jalvarez"]}
 */
export function extractContact(header: string[], allLines: string[], nameFound?: string): PersonalInformation | undefined {
  const info: PersonalInformation = {}
  const name = nameFound ?? findName(header.length ? header : allLines.slice(0, 3))
  if (name) info.full_name = name
  const pool = [...header, ...allLines]
  const email = pool.map((l) => l.match(EMAIL_RE)?.[0]).find(Boolean)
  if (email) info.email = email.replace(/\.$/, '')
  const address = findAddress(header)
  if (address) info.address = address
  const phone = findPhone([...header, ...allLines.filter((l) => /\b(phone|mobile|cell|tel)\b/i.test(l))], regionOf(address, header))
  if (phone) info.phone_number = phone
  const links = findLinks(header, allLines)
  if (links.length) info.links = links
  return Object.keys(info).length ? info : undefined
}

/** The first header line that reads as a person's name, once contact details and labels are cut off. */
export function findName(lines: string[]): string | undefined {
  for (const raw of lines.slice(0, 6)) {
    let line = raw.replace(/^\s*(name|full name)\s*:\s*/i, '')
    const stop = line.search(new RegExp(`${EMAIL_RE.source}|https?:|www\\.|\\+?\\(?\\d{2,}|\\s[|•·]\\s|\\|`, 'u'))
    if (stop >= 0) line = line.slice(0, stop)
    const label = line.search(new RegExp(LABEL_RE.source, 'i'))
    if (label > 0) line = line.slice(0, label)
    // "Hà Nội, Vietnam": a place, however name-like its first part
    if (isPlace(line.trim()) || isAreaAfterComma(line)) continue
    line = line.split(/\s*[,–—]\s*|\s{3,}|\s-\s/)[0].trim().replace(/\s+/g, ' ')
    line = dropHeadingWord(line)
    if (isName(line)) return line
  }
  return undefined
}

/** "Manchester, United Kingdom", "Austin, TX": what follows the comma is a country or a state. */
const isAreaAfterComma = (line: string) => {
  const m = line.match(/^[^,]+,\s*([^,|]+)/)
  return !!m && (!!countryCode(m[1].trim()) || US_STATE_RE.test(m[1].trim()) || isRegion(m[1].trim()))
}

/**
 * A sidebar heading the PDF put on the name's row: "CONTACT Agnieszka Kowalczyk" -> "Agnieszka Kowalczyk".
 */
function dropHeadingWord(line: string): string {
  const words = line.split(/\s+/)
  for (const k of [2, 1]) {
    const lead = words.slice(0, k).join(' ')
    // in capitals, as a sidebar heading is, and leaving a name of two words or more
    if (words.length - k >= 2 && lead === lead.toUpperCase() && isHeadingWords(lead)) return words.slice(k).join(' ')
  }
  return line
}

/**
 * The name of a resume whose header holds none because a sidebar was read first: a line of its
 * own before the main sections, directly above a headline with a role word.
 * e.g. [..., "Yoruba (native), French (C1)", "Ifeoma Obi", "Senior Software Engineer", "SUMMARY"] -> line 2.
 * Returns the line's index, so the caller can take it out of the sidebar section it fell into.
 */
export function findStandaloneName(lines: string[]): number {
  for (let i = 0; i + 1 < lines.length; i++) {
    const line = lines[i].trim()
    const next = lines[i + 1].trim()
    if (!isName(line) || hasCompanyWord(line) || isPlace(line)) continue
    if (hasTitleWord(next) && next.split(/\s+/).length <= 6 && !/\d/.test(next) && !/[,|:]/.test(next)) return i
  }
  return -1
}

function isName(line: string): boolean {
  if (!line || line.length > 50 || /\d/.test(line)) return false
  if (CJK_NAME.test(line.replace(/\s/g, ''))) return true
  const words = line.split(/\s+/)
  if (words.length < 2 || words.length > 5) return false
  if (!words.every((w) => NAME_WORD.test(w) || PARTICLES.has(w.toLowerCase()))) return false
  if (!NAME_WORD.test(words[0]) || !NAME_WORD.test(words[words.length - 1])) return false
  if (headingKind(foldHeading(line)) || isHeadingWords(line) || isPlace(line) || countryCode(line)) return false
  // "Senior Software Engineer", "Curriculum Vitae" are not names
  if (words.filter((w) => hasTitleWord(w)).length >= Math.ceil(words.length / 2)) return false
  return !/^(curriculum vitae|resume|résumé|cv)$/i.test(line)
}

/** The region to read numbers without a country code in: the written country, or a US state. */
function regionOf(address: Address | undefined, header: string[]): CountryCode | undefined {
  if (address?.country) {
    const cc = countryCode(address.country)
    if (cc) return cc as CountryCode
  }
  if (address?.state && US_STATE_RE.test(address.state)) return 'US'
  for (const l of header) for (const part of l.split(/\s*[|•·,]\s*/)) {
    const cc = part.length > 3 ? countryCode(part) : undefined
    if (cc) return cc as CountryCode
  }
  return undefined
}

/**
 * The first phone number: E.164 when libphonenumber-js finds it possible (an international
 * prefix, or the region guessed from the address), otherwise as written.
 * e.g. "(+82) 10-2468-1357" -> "+821024681357"; "(415) 555-0132" with "San Francisco, CA" -> "+14155550132"
 */
export function findPhone(lines: string[], region: CountryCode | undefined): string | undefined {
  for (const line of lines) {
    const text = line.replace(new RegExp(EMAIL_RE.source, 'gu'), ' ').replace(/https?:\S+/g, ' ')
    for (const m of text.matchAll(PHONE_RE)) {
      const written = m[0].trim()
      const digits = written.replace(/\D/g, '')
      if (digits.length < 7 || digits.length > 15) continue
      // a year range ("2019 - 2021") or a zip code is not a phone number
      if (/^(19|20)\d\d\s*[-–]\s*(19|20)\d\d$/.test(written) || /^\d{5}(-\d{4})?$/.test(written)) continue
      const intl = written.replace(/^\(\s*(\+?\d{1,3})\s*\)/, '$1')
      const n = parsePhoneNumberFromString(intl.startsWith('+') ? intl : written, intl.startsWith('+') ? undefined : region)
      if (n && n.isPossible()) return n.number
      return written
    }
  }
  return undefined
}

/**
 * Address parts from a header segment such as "San Francisco, CA 94105", "10115 Berlin, Germany",
 * "12 Rue de Rivoli, 75001 Paris, France" or "Gangnam-gu, Seoul, Republic of Korea".
 * Only what is written is returned: no country is added to a US city.
 */
export function findAddress(header: string[]): Address | undefined {
  for (const line of header) {
    const segments = line.replace(new RegExp(EMAIL_RE.source, 'gu'), ' | ').split(/\s*[|•·●]\s*|\s{3,}|\t/)
    for (let seg of segments) {
      seg = seg.replace(/^(address|location|based in|home)\s*:?\s*/i, '').replace(/[^\p{L}\p{M}\d,.'’ #/-]/gu, ' ').replace(/\s+/g, ' ').trim()
      if (!seg.includes(',') || /@|https?:|www\./.test(seg) || (seg.match(/\d/g)?.length ?? 0) > 12) continue
      const a = readAddress(seg)
      if (a) return a
    }
  }
  return undefined
}

function readAddress(seg: string): Address | undefined {
  const parts = seg.split(/\s*,\s*/).filter(Boolean)
  const a: Address = {}
  const us = parts[parts.length - 1].match(/^([A-Z]{2})(?:\s+(\d{5}(?:-\d{4})?))?$/)
  let rest = parts
  if (us && US_STATE_RE.test(us[1]) && parts.length >= 2) {
    a.state = us[1]
    if (us[2]) a.zip_code = us[2]
    rest = parts.slice(0, -1)
  } else {
    const last = parts[parts.length - 1]
    const cc = countryCode(last.replace(/\s*\d{4,6}$/, ''))
    if (cc && last.length > 2) {
      a.country = last.replace(/\s*\d{4,6}$/, '')
      rest = parts.slice(0, -1)
    }
    if (rest.length >= 2 && isRegion(rest[rest.length - 1]) && !isCity(rest[rest.length - 1])) {
      a.state = rest[rest.length - 1]
      rest = rest.slice(0, -1)
    }
  }
  if (!rest.length) return a.country ? a : undefined
  // the city is the last remaining part, less a postal code written before or after it
  let cityPart = rest[rest.length - 1]
  const zip = cityPart.match(/^(\d{4,6}|[A-Z]\d[A-Z] ?\d[A-Z]\d)\s+(.+)$|^(.+?)\s+(\d{4,6}|[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2})$/)
  if (zip) {
    a.zip_code = a.zip_code ?? (zip[1] ?? zip[4])
    cityPart = zip[2] ?? zip[3]
  }
  if (!isCity(cityPart) && !(a.state && /^\p{Lu}[\p{L}. '-]+$/u.test(cityPart))) return a.country && !a.state ? a : undefined
  if (/\d/.test(cityPart) || hasTitleWord(cityPart)) return undefined
  a.city = cityPart
  const street = rest.slice(0, -1)
  if (street.length && /\d/.test(street[0])) a.street = street.join(', ')
  return a
}

/** Profile and portfolio links anywhere in the text, plus websites in the header, as https:// URLs. */
export function findLinks(header: string[], allLines: string[]): string[] {
  const out: string[] = []
  const add = (u: string) => {
    const url = normalizeUrl(u)
    if (url && !out.some((o) => o.toLowerCase() === url.toLowerCase())) out.push(url)
  }
  for (const line of allLines) for (const m of line.matchAll(PROFILE_RE)) add(m[0])
  for (const line of header) {
    const text = line.replace(new RegExp(EMAIL_RE.source, 'gu'), ' ')
    for (const m of text.matchAll(DOMAIN_RE)) if (!/^\d/.test(m[0])) add(m[0])
  }
  return out
}

/** "www.Example.com/me/" -> "https://www.example.com/me"; "http://" becomes "https://". */
export function normalizeUrl(u: string): string | undefined {
  const s = u.trim().replace(/[.,;:)\]]+$/, '')
  const m = s.match(/^(?:https?:\/\/)?([^/\s]+)(\/.*)?$/i)
  if (!m || !m[1].includes('.')) return undefined
  const path = (m[2] ?? '').replace(/\/+$/, '')
  return `https://${m[1].toLowerCase()}${path}`
}
