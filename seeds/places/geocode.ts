/**
 * Geocoding against the offline gazetteer (./gazetteer.ts). Two entry points, shared by ingest and
 * by the search code that resolves `geo_locations` filters:
 * - resolvePlace({city, region, country}) for structured input;
 * - parseLocationText(text) for the free text job boards put in location fields.
 *
 * "Remote", "Hybrid", "Anywhere" are work arrangements, never places: parseLocationText reports them
 * as flags and turns what follows them ("Remote - US") into a country scope (remoteCountries).
 */
import { gazetteer, extentsOf, foldPlace, type BBox, type City, type Region } from './gazetteer.ts'

export type { City } from './gazetteer.ts'

/** A place as postings store it: names from the gazetteer, and its coordinates when known. */
export type Location = {
  city: string | null
  region: string | null
  country: string | null
  lat: number | null
  lng: number | null
}

export type ResolvedPlace = Location & { bbox?: BBox | null }

export type PlaceQuery = { city?: string | null; region?: string | null; country?: string | null }

/** ISO2 code for a country name, alias or code. e.g. "UK" -> "GB", "Deutschland" -> "DE" */
export function countryCode(text: string): string | null {
  const key = foldPlace(text)
  const map = gazetteer().countryByKey
  return map.get(key) ?? (key.startsWith('the ') ? map.get(key.slice(4)) ?? null : null)
}

/** English name for an ISO2 code. e.g. "GB" -> "United Kingdom" */
export function countryName(cc: string): string | null {
  return gazetteer().countryName.get(cc) ?? null
}

/** Regions matching a name or abbreviation, optionally inside one country. e.g. "TX" -> Texas */
export function findRegions(text: string, cc?: string | null): Region[] {
  const list = gazetteer().regionsByKey.get(foldPlace(text)) ?? []
  return cc ? list.filter((r) => r.cc === cc) : list
}

/** Cities with this name (aliases applied), most populous first. e.g. "NYC" -> New York City */
export function findCities(text: string, cc?: string | null, regions?: Region[]): City[] {
  const g = gazetteer()
  const key = foldPlace(text)
  let list = g.cities.get(key) ?? []
  const alias = g.cityAliases.get(key)
  if (alias && (!cc || alias.cc === cc)) {
    const target = (g.cities.get(foldPlace(alias.name)) ?? []).filter((c) => c.cc === alias.cc)
    list = [...target, ...list]
  }
  if (cc) list = list.filter((c) => c.cc === cc)
  if (regions && regions.length) list = list.filter((c) => regions.some((r) => r.cc === c.cc && r.admin === c.admin))
  return list
}

/** Cities by 1-degree cell ("lat:lng"), built on the first nearestCity call. */
let grid: Map<string, City[]> | null = null

function cityGrid(): Map<string, City[]> {
  if (grid) return grid
  grid = new Map()
  for (const c of gazetteer().allCities) {
    const k = `${Math.floor(c.lat)}:${Math.floor(c.lng)}`
    const cell = grid.get(k)
    if (cell) cell.push(c)
    else grid.set(k, [c])
  }
  return grid
}

/** Great-circle distance in km. */
export function distanceKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const r = Math.PI / 180
  const a = Math.sin(((lat2 - lat1) * r) / 2) ** 2 + Math.cos(lat1 * r) * Math.cos(lat2 * r) * Math.sin(((lng2 - lng1) * r) / 2) ** 2
  return 12_742 * Math.asin(Math.min(1, Math.sqrt(a)))
}

/**
 * The gazetteer cities within maxKm (at most 100) of a point, in country cc when given, nearest
 * first, with their distance. For a site known by its coordinates but named by its premises
 * ("Royal Surrey Hospital" at 51.24, -0.61 is 2.5 km from Guildford).
 */
export function citiesNear(lat: number, lng: number, { cc = null, maxKm = 25 }: { cc?: string | null; maxKm?: number } = {}): { city: City; km: number }[] {
  const g = cityGrid()
  const reach = Math.min(maxKm, 100)
  const spanLat = reach / 111
  const spanLng = reach / (111 * Math.max(Math.cos((lat * Math.PI) / 180), 0.05))
  const dLat = Math.ceil(spanLat)
  const dLng = Math.ceil(spanLng)
  const out: { city: City; km: number }[] = []
  for (let y = Math.floor(lat) - dLat; y <= Math.floor(lat) + dLat; y++) {
    for (let x = Math.floor(lng) - dLng; x <= Math.floor(lng) + dLng; x++) {
      for (const c of g.get(`${y}:${((((x + 180) % 360) + 360) % 360) - 180}`) ?? []) {
        if (cc && c.cc !== cc) continue
        // the box around the circle first: no trigonometry for the cities far outside it
        if (Math.abs(c.lat - lat) > spanLat || (Math.abs(c.lng - lng) > spanLng && Math.abs(c.lng - lng) < 360 - spanLng)) continue
        const km = distanceKm(lat, lng, c.lat, c.lng)
        if (km <= reach) out.push({ city: c, km })
      }
    }
  }
  return out.sort((a, b) => a.km - b.km)
}

