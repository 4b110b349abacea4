/**
 * Where a remote job is open: a posting at "Remote - US" is stored with locations [] and
 * remote_countries ["United States"], matches a United States filter, and its record shows
 * that scope as a country-only location, the same in search (POST and GET), vsearch,
 * neural-search, the job lookup, the company's jobs and exports (docs/search.md, "Geo filters").
 */
import anyTest, { type TestFn } from 'ava'
import { mkdtemp, rm } from 'node:fs/promises'
import { randomBytes } from 'node:crypto'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { loadConfig } from '../../sql/config.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { download, waitForTask } from '../helpers/tasks.ts'
import { axis, planar, seedPostings, setJobVectors } from './vector-fixtures.ts'

type Ctx = { app: TestApp; dir: string; company: string; slug: string; ids: Map<string, string> }
const test = anyTest as TestFn<Ctx>

const US = { city: null, region: null, country: 'United States' }
const CANADA = { city: null, region: null, country: 'Canada' }
type Location = { city: string | null; region: string | null; country: string | null }
type Job = { _id: string; job_title: string; location_type: string | null; locations: Location[]; remote_countries?: string[] }

/** What each posting's record must show: [location_raw, locations shown (city and country only), remote_countries]. */
const postings: Record<string, [string, Location[], string[]]> = {
  'Scope US Engineer': ['Remote - US', [US], ['United States']],
  'Scope Berlin Canada Engineer': ['Berlin, Germany; Remote - Canada', [{ city: 'Berlin', region: 'State of Berlin', country: 'Germany' }, CANADA], ['Canada']],
  'Scope New York Engineer': ['New York, NY; Remote - US', [{ city: 'New York City', region: 'New York', country: 'United States' }], ['United States']],
  'Scope Anywhere Engineer': ['Remote', [], []],
}
const plain = (ls: Location[]) => ls.map(({ city, region, country }) => ({ city, region, country }))

test.before(async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'jds-remote-scope-'))
  const base = loadConfig()
  const roomy = { limit: 100_000, windowSeconds: 60 }
  const app = await startTestApp({
    tasks: true,
    config: {
      dataDir: dir,
      downloadsDir: path.join(dir, 'downloads'),
      tasks: { ...base.tasks, retryLimit: 1, retryDelay: 0, maintenanceSeconds: 1 },
      rateLimits: { key: roomy, search: { limit: 100_000, windowSeconds: 1 }, anonymous: roomy },
    },
  })
  await app.db.sql`update accounts set plan = 'scale' where id = ${app.accountId}`
  await app.sync()
  const company = `Scope Co ${randomBytes(4).toString('hex')}`
  const titles = Object.keys(postings)
  const ids = await seedPostings(
    app.db.sql,
    [
      ...titles.map((job_title) => ({ job_title, location_raw: postings[job_title][0], location_type: 'Remote', company: { name: company } })),
      { job_title: 'Scope Reference Engineer', location_raw: 'Paris, France', location_type: 'In-Person', company: { name: company } },
    ],
    company,
  )
  // vectors on axes of their own: the reference job's nearest neighbours are these jobs
  const vectors: [string, number[]][] = [['Scope Reference Engineer', planar(1, 40, 41)], ...titles.map((title, i): [string, number[]] => [title, planar(0.9 - i * 0.1, 40, 41)])]
  await setJobVectors(app.db.sql, vectors.map(([title, v]) => [ids.get(title)!, v]))
  const [{ slug }] = await app.db.sql<{ slug: string }[]>`select slug from companies where name = ${company}`
  t.context = { app, dir, company, slug, ids }
})
test.after.always(async (t) => {
  await t.context.app?.close()
  await rm(t.context.dir, { recursive: true, force: true })
})

/** Every seeded posting found in `jobs` shows its scope; returns the titles checked. */
function assertScopes(t: { deepEqual: (a: unknown, b: unknown, m?: string) => void; is: (a: unknown, b: unknown, m?: string) => void }, jobs: Job[], where: string) {
  const checked: string[] = []
  for (const job of jobs) {
    const expected = postings[job.job_title]
    if (!expected) continue
    t.deepEqual(plain(job.locations), expected[1], `${where}: ${job.job_title}`)
    t.is(job.location_type, 'Remote', `${where}: ${job.job_title}`)
    if (job.remote_countries) t.deepEqual(job.remote_countries, expected[2], `${where}: ${job.job_title}`)
    checked.push(job.job_title)
  }
  return checked.sort()
}

