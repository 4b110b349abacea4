/**
 * A posting's places and work arrangement from its `locations` list, its `location_raw` text and,
 * when both say nothing, the location suffix stripped from the title ("Engineer - Remote").
 *
 * A location is a place the gazetteer resolves (seeds/places/geocode.ts): a known city, region or
 * country, or a city it does not know inside a region or country it does ("Smallville, KS").
 * Text that resolves to no country is not a place ("Full-time", "Multiple Openings", "Senior
 * Product Manager" in a scraped location column) and stays only in location_raw.
 */
import { LRUCache } from 'lru-cache'
import type { Location } from '../types.ts'
import { FieldError, isAbsent, isRecord } from './coerce.ts'
import { decodeEntities } from './decode-entities.ts'
import {
  citiesNear, countryCode, dedupeLocations, distanceKm, findCities, parseLocationText, placeOfCity, resolvePlace, toLocation,
  type ParsedLocationText, type ResolvedPlace,
} from '../../seeds/places/geocode.ts'

const REMOTE_WORD_RE = /^\s*(?:fully\s+)?(?:remote|anywhere|worldwide|work from home)\b/i

/** What a posting's location fields say: its places, its work arrangement, and whether it names a site. */
export type PostingPlaces = ParsedLocationText & {
  /** a location gave a street address, a postcode or coordinates: a specific site (location-type.ts) */
  site: boolean
}

// Given coordinates this far from the gazetteer's place of the same name mean another place.
const SAME_PLACE_KM = 50
// How far from given coordinates the town they are in may lie (a site in a town's outskirts).
const TOWN_KM = 25

function validCoord(v: unknown, limit: number): number | null {
  const n = typeof v === 'string' && v.trim() ? Number(v) : v
  return typeof n === 'number' && Number.isFinite(n) && Math.abs(n) <= limit ? n : null
}

function textField(v: unknown, field: string): string | null {
  if (isAbsent(v)) return null
  if (typeof v !== 'string') throw new FieldError(field, 'expected a string')
  return decodeEntities(v).trim()
}

/** The first non-empty string among optional address fields; other types are ignored, not rejected. */
function anyText(o: Record<string, unknown>, keys: string[]): string | null {
  for (const k of keys) {
    const v = o[k]
    if (typeof v === 'string' && v.trim()) return v.trim()
  }
  return null
}

/**
 * The gazetteer town of a site known by its coordinates, in its country when known: the last part
 * of its name that is a town near them ("Bartle, Preston" -> Preston), else the town within TOWN_KM
 * that weighs most as population over distance squared, so a hospital on the edge of a town is in
 * that town rather than in the hamlet beside it or the bigger town beyond ("Royal Surrey Hospital"
 * at 51.24, -0.61 -> Guildford, 2.5 km and 72,000 people, not Wood Street Village, 2.2 km and 1,600,
 * or Woking, 9 km and 100,000).
 */
function townAt(name: string | null, lat: number, lng: number, cc: string | null): ResolvedPlace | null {
  const parts = (name ?? '').split(/\s*(?:,|\/|\s-\s|\(|\))\s*/).filter(Boolean).reverse()
  for (const part of [name ?? '', ...parts]) {
    if (!part) continue
    const named = findCities(part, cc).find((c) => distanceKm(lat, lng, c.lat, c.lng) <= TOWN_KM)
    if (named) return placeOfCity(named)
  }
  let best: { weight: number; city: ResolvedPlace } | null = null
  for (const { city, km } of citiesNear(lat, lng, { cc, maxKm: TOWN_KM })) {
    const weight = city.population / Math.max(km, 1) ** 2
    if (!best || weight > best.weight) best = { weight, city: placeOfCity(city) }
  }
  return best?.city ?? null
}

