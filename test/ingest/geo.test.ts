import test from 'ava'
import { citiesNear, parseLocationText, resolvePlace, splitAlternatives } from '../../seeds/places/geocode.ts'
import { gazetteer, foldPlace } from '../../seeds/places/gazetteer.ts'
import aliases from '../../seeds/place-aliases.json' with { type: 'json' }

const one = (text: string) => {
  const r = parseLocationText(text)
  return r.locations[0] ?? null
}

test('city with US state abbreviation', (t) => {
  const l = one('San Francisco, CA')!
  t.like(l, { city: 'San Francisco', region: 'California', country: 'United States' })
  t.true(Math.abs(l.lat! - 37.77) < 0.1 && Math.abs(l.lng! + 122.42) < 0.1)
})

test('city, country and country aliases', (t) => {
  t.like(one('Berlin, Germany'), { city: 'Berlin', country: 'Germany' })
  t.like(one('London, UK'), { city: 'London', region: 'England', country: 'United Kingdom' })
  t.like(one('New York, NY, USA'), { city: 'New York City', region: 'New York', country: 'United States' })
  t.like(one('Bangalore, India'), { city: 'Bengaluru', region: 'Karnataka', country: 'India' })
  t.like(one('München, Bayern'), { city: 'Munich', region: 'Bavaria', country: 'Germany' })
})

test('population disambiguates, a region narrows', (t) => {
  t.like(one('Paris'), { city: 'Paris', country: 'France' })
  t.like(one('Paris, TX'), { city: 'Paris', region: 'Texas', country: 'United States' })
  t.like(one('London'), { country: 'United Kingdom' })
  t.like(one('Atlanta, GA'), { city: 'Atlanta', region: 'Georgia', country: 'United States' })
  t.like(one('Tbilisi, Georgia'), { city: 'Tbilisi', country: 'Georgia' })
})

test('two-letter codes that are both a state and a country pick the reading that finds the city', (t) => {
  t.like(one('Vancouver, CA'), { city: 'Vancouver', region: 'British Columbia', country: 'Canada' })
  t.like(one('Los Angeles, CA'), { city: 'Los Angeles', region: 'California', country: 'United States' })
  t.like(one('Wilmington, DE'), { region: 'Delaware', country: 'United States' })
  t.like(one('Berlin, DE'), { city: 'Berlin', country: 'Germany' })
})

test('Canadian and Australian abbreviations expand', (t) => {
  t.like(one('Toronto, ON'), { city: 'Toronto', region: 'Ontario', country: 'Canada' })
  t.like(one('Sydney, NSW'), { city: 'Sydney', region: 'New South Wales', country: 'Australia' })
})

test('country-only and region-only text', (t) => {
  t.deepEqual(one('US'), { city: null, region: null, country: 'United States', lat: null, lng: null })
  t.like(one('Germany'), { city: null, country: 'Germany' })
  t.like(one('California'), { city: null, region: 'California', country: 'United States' })
  t.like(one('Singapore'), { city: 'Singapore', country: 'Singapore' })
})

test('aliases, abbreviations and spelling variants', (t) => {
  t.like(one('NYC'), { city: 'New York City' })
  t.like(one('Washington, DC'), { region: 'District of Columbia', country: 'United States' })
  t.like(one('St. Louis, MO'), { city: 'St. Louis', region: 'Missouri' })
  t.like(one('Zurich'), { city: 'Zürich', country: 'Switzerland' })
  t.like(one('Austin TX'), { city: 'Austin', region: 'Texas' })
  t.like(one('Austin, TX 78701, United States'), { city: 'Austin', region: 'Texas' })
})

test('unknown city keeps its text with null coordinates and the recognisable region', (t) => {
  t.deepEqual(one('Smallville, KS'), { city: 'Smallville', region: 'Kansas', country: 'United States', lat: null, lng: null })
})

test('remote is a scope, never geocoded', (t) => {
  t.deepEqual(parseLocationText('Remote'), { locations: [], remote: true, hybrid: false, onsite: false, remoteCountries: [] })
  t.deepEqual(parseLocationText('Remote - US').remoteCountries, ['United States'])
  t.deepEqual(parseLocationText('Remote - US').locations, [])
  t.deepEqual(parseLocationText('Remote (Germany)').remoteCountries, ['Germany'])
  t.deepEqual(parseLocationText('Remote, US').remoteCountries, ['United States'])
  t.deepEqual(parseLocationText('Remote in the US').remoteCountries, ['United States'])
  t.deepEqual(parseLocationText('Remote - US or Canada').remoteCountries, ['United States', 'Canada'])
  t.true(parseLocationText('Anywhere').remote)
  t.deepEqual(parseLocationText('Anywhere').locations, [])
  t.true(parseLocationText('Remote (EMEA)').remoteCountries.includes('Germany'))
  t.true(parseLocationText('Remote (EMEA)').remoteCountries.includes('South Africa'))
})

