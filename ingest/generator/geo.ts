import type { Rng } from './prng.ts'
import citiesJson from '../../seeds/cities.json' with { type: 'json' }

export type City = {
  city: string
  region: string
  region_code: string
  country: string
  country_code: string
  lat: number
  lng: number
  population: number
}

export const cities: City[] = citiesJson as City[]

/**
 * Per country: currency, a pay level relative to the US (in USD terms, for a rough but
 * plausible local salary), how often companies are headquartered there, its web domain,
 * and how remote postings name it ("Remote - US", "Remote (Germany)").
 */
export type CountryInfo = { currency: string; pay: number; hq: number; tld: string; remote: string[] }

export const countries: Record<string, CountryInfo> = {
  US: { currency: 'USD', pay: 1, hq: 45, tld: 'com', remote: ['US', 'USA', 'United States'] },
  CA: { currency: 'CAD', pay: 0.75, hq: 6, tld: 'ca', remote: ['Canada'] },
  GB: { currency: 'GBP', pay: 0.65, hq: 7, tld: 'co.uk', remote: ['UK', 'United Kingdom'] },
  DE: { currency: 'EUR', pay: 0.7, hq: 5, tld: 'de', remote: ['Germany'] },
  FR: { currency: 'EUR', pay: 0.6, hq: 3, tld: 'fr', remote: ['France'] },
  NL: { currency: 'EUR', pay: 0.7, hq: 2, tld: 'nl', remote: ['Netherlands'] },
  IE: { currency: 'EUR', pay: 0.7, hq: 1.2, tld: 'ie', remote: ['Ireland'] },
  ES: { currency: 'EUR', pay: 0.45, hq: 1.5, tld: 'es', remote: ['Spain'] },
  IT: { currency: 'EUR', pay: 0.45, hq: 1.2, tld: 'it', remote: ['Italy'] },
  PT: { currency: 'EUR', pay: 0.35, hq: 0.8, tld: 'pt', remote: ['Portugal'] },
  SE: { currency: 'SEK', pay: 0.6, hq: 1, tld: 'se', remote: ['Sweden'] },
  NO: { currency: 'NOK', pay: 0.75, hq: 0.6, tld: 'no', remote: ['Norway'] },
  DK: { currency: 'DKK', pay: 0.75, hq: 0.6, tld: 'dk', remote: ['Denmark'] },
  FI: { currency: 'EUR', pay: 0.6, hq: 0.5, tld: 'fi', remote: ['Finland'] },
  CH: { currency: 'CHF', pay: 1, hq: 1, tld: 'ch', remote: ['Switzerland'] },
  AT: { currency: 'EUR', pay: 0.65, hq: 0.5, tld: 'at', remote: ['Austria'] },
  BE: { currency: 'EUR', pay: 0.65, hq: 0.6, tld: 'be', remote: ['Belgium'] },
  PL: { currency: 'PLN', pay: 0.35, hq: 1.2, tld: 'pl', remote: ['Poland'] },
  CZ: { currency: 'CZK', pay: 0.35, hq: 0.5, tld: 'cz', remote: ['Czech Republic', 'Czechia'] },
  RO: { currency: 'RON', pay: 0.3, hq: 0.5, tld: 'ro', remote: ['Romania'] },
  IN: { currency: 'INR', pay: 0.15, hq: 5, tld: 'in', remote: ['India'] },
  SG: { currency: 'SGD', pay: 0.7, hq: 1.2, tld: 'sg', remote: ['Singapore'] },
  JP: { currency: 'JPY', pay: 0.5, hq: 1.2, tld: 'jp', remote: ['Japan'] },
  KR: { currency: 'KRW', pay: 0.5, hq: 0.6, tld: 'kr', remote: ['South Korea'] },
  CN: { currency: 'CNY', pay: 0.3, hq: 1.2, tld: 'cn', remote: ['China'] },
  AU: { currency: 'AUD', pay: 0.75, hq: 3, tld: 'com.au', remote: ['Australia', 'AU'] },
  NZ: { currency: 'NZD', pay: 0.6, hq: 0.6, tld: 'co.nz', remote: ['New Zealand'] },
  BR: { currency: 'BRL', pay: 0.2, hq: 1.5, tld: 'com.br', remote: ['Brazil'] },
  MX: { currency: 'MXN', pay: 0.2, hq: 1.2, tld: 'mx', remote: ['Mexico'] },
  AR: { currency: 'ARS', pay: 0.15, hq: 0.5, tld: 'com.ar', remote: ['Argentina'] },
  CO: { currency: 'COP', pay: 0.15, hq: 0.5, tld: 'co', remote: ['Colombia'] },
  CL: { currency: 'CLP', pay: 0.25, hq: 0.4, tld: 'cl', remote: ['Chile'] },
  ZA: { currency: 'ZAR', pay: 0.25, hq: 0.8, tld: 'co.za', remote: ['South Africa'] },
  NG: { currency: 'NGN', pay: 0.08, hq: 0.6, tld: 'ng', remote: ['Nigeria'] },
  KE: { currency: 'KES', pay: 0.1, hq: 0.4, tld: 'co.ke', remote: ['Kenya'] },
  EG: { currency: 'EGP', pay: 0.08, hq: 0.4, tld: 'eg', remote: ['Egypt'] },
  AE: { currency: 'AED', pay: 0.7, hq: 0.8, tld: 'ae', remote: ['UAE', 'United Arab Emirates'] },
  IL: { currency: 'ILS', pay: 0.7, hq: 0.8, tld: 'co.il', remote: ['Israel'] },
  TR: { currency: 'TRY', pay: 0.2, hq: 0.6, tld: 'com.tr', remote: ['Turkey'] },
  PH: { currency: 'PHP', pay: 0.1, hq: 0.6, tld: 'ph', remote: ['Philippines'] },
  ID: { currency: 'IDR', pay: 0.1, hq: 0.5, tld: 'co.id', remote: ['Indonesia'] },
  MY: { currency: 'MYR', pay: 0.2, hq: 0.4, tld: 'my', remote: ['Malaysia'] },
  VN: { currency: 'VND', pay: 0.1, hq: 0.4, tld: 'vn', remote: ['Vietnam'] },
}