/** A gazetteer city as a place, with its region and country names. */
export function placeOfCity(c: City): ResolvedPlace {
  return fromCity(c)
}

function regionName(cc: string, admin: string): string | null {
  return gazetteer().regionByCode.get(`${cc}.${admin}`)?.name ?? null
}

// Population of the city a place was resolved to, for ranking competing readings of a text.
const populations = new WeakMap<ResolvedPlace, number>()

function fromCity(c: City): ResolvedPlace {
  const place = { city: c.name, region: regionName(c.cc, c.admin), country: countryName(c.cc), lat: c.lat, lng: c.lng, bbox: null }
  populations.set(place, c.population)
  return place
}

/** The region most people mean when a name exists in several countries: the most populous one. */
function pickRegion(list: Region[]): Region {
  if (list.length === 1) return list[0]
  const pop = extentsOf().population
  return [...list].sort((a, b) => (pop.get(`${b.cc}.${b.admin}`) ?? 0) - (pop.get(`${a.cc}.${a.admin}`) ?? 0))[0]
}

/** Tidies an unknown city name for display: collapses spaces, trims separators. */
function cleanName(s: string): string {
  return s.replace(/\s+/g, ' ').replace(/^[\s,.\-–|:]+|[\s,.\-–|:]+$/g, '')
}

/**
 * Resolves structured place input to gazetteer names and coordinates.
 * - {city: "Paris"} -> Paris, Île-de-France, France (most populous "Paris")
 * - {city: "Paris", region: "TX"} -> Paris, Texas, United States
 * - {country: "Germany"} / {region: "Bavaria"} -> no city, null coordinates, bbox of its cities
 * - {city: "Smallville", country: "US"} -> city kept as text, country resolved, null coordinates
 * Returns null when nothing is recognisable (no city text and no known region or country).
 */
export function resolvePlace(q: PlaceQuery): ResolvedPlace | null {
  const cityText = q.city ? cleanName(String(q.city)) : ''
  const regionText = q.region ? cleanName(String(q.region)) : ''
  const countryText = q.country ? cleanName(String(q.country)) : ''

  const cc = countryText ? countryCode(countryText) : null
  const regions = regionText ? findRegions(regionText, cc) : []

  if (cityText) {
    let found = findCities(cityText, cc, regions)
    // "Washington, DC": the region belongs to the name itself, which the alias table knows.
    if (!found.length && regionText) found = findCities(`${cityText} ${regionText}`, cc)
    if (found.length) return fromCity(found[0])
    const region = regions.length ? pickRegion(regions) : null
    const countryCc = cc ?? region?.cc ?? null
    return {
      city: cityText,
      region: region ? region.name : null,
      country: countryCc ? countryName(countryCc) : null,
      lat: null,
      lng: null,
      bbox: null,
    }
  }
  if (regions.length) {
    const r = pickRegion(regions)
    return { city: null, region: r.name, country: countryName(r.cc), lat: null, lng: null, bbox: extentsOf().bbox.get(`${r.cc}.${r.admin}`) ?? null }
  }
  if (cc) return { city: null, region: null, country: countryName(cc), lat: null, lng: null, bbox: extentsOf().bbox.get(cc) ?? null }
  return null
}

export type ParsedLocationText = {
  locations: Location[]
  remote: boolean
  hybrid: boolean
  onsite: boolean
  remoteCountries: string[] // English country names, the scope of a remote posting
}

// Work-arrangement words. They are removed from the text before geocoding what remains.
const REMOTE_RE = /\b(?:fully[- ]remote|100\s?% remote|remote(?:[- ]first|[- ]friendly|[- ]eligible| ok| only)?|work(?:ing)? from home|wfh|tele-?commut(?:e|ing)|tele-?work(?:ing)?|home[- ]based|home[- ]?working|anywhere|worldwide|globally|global|distributed|international)\b/gi
const HYBRID_RE = /\bhybrid(?:[- ]remote)?\b/gi
const ONSITE_RE = /\b(?:on[- ]?site|in[- ]office|in[- ]person|office[- ]based)\b/gi
// Scope words that mean "no country restriction".
const WORLDWIDE = new Set(['anywhere', 'worldwide', 'global', 'globally', 'international'])

