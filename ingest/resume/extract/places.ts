/**
 * Places written in resumes: "Mountain View, CA", "Berlin, Germany", "Seoul, S.Korea", "Remote".
 * Checked against the offline gazetteer (seeds/places) so a company name is not taken for a town.
 */
import { foldPlace, gazetteer } from '../../../seeds/places/gazetteer.ts'

/** Words of an organisation's name: "Cairo University, Cairo" is a school and a town, not one place. */
const ORG_RE = /(?<!\p{L})(\p{L}*univ\p{L}*|college|institut\p{L}*|school|academy|inc|ltd|llc|gmbh|corp|company|bank|hospital|group|labs?|systems|s\.a|hotel|caf[ée])(?!\p{L})/iu
export const isCity = (s: string) => {
  const k = foldPlace(s)
  return k.length > 1 && (gazetteer().cities.has(k) || gazetteer().cityAliases.has(k))
}
export const countryCode = (s: string): string | undefined => {
  const k = foldPlace(s).replace(/^the /, '')
  if (!k || k.length < 2) return undefined
  return gazetteer().countryByKey.get(k) ?? COUNTRY_EXTRA[k]
}
/** Short forms the country table lacks. */
const COUNTRY_EXTRA: Record<string, string> = {
  's korea': 'KR', 'republic of korea': 'KR', 'korea': 'KR', 'u s': 'US', 'u s a': 'US', 'united states of america': 'US',
  'england': 'GB', 'scotland': 'GB', 'wales': 'GB', 'great britain': 'GB', 'uae': 'AE', 'the netherlands': 'NL', 'holland': 'NL',
}
export const isRegion = (s: string) => {
  const k = foldPlace(s)
  return k.length > 1 && gazetteer().regionsByKey.has(k)
}
export const US_STATE_RE = /^(A[LKZR]|C[AOT]|D[EC]|FL|GA|HI|I[DLNA]|K[SY]|LA|M[EDAINSOT]|N[EVHJMYCD]|O[HKR]|PA|RI|S[CD]|T[NX]|UT|V[TA]|W[AVIY])$/

/** Whether a comma-separated part is a region or country after a city ("CA", "Germany", "S.Korea"). */
const isArea = (s: string) => US_STATE_RE.test(s) || /^[A-Z]{2,3}$/.test(s) || !!countryCode(s) || isRegion(s)

const REMOTE_RE = /^(remote|hybrid|on-?site|worldwide|anywhere)(\s*\(.*\))?$|^remote\s*[-–,(/]/i

/** Whether the whole text is a place. e.g. "Atlanta, GA", "Pilani, India", "London", "Remote". */
export function isPlace(text: string): boolean {
  const t = text.trim().replace(/[()]/g, '')
  if (!t || /\d{3,}/.test(t.replace(/\b\d{5}(-\d{4})?\b/, '')) || t.length > 60) return false
  if (REMOTE_RE.test(t)) return true
  const parts = t.split(/\s*,\s*/).filter(Boolean)
  if (parts.length === 1) return isCity(t) && /^\p{Lu}/u.test(t) && t.split(/\s+/).length <= 3 || (!!countryCode(t) && t.length > 3)
  if (parts.length > 3) return false
  const [city, ...rest] = parts
  if (ORG_RE.test(city)) return false
  return /^\p{Lu}/u.test(city) && city.split(/\s+/).length <= 4 && rest.every((r) => isArea(r.replace(/\s*\d{5}(-\d{4})?$/, '')))
}

/**
 * A place at the end of a line written without a separator, and the line before it.
 * e.g. "Google Mountain View, CA" -> {place: "Mountain View, CA", rest: "Google"};
 * "Birla Institute of Technology and Science Pilani, India" -> "Pilani, India".
 */
export function trailingPlace(line: string): { place: string; rest: string } | null {
  // "Universidade de Lisboa, Lisboa", "Arup, Lisboa, Portugal": an organisation, then its town after a comma
  const org = line.match(/^(.+?),\s*(\p{Lu}[\p{L}.'’ -]+(?:,\s*[\p{L}. ]{2,30})?)$/u)
  if (org && isPlace(org[2]) && (org[2].includes(',') || (ORG_RE.test(org[1]) && !isPlace(org[1])))) {
    return { place: org[2].trim(), rest: org[1].trim() }
  }
  const m = line.match(/^(.*?)[\s,]*\(?((?:[\p{L}.'’-]+\s+){0,3}[\p{L}.'’-]+,\s*[\p{L}. ]{2,30}?)\)?\s*$/u)
  if (m) {
    // the longest run of the last words before the comma that is a town
    const comma = m[2].indexOf(',')
    const before = m[2].slice(0, comma).split(/\s+/)
    const area = m[2].slice(comma + 1).trim()
    if (isArea(area)) {
      for (let k = Math.min(before.length, 4); k >= 1; k--) {
        const city = before.slice(before.length - k).join(' ')
        if (/^\p{Lu}/u.test(city) && isCity(city)) {
          const rest = line.slice(0, line.lastIndexOf(city)).replace(/[\s,(]+$/, '')
          return { place: `${city}, ${area}`, rest }
        }
      }
      // a town the gazetteer lacks, alone on its line: "Smallville, KS"
      if (!m[1] && before.length <= 2 && /^\p{Lu}/u.test(before[0]) && !ORG_RE.test(m[2])) return { place: m[2].trim(), rest: '' }
    }
  }
  const r = line.match(/^(.*?)[\s,(]+(remote|hybrid)\)?$/i)
  if (r && r[1]) return { place: r[2], rest: r[1].trim() }
  return null
}
