/**
 * A posting's places and work arrangement from its `locations` list, its `location_raw` text and,
 * when both say nothing, the location suffix stripped from the title ("Engineer - Remote").
 */
import type { Location } from '../types.ts'
import { FieldError, isAbsent, isRecord } from './coerce.ts'
import { dedupeLocations, parseLocationText, resolvePlace, toLocation, type ParsedLocationText } from '../../seeds/places/geocode.ts'

const REMOTE_WORD_RE = /^\s*(?:fully\s+)?(?:remote|anywhere|worldwide|work from home)\b/i

function validCoord(v: unknown, limit: number): number | null {
  const n = typeof v === 'string' && v.trim() ? Number(v) : v
  return typeof n === 'number' && Number.isFinite(n) && Math.abs(n) <= limit ? n : null
}

function textField(v: unknown, field: string): string | null {
  if (isAbsent(v)) return null
  if (typeof v !== 'string') throw new FieldError(field, 'expected a string')
  return v.trim()
}

/**
 * One {city, region, country, lat?, lng?} object. Given coordinates win over the gazetteer's;
 * a city of "Remote" is a work arrangement, not a place.
 * e.g. {city: "Munich", country: "DE"} -> Munich, Bavaria, Germany (48.14, 11.58)
 */
function fromObject(o: Record<string, unknown>, into: ParsedLocationText) {
  const city = textField(o.city, 'locations.city')
  const region = textField(o.region ?? o.state, 'locations.region')
  const country = textField(o.country, 'locations.country')
  if (city && REMOTE_WORD_RE.test(city)) {
    const scoped = parseLocationText([city, region, country].filter(Boolean).join(', '))
    into.remote = true
    into.remoteCountries.push(...scoped.remoteCountries)
    return
  }
  const place = resolvePlace({ city, region, country })
  if (!place) return
  const lat = validCoord(o.lat ?? o.latitude, 90)
  const lng = validCoord(o.lng ?? o.lon ?? o.longitude, 180)
  const loc = toLocation(place)
  if (lat !== null && lng !== null) {
    loc.lat = lat
    loc.lng = lng
  }
  into.locations.push(loc)
}

function merge(into: ParsedLocationText, from: ParsedLocationText) {
  into.locations.push(...from.locations)
  into.remote ||= from.remote
  into.hybrid ||= from.hybrid
  into.onsite ||= from.onsite
  into.remoteCountries.push(...from.remoteCountries)
}

/**
 * e.g. locations ["San Francisco, CA", {city: "Austin", region: "TX", country: "US"}] -> two places;
 *      location_raw "Remote - US" -> remote, remote countries ["United States"];
 *      nothing given, title hint "Berlin" -> [Berlin, Germany]
 */
export function postingLocations(rawLocations: unknown, locationRaw: string | null, titleHint: string | null): ParsedLocationText & { locations: Location[] } {
  const out: ParsedLocationText = { locations: [], remote: false, hybrid: false, onsite: false, remoteCountries: [] }
  if (!isAbsent(rawLocations)) {
    if (typeof rawLocations === 'string') merge(out, parseLocationText(rawLocations))
    else if (Array.isArray(rawLocations)) {
      for (const item of rawLocations) {
        if (isAbsent(item)) continue
        if (typeof item === 'string') merge(out, parseLocationText(item))
        else if (isRecord(item)) fromObject(item, out)
        else throw new FieldError('locations', 'expected an array of strings or {city, region, country} objects')
      }
    } else if (isRecord(rawLocations)) fromObject(rawLocations, out)
    else throw new FieldError('locations', 'expected an array of strings or {city, region, country} objects')
  }
  if (locationRaw) {
    const parsed = parseLocationText(locationRaw)
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
