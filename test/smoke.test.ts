import test from 'ava'
import categories from '../seeds/categories.json' with { type: 'json' }
test('reference categories load', (t) => { t.is(categories.length, 39) })
