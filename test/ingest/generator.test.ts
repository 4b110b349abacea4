import test from 'ava'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import categories from '../../seeds/categories.json' with { type: 'json' }
import cities from '../../seeds/cities.json' with { type: 'json' }
import industries from '../../seeds/industries.json' with { type: 'json' }
import sizeBuckets from '../../seeds/size-buckets.json' with { type: 'json' }
import { categoryProfiles } from '../../ingest/generator/category-profiles.ts'
import { type DetailedPosting, generateDetailed, generatePostings } from '../../ingest/generator/postings.ts'
import type { RawCompany, RawPosting } from '../../ingest/types.ts'

const run = promisify(execFile)
const NOW = '2026-11-20'
const DAY = 86_400_000
const industryMap = industries as Record<string, string[]>

// One 5,000-posting sample shared by the coverage tests (about half a second to build).
const sample: DetailedPosting[] = [...generateDetailed({ jobs: 5000, seed: 42, now: NOW })]
const postings: RawPosting[] = sample.map((d) => d.posting)

const lines = (opts: { jobs: number; seed: number; now?: string }) => [...generatePostings(opts)].map((p) => JSON.stringify(p))

function company(p: RawPosting): RawCompany & { name: string; industries: string[]; subindustries: string[] } {
  return p.company as RawCompany & { name: string; industries: string[]; subindustries: string[] }
}

/** Decode the size_range shapes the generator emits into a bucket of seeds/size-buckets.json. */
function bucketOf(size: unknown): string | null {
  let min: number | null = null
  if (typeof size === 'number') min = size
  else if (typeof size === 'string') {
    const m = size.replace(/,/g, '').match(/^(\d+)(\+|-(\d+))/)
    if (m) min = m[2] === '+' ? Number(m[1]) + 1 : Number(m[1])
  } else if (size && typeof size === 'object') min = (size as { min: number }).min
  if (min === null) return null
  const bounds: [string, number][] = [['1-10', 10], ['11-50', 50], ['51-200', 200], ['201-500', 500], ['501-1000', 1000], ['1001-5000', 5000], ['5001-10000', 10000]]
  for (const [b, hi] of bounds) if (min <= hi) return b
  return '10000+'
}

test('same seed and now give identical output; another seed differs', (t) => {
  const a = lines({ jobs: 400, seed: 7, now: NOW })
  const b = lines({ jobs: 400, seed: 7, now: NOW })
  t.deepEqual(a, b)
  const c = lines({ jobs: 400, seed: 8, now: NOW })
  t.notDeepEqual(a, c)
  t.true(a.filter((line, i) => line === c[i]).length === 0)
})

test('CLI output is byte-identical across runs and matches the exported generator', async (t) => {
  const args = ['--import', 'tsx', 'bin/seed.ts', '--jobs', '300', '--seed', '3', '--now', NOW]
  const [x, y] = await Promise.all([run(process.execPath, args, { maxBuffer: 64 << 20 }), run(process.execPath, args, { maxBuffer: 64 << 20 })])
  t.is(x.stdout, y.stdout)
  t.is(x.stdout, lines({ jobs: 300, seed: 3, now: NOW }).join('\n') + '\n')
})

test('CLI rejects a malformed --now', async (t) => {
  const err = await t.throwsAsync(run(process.execPath, ['--import', 'tsx', 'bin/seed.ts', '--jobs', '5', '--now', '20-11-2026']))
  t.regex(String((err as Error & { stderr?: string }).stderr), /--now must be YYYY-MM-DD/)
})

test('every line is JSON with the required fields', async (t) => {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'bin/seed.ts', '--jobs', '500', '--now', NOW], { maxBuffer: 64 << 20 })
  const rows = stdout.trimEnd().split('\n')
  t.is(rows.length, 500)
  const ids = new Set<string>()
  for (const row of rows) {
    const p = JSON.parse(row) as RawPosting
    t.true(typeof p.job_title === 'string' && p.job_title.length > 0)
    t.true(typeof p.description === 'string' && (p.description as string).startsWith('<'))
    t.true(typeof p.job_board === 'string' && (p.job_board as string).length > 0)
    t.true(typeof p.company?.name === 'string' && (p.company.name as string).length > 0)
    t.true(typeof p.source_id === 'string')
    ids.add(`${String(p.job_board)}:${String(p.source_id)}`)
  }
  t.is(ids.size, 500, 'source ids are unique per board')
})

