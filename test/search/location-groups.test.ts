/**
 * Named location groups (seeds/location-groups.json): every place in the table resolves in the
 * gazetteer to the names it is written with and to the keys ingest stores; metros take in their
 * suburbs, leave out the next metro and stay in their country; and searches with a group's
 * filters find the postings ingest stored in it.
 */
import anyTest, { type TestFn } from 'ava'
import { readFileSync } from 'node:fs'
import { ingest } from '../../ingest/pipeline.ts'
import type { ReadItem } from '../../ingest/read.ts'
import { gazetteer } from '../../seeds/places/gazetteer.ts'
import { countryName, parseLocationText, resolvePlace } from '../../seeds/places/geocode.ts'
import {
  buildLocationGroup,
  locationGroup,
  locationGroupCovers,
  locationGroupName,
  locationGroupNames,
  type LocationGroupDef,
  type PlaceFilterSpec,
} from '../../seeds/places/location-groups.ts'
import { placeKeys } from '../../seeds/places/place-keys.ts'
import table from '../../seeds/location-groups.json' with { type: 'json' }
import { searchJobs, type PlaceFilter, type SearchPage } from '../../sql/search.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'
import { rawPosting } from '../helpers/factories.ts'

const test = anyTest as TestFn<{ db: TestDb }>
const GROUPS = table.groups as Record<string, LocationGroupDef>

// What the search code can take: a group's filters are sql/search.ts PlaceFilters as they are.
const asSearchFilters: (f: PlaceFilterSpec[]) => PlaceFilter[] = (f) => f

/** Distance in metres on the sphere earth_distance uses (radius 6,378,168 m). */
function meters(a: { lat: number; lng: number }, b: { lat: number; lng: number }) {
  const r = Math.PI / 180
  const h = Math.sin(((b.lat - a.lat) * r) / 2) ** 2 + Math.cos(a.lat * r) * Math.cos(b.lat * r) * Math.sin(((b.lng - a.lng) * r) / 2) ** 2
  return 2 * 6_378_168 * Math.asin(Math.sqrt(h))
}

function inGroup(name: string, p: { lat: number; lng: number }) {
  return locationGroup(name)!.some((f) => f.kind === 'radius' && meters(f, p) <= f.meters)
}

function city(name: string, region: string, cc: string) {
  const found = resolvePlace({ city: name, region, country: cc })
  if (!found || found.lat === null || found.lng === null || found.city !== name) throw new Error(`no gazetteer city ${name}, ${region}, ${cc}`)
  return { lat: found.lat, lng: found.lng }
}

// --- the table --------------------------------------------------------------------

test('every group builds: each country, region and metro centre resolves in the gazetteer', (t) => {
  const names = locationGroupNames()
  t.true(names.length >= 50)
  for (const name of names) {
    let filters: PlaceFilterSpec[] | null = null
    t.notThrows(() => (filters = locationGroup(name)), name)
    t.true(asSearchFilters(filters ?? []).length > 0, name)
  }
})

test('the groups the issue names are all there', (t) => {
  const required = [
    'Northeast', 'Midwest', 'South', 'West', 'New_England', 'Middle_Atlantic', 'East_North_Central', 'West_North_Central', 'South_Atlantic',
    'East_South_Central', 'West_South_Central', 'Mountain', 'Pacific', 'Bay_Area', 'NYC_Metro', 'Seattle_Area', 'LA_Metro', 'Boston_Area',
    'Chicago_Metro', 'DC_Metro', 'Austin_Area', 'Denver_Area', 'London_Area', 'Berlin_Area', 'Toronto_Area', 'Europe', 'EU', 'DACH', 'Nordics',
    'UK_Ireland', 'LATAM', 'APAC', 'MENA', 'North_America',
  ]
  t.deepEqual(required.filter((n) => !locationGroupNames().includes(n)), [])
})

test('names are matched without case, with spaces and hyphens as underscores, and through aliases', (t) => {
  const bay = locationGroup('Bay_Area')
  t.deepEqual(locationGroup('Bay Area'), bay)
  t.deepEqual(locationGroup('bay_area'), bay)
  t.deepEqual(locationGroup('  BAY-AREA '), bay)
  t.deepEqual(locationGroup('SF Bay Area'), bay)
  t.is(locationGroupName('san francisco bay area'), 'Bay_Area')
  t.is(locationGroupName('dach'), 'DACH')
  t.is(locationGroupName('Greater Toronto'), 'Toronto_Area')
  t.is(locationGroup('Atlantis'), null)
  t.is(locationGroup(''), null)
  t.is(locationGroup('__proto__'), null)
  t.is(locationGroup('constructor'), null)
  t.is(locationGroupCovers('dach'), 'Germany, Austria and Switzerland')
})