test('onsite and remote together: the connector is no place, and the places are the onsite ones', (t) => {
  for (const text of ['Onsite & Remote', 'Onsite + Remote', 'Onsite or Remote']) {
    t.deepEqual(parseLocationText(text), { locations: [], remote: true, hybrid: false, onsite: true, remoteCountries: [] }, text)
  }
  const both = parseLocationText('ONSITE (Boston, NYC, Paris) and REMOTE')
  t.deepEqual(both.locations.map((l) => l.city), ['Boston', 'New York City', 'Paris'])
  t.deepEqual(both.remoteCountries, [], 'the onsite cities are no remote scope')
  t.deepEqual(parseLocationText('Andorra').locations.map((l) => l.country), ['Andorra'], 'a name that starts like a connector')
})

test('hybrid and on-site keep their place', (t) => {
  const h = parseLocationText('Hybrid - Austin, TX')
  t.true(h.hybrid)
  t.false(h.remote)
  t.like(h.locations[0], { city: 'Austin', region: 'Texas' })
  const o = parseLocationText('On-site - Dallas, TX')
  t.true(o.onsite)
  t.like(o.locations[0], { city: 'Dallas' })
})

test('multiple locations split on ; / or |', (t) => {
  const r = parseLocationText('Berlin; Munich / Hamburg or Cologne | London, UK')
  t.deepEqual(r.locations.map((l) => l.city), ['Berlin', 'Munich', 'Hamburg', 'Köln', 'London'])
  t.deepEqual(splitAlternatives('Remote (US or Canada) / Berlin'), ['Remote (US or Canada)', 'Berlin'])
})

test('resolvePlace: structured input, country-only and region-only with bbox', (t) => {
  t.like(resolvePlace({ city: 'paris', country: 'us' }), { city: 'Paris', region: 'Texas', country: 'United States' })
  const de = resolvePlace({ country: 'Germany' })!
  t.like(de, { city: null, region: null, country: 'Germany', lat: null, lng: null })
  const [minLng, minLat, maxLng, maxLat] = de.bbox!
  t.true(minLng > 5 && maxLng < 16 && minLat > 47 && maxLat < 56)
  const by = resolvePlace({ region: 'Bavaria' })!
  t.like(by, { region: 'Bavaria', country: 'Germany' })
  t.true(by.bbox![0] > 8 && by.bbox![2] < 14)
  t.like(resolvePlace({ region: 'CA' }), { region: 'California', country: 'United States' })
  t.like(resolvePlace({ region: 'Berlin' }), { region: 'State of Berlin', country: 'Germany' })
  t.is(resolvePlace({ city: '', region: '', country: '' }), null)
  t.is(resolvePlace({ country: 'Narnia' }), null)
})

test('every alias in seeds/place-aliases.json points at a real gazetteer entry', (t) => {
  const g = gazetteer()
  for (const [key, target] of Object.entries(aliases.cities)) {
    const [name, cc] = target.split('|')
    t.true((g.cities.get(foldPlace(name)) ?? []).some((c) => c.cc === cc), `city alias ${key} -> ${target}`)
  }
  for (const [key, target] of Object.entries(aliases.regions)) {
    t.true((g.regionsByKey.get(key) ?? []).some((r) => r.name === target.slice(3)), `region alias ${key} -> ${target}`)
  }
  for (const [key, cc] of Object.entries(aliases.countries)) t.truthy(g.countryName.get(cc), `country alias ${key}`)
})

test('cities near a point, nearest first, in a country when asked; postcodes are noise', (t) => {
  const near = citiesNear(51.2416, -0.6088, { cc: 'GB', maxKm: 5 })
  t.true(near.some((n) => n.city.name === 'Guildford' && n.km < 3))
  t.true(near.every((n, i) => i === 0 || near[i - 1].km <= n.km))
  t.deepEqual(citiesNear(51.2416, -0.6088, { cc: 'FR', maxKm: 5 }), [])
  t.like(one('Arlesey, SG15 6SN'), { city: 'Arlesey', country: 'United Kingdom' })
  t.like(one('Ottawa, ON K1A 0B1'), { city: 'Ottawa', region: 'Ontario' })
})
