/**
 * Company profiles on their own: recognized among postings, created or updated by slug,
 * size words mapped to the spec's buckets (a stated head count wins), unchanged on a
 * re-run, never cleared by postings, and served on the company profile.
 */
import anyTest, { type TestFn } from 'ava'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { companyProfile, ingestCompanies, SIZE_WORDS } from '../../ingest/companies.ts'
import { openCompanyFeed } from '../../ingest/formats/index.ts'
import { ingest } from '../../ingest/pipeline.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { rawPosting } from '../helpers/factories.ts'

const test = anyTest as TestFn<{ app: TestApp; dir: string }>

const profiles = [
  {
    title: 'Northwind Cloud', slug: 'northwind-cloud', website: 'https://northwind.example/', careers_url: 'https://northwind.example/careers/',
    region: 'europe', remote_policy: 'fully-remote', company_size: 'medium', technologies: ['php', 'machine-learning', 'PHP'],
    addedAt: '2019-01-02', sections: { 'Company blurb': 'We build **hosting** for [WordPress](https://wordpress.org) sites.\n\nSince 2012.', 'Company size': '125 and growing' },
  },
  { title: 'Tiny Tools', slug: 'tiny-tools', website: 'https://tiny.example', region: 'worldwide', remote_policy: 'remote-first', company_size: 'tiny', technologies: [], sections: {} },
  { title: 'Big Bank', website: 'https://bank.example', company_size: 'enterprise', remote_policy: 'hybrid', region: 'americas', technologies: ['java'], sections: { 'Company size': '1,001-5,000 employees' } },
  { title: '', slug: 'nameless', website: 'https://nameless.example', company_size: 'small' },
]

test.before(async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'jds-companies-'))
  t.context = { app: await startTestApp({ embedder: null }), dir }
})
test.after.always(async (t) => {
  await t.context.app?.close()
  await rm(t.context.dir, { recursive: true, force: true })
})

test('size words map to the documented buckets; a stated head count or range wins', (t) => {
  t.like(companyProfile({ title: 'A', company_size: 'tiny' }), { size_min: 1, size_max: 10, size_bucket: '1-10' })
  t.like(companyProfile({ title: 'A', company_size: 'small' }), { size_min: 11, size_max: 50, size_bucket: '11-50' })
  t.like(companyProfile({ title: 'A', company_size: 'medium' }), { size_bucket: '51-200' })
  t.like(companyProfile({ title: 'A', company_size: 'large' }), { size_min: 201, size_max: 1000, size_bucket: '501-1000' })
  t.like(companyProfile({ title: 'A', company_size: 'enterprise' }), { size_min: 1001, size_max: null, size_bucket: '1001-5000' })
  t.like(companyProfile({ title: 'A', company_size: 'small', sections: { 'Company size': '11-50 employees' } }), { size_min: 11, size_max: 50, size_bucket: '11-50' })
  t.like(companyProfile({ title: 'A', company_size: 'medium', sections: { 'Company size': '125 and growing' } }), { size_min: 125, size_max: 125, size_bucket: '51-200' })
  t.like(companyProfile({ title: 'A' }), { size_min: null, size_bucket: null })
  t.deepEqual(Object.keys(SIZE_WORDS).sort(), ['enterprise', 'large', 'medium', 'small', 'startup', 'tiny'])
  t.throws(() => companyProfile({ title: '  ' }), { message: /name/ })
})

test.serial('a profiles file is recognized, ingested by slug, unchanged on a re-run, and served on the company profile', async (t) => {
  const { app, dir } = t.context
  const file = path.join(dir, 'companies.json.gz')
  await writeFile(file, gzipSync(JSON.stringify(profiles, null, 1)))
  const postings = path.join(dir, 'postings.jsonl')
  await writeFile(postings, JSON.stringify(rawPosting()) + '\n')
  t.is(await openCompanyFeed(postings), null, 'postings are not company records')

  const feed = await openCompanyFeed(file)
  t.truthy(feed)
  const rejected: [number, string][] = []
  const first = await ingestCompanies(app.db.sql, feed!.items, (line, reason) => rejected.push([line, reason]))
  t.like(first, { read: 4, inserted: 3, updated: 0, unchanged: 0, rejected: 1 })
  t.is(rejected.length, 1)
  t.regex(rejected[0][1], /name/)
  const again = await ingestCompanies(app.db.sql, (await openCompanyFeed(file))!.items)
  t.like(again, { read: 4, inserted: 0, updated: 0, unchanged: 3, rejected: 1 })

  const [row] = await app.db.sql`select * from companies where slug = 'northwind-cloud'`
  t.like(row, {
    name: 'Northwind Cloud', link: 'https://northwind.example/', careers_url: 'https://northwind.example/careers/', size_min: 125, size_max: 125,
    size_bucket: '51-200', remote_policy: 'fully-remote', hiring_region: 'europe',
  })
  t.is(row.description_summary, 'We build hosting for WordPress sites.\n\nSince 2012.')
  t.deepEqual(row.technologies, ['PHP', 'Machine Learning'])
  const [bank] = await app.db.sql`select slug, size_min, size_max, size_bucket from companies where name = 'Big Bank'`
  t.like(bank, { slug: 'big-bank', size_min: 1001, size_max: 5000, size_bucket: '1001-5000' })

  // a posting of the company later leaves the profile's fields as they are
  await ingest(app.db.sql, [{ line: 1, raw: rawPosting({ company: { name: 'Northwind Cloud', slug: 'northwind-cloud' } }) as never }], { source: 'profiles-test' })
  const [after] = await app.db.sql`select careers_url, technologies, remote_policy, description_summary from companies where slug = 'northwind-cloud'`
  t.like(after, { careers_url: 'https://northwind.example/careers/', remote_policy: 'fully-remote' })
  t.deepEqual(after.technologies, ['PHP', 'Machine Learning'])

  const res = await app.get('/v2/platform/companies/northwind-cloud')
  t.is(res.status, 200)
  const { company } = await res.json()
  t.like(company, { careers_url: 'https://northwind.example/careers/', remote_policy: 'fully-remote', hiring_region: 'europe', size_bucket: '51-200' })
  t.deepEqual(company.technologies, ['PHP', 'Machine Learning'])
})