/**
 * Splits a location field into alternatives on ";", "|", newlines, " / ", " or ", but not inside
 * parentheses. e.g. "Berlin, Germany / Remote (US or Canada)" -> ["Berlin, Germany", "Remote (US or Canada)"]
 */
export function splitAlternatives(text: string): string[] {
  const parts: string[] = []
  let depth = 0
  let start = 0
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]
    if (ch === '(' || ch === '[') depth++
    else if ((ch === ')' || ch === ']') && depth > 0) depth--
    else if (depth === 0) {
      let sep = 0
      if (ch === ';' || ch === '|' || ch === '\n' || ch === '•') sep = 1
      else if (ch === ' ' && text[i + 1] === '/' && text[i + 2] === ' ') sep = 3
      else if (ch === ' ' && (text[i + 1] === 'o' || text[i + 1] === 'O') && (text[i + 2] === 'r' || text[i + 2] === 'R') && text[i + 3] === ' ') sep = 4
      if (sep) {
        parts.push(text.slice(start, i))
        start = i + sep
        i += sep - 1
      }
    }
  }
  parts.push(text.slice(start))
  return parts.map((p) => p.trim()).filter(Boolean)
}

type Interpreted = { places: ResolvedPlace[]; scope: string[] | null; worldwide: boolean }

/**
 * Removes postcodes and the noise around a place: "Austin, TX 78701 (HQ)" -> "Austin, TX";
 * "Arlesey, SG15 6SN" -> "Arlesey" (UK postcodes), "Ottawa, ON K1A 0B1" -> "Ottawa, ON" (Canadian)
 */
function stripNoise(s: string): string {
  return s
    .replace(/\b\d{4,6}(?:-\d{4})?\b/g, ' ')
    .replace(/\b[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2}\b|\b[A-Z]\d[A-Z]\s?\d[A-Z]\d\b/g, ' ')
    .replace(/\((?:hq|headquarters|main office|office)\)/gi, ' ')
    .replace(/[()[\]]/g, ',')
    .replace(/^\s*(?:in|from|within|based in|located in|near)\s+/i, '')
    .replace(/\s+(?:only|area|metro(?:politan)?(?: area)?|region)\s*$/i, '')
    .replace(/^\s*greater\s+/i, '')
    // words of a job ad's location column that name no place: "Full-time, US"
    .replace(/\b(?:full|part)[- ]?time\b|\b(?:permanent|temporary|fixed[- ]term|internship|multiple locations|various locations|nationwide)\b/gi, ' ')
}

/**
 * Interprets one alternative with no work-arrangement words left, e.g.
 * "San Francisco, CA" | "New York, NY, USA" | "London, UK" | "Germany" | "US, Canada" | "EMEA".
 * Comma segments are read right to left as country, region, city; when the last segment could be a
 * region or a country ("CA" is California and Canada), the reading that finds the city wins.
 */