test('the stored row keeps locations [] and remote_countries: the scope is added when the record is read', async (t) => {
  const { app, ids } = t.context
  const [row] = await app.db.sql<{ locations: unknown[]; remote_countries: string[] }[]>`
    select locations, remote_countries from jobs where id = ${ids.get('Scope US Engineer')!}`
  t.deepEqual(row, { locations: [], remote_countries: ['United States'] })
})

test('POST and GET search: a United States filter finds the "Remote - US" job, and its record says why', async (t) => {
  const { app, company } = t.context
  const res = await app.post('/v2/jobs/search', { company_name: company, geo_locations: [{ country: 'United States' }], limit: 50 })
  t.is(res.status, 200)
  const found = ((await res.json()).jobs as Job[])
  t.deepEqual(assertScopes(t, found, 'POST search'), ['Scope New York Engineer', 'Scope US Engineer'])

  const get = await app.get(`/v2/jobs/search?company_name=${encodeURIComponent(company)}&geo_locations=${encodeURIComponent('Canada')}&limit=50`)
  t.is(get.status, 200)
  t.deepEqual(assertScopes(t, (await get.json()).jobs, 'GET search'), ['Scope Berlin Canada Engineer'])

  const all = await app.post('/v2/jobs/search', { company_name: company, limit: 50 })
  t.deepEqual(assertScopes(t, (await all.json()).jobs, 'search'), Object.keys(postings).sort())
})

test('job lookup and the company\'s jobs', async (t) => {
  const { app, ids, slug } = t.context
  for (const title of Object.keys(postings)) {
    const res = await app.get(`/v2/jobs/${ids.get(title)}`)
    t.is(res.status, 200)
    t.deepEqual(assertScopes(t, [await res.json()], 'lookup'), [title])
  }
  const page = await app.get(`/v2/platform/companies/${slug}/jobs?limit=50`)
  t.deepEqual(assertScopes(t, (await page.json()).jobs, 'company jobs'), Object.keys(postings).sort())
})

test('vsearch and neural-search', async (t) => {
  const { app, ids, company } = t.context
  const v = await app.post('/v2/jobs/vsearch', { search_type: 'job', job_id: ids.get('Scope Reference Engineer'), company_name: company, score: 0.1, top_k: 50, limit: 50 })
  t.is(v.status, 200, JSON.stringify(await v.clone().json()))
  t.deepEqual(assertScopes(t, (await v.json()).jobs, 'vsearch'), Object.keys(postings).sort())

  const n = await app.post('/v2/jobs/neural-search', { vector: { vectors: [axis(40)] }, lexical: { company_name: company }, limit: 50 })
  t.is(n.status, 200, JSON.stringify(await n.clone().json()))
  t.deepEqual(assertScopes(t, (await n.json()).jobs, 'neural-search'), Object.keys(postings).sort())
})

test('exports, JSON lines and CSV', async (t) => {
  const { app, company } = t.context
  for (const format of ['json', 'csv'] as const) {
    const res = await app.post('/v2/jobs/export', { search: { company_name: company, limit: 50 }, format })
    t.is(res.status, 200, format)
    const task = await waitForTask(app, (await res.json()).id)
    t.is(task.state, 'finished', task.error ?? '')
    const text = await (await download(app, task.result!.download_url)).text()
    let jobs: Job[]
    if (format === 'json') jobs = text.trim().split('\n').map((l) => JSON.parse(l))
    else {
      const { parse } = await import('csv-parse/sync')
      jobs = (parse(text, { columns: true }) as Record<string, string>[]).map((r) => ({ ...r, locations: JSON.parse(r.locations) }) as unknown as Job)
    }
    t.deepEqual(assertScopes(t, jobs, `export ${format}`), Object.keys(postings).sort())
  }
})
