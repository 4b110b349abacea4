/**
 * Keys a job's places are indexed under (jobs.place_keys, GIN), so a strict geo filter
 * is one array lookup instead of a join: "c:germany" for the country,
 * "r:germany|bavaria" for the region, "t:germany|bavaria|munich" for the city, folded
 * (lowercase, accents stripped). A remote job's country scope gets the country key:
 * a remote job scoped to a country is in that country.
 * e.g. {city: "München", region: "Bavaria", country: "Germany"} ->
 *      ["c:germany", "r:germany|bavaria", "t:germany|bavaria|munchen"]
 */
import type { Location } from './geocode.ts'
import { foldPlace } from './gazetteer.ts'

type Place = { city?: string | null; region?: string | null; country?: string | null }

const fold = (s: string | null | undefined) => (s ? foldPlace(s).trim() : '')

export function placeKeys(locations: Place[], remoteCountries: string[] = []): string[] {
  const keys = new Set<string>()
  for (const l of locations) {
    const [country, region, city] = [fold(l.country), fold(l.region), fold(l.city)]
    if (!country) continue
    keys.add(`c:${country}`)
    if (region) keys.add(`r:${country}|${region}`)
    if (region && city) keys.add(`t:${country}|${region}|${city}`)
  }
  for (const c of remoteCountries) if (fold(c)) keys.add(`c:${fold(c)}`)
  return [...keys]
}

/** The key a strict filter looks up; null when the parts given cannot form one (no country, or a city without its region). */
export function placeKey(p: Place): string | null {
  const [country, region, city] = [fold(p.country), fold(p.region), fold(p.city)]
  if (!country) return null
  if (city) return region ? `t:${country}|${region}|${city}` : null
  return region ? `r:${country}|${region}` : `c:${country}`
}

export type { Location }