test('no two groups share a name or an alias once normalized', (t) => {
  const seen = new Map<string, string>()
  for (const [name, def] of Object.entries(GROUPS)) {
    for (const n of [name, ...(def.aliases ?? [])]) {
      const key = n.toLowerCase().replace(/[\s_-]+/g, '_')
      t.is(seen.get(key) ?? name, name, `${n} names ${seen.get(key)} and ${name}`)
      seen.set(key, name)
    }
  }
})

test('a typo in the table is refused, naming the group and the place', (t) => {
  const build = (def: Omit<LocationGroupDef, 'covers'>) => () => buildLocationGroup('Typo', { covers: 'test', ...def }, GROUPS)
  t.throws(build({ around: [{ city: 'Oaklnd', region: 'California', country: 'US', km: 20 }] }), { message: /Typo: "Oaklnd, California, US" is not a city/ })
  // a real city, but not in the region written: the gazetteer's names are the ones that count
  t.throws(build({ around: [{ city: 'Berlin', region: 'Berlin', country: 'DE', km: 30 }] }), { message: /found Berlin, State of Berlin, Germany/ })
  t.throws(build({ around: [{ city: 'Austin', region: 'Texas', country: 'US', km: 0 }] }), { message: /radius of 0 km/ })
  t.throws(build({ around: [{ city: 'Austin', region: 'Texas', country: 'US', km: 400 }] }), { message: /radius of 400 km/ })
  t.throws(build({ regions: { US: ['Californa'] } }), { message: /"Californa, US" is not a region/ })
  t.throws(build({ regions: { US: ['Bavaria'] } }), { message: /"Bavaria, US" is not a region/ })
  t.throws(build({ countries: ['XX'] }), { message: /"XX" is not an ISO 3166-1/ })
  t.throws(build({ countries: ['Germany'] }), { message: /"Germany" is not an ISO 3166-1/ })
  t.throws(build({ groups: ['Nowhere'] }), { message: /names a group "Nowhere"/ })
  t.throws(build({}), { message: /covers no place/ })
  const cyclic = { A: { covers: 'a', groups: ['B'] }, B: { covers: 'b', groups: ['A'] } }
  t.throws(() => buildLocationGroup('A', cyclic.A, cyclic), { message: /contains itself/ })
})

test('LATAM, APAC and MENA hold every country of the remote scopes ingest reads by those names', (t) => {
  const countries = (n: string) => new Set(GROUPS[n].countries)
  for (const [group, scope] of [['LATAM', 'latam'], ['APAC', 'apac'], ['MENA', 'middle east'], ['EU', 'eu'], ['DACH', 'dach'], ['Nordics', 'nordics'], ['UK_Ireland', 'uk and ireland'], ['Europe', 'europe']]) {
    const list = gazetteer().scopes.get(scope)!
    t.true(list.length > 0, scope)
    t.deepEqual(list.filter((cc) => !countries(group).has(cc)), [], `${group} lacks part of the scope "${scope}"`)
  }
})

test('census regions are the union of their divisions, with no state twice', (t) => {
  const keys = (n: string) => locationGroup(n)!.map((f) => (f.kind === 'key' ? f.key : '')).sort()
  t.deepEqual(keys('Northeast'), [...keys('New_England'), ...keys('Middle_Atlantic')].sort())
  t.deepEqual(keys('South'), [...keys('South_Atlantic'), ...keys('East_South_Central'), ...keys('West_South_Central')].sort())
  const states = ['Northeast', 'Midwest', 'South', 'West'].flatMap(keys)
  t.is(states.length, 51) // the fifty states and the District of Columbia
  t.is(new Set(states).size, 51)
  t.true(keys('West_South_Central').includes('r:united states|texas'))
})

