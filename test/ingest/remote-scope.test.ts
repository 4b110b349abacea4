/**
 * A remote posting's allowed countries and regions become its scope ("Remote - APAC", "US or
 * Canada", "EMEA timezones", "Anywhere"); a place named only as the company's headquarters is not
 * the job's place.
 */
import test from 'ava'
import { postingLocations, scopeText } from '../../ingest/transform/locations.ts'
import { remoteScope } from '../../ingest/formats/remote-boards.ts'

const scope = (text: string) => {
  const p = postingLocations(undefined, text, null)
  return { remote: p.remote, countries: p.remoteCountries, places: p.locations.map((l) => `${l.city}, ${l.country}`) }
}

test('lists in parentheses, region time zones and headquarters beside a remote alternative', (t) => {
  t.is(scopeText('Remote (US or Canada)'), 'Remote - US or Canada')
  t.is(scopeText('Remote (Germany)'), 'Remote (Germany)')
  t.is(scopeText('Remote - EMEA timezones'), 'Remote - EMEA')
  t.is(scopeText('Remote (EST timezone)'), 'Remote (EST timezone)')
  t.is(scopeText('San Francisco (HQ) or Remote (US)'), 'Remote (US)')
  t.is(scopeText('Austin, TX (HQ)'), 'Austin, TX (HQ)')

  t.deepEqual(scope('Remote (US or Canada)'), { remote: true, countries: ['United States', 'Canada'], places: [] })
  t.deepEqual(scope('San Francisco (HQ) or Remote (US)'), { remote: true, countries: ['United States'], places: [] })
  t.deepEqual(scope('HQ: Berlin; Remote - UK & Ireland'), { remote: true, countries: ['United Kingdom', 'Ireland'], places: [] })
  t.true(scope('Remote - APAC').countries.includes('Japan'))
  t.true(scope('Remote - EMEA timezones').countries.includes('South Africa'))
  t.deepEqual(scope('Anywhere'), { remote: true, countries: [], places: [] })
})

test("a remote-only board's applicant regions, time zones named by region included", (t) => {
  t.is(remoteScope('EMEA timezones'), 'Remote - EMEA')
  t.is(remoteScope('USA time zones, Canada'), 'Remote - USA; Remote - Canada')
  t.is(remoteScope('CET (+/- 3 hours)'), 'Remote')
  t.is(remoteScope('Anywhere in the World'), 'Remote - Worldwide')
})