test('generatePostings streams lazily', (t) => {
  const it = generatePostings({ jobs: 10_000_000, companies: 100, seed: 1, now: NOW })[Symbol.iterator]()
  const first = it.next()
  t.false(first.done)
  // the first of ten million is there at once, and it is the posting a short run starts with
  t.deepEqual(first.value, [...generatePostings({ jobs: 10, companies: 100, seed: 1, now: NOW })][0])
})

test('default now is today (UTC), dates within the last 120 days', (t) => {
  const today = new Date().toISOString().slice(0, 10)
  const dates = [...generatePostings({ jobs: 300, seed: 5 })].map((p) => String(p.date_posted).slice(0, 10))
  t.true(dates.every((d) => d <= today))
  t.true(dates.some((d) => d === today || Date.parse(today) - Date.parse(d) <= 2 * DAY))
})

test('every category, industry and size bucket appears in 5,000 postings', (t) => {
  const seenCategories = new Set(sample.map((d) => d.category))
  for (const c of categories) t.true(seenCategories.has(c), `category ${c}`)
  t.true(categories.every((c) => categoryProfiles[c] !== undefined))

  const seenIndustries = new Set(postings.flatMap((p) => company(p).industries))
  for (const i of Object.keys(industryMap)) t.true(seenIndustries.has(i), `industry ${i}`)

  const seenBuckets = new Set(postings.map((p) => bucketOf(p.company?.size_range)))
  for (const b of sizeBuckets) t.true(seenBuckets.has(b), `size bucket ${b}`)
})

test('industries and subindustries are valid reference values, with a good spread', (t) => {
  const subs = new Set<string>()
  for (const p of postings) {
    const c = company(p)
    for (const i of c.industries) t.true(i in industryMap, i)
    for (const s of c.subindustries) {
      t.true(c.industries.some((i) => industryMap[i].includes(s)), `${s} belongs to one of ${c.industries.join(', ')}`)
      subs.add(s)
    }
  }
  t.true(subs.size >= 150, `distinct subindustries: ${subs.size}`)
})

test('job_categories, when given, use the category list', (t) => {
  const given = postings.filter((p) => Array.isArray(p.job_categories))
  t.true(given.length > 0)
  for (const p of given) for (const c of p.job_categories as string[]) t.true(categories.includes(c), c)
})

test('about 3% are re-posts of an earlier posting on another board', (t) => {
  const key = (p: RawPosting) => JSON.stringify([company(p).name, p.job_title, p.location_raw ?? null, p.locations ?? null, p.description])
  const groups = new Map<string, RawPosting[]>()
  for (const p of postings) groups.set(key(p), [...(groups.get(key(p)) ?? []), p])
  let extra = 0
  for (const g of groups.values()) {
    if (g.length < 2) continue
    extra += g.length - 1
    t.is(new Set(g.map((p) => p.job_board)).size, g.length, 'each copy is on a different board')
    t.is(new Set(g.map((p) => p.source_id)).size, g.length)
    t.is(new Set(g.map((p) => p.job_board_link)).size, g.length)
  }
  const rate = extra / postings.length
  t.true(rate >= 0.02 && rate <= 0.04, `duplicate rate ${rate}`)
  t.is(extra, sample.filter((d) => d.repostOf !== null).length, 'only intended re-posts collide')
})

test('dates fall in the last 120 days; some postings have already expired', (t) => {
  const now = Date.parse(`${NOW}T00:00:00Z`)
  let expired = 0
  let datetimes = 0
  for (const p of postings) {
    const posted = String(p.date_posted)
    t.regex(posted, /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}(\.\d{3})?Z)?$/)
    if (posted.length > 10) datetimes++
    const day = Date.parse(`${posted.slice(0, 10)}T00:00:00Z`)
    t.true(day <= now && now - day < 120 * DAY, posted)
    if (p.valid_through !== undefined && Date.parse(String(p.valid_through).slice(0, 10)) < now) expired++
  }
  t.true(datetimes > 0)
  t.true(expired / postings.length > 0.05, `expired share ${expired / postings.length}`)
})

