/**
 * Places written in resumes: "Mountain View, CA", "Berlin, Germany", "Seoul, S.Korea", "Remote".
 * Checked against the offline gazetteer (seeds/places) so a company name is not taken for a town.
 */
import { foldPlace, gazetteer } from '../../../seeds/places/gazetteer.ts'

/** Words of an organisation's name: "Cairo University, Cairo" is a school and a town, not one place. */
const ORG_RE = /(?<!\p{L})(\p{L}*univ\p{L}*|college|institut\p{L}*|school|academy|inc|ltd|llc|gmbh|corp|company|bank|hospital|group|labs?|systems|s\.a|hotel|caf[ée])(?!\p{L})/iu
/** Legal forms and other words that end a firm's name, never a town's. */
const LEGAL_RE = /^(inc|llc|ltd|gmbh|corp|co|plc|ag|sa|spa|srl|bv|nv|oy|ab|pty|pvt|llp|lp|limited|group|partners|associates|solutions|services|systems|technologies|consulting|holdings)\.?$/i
/**
 * A one-word town after a name must be a real town, not a hamlet the gazetteer happens to hold
 * ("Line", CZ, 2,311 people, in "Maersk Line") nor an organisation's word ("University", US).
 * Longer names ("College Station") are specific enough as they are.
 */
function plausibleTown(city: string, words: number): boolean {
  if (words > 1) return true
  if (ORG_RE.test(city)) return false
  const known = gazetteer().cities.get(foldPlace(city))
  return !known || known[0].population >= 5000 || gazetteer().cityAliases.has(foldPlace(city))
}

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

/**
 * The placeholders resume sites put where a town was, when they publish a resume anonymized:
 * "City , State", "City , State , USA", "City", "State". Matched by their words, so that the
 * builder's spaced comma or a plain one both read as a place.
 */
const PLACEHOLDER_RE = /^(?:City(?:\s*,\s*(?:State|Province|Region|Country))?|State)(?:\s*,\s*(?:[A-Z]{2,3}|\p{Lu}[\p{L} .]{2,30}))?$/u
const PLACEHOLDER_END_RE = /^(.*?)[\s,|–—-]*\b(City\s*,\s*(?:State|Province|Region|Country)(?:\s*,\s*(?:[A-Z]{2,3}|\p{Lu}[\p{L}.]{2,30}))?)$/u
export const isPlaceholderPlace = (s: string) => PLACEHOLDER_RE.test(s.trim())

const PLACEHOLDER_IN_RE = /(?:^|[\s|–—-]+)(City\s*,\s*(?:State|Province|Region|Country)(?:\s*,\s*(?:[A-Z]{2,3}|\p{Lu}\p{Ll}+))?)(?=$|[\s|–—-]+)/u

/**
 * A placeholder inside a line stands between fields: "Company Name City , State Sr Retail Pricing Manager"
 * -> "Company Name | City , State | Sr Retail Pricing Manager".
 */
export function splitAtPlaceholder(line: string): string {
  return line.replace(PLACEHOLDER_IN_RE, (_m, p: string) => ` | ${p} | `).replace(/^\s*\|\s*|\s*\|\s*$/g, '').trim()
}

/** "Maple Hollow High School - City , State" -> the placeholder and what comes before it. */
function placeholder(line: string): { place: string; rest: string } | null {
  const m = line.trim().match(PLACEHOLDER_END_RE)
  return m ? { place: m[2], rest: m[1].trim() } : null
}

/** Whether the whole text is a place. e.g. "Atlanta, GA", "Mysore, India", "London", "Remote". */
export function isPlace(text: string): boolean {
  if (isPlaceholderPlace(text)) return true
  // "Milano (Italy)" is written for "Milano, Italy"
  const t = text.trim().replace(/^([^(),]+?)\s*\(([^()]+)\)$/, '$1, $2').replace(/[()]/g, '')
  if (!t || /\d{3,}/.test(t.replace(/\b\d{5}(-\d{4})?\b/, '')) || t.length > 60) return false
  if (REMOTE_RE.test(t)) return true
  const parts = t.split(/\s*,\s*/).filter(Boolean)
  // "University", "Hospital" are towns somewhere too, never on a resume
  if (parts.length === 1) return isCity(t) && /^\p{Lu}/u.test(t) && t.split(/\s+/).length <= 3 && !ORG_RE.test(t) || (!!countryCode(t) && t.length > 3)
  if (parts.length > 3) return false
  const [city, ...rest] = parts
  if (ORG_RE.test(city)) return false
  // any two or three capitals pass as an area ("ON", "NSW"), so then the town must be a known one:
  // "Eastern Signals Brigade, MOD" is an employer
  const known = (r: string) => US_STATE_RE.test(r) || !!countryCode(r) || isRegion(r)
  if (!isCity(city) && !rest.every((r) => known(r.replace(/\s*\d{5}(-\d{4})?$/, '')))) return false
  return /^\p{Lu}/u.test(city) && city.split(/\s+/).length <= 4 && rest.every((r) => isArea(r.replace(/\s*\d{5}(-\d{4})?$/, '')))
}

/**
 * A place at the end of a line written without a separator, and the line before it.
 * e.g. "Brightwave Mountain View, CA" -> {place: "Mountain View, CA", rest: "Brightwave"};
 * "Kestrel Institute of Technology and Science Mysore, India" -> "Mysore, India".
 */
