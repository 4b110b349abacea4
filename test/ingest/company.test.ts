import test from 'ava'
import { isSentence, normalizeCompany, parseSizeRange, sizeBucket, filterIndustries } from '../../ingest/transform/company.ts'
import { slugify } from '../../ingest/transform/slug.ts'
import { FieldError } from '../../ingest/transform/coerce.ts'

test('slugs are lowercase ascii with unicode transliterated', (t) => {
  t.is(slugify('Société Générale'), 'societe-generale')
  t.is(slugify('AT&T'), 'at-and-t')
  t.is(slugify('Müller GmbH'), 'mueller-gmbh')
  t.is(slugify('  Acme,  Inc. '), 'acme-inc')
  t.is(slugify('FooBar'), 'foobar')
  t.regex(slugify('数据'), /^x-[a-z0-9]+$/)
  t.is(slugify('数据'), slugify('数据'))
})

test('size ranges and buckets', (t) => {
  t.deepEqual(parseSizeRange('51-200'), { min: 51, max: 200 })
  t.deepEqual(parseSizeRange('10000+'), { min: 10000, max: null })
  t.deepEqual(parseSizeRange('10,001+'), { min: 10001, max: null })
  t.deepEqual(parseSizeRange('1,001-5,000 employees'), { min: 1001, max: 5000 })
  t.deepEqual(parseSizeRange(75), { min: 75, max: 75 })
  t.deepEqual(parseSizeRange({ min: 11, max: 50 }), { min: 11, max: 50 })
  t.throws(() => parseSizeRange('huge'), { instanceOf: FieldError })
  t.is(sizeBucket(51, 200), '51-200')
  t.is(sizeBucket(10001, null), '10000+')
  t.is(sizeBucket(10000, null), '10000+') // "10000+" names the open bucket
  t.is(sizeBucket(75, 75), '51-200')
  t.is(sizeBucket(3, 8), '1-10')
  t.is(sizeBucket(null, null), null)
})

test('industries only from the reference list, canonical spelling', (t) => {
  t.deepEqual(filterIndustries(['tech, software & it services', 'Software Development', 'Finance'], ['fintech', 'Cloud Technologies', 'Made Up']), {
    industries: ['Tech, Software & IT Services', 'Finance'],
    subindustries: ['Fintech', 'Cloud Technologies'],
  })
  // A subindustry must belong to a kept industry...
  t.deepEqual(filterIndustries(['Finance'], ['Cloud Technologies']).subindustries, [])
  // ...or to any industry when none was kept.
  t.deepEqual(filterIndustries([], ['Staffing & Recruiting']).subindustries, ['Staffing & Recruiting'])
})

test('company normalisation', (t) => {
  const c = normalizeCompany({ name: ' Société  Générale ', size_range: '10,001+', industries: 'Finance; Banking', subindustries: ['Banking'], is_recruiting_agency: 'no' })
  t.like(c, { name: 'Société Générale', slug: 'societe-generale', size_min: 10001, size_max: null, size_bucket: '10000+', industries: ['Finance'], subindustries: ['Banking'], is_recruiting_agency: false })
  t.true(normalizeCompany({ name: 'Hays', industries: ['Corporate Services'], subindustries: ['Staffing & Recruiting'] }).is_recruiting_agency)
  t.is(normalizeCompany({ name: 'X', slug: 'My Slug' }).slug, 'my-slug')
  t.throws(() => normalizeCompany({ name: '' }), { message: 'company.name: required non-empty string' })
  t.throws(() => normalizeCompany(undefined), { instanceOf: FieldError })
})

test('a sentence is no company name: the row is rejected with the reason, long real names are kept', (t) => {
  t.true(isSentence("But you don't have money for paying salaries ? It seems you guys make a lot of people go through the hoops"))
  t.true(isSentence("We're hiring a ton at Coinbase right now for pretty much every team"))
  t.false(isSentence('University Hospitals Bristol and Weston NHS Foundation Trust (formerly University Hospitals Bristol NHS Foundation Trust)'))
  t.false(isSentence("Ashford and St. Peter's Hospitals NHS Foundation Trust"))
  t.false(isSentence('General Dynamics Mission Systems / Deep Learning Analytics Center of Excellence'))
  const err = t.throws(() => normalizeCompany({ name: "I've previously applied at Alto and have yet to receive a response..." }))
  t.regex(err!.message, /^company\.name: a sentence, not a name/)
})