/** Units of currency per USD, rounded; good enough for plausible local salaries. */
export const usdRate: Record<string, number> = {
  USD: 1, CAD: 1.36, GBP: 0.79, EUR: 0.92, SEK: 10.5, NOK: 10.6, DKK: 6.9, CHF: 0.88, PLN: 4, CZK: 23,
  RON: 4.6, INR: 83, SGD: 1.35, JPY: 150, KRW: 1330, CNY: 7.2, AUD: 1.52, NZD: 1.64, BRL: 5, MXN: 17,
  ARS: 850, COP: 3900, CLP: 930, ZAR: 18.5, NGN: 1500, KES: 130, EGP: 48, AED: 3.67, ILS: 3.7, TRY: 32,
  PHP: 56, IDR: 15700, MYR: 4.7, VND: 24500,
}

export const citiesByCountry = new Map<string, City[]>()
for (const c of cities) {
  const list = citiesByCountry.get(c.country_code) ?? []
  list.push(c)
  citiesByCountry.set(c.country_code, list)
}

const hqCountries = Object.entries(countries).map(([cc, info]) => [cc, info.hq] as const)

/** A city in the country, bigger cities more likely (weight ~ sqrt(population)). */
export function pickCityIn(rng: Rng, cc: string): City {
  const list = citiesByCountry.get(cc)
  if (!list) throw new Error(`no cities for ${cc}`)
  return rng.weighted(list.map((c) => [c, Math.sqrt(c.population)] as const))
}

export function pickHqCity(rng: Rng): City {
  return pickCityIn(rng, rng.weighted(hqCountries))
}

const NA = new Set(['US', 'CA'])

/**
 * One city as a board might write it: "San Francisco, CA", "Berlin, Germany",
 * "London, United Kingdom", "Munich, Bavaria, Germany", or just "Tokyo".
 */
export function formatCity(rng: Rng, c: City): string {
  const r = rng.next()
  if (NA.has(c.country_code)) {
    if (r < 0.62) return `${c.city}, ${c.region_code}`
    if (r < 0.77) return `${c.city}, ${c.region}`
    if (r < 0.87) return `${c.city}, ${c.region_code}, ${c.country_code === 'US' ? 'USA' : 'Canada'}`
    if (r < 0.96) return `${c.city}, ${c.region}, ${c.country}`
    return c.city
  }
  if (c.country_code === 'GB') {
    if (r < 0.4) return `${c.city}, United Kingdom`
    if (r < 0.7) return `${c.city}, UK`
    if (r < 0.85) return `${c.city}, ${c.region}, United Kingdom`
    return c.city
  }
  if (c.country_code === 'AU' && r < 0.3) return `${c.city} ${c.region_code}`
  if (c.city === c.country) return r < 0.7 ? c.city : `${c.city}, ${c.country}` // Singapore
  const sameAsRegion = c.region === c.city || c.region.startsWith(c.city)
  if (r < 0.72 || (sameAsRegion && r < 0.87)) return `${c.city}, ${c.country}`
  if (r < 0.87) return `${c.city}, ${c.region}, ${c.country}`
  if (r < 0.95) return c.city
  return `${c.city}, ${c.country_code}`
}

/** How a remote posting names its scope: "Remote - US", "Remote (Germany)", "US Remote", or plain "Remote". */
export function formatRemote(rng: Rng, cc: string | null): string {
  if (cc === null) return rng.pick(['Remote', 'Remote', 'Anywhere', 'Remote - Worldwide', 'Fully Remote'])
  const name = rng.pick(countries[cc].remote)
  return rng.weighted([
    [`Remote - ${name}`, 5],
    [`Remote (${name})`, 3],
    [`Remote, ${name}`, 2],
    [`${name} (Remote)`, 1.5],
    [`${name} Remote`, 1],
    [`Remote in ${name}`, 0.5],
  ])
}

export function structuredLocation(c: City) {
  return { city: c.city, region: c.region, country: c.country, lat: c.lat, lng: c.lng }
}