export function trailingPlace(line: string, towns: ReadonlySet<string> = NO_TOWNS): { place: string; rest: string } | null {
  return placeholder(line) ?? orgThenTown(line, true) ?? townAndArea(line, towns) ?? orgThenTown(line, false) ?? remote(line)
}

const NO_TOWNS: ReadonlySet<string> = new Set()

/**
 * The towns a resume names in its header ("Hà Nội, Vietnam"), folded, so the same town written
 * after an employer is found even when the gazetteer spells it otherwise ("Hanoi").
 */
export function headerTowns(header: string[]): Set<string> {
  const towns = new Set<string>()
  for (const line of header) {
    for (const seg of line.split(/\s*[|•·]\s*|\s{3,}|\t/)) {
      const m = seg.replace(/^(address|location|based in)\s*:?\s*/i, '').match(/^(\p{Lu}[\p{L}\p{M}.'’-]*(?:\s+\p{Lu}[\p{L}\p{M}.'’-]*){0,2}),\s*([^,]{2,30})$/u)
      if (m && (US_STATE_RE.test(m[2].trim()) || countryCode(m[2].trim())) && !ORG_RE.test(m[1])) towns.add(foldPlace(m[1]))
    }
  }
  return towns
}

/** "Brightwave Mountain View, CA" -> "Mountain View, CA": the longest run of last words before the comma that is a town. */
function townAndArea(line: string, towns: ReadonlySet<string>): { place: string; rest: string } | null {
  // the area may be two parts: "Austin, TX, USA"
  const m = line.match(/^(.*?)[\s,]*\(?((?:[\p{L}.'’-]+\s+){0,3}[\p{L}.'’-]+,\s*[\p{L}. ]{2,30}?(?:,\s*[\p{L}. ]{2,30}?)?)\)?\s*$/u)
  if (!m) return null
  const comma = m[2].indexOf(',')
  const before = m[2].slice(0, comma).split(/\s+/)
  const area = m[2].slice(comma + 1).trim()
  if (!area.split(/\s*,\s*/).every(isArea)) return null
  for (let k = Math.min(before.length, 4); k >= 1; k--) {
    const city = before.slice(before.length - k).join(' ')
    if (/^\p{Lu}/u.test(city) && (towns.has(foldPlace(city)) || (isCity(city) && plausibleTown(city, k)))) {
      const rest = line.slice(0, line.lastIndexOf(`${city},`)).replace(/[\s,(]+$/, '')
      // "University of Lagos, Lagos", "ETH Zürich, Zürich": the town is the name's, and written again as the place
      if (rest && !/,\s*$/.test(line.slice(0, line.lastIndexOf(`${city},`))) && (foldPlace(city) === foldPlace(area) || /\s(of|de|di|du|da|do|at|in|and|&)$/i.test(rest))) {
        return { place: area, rest: line.slice(0, line.lastIndexOf(',')).trim() }
      }
      return { place: `${city}, ${area}`, rest }
    }
  }
  // a town the gazetteer lacks, alone on its line: "Smallville, KS"
  if (!m[1] && before.length <= 2 && /^\p{Lu}/u.test(before[0]) && !ORG_RE.test(m[2])) return { place: m[2].trim(), rest: '' }
  // after a name, with a country or US state that leaves no doubt, its last word: "Vantage Office Supplies Warszawa, Poland"
  const town = before[before.length - 1]
  const sure = US_STATE_RE.test(area) || (!!countryCode(area) && area.length > 3)
  const particle = /^(de|der|del|da|do|di|du|la|le|von|van|am|an|on)$/i.test(before[before.length - 2] ?? '')
  if (sure && before.length >= 2 && !particle && /^\p{Lu}\p{Ll}/u.test(town) && !ORG_RE.test(town) && !LEGAL_RE.test(town)) {
    return { place: `${town}, ${area}`, rest: line.slice(0, line.lastIndexOf(`${town},`)).replace(/[\s,(]+$/, '') }
  }
  return null
}

/**
 * "Arup, Lisboa, Portugal" (withArea), "Universidade de Lisboa, Lisboa": an organisation, then its
 * town after a comma. The bare town is tried after townAndArea, so "Duri Labs Corp. Seoul, S.Korea"
 * keeps its town with its country.
 */
function orgThenTown(line: string, withArea: boolean): { place: string; rest: string } | null {
  const org = line.match(/^(.+?),\s*(\p{Lu}[\p{L}.'’ -]+(?:,\s*[\p{L}. ]{2,30}|\s*\([\p{L}. ]{2,30}\))?)$/u)
  if (!org || /[,(]/.test(org[2]) !== withArea) return null
  // "Café Lumière Austin, TX, USA": what follows the first comma is only the area, the town is before it
  const first = org[2].split(',')[0].trim()
  if (withArea && (US_STATE_RE.test(first) || /^[A-Z]{2,3}$/.test(first))) return null
  if (isPlace(org[2]) && (withArea || (ORG_RE.test(org[1]) && !isPlace(org[1])))) {
    return { place: org[2].trim(), rest: org[1].trim() }
  }
  return null
}

function remote(line: string): { place: string; rest: string } | null {
  const r = line.match(/^(.*?)[\s,(]+(remote|hybrid)\)?$/i)
  return r && r[1] ? { place: r[2], rest: r[1].trim() } : null
}