/**
 * One {city, region, country, lat?, lng?} object. Given coordinates win over the gazetteer's, and
 * place the city: a name the gazetteer does not know (a hospital, a district, "Bartle, Preston"),
 * or knows elsewhere ("Paris" at Texan coordinates), becomes the gazetteer town at the coordinates,
 * unless it is given inside a region the gazetteer knows ("Galway, Connacht" stays Galway).
 * A street address (`street_address`, `streetAddress`, `street`, `address`), a postcode
 * (`postal_code`, `postalCode`, `postcode`, `zip`) or coordinates make it a site.
 * A city of "Remote" is a work arrangement, not a place.
 * e.g. {city: "Munich", country: "DE"} -> Munich, Bavaria, Germany (48.14, 11.58)
 *      {city: "Moseley Hall Hospital", country: "GB", lat: 52.45, lng: -1.91, postal_code: "B13 8JL"}
 *        -> Birmingham, England, United Kingdom (52.45, -1.91), a site
 */
function fromObject(o: Record<string, unknown>, into: PostingPlaces) {
  const city = textField(o.city, 'locations.city')
  const region = textField(o.region ?? o.state, 'locations.region')
  const country = textField(o.country, 'locations.country')
  if (city && REMOTE_WORD_RE.test(city)) {
    const scoped = parseLocationText([city, region, country].filter(Boolean).join(', '))
    into.remote = true
    into.remoteCountries.push(...scoped.remoteCountries)
    return
  }
  const lat = validCoord(o.lat ?? o.latitude, 90)
  const lng = validCoord(o.lng ?? o.lon ?? o.longitude, 180)
  const located = lat !== null && lng !== null
  if (located || anyText(o, ['street_address', 'streetAddress', 'street', 'address', 'postal_code', 'postalCode', 'postcode', 'zip', 'zip_code'])) {
    into.site = true
  }
  let place = resolvePlace({ city, region, country })
  // a city the gazetteer lacks inside a region it knows is taken as named ("Galway, Connacht")
  const namedInRegion = place !== null && place.lat === null && place.city !== null && place.region !== null
  if (located && !namedInRegion && (!place || place.lat === null || distanceKm(lat, lng, place.lat, place.lng!) > SAME_PLACE_KM)) {
    // the country given, or the one of the region given; not the one of a namesake far away
    const known = country ?? (place && place.lat === null ? place.country : null)
    const elsewhere = townAt(city, lat, lng, known ? countryCode(known) : null)
    if (elsewhere || (place && place.lat !== null)) place = elsewhere
  }
  if (!place || place.country === null) return
  const loc = toLocation(place)
  if (located) {
    loc.lat = lat
    loc.lng = lng
  }
  into.locations.push(loc)
}

/** A place has a country; text the gazetteer resolved to no country is not one (it stays in location_raw). */
const isPlace = (l: Location) => l.country !== null

function merge(into: PostingPlaces, from: ParsedLocationText) {
  into.locations.push(...from.locations.filter(isPlace))
  into.remote ||= from.remote
  into.hybrid ||= from.hybrid
  into.onsite ||= from.onsite
  into.remoteCountries.push(...from.remoteCountries)
}

/**
 * Remote scope as the place parser reads it: a list inside parentheses ("Remote (US or Canada)",
 * "Remote (UK, Ireland)") as the text after a dash, and a region's time zones as the region
 * ("Remote - EMEA timezones" -> "Remote - EMEA"); zone names and offsets are left for the parser,
 * which reads no place in them.
 * A place named as the company's headquarters beside a remote alternative is not where the job
 * is: "San Francisco (HQ) or Remote (US)" -> "Remote (US)". Alone ("Austin, TX (HQ)") it is.
 * e.g. "Remote (US or Canada)" -> "Remote - US or Canada"; "Remote (Germany)" stays as it is
 */
export function scopeText(text: string): string {
  const remote = /\b(?:remote|anywhere|worldwide|work from home)\b/i.test(text)
  return (remote ? text.replace(/(?:^|[;|]|\s\/\s|\sor\s)\s*(?:(?:hq|headquarters|head office)\s*:\s*[^;|()]+|[^;|()]+?\s*\((?:hq|headquarters|head office)\))\s*(?=$|[;|]|\s\/\s|\sor\s)/gi, '') : text)
    .replace(/^\s*(?:or\s|[;|/]\s*)/i, '')
    .replace(/\b(remote|anywhere|work from home)\s*\(([^()]*?(?:\sor\s|,|&|\/)[^()]*)\)/gi, (_m, word: string, inner: string) => `${word} - ${inner.trim()}`)
    .replace(/\b([A-Z][A-Za-z&.]{1,12}(?:\s[A-Z][a-z]+)?)\s+time\s?zones?\b/g, (m, region: string) => (/^(?:UTC|GMT|CES?T|EES?T|[ECMP][SD]T)$/.test(region) ? m : region))
}

