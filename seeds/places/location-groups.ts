/**
 * Named location groups, neural-search's `lexical.location_group`: "Bay_Area", "Northeast",
 * "DACH". The table is seeds/location-groups.json; docs/location-groups.md describes every group.
 * A group becomes a list of place filters that search ORs together (the PlaceFilter kinds of
 * sql/search.ts), so a job matches when any one of them does:
 * - countries and regions become place keys ("c:germany", "r:united states|texas"), built with
 *   placeKey() from the gazetteer's own names, so they are exactly the keys ingest stores in
 *   jobs.place_keys. A country's key also covers remote postings open to that country; a region's
 *   does not (a "Remote - US" posting is in no state).
 * - a metro ("around") becomes circles around gazetteer cities, matched against the coordinates
 *   ingest stores for each location (job_locations). Circles, not city lists: the gazetteer has
 *   states but no counties, so a metro has no unit to name, and a list would have to name every
 *   suburb (Cupertino, Foster City, Los Gatos ...) and silently miss the ones it forgot. A circle
 *   covers every place the gazetteer knows inside it; its edge is a distance, not a county line, so
 *   each radius is chosen to take in the core suburbs and leave out the next metro, and the tests
 *   hold it to that (Sacramento is not in Bay_Area, Baltimore not in DC_Metro, Tijuana not in
 *   San_Diego_Area). A metro that is long rather than round gets several circles.
 * - groups name other groups: Northeast is New_England plus Middle_Atlantic.
 *
 * Names are matched without case, with spaces and hyphens read as underscores, and through each
 * group's aliases: "Bay Area", "bay_area" and "SF-Bay-Area" are all Bay_Area.
 *
 * Every place in the table must resolve in the gazetteer to the very names it is written with; a
 * group with one that does not (a typo, a city the gazetteer spells differently) throws when it is
 * built, and test/search/location-groups.test.ts builds them all.
 */
import table from '../location-groups.json' with { type: 'json' }
import { countryName, resolvePlace } from './geocode.ts'
import { foldPlace } from './gazetteer.ts'
import { placeKey } from './place-keys.ts'

/**
 * One filter of a group, in the shape of sql/search.ts's PlaceFilter (this module sits below sql/,
 * so it names the shape instead of importing it; the tests check that it is assignable):
 * a place key from jobs.place_keys, or a circle of `meters` around a point.
 */
export type PlaceFilterSpec = { kind: 'key'; key: string } | { kind: 'radius'; lat: number; lng: number; meters: number }

/** A circle around a gazetteer city: the city's names as the gazetteer spells them, its country's ISO code, the radius in km. */
export type MetroCircle = { city: string; region: string; country: string; km: number }

/** One row of seeds/location-groups.json. */
export type LocationGroupDef = {
  covers: string
  aliases?: string[]
  countries?: string[]
  regions?: Record<string, string[]>
  around?: MetroCircle[]
  groups?: string[]
}

const GROUPS = table.groups as Record<string, LocationGroupDef>

// A radius past this is no metro; it is a typo for a smaller number.
const MAX_KM = 100

/** The look-up form of a group name. e.g. "Bay Area", "bay-area", " BAY_AREA " -> "bay_area" */
function normalizeName(name: string): string {
  return name.trim().toLowerCase().replace(/[\s_-]+/g, '_')
}

let names: Map<string, string> | null = null

/** normalized name or alias -> the group's name in the table */
function nameIndex(): Map<string, string> {
  if (names) return names
  const index = new Map<string, string>()
  for (const [name, def] of Object.entries(GROUPS)) {
    for (const n of [name, ...(def.aliases ?? [])]) {
      const key = normalizeName(n)
      const taken = index.get(key)
      if (taken && taken !== name) throw new Error(`location groups: "${n}" names both ${taken} and ${name}`)
      index.set(key, name)
    }
  }
  names = index
  return index
}

const same = (a: string | null | undefined, b: string) => a !== null && a !== undefined && foldPlace(a) === foldPlace(b)

function countryKey(group: string, cc: string): string {
  const name = /^[A-Z]{2}$/.test(cc) ? countryName(cc) : null
  if (!name) throw new Error(`location group ${group}: "${cc}" is not an ISO 3166-1 alpha-2 country code the gazetteer knows`)
  return placeKey({ country: name })!
}