test('every country and region key is the key ingest stores for a posting there', (t) => {
  for (const [name, def] of Object.entries(GROUPS)) {
    const keys = new Set(locationGroup(name)!.flatMap((f) => (f.kind === 'key' ? [f.key] : [])))
    for (const cc of def.countries ?? []) {
      const text = countryName(cc)!
      const parsed = parseLocationText(`Remote - ${text}`)
      const stored = placeKeys(parsed.locations, parsed.remoteCountries)
      t.true(stored.some((k) => keys.has(k)), `${name}: a posting "Remote - ${text}" stores ${stored.join(' ')}`)
    }
    for (const [cc, regions] of Object.entries(def.regions ?? {})) {
      for (const region of regions) {
        // the region's most populous city, written the way a board writes it
        const r = [...gazetteer().regionByCode.values()].find((x) => x.cc === cc && x.name === region)!
        const top = gazetteer().allCities.filter((c) => c.cc === cc && c.admin === r.admin).sort((a, b) => b.population - a.population)[0]
        const parsed = parseLocationText(`${top.name}, ${region}, ${countryName(cc)}`)
        const stored = placeKeys(parsed.locations, parsed.remoteCountries)
        t.true(stored.some((k) => keys.has(k)), `${name}: a posting in ${top.name}, ${region} stores ${stored.join(' ')}`)
      }
    }
  }
})

test('metros take in their suburbs and leave out the next metro', (t) => {
  const cases: [string, [string, string, string][], [string, string, string][]][] = [
    ['Bay_Area',
      [['San Francisco', 'California', 'US'], ['Oakland', 'California', 'US'], ['San Jose', 'California', 'US'], ['Palo Alto', 'California', 'US'], ['Menlo Park', 'California', 'US'], ['Redwood City', 'California', 'US'], ['San Mateo', 'California', 'US'], ['Mountain View', 'California', 'US'], ['Sunnyvale', 'California', 'US'], ['Cupertino', 'California', 'US'], ['Fremont', 'California', 'US'], ['Hayward', 'California', 'US'], ['Berkeley', 'California', 'US'], ['Walnut Creek', 'California', 'US'], ['Sausalito', 'California', 'US']],
      [['Sacramento', 'California', 'US'], ['Stockton', 'California', 'US'], ['Santa Cruz', 'California', 'US'], ['Modesto', 'California', 'US']]],
    ['NYC_Metro', [['Brooklyn', 'New York', 'US'], ['Jersey City', 'New Jersey', 'US'], ['Newark', 'New Jersey', 'US'], ['Yonkers', 'New York', 'US'], ['White Plains', 'New York', 'US'], ['Stamford', 'Connecticut', 'US'], ['Hoboken', 'New Jersey', 'US']],
      [['Philadelphia', 'Pennsylvania', 'US'], ['Trenton', 'New Jersey', 'US'], ['New Haven', 'Connecticut', 'US']]],
    ['LA_Metro', [['Long Beach', 'California', 'US'], ['Pasadena', 'California', 'US'], ['Santa Monica', 'California', 'US'], ['Anaheim', 'California', 'US'], ['Irvine', 'California', 'US'], ['Burbank', 'California', 'US']],
      [['San Diego', 'California', 'US'], ['Riverside', 'California', 'US'], ['Bakersfield', 'California', 'US']]],
    ['Seattle_Area', [['Bellevue', 'Washington', 'US'], ['Redmond', 'Washington', 'US'], ['Kirkland', 'Washington', 'US'], ['Tacoma', 'Washington', 'US'], ['Everett', 'Washington', 'US']],
      [['Olympia', 'Washington', 'US'], ['Vancouver', 'British Columbia', 'CA']]],
    ['Boston_Area', [['Cambridge', 'Massachusetts', 'US'], ['Somerville', 'Massachusetts', 'US'], ['Waltham', 'Massachusetts', 'US'], ['Lowell', 'Massachusetts', 'US']],
      [['Worcester', 'Massachusetts', 'US'], ['Providence', 'Rhode Island', 'US']]],
    ['Chicago_Metro', [['Evanston', 'Illinois', 'US'], ['Naperville', 'Illinois', 'US'], ['Schaumburg', 'Illinois', 'US'], ['Gary', 'Indiana', 'US']],
      [['Milwaukee', 'Wisconsin', 'US'], ['Rockford', 'Illinois', 'US']]],
    ['DC_Metro', [['Arlington', 'Virginia', 'US'], ['Alexandria', 'Virginia', 'US'], ['Reston', 'Virginia', 'US'], ['Bethesda', 'Maryland', 'US'], ['Silver Spring', 'Maryland', 'US'], ['Rockville', 'Maryland', 'US']],
      [['Baltimore', 'Maryland', 'US'], ['Richmond', 'Virginia', 'US']]],
    ['Austin_Area', [['Round Rock', 'Texas', 'US'], ['Cedar Park', 'Texas', 'US'], ['Pflugerville', 'Texas', 'US'], ['Georgetown', 'Texas', 'US']],
      [['San Antonio', 'Texas', 'US'], ['Waco', 'Texas', 'US']]],
    ['Denver_Area', [['Aurora', 'Colorado', 'US'], ['Lakewood', 'Colorado', 'US'], ['Boulder', 'Colorado', 'US']],
      [['Colorado Springs', 'Colorado', 'US'], ['Fort Collins', 'Colorado', 'US']]],
    ['DFW_Metro', [['Fort Worth', 'Texas', 'US'], ['Arlington', 'Texas', 'US'], ['Plano', 'Texas', 'US'], ['Frisco', 'Texas', 'US'], ['McKinney', 'Texas', 'US']], [['Waco', 'Texas', 'US']]],
    ['San_Diego_Area', [['Chula Vista', 'California', 'US'], ['Carlsbad', 'California', 'US']], [['Tijuana', 'Baja California', 'MX']]],
    ['Portland_Area', [['Beaverton', 'Oregon', 'US'], ['Hillsboro', 'Oregon', 'US'], ['Vancouver', 'Washington', 'US']], [['Salem', 'Oregon', 'US']]],
    ['London_Area', [['Croydon', 'England', 'GB'], ['Watford', 'England', 'GB'], ['Slough', 'England', 'GB']], [['Reading', 'England', 'GB'], ['Cambridge', 'England', 'GB'], ['Brighton', 'England', 'GB']]],
    ['Berlin_Area', [['Potsdam', 'Brandenburg', 'DE']], [['Leipzig', 'Saxony', 'DE']]],
    ['Munich_Area', [['Garching bei München', 'Bavaria', 'DE'], ['Freising', 'Bavaria', 'DE']], [['Augsburg', 'Bavaria', 'DE']]],
    ['Amsterdam_Area', [['Haarlem', 'North Holland', 'NL'], ['Amstelveen', 'North Holland', 'NL'], ['Hoofddorp', 'North Holland', 'NL']], [['Utrecht', 'Utrecht', 'NL'], ['The Hague', 'South Holland', 'NL']]],
    ['Zurich_Area', [['Winterthur', 'Zurich', 'CH'], ['Baden', 'Aargau', 'CH']], [['Basel', 'Basel-City', 'CH']]],
    ['Toronto_Area', [['Mississauga', 'Ontario', 'CA'], ['Brampton', 'Ontario', 'CA'], ['Markham', 'Ontario', 'CA'], ['Vaughan', 'Ontario', 'CA'], ['Oakville', 'Ontario', 'CA']], [['Hamilton', 'Ontario', 'CA']]],
  ]
  for (const [group, inside, outside] of cases) {
    for (const [c, r, cc] of inside) t.true(inGroup(group, city(c, r, cc)), `${c} is in ${group}`)
    for (const [c, r, cc] of outside) t.false(inGroup(group, city(c, r, cc)), `${c} is not in ${group}`)
  }
})