test('locations, salaries and job types come in the documented variety', (t) => {
  const raw = postings.map((p) => p.location_raw).filter((x): x is string => typeof x === 'string')
  t.true(raw.some((x) => /^Remote - (US|USA|United States)$/.test(x)))
  t.true(raw.some((x) => /^Remote \(.+\)$/.test(x)))
  t.true(raw.some((x) => /^Hybrid - .+, [A-Z]{2}$/.test(x)))
  t.true(raw.some((x) => /^[^,;]+, [A-Z]{2}$/.test(x)), 'US style "City, ST"')
  t.true(raw.some((x) => x.includes('; ')), 'multi-location text')
  const structured = postings.filter((p) => Array.isArray(p.locations) && typeof (p.locations as unknown[])[0] === 'object')
  t.true(structured.length > 50)
  for (const p of structured) for (const l of p.locations as { lat: number; lng: number }[]) t.true(Math.abs(l.lat) <= 90 && Math.abs(l.lng) <= 180)

  const ranges = postings.map((p) => p.salary_range as { currency: string; period?: string } | undefined).filter((r) => r !== undefined)
  const currencies = new Set(ranges.map((r) => r.currency.toUpperCase()))
  for (const c of ['USD', 'EUR', 'GBP', 'CAD', 'INR', 'AUD']) t.true(currencies.has(c), c)
  const periods = new Set(ranges.map((r) => r.period))
  for (const p of ['yearly', 'hourly', 'monthly', 'daily', 'weekly', undefined]) t.true(periods.has(p), String(p))
  const texts = postings.map((p) => p.salary).filter((s): s is string => typeof s === 'string')
  t.true(texts.length > 500)
  t.true(texts.some((s) => s.startsWith('£')) && texts.some((s) => s.startsWith('€')) && texts.some((s) => /k\b/.test(s)))
  const none = postings.filter((p) => p.salary_range === undefined && p.salary === undefined).length
  t.true(none / postings.length > 0.2 && none / postings.length < 0.4)

  const lt = new Set(postings.map((p) => p.location_type))
  for (const v of ['Remote', 'Hybrid', 'In-Person', 'On-site', 'onsite', undefined]) t.true(lt.has(v), String(v))
  const jt = new Set(postings.map((p) => p.job_type))
  for (const v of ['Full Time', 'FULL_TIME', 'full-time', 'Contract', 'Temporary', 'Internship', 'Part-time', undefined]) t.true(jt.has(v), String(v))
})

test('descriptions are varied HTML of a realistic size, some with tags to sanitize', (t) => {
  const sizes = postings.map((p) => Buffer.byteLength(String(p.description))).sort((a, b) => a - b)
  const median = sizes[sizes.length >> 1]
  t.true(median >= 1500 && median <= 4000, `median ${median}`)
  t.true(sizes[Math.floor(sizes.length * 0.05)] >= 1200 && sizes[Math.floor(sizes.length * 0.95)] <= 4500)
  const html = postings.map((p) => String(p.description))
  t.true(html.every((h) => h.includes('<li>') && h.includes('<p')))
  t.true(html.some((h) => h.includes('<script')))
  t.true(html.some((h) => h.includes('style="')))
  t.true(html.some((h) => /\d\+ years of experience/.test(h)))
  // Not one template: the first 200 characters differ across most postings.
  t.true(new Set(html.map((h) => h.slice(0, 200))).size > postings.length * 0.9)
  t.true(new Set(postings.map((p) => p.job_title)).size > 1000)
})

test('companies are consistent across their postings; agencies are flagged', (t) => {
  const byName = new Map<string, string>()
  for (const p of postings) {
    const c = company(p)
    const sig = JSON.stringify(c)
    if (byName.has(c.name)) t.is(byName.get(c.name), sig, c.name)
    else byName.set(c.name, sig)
  }
  t.true(byName.size >= 240)
  const agencies = postings.filter((p) => company(p).is_recruiting_agency === true)
  t.true(agencies.length > 0)
  for (const p of agencies) {
    t.deepEqual(company(p).industries, ['Corporate Services'])
    t.deepEqual(company(p).subindustries, ['Staffing & Recruiting'])
    t.not(p.recruiter_agency, false)
  }
})

test('cities.json: 300 real cities in about 40 countries', (t) => {
  t.is(cities.length, 300)
  t.true(new Set(cities.map((c) => c.country)).size >= 38)
  t.is(new Set(cities.map((c) => `${c.city}|${c.region}|${c.country}`)).size, 300)
  for (const c of cities) {
    t.true(c.city.length > 0 && c.region.length > 0 && c.country.length > 0)
    t.true(Math.abs(c.lat) <= 90 && Math.abs(c.lng) <= 180)
  }
  const sf = cities.find((c) => c.city === 'San Francisco')
  t.is(sf?.region, 'California')
  t.true(Math.abs((sf?.lat ?? 0) - 37.77) < 0.1 && Math.abs((sf?.lng ?? 0) + 122.42) < 0.1)
  t.is(cities.find((c) => c.city === 'Berlin')?.country, 'Germany')
})