export function interpretPlace(text: string): Interpreted {
  const g = gazetteer()
  const segs = stripNoise(text)
    .split(',')
    .map((s) => cleanName(s))
    .filter((s) => s && !/^\d+$/.test(s))
  if (!segs.length) return { places: [], scope: null, worldwide: false }

  const whole = foldPlace(segs.join(' '))
  if (WORLDWIDE.has(whole)) return { places: [], scope: null, worldwide: true }
  const scope = g.scopes.get(whole)
  if (scope) return { places: [], scope, worldwide: false }

  if (segs.length === 1) return { places: single(segs[0]), scope: null, worldwide: false }

  // "US, Canada" / "Germany, Austria, Switzerland": a list of countries.
  const codes = segs.map((s) => (findRegions(s).length && !isCountryish(s) ? null : countryCode(s)))
  if (codes.every((c) => c)) return { places: codes.map((c) => resolvePlace({ country: c! })!), scope: null, worldwide: false }

  const last = segs[segs.length - 1]
  const lastCc = countryCode(last)
  const lastRegions = findRegions(last)
  const candidates: ResolvedPlace[] = []
  if (lastCc) {
    const rest = segs.slice(0, -1)
    if (rest.length >= 2) candidates.push(resolvePlace({ city: rest[rest.length - 2], region: rest[rest.length - 1], country: lastCc })!)
    else {
      const asRegion = findRegions(rest[0], lastCc)
      const asCity = findCities(rest[0], lastCc)
      if (asRegion.length && !(asCity.length && asCity[0].population >= 500_000)) candidates.push(resolvePlace({ region: rest[0], country: lastCc })!)
      else candidates.push(resolvePlace({ city: rest[0], country: lastCc })!)
    }
  }
  if (lastRegions.length) candidates.push(resolvePlace({ city: segs[segs.length - 2], region: last })!)
  const hits = candidates.filter((p) => p.lat !== null || (p.city === null && p.region !== null))
  if (hits.length) {
    hits.sort((a, b) => populationOf(b) - populationOf(a))
    return { places: [hits[0]], scope: null, worldwide: false }
  }
  // "Berlin, Munich, Hamburg": several cities, when every segment is a known city.
  const each = segs.map((s) => findCities(s)[0])
  if (each.every((c) => c)) return { places: each.map(fromCity), scope: null, worldwide: false }
  // A premises before its town: "Moseley Hall Hospital, Birmingham", "Carew House, Bodmin, UK";
  // not when the text names the region of a town the gazetteer lacks ("Halle, Saxony-Anhalt, Germany").
  const regionNamed = candidates.some((c) => c.city !== null && c.region !== null)
  const town = regionNamed ? null : townSegment(segs, lastCc, lastCc || lastRegions.length ? segs.length - 1 : segs.length)
  if (town) return { places: [fromCity(town)], scope: null, worldwide: false }
  if (candidates.length) {
    // Neither reading knows the city. "Annapolis Junction, MD" and "Quantico, VA" are US places
    // written the way US postings write them, not towns in Moldova and the Vatican: a two-letter
    // code that is also a region abbreviation is read as the region.
    const regional = /^[A-Z]{2}$/.test(last) ? candidates.find((c) => c.region !== null) : undefined
    return { places: [regional ?? candidates[0]], scope: null, worldwide: false }
  }
  // Unknown last segment: keep the first as city text so no information is lost.
  return { places: [resolvePlace({ city: segs[0] })!], scope: null, worldwide: false }
}

/** The last of segs[0..end) that is a known city (in country cc when given). */
function townSegment(segs: string[], cc: string | null, end: number): City | null {
  for (let i = end - 1; i >= 0; i--) {
    const c = findCities(segs[i], cc)[0]
    if (c) return c
  }
  return null
}

function isCountryish(s: string): boolean {
  const cc = countryCode(s)
  return cc !== null && foldPlace(s) !== cc.toLowerCase() // full names, not 2-letter codes
}

function populationOf(p: ResolvedPlace): number {
  return populations.get(p) ?? 0
}

/**
 * One segment: "Germany" -> country; "Texas" -> region; "Paris" -> city. Order: alias table (so
 * "NYC", "DC", "SF" are cities), countries (with the city too for city-states like Singapore), then a
 * big city (>= 500k, so "Berlin" beats the region "State of Berlin") or a city of >= 100k inside its
 * namesake region ("Zurich"), else a region ("Washington" is the state), then any city.
 * "Austin TX" without a comma is split at a trailing region abbreviation.
 */