// A feed repeats its places: NHS Jobs' 14,842 postings name 7,845 distinct sites. Geocoding a
// site costs as much as a sixth of normalizing its posting, so each distinct input is resolved
// once. The bound keeps a long-running process from holding every place it ever saw.
const MAX_REMEMBERED = 20_000
const remembered = new LRUCache<string, PostingPlaces>({ max: MAX_REMEMBERED })

/**
 * e.g. locations ["San Francisco, CA", {city: "Austin", region: "TX", country: "US"}] -> two places;
 *      location_raw "Full-time" -> no place (it is kept as location_raw only);
 *      location_raw "Remote - US" -> remote, remote countries ["United States"];
 *      nothing given, title hint "Berlin" -> [Berlin, Germany]
 * Raw postings are JSON data (parsed lines, CSV cells), so their JSON text identifies the input.
 */
export function postingLocations(rawLocations: unknown, locationRaw: string | null, titleHint: string | null): PostingPlaces {
  const key = JSON.stringify([rawLocations, locationRaw, titleHint])
  let places = remembered.get(key)
  if (!places) {
    places = resolveLocations(rawLocations, locationRaw, titleHint)
    remembered.set(key, places)
  }
  // each posting gets its own copy: the remembered one is shared
  return { ...places, locations: places.locations.map((l) => ({ ...l })), remoteCountries: [...places.remoteCountries] }
}

function resolveLocations(rawLocations: unknown, locationRaw: string | null, titleHint: string | null): PostingPlaces {
  const out: PostingPlaces = { locations: [], remote: false, hybrid: false, onsite: false, remoteCountries: [], site: false }
  if (!isAbsent(rawLocations)) {
    if (typeof rawLocations === 'string') merge(out, parseLocationText(scopeText(decodeEntities(rawLocations))))
    else if (Array.isArray(rawLocations)) {
      for (const item of rawLocations) {
        if (isAbsent(item)) continue
        if (typeof item === 'string') merge(out, parseLocationText(scopeText(decodeEntities(item))))
        else if (isRecord(item)) fromObject(item, out)
        else throw new FieldError('locations', 'expected an array of strings or {city, region, country} objects')
      }
    } else if (isRecord(rawLocations)) fromObject(rawLocations, out)
    else throw new FieldError('locations', 'expected an array of strings or {city, region, country} objects')
  }
  if (locationRaw) {
    const parsed = parseLocationText(scopeText(locationRaw))
    // Structured locations are better than re-parsed text; the text still tells remote/hybrid.
    if (out.locations.length) parsed.locations = []
    merge(out, parsed)
  }
  if (titleHint) {
    const hint = parseLocationText(titleHint)
    // The title's place only fills a gap; its "Remote"/"Hybrid" always counts.
    if (out.locations.length || out.remoteCountries.length) {
      hint.locations = []
      hint.remoteCountries = []
    }
    merge(out, hint)
  }
  // "Remote" somewhere plus a bare country elsewhere ("United States" + title "- Remote"): the
  // country is the remote scope, as in "Remote - US".
  if (out.remote && !out.hybrid && !out.remoteCountries.length) {
    const countryOnly = out.locations.filter((l) => l.city === null && l.region === null && l.country)
    if (countryOnly.length) {
      out.remoteCountries = countryOnly.map((l) => l.country!)
      out.locations = out.locations.filter((l) => !countryOnly.includes(l))
    }
  }
  out.locations = dedupeLocations(out.locations).slice(0, 50)
  out.remoteCountries = [...new Set(out.remoteCountries)]
  return out
}