test('a metro stays in its country: no foreign town of 10,000 people is inside its circles', (t) => {
  // Smaller places across a border can fall inside a circle: Point Roberts (US, 1,300 people),
  // reachable by land only through Canada, inside Vancouver_Area; Hohentengen (DE, 3,600) inside Zurich_Area.
  const big = gazetteer().allCities.filter((c) => c.population >= 10_000)
  for (const [name, def] of Object.entries(GROUPS)) {
    if (!def.around) continue
    const country = new Set(def.around.map((c) => c.country))
    const foreign = big.filter((c) => !country.has(c.cc) && inGroup(name, c)).map((c) => `${c.name} (${c.cc})`)
    t.deepEqual(foreign, [], name)
  }
})

test('docs/location-groups.md names every group and every alias', (t) => {
  const doc = readFileSync(new URL('../../docs/location-groups.md', import.meta.url), 'utf8')
  for (const [name, def] of Object.entries(GROUPS)) {
    t.true(doc.includes(`\`${name}\``), name)
    for (const a of def.aliases ?? []) t.true(doc.includes(`\`${a}\``), `${name}'s alias ${a}`)
  }
})

// --- against ingested postings ------------------------------------------------------

const PLACES: [string, string, string?][] = [
  ['San Francisco', 'San Francisco, CA'],
  ['Oakland', 'Oakland, California'],
  ['Palo Alto', 'Palo Alto, CA'],
  ['Sacramento', 'Sacramento, CA'],
  ['Austin', 'Austin, TX'],
  ['Boston', 'Boston, MA'],
  ['Berlin', 'Berlin, Germany'],
  ['Potsdam', 'Potsdam, Germany'],
  ['Dublin', 'Dublin, Ireland'],
  ['London', 'London, UK'],
  ['Toronto', 'Toronto, ON, Canada'],
  ['Tokyo', 'Tokyo, Japan'],
  ['Sao Paulo', 'São Paulo, Brazil'],
  ['Remote US', 'Remote - US', 'Remote'],
  ['Remote EU', 'Remote (EU)', 'Remote'],
]