function single(seg: string): ResolvedPlace[] {
  const g = gazetteer()
  const key = foldPlace(seg)
  if (g.cityAliases.has(key)) {
    const c = findCities(seg)[0]
    if (c) return [fromCity(c)]
  }
  const cc = countryCode(seg)
  if (cc) {
    const same = findCities(seg, cc)[0]
    if (same && same.population >= 500_000) return [fromCity(same)]
    return [resolvePlace({ country: cc })!]
  }
  const cities = findCities(seg)
  const regions = findRegions(seg)
  // A city inside the region of the same name ("Zurich", "Hamburg", "Madrid") is meant as the city.
  const top = cities[0]
  const capitalOfNamesake = top && top.population >= 100_000 && regions.some((r) => r.cc === top.cc && r.admin === top.admin)
  if (top && (top.population >= 500_000 || capitalOfNamesake || !regions.length)) return [fromCity(top)]
  if (regions.length) return [resolvePlace({ region: seg })!]
  const m = /^(.+?)\s+([A-Z]{2,3})$/.exec(seg)
  if (m && findRegions(m[2]).length) return [resolvePlace({ city: m[1], region: m[2] })!]
  // "San Francisco & Seattle", "Luton and Bedford": two places, when each is known.
  if (/\s(?:&|and)\s/i.test(seg)) {
    const parts = seg.split(/\s+(?:&|and)\s+/i).map((p) => single(p.trim()))
    if (parts.every((p) => p.length === 1 && (p[0].lat !== null || (p[0].city === null && p[0].country !== null)))) return parts.flat()
  }
  // Not in the gazetteer: keep it as city text if it looks like a name, not a sentence.
  if (/^[\p{L}][\p{L} .'\-]{0,40}$/u.test(seg) && seg.split(' ').length <= 4) return [resolvePlace({ city: seg })!]
  return []
}

function strip(text: string, re: RegExp): { rest: string; hit: boolean } {
  let hit = false
  const rest = text.replace(re, () => {
    hit = true
    return ' '
  })
  return { rest, hit }
}

/**
 * Parses a free-text location field.
 * - "San Francisco, CA" -> [{San Francisco, California, United States, 37.77, -122.42}]
 * - "Remote - US" -> remote, remoteCountries ["United States"], no location
 * - "Remote (Germany)" -> remote, remoteCountries ["Germany"]
 * - "Hybrid - Austin, TX" -> hybrid, [{Austin, Texas, United States}]
 * - "Berlin, Germany; London, UK" -> two locations
 * - "Remote - US or Canada" -> remote scope ["United States", "Canada"] (a bare country following a
 *   remote alternative inherits its remoteness)
 * - "Anywhere" -> remote, no scope
 * - "Onsite & Remote" -> remote and onsite, no place; "Onsite (Boston, Paris) or remote" -> the
 *   places are the onsite ones, no remote scope
 */
export function parseLocationText(text: string): ParsedLocationText {
  const out: ParsedLocationText = { locations: [], remote: false, hybrid: false, onsite: false, remoteCountries: [] }
  if (typeof text !== 'string' || !text.trim()) return out
  let prevRemoteScoped = false
  for (const part of splitAlternatives(text.slice(0, 500))) {
    const r = strip(part, REMOTE_RE)
    const h = strip(r.rest, HYBRID_RE)
    const o = strip(h.rest, ONSITE_RE)
    const remote = r.hit && !h.hit // "Hybrid remote" is hybrid
    if (remote) out.remote = true
    if (h.hit) out.hybrid = true
    if (o.hit) out.onsite = true
    // connectors left at the ends once the arrangement words are out: "Onsite & Remote" leaves "&"
    const residual = o.rest
      .replace(/^(?:[\s\-–—:,|/()&+]|\b(?:and|or)\b)+|(?:[\s\-–—:,|/()&+]|\b(?:and|or)\b)+$/gi, '')
      .replace(/\(\s*\)/g, '')
    const hasWorldwideWord = r.hit && /\b(?:anywhere|worldwide|global|globally|international)\b/i.test(part)
    if (!residual) {
      prevRemoteScoped = false
      continue
    }
    const got = interpretPlace(residual)
    const countryOnly = got.places.length > 0 && got.places.every((p) => p.city === null && p.region === null)
    const inheritsRemote = !r.hit && !h.hit && !o.hit && prevRemoteScoped && (countryOnly || got.scope !== null)
    // "Onsite (Boston, Paris) and remote": the places are where the onsite work is, not a remote scope
    if ((remote && !o.hit) || inheritsRemote) {
      if (inheritsRemote) out.remote = true
      if (got.scope) out.remoteCountries.push(...got.scope.map((cc) => countryName(cc)!).filter(Boolean))
      for (const p of got.places) {
        if (p.country) out.remoteCountries.push(p.country)
        if (p.city !== null || p.region !== null) out.locations.push(toLocation(p))
      }
      prevRemoteScoped = got.scope !== null || countryOnly
    } else {
      if (got.worldwide) out.remote = out.remote || hasWorldwideWord
      for (const p of got.places) out.locations.push(toLocation(p))
      prevRemoteScoped = false
    }
  }
  out.remoteCountries = [...new Set(out.remoteCountries)]
  out.locations = dedupeLocations(out.locations)
  return out
}

export function toLocation(p: ResolvedPlace): Location {
  return { city: p.city, region: p.region, country: p.country, lat: p.lat, lng: p.lng }
}

export function dedupeLocations(list: Location[]): Location[] {
  const seen = new Set<string>()
  return list.filter((l) => {
    const k = `${l.city}|${l.region}|${l.country}`
    if (seen.has(k)) return false
    seen.add(k)
    return true
  })
}