function regionKey(group: string, cc: string, region: string): string {
  const country = countryName(cc)
  const found = country ? resolvePlace({ region, country: cc }) : null
  if (!found || !same(found.region, region) || found.country !== country) {
    throw new Error(`location group ${group}: "${region}, ${cc}" is not a region of the gazetteer (found ${found?.region ?? 'none'})`)
  }
  return placeKey({ region: found.region, country: found.country })!
}

function circle(group: string, c: MetroCircle): PlaceFilterSpec {
  const found = resolvePlace({ city: c.city, region: c.region, country: c.country })
  const where = `"${c.city}, ${c.region}, ${c.country}"`
  if (!found || found.lat === null || found.lng === null || !same(found.city, c.city) || !same(found.region, c.region) || found.country !== countryName(c.country)) {
    throw new Error(`location group ${group}: ${where} is not a city of the gazetteer (found ${found ? [found.city, found.region, found.country].join(', ') : 'none'})`)
  }
  if (!(c.km > 0 && c.km <= MAX_KM)) throw new Error(`location group ${group}: ${where} has a radius of ${c.km} km, outside 0 to ${MAX_KM}`)
  return { kind: 'radius', lat: found.lat, lng: found.lng, meters: c.km * 1000 }
}

/**
 * The filters of one group definition; throws when a place in it does not resolve to exactly the
 * names it is written with, or a group it names does not exist (or names itself back).
 * e.g. {countries: ["DE", "AT", "CH"]} -> [{kind: 'key', key: 'c:germany'}, {kind: 'key', key: 'c:austria'}, ...]
 *      {around: [{city: "Austin", region: "Texas", country: "US", km: 40}]} ->
 *        [{kind: 'radius', lat: 30.26715, lng: -97.74306, meters: 40000}]
 */
export function buildLocationGroup(name: string, def: LocationGroupDef, lookup: Record<string, LocationGroupDef> = GROUPS, seen: string[] = []): PlaceFilterSpec[] {
  if (seen.includes(name)) throw new Error(`location group ${name}: contains itself through ${seen.join(' -> ')}`)
  const out: PlaceFilterSpec[] = []
  for (const cc of def.countries ?? []) out.push({ kind: 'key', key: countryKey(name, cc) })
  for (const [cc, regions] of Object.entries(def.regions ?? {})) for (const r of regions) out.push({ kind: 'key', key: regionKey(name, cc, r) })
  for (const c of def.around ?? []) out.push(circle(name, c))
  for (const g of def.groups ?? []) {
    const inner = lookup[g]
    if (!inner) throw new Error(`location group ${name}: names a group "${g}" that does not exist`)
    out.push(...buildLocationGroup(g, inner, lookup, [...seen, name]))
  }
  // one filter per key or circle, whichever way it was reached
  const unique = new Map(out.map((f) => [JSON.stringify(f), f]))
  if (!unique.size) throw new Error(`location group ${name}: covers no place`)
  return [...unique.values()]
}

const built = new Map<string, PlaceFilterSpec[]>()

/**
 * The place filters of a named group, or null when no group has that name or alias. The caller
 * ORs them (sql/search.ts's `places`). The first call loads the gazetteer (about half a second);
 * each group is built once.
 * e.g. locationGroup("DACH") -> [{kind: 'key', key: 'c:germany'}, {kind: 'key', key: 'c:austria'}, {kind: 'key', key: 'c:switzerland'}]
 *      locationGroup("bay area") -> three circles, around San Francisco, Oakland and San Jose
 *      locationGroup("Atlantis") -> null
 */
export function locationGroup(name: string): PlaceFilterSpec[] | null {
  if (typeof name !== 'string') return null
  const canonical = nameIndex().get(normalizeName(name))
  if (!canonical) return null
  let filters = built.get(canonical)
  if (!filters) {
    filters = buildLocationGroup(canonical, GROUPS[canonical])
    built.set(canonical, filters)
  }
  return filters.map((f) => ({ ...f }))
}

/** The table's name for a group given by name or alias, e.g. "bay area" -> "Bay_Area"; null when unknown. */
export function locationGroupName(name: string): string | null {
  return typeof name === 'string' ? nameIndex().get(normalizeName(name)) ?? null : null
}

/** Every group's name, in the table's order (census regions, divisions, metros, country groups): for validation and docs. */
export function locationGroupNames(): string[] {
  return Object.keys(GROUPS)
}

/** What each group covers, in words, by name: the table's `covers`. */
export function locationGroupCovers(name: string): string | null {
  const canonical = locationGroupName(name)
  return canonical ? GROUPS[canonical].covers : null
}