test.before(async (t) => {
  const db = await testDatabase()
  t.context.db = db
  const items: ReadItem[] = PLACES.map(([title, where, type], i) => ({
    line: i + 1,
    raw: rawPosting({ source_id: `lg-${i}`, job_title: `Engineer ${title}`, location_raw: where, location_type: type ?? 'In-Person', company: { name: 'Groups Co' } }, i) as never,
  }))
  const summary = await ingest(db.sql, items, { source: 'location-groups', now: new Date('2026-11-20T00:00:00Z') })
  if (summary.inserted !== PLACES.length) throw new Error(`ingested ${JSON.stringify(summary)}`)
})
test.after.always(async (t) => {
  await t.context.db?.close()
})

const page: SearchPage = { page: 1, limit: 100, sortBy: 'date_posted', sortOrder: null, raw: false }

async function found(t: { context: { db: TestDb } }, group: string) {
  const places = locationGroup(group)
  if (!places) throw new Error(`no group ${group}`)
  const { jobs, total } = await searchJobs(t.context.db.sql, { places }, page)
  if (total !== jobs.length) throw new Error(`total ${total} for ${jobs.length} jobs`)
  return jobs.map((j) => String(j.job_title).replace('Engineer ', '')).sort()
}

test('metros find the postings in their cities and suburbs, and no others', async (t) => {
  t.deepEqual(await found(t, 'Bay_Area'), ['Oakland', 'Palo Alto', 'San Francisco'])
  t.deepEqual(await found(t, 'bay area'), ['Oakland', 'Palo Alto', 'San Francisco'])
  t.deepEqual(await found(t, 'Austin_Area'), ['Austin'])
  t.deepEqual(await found(t, 'Berlin_Area'), ['Berlin', 'Potsdam'])
  t.deepEqual(await found(t, 'London_Area'), ['London'])
  t.deepEqual(await found(t, 'Toronto_Area'), ['Toronto'])
  t.deepEqual(await found(t, 'Dublin_Area'), ['Dublin'])
  t.deepEqual(await found(t, 'NYC_Metro'), [])
})

test('US regions and divisions find the postings in their states; a remote US posting is in none', async (t) => {
  t.deepEqual(await found(t, 'Pacific'), ['Oakland', 'Palo Alto', 'Sacramento', 'San Francisco'])
  t.deepEqual(await found(t, 'West'), ['Oakland', 'Palo Alto', 'Sacramento', 'San Francisco'])
  t.deepEqual(await found(t, 'West_South_Central'), ['Austin'])
  t.deepEqual(await found(t, 'South'), ['Austin'])
  t.deepEqual(await found(t, 'New_England'), ['Boston'])
  t.deepEqual(await found(t, 'Northeast'), ['Boston'])
  t.deepEqual(await found(t, 'Midwest'), [])
})

test('country groups find the postings in their countries and the remote postings open to them', async (t) => {
  t.deepEqual(await found(t, 'DACH'), ['Berlin', 'Potsdam', 'Remote EU'])
  t.deepEqual(await found(t, 'EU'), ['Berlin', 'Dublin', 'Potsdam', 'Remote EU'])
  t.deepEqual(await found(t, 'Europe'), ['Berlin', 'Dublin', 'London', 'Potsdam', 'Remote EU'])
  t.deepEqual(await found(t, 'UK_Ireland'), ['Dublin', 'London', 'Remote EU'])
  t.deepEqual(await found(t, 'Nordics'), ['Remote EU'])
  t.deepEqual(await found(t, 'North_America'), ['Austin', 'Boston', 'Oakland', 'Palo Alto', 'Remote US', 'Sacramento', 'San Francisco', 'Toronto'])
  t.deepEqual(await found(t, 'APAC'), ['Tokyo'])
  t.deepEqual(await found(t, 'LATAM'), ['Sao Paulo'])
  t.deepEqual(await found(t, 'MENA'), [])
})
