import test from 'ava'
import { placeKey, placeKeys } from '../../seeds/places/place-keys.ts'

test('a job is indexed under its country, region and city, and its remote scope', (t) => {
  t.deepEqual(placeKeys([{ city: 'München', region: 'Bavaria', country: 'Germany' }], ['Austria']), [
    'c:germany', 'r:germany|bavaria', 't:germany|bavaria|munchen', 'c:austria',
  ])
  t.deepEqual(placeKeys([{ city: 'Nowhere', region: null, country: null }]), [])
})

test('a filter looks up its most specific key, when the parts allow one', (t) => {
  t.is(placeKey({ country: 'Germany' }), 'c:germany')
  t.is(placeKey({ region: 'Bavaria', country: 'Germany' }), 'r:germany|bavaria')
  t.is(placeKey({ city: 'Munich', region: 'Bavaria', country: 'Germany' }), 't:germany|bavaria|munich')
  t.is(placeKey({ city: 'Munich', country: 'Germany' }), null)
  t.is(placeKey({ city: 'Munich' }), null)
})
