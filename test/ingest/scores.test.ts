/**
 * The neural-search scores: each per-posting formula on a posting as ingest normalizes it, and
 * compensation_value_score, the salary percentile among comparable live postings, on a small
 * ingested set (docs/scores.md).
 */
import anyTest, { type TestFn } from 'ava'
import { normalizePosting } from '../../ingest/normalize.ts'
import { ingest } from '../../ingest/pipeline.ts'
import type { ReadItem } from '../../ingest/read.ts'
import {
  benefitsScore,
  completeness,
  computeScores,
  coolness,
  flexibilityScore,
  growthScore,
  impactScore,
  prestigeScore,
  targetability,
} from '../../ingest/transform/scores.ts'
import type { Posting } from '../../ingest/types.ts'
import { DRIFT, MIN_GROUP, refreshCompensationPercentiles, USD_PER_UNIT } from '../../sql/scores.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'
import { rawPosting } from '../helpers/factories.ts'

const test = anyTest as TestFn<{ db: TestDb }>

function posting(overrides: Record<string, unknown>): Posting {
  const p = normalizePosting(rawPosting(overrides, 1), { now: new Date('2026-11-20T00:00:00Z') })
  if ('reason' in p) throw new Error(p.reason)
  return p
}

// --- per posting ---------------------------------------------------------------------

test('flexibility: the work arrangement, plus flexible hours and part time', (t) => {
  const hybrid = posting({ location_type: 'Hybrid', benefits: ['Flexible Hours'] })
  t.is(hybrid.location_type, 'Hybrid')
  t.is(flexibilityScore(hybrid), 0.85)
  t.is(flexibilityScore(posting({ location_type: 'On-site', job_type: 'Part Time' })), 0.3)
  t.is(flexibilityScore(posting({ location_type: 'Remote', location_raw: 'Remote - US', benefits: ['Flexible Hours'] })), 1)
  t.is(flexibilityScore(posting({ location_type: undefined, location_raw: 'Berlin, Germany' })), 0.4)
})

test('benefits: one eighth per distinct benefit, full at eight', (t) => {
  const three = posting({ benefits: ['Health Insurance', 'Dental Insurance', '401(k)'] })
  t.deepEqual(three.benefits, ['Health Insurance', 'Dental Insurance', '401(k)'])
  t.is(benefitsScore(three), 0.375)
  t.is(benefitsScore(posting({})), 0)
  const many = ['Health Insurance', 'Dental Insurance', 'Vision Insurance', 'Life Insurance', '401(k)', 'Bonus', 'Paid Time Off', 'Parental Leave', 'Childcare', 'Free Meals']
  t.is(benefitsScore(posting({ benefits: many })), 1)
})

test('impact/autonomy: ownership words, 0.2 each up to four, plus 0.2 for senior roles', (t) => {
  const description = '<p>You will have ownership of the platform end-to-end and shape the roadmap.</p>'
  const senior = posting({ description, experience_level: 'Senior' })
  t.is(senior.experience_level, 'Senior')
  t.is(impactScore(senior), 0.8)
  t.is(impactScore(posting({ description, experience_level: 'Mid' })), 0.6)
  const lots = '<p>Ownership, autonomy, greenfield work from scratch, high-impact decisions, self-directed.</p>'
  t.is(impactScore(posting({ description: lots, experience_level: 'Executive' })), 1)
  t.is(impactScore(posting({ description: '<p>Maintain the billing system.</p>', experience_level: 'Junior' })), 0)
})

test('growth: learning words, 0.175 each up to four, plus 0.2 for entry and junior roles and 0.1 for a learning budget', (t) => {
  const p = posting({ description: '<p>Mentorship from senior staff and a clear career path.</p>', experience_level: 'Junior', benefits: ['Learning Budget'] })
  t.deepEqual(p.benefits, ['Learning Budget'])
  t.is(growthScore(p), 0.65)
  t.is(growthScore(posting({ description: '<p>Mentorship from senior staff and a clear career path.</p>', experience_level: 'Senior' })), 0.35)
  t.is(growthScore(posting({ description: '<p>Maintain the billing system.</p>', experience_level: 'Senior' })), 0)
})

test('prestige: the company size bucket, plus 0.1 for equity', (t) => {
  const big = posting({ offers_equity: true, company: { name: 'Big Co', size_range: '1001-5000' } })
  t.is(big.company.size_bucket, '1001-5000')
  t.is(prestigeScore(big), 0.8)
  t.is(prestigeScore(posting({ company: { name: 'Tiny Co', size_range: '1-10' } })), 0.2)
  t.is(prestigeScore(posting({ company: { name: 'Huge Co', size_range: '10000+' }, offers_equity: true })), 1)
  t.is(prestigeScore(posting({ company: { name: 'Unknown Co' } })), 0.3)
})

test('targetability: the share of 14 optional facts stated', (t) => {
  // salary, experience level, location type, job type, a city, skills, application link: 7 of 14
  const p = posting({
    job_title: 'Warehouse Associate', description: '<p>Forklift work in our warehouse.</p>', experience_level: 'Entry', skills: ['Forklift'],
    company: { name: 'Depot Co' }, salary_range: { min: 18, max: 20, currency: 'USD', period: 'hourly' }, location_raw: 'Austin, TX', location_type: 'On-site',
  })
  t.deepEqual([p.technologies, p.benefits, p.company.industries, p.education_level, p.valid_through, p.yoe_min, p.company.size_bucket], [[], [], [], null, null, null, null])
  t.is(targetability(p), 0.5)
  t.true(targetability(posting({ yoe_range: { min: 5, max: null }, education_level: "Bachelor's", benefits: ['Bonus'], valid_through: '2026-12-31' })) > targetability(posting({})))
})

test('completeness: salary, a place, years of experience and a description are all stated', (t) => {
  const full = posting({ yoe_range: { min: 5, max: null } })
  t.true(completeness(full))
  t.false(completeness(posting({ yoe_range: { min: 5, max: null }, salary_range: undefined })))
  t.false(completeness(posting({ description: '<p>TypeScript and PostgreSQL.</p>' }))) // no years of experience
  t.true(completeness(posting({ yoe_range: { min: 2, max: 4 }, location_raw: 'Remote', location_type: 'Remote' })))
})

test('coolness: the mean of the six part scores; compensation waits for the percentile refresh', (t) => {
  t.is(coolness({ compensation_value_score: 0.5, flexibility_score: 0.85, benefits_score: 0.375, impact_autonomy_score: 0.8, prestige_score: 0.4, growth_score: 0.175 }), 0.517)
  const p = posting({
    description: '<p>You will have ownership of the platform end-to-end and shape the roadmap.</p>', experience_level: 'Senior',
    benefits: ['Flexible Hours', 'Health Insurance', 'Dental Insurance'], offers_equity: true, company: { name: 'X Co', size_range: '1001-5000' },
  })
  const s = computeScores(p)
  t.like(s, { compensation_value_score: 0, flexibility_score: 0.85, benefits_score: 0.375, impact_autonomy_score: 0.8, prestige_score: 0.8, growth_score: 0 })
  t.is(s.coolness_score, Math.round(((0 + 0.85 + 0.375 + 0.8 + 0.8 + 0) / 6) * 1000) / 1000)
  t.deepEqual(p.scores, s)
})

// --- compensation percentile, on the database ------------------------------------------

type Row = { source: string; compensation_value_score: number; coolness_score: number; parts: number[] }

const yearly = (amount: number, currency = 'EUR') => ({ min: amount, max: amount, currency, period: 'yearly' })
const SE_BERLIN = [60_000, 70_000, 80_000, 80_000, 100_000, 110_000] // six: a category and country of its own
const NURSES_BERLIN = [40_000, 50_000] // two: too few, ranked among Germany's eight
const POSTINGS: Record<string, Record<string, unknown>> = {
  ...Object.fromEntries(SE_BERLIN.map((s, i) => [`se-${i}`, { job_title: 'Software Engineer', salary_range: yearly(s) }])),
  ...Object.fromEntries(NURSES_BERLIN.map((s, i) => [`rn-${i}`, { job_title: 'Registered Nurse', salary_range: yearly(s) }])),
  // alone in Japan: ranked among every comparable posting
  tokyo: { job_title: 'Software Engineer', location_raw: 'Tokyo, Japan', salary_range: yearly(9_000_000, 'JPY') },
  // a range: its midpoint, 85k
  range: { job_title: 'Software Engineer', location_raw: 'Munich, Germany', salary_range: { min: 80_000, max: 90_000, currency: 'EUR', period: 'yearly' } },
  // hourly: annualised (x 2080) to 104k
  hourly: { job_title: 'Software Engineer', location_raw: 'Hamburg, Germany', salary_range: { min: 50, max: 50, currency: 'EUR', period: 'hourly' } },
  none: { job_title: 'Software Engineer', salary_range: undefined },
  'no-period': { job_title: 'Software Engineer', salary_range: undefined, salary: '$2,000-3,000' },
  'no-rate': { job_title: 'Registered Nurse', location_raw: 'Dakar, Senegal', salary_range: { min: 100_000, max: 200_000, currency: 'XOF', period: 'monthly' } },
  expired: { job_title: 'Software Engineer', salary_range: yearly(1_000_000), valid_through: '2026-01-01T00:00:00Z' },
}

/** (paid less + half paid the same) / n */
const midRank = (x: number, all: number[]) => (all.filter((v) => v < x).length + all.filter((v) => v === x).length / 2) / all.length
const round3 = (n: number) => Math.round(n * 1000) / 1000

test.before(async (t) => {
  const db = await testDatabase()
  t.context.db = db
  const items: ReadItem[] = Object.entries(POSTINGS).map(([source, o], i) => ({
    line: i + 1,
    raw: rawPosting({ source_id: source, job_board: 'ScoreBoard', company: { name: `Score Co ${i}` }, ...o }, i) as never,
  }))
  const summary = await ingest(db.sql, items, { source: 'scores', now: new Date('2026-11-20T00:00:00Z') })
  if (summary.inserted !== items.length) throw new Error(`ingested ${JSON.stringify(summary)}`)
  await refreshCompensationPercentiles(db.sql)
})
test.after.always(async (t) => {
  await t.context.db?.close()
})

async function scores(t: { context: { db: TestDb } }) {
  const rows = await t.context.db.sql<Row[]>`
    select s.source_key as source, j.compensation_value_score, j.coolness_score,
      array[j.flexibility_score, j.benefits_score, j.impact_autonomy_score, j.prestige_score, j.growth_score] as parts
    from jobs j join job_sources s on s.job_id = j.id
    where s.job_board = 'ScoreBoard'`
  return Object.fromEntries(rows.map((r) => [r.source, r]))
}

test.serial('compensation: the percentile within category and country, else country, else everything', async (t) => {
  t.is(MIN_GROUP, 5)
  const s = await scores(t)
  // Software Engineer Jobs in Germany: the six in Berlin, the range in Munich (85k), the hourly one in Hamburg (104k)
  const engineers = [...SE_BERLIN, 85_000, 104_000]
  SE_BERLIN.forEach((pay, i) => t.is(s[`se-${i}`].compensation_value_score, round3(midRank(pay, engineers)), `se-${i}`))
  t.is(s['se-0'].compensation_value_score, 0.063) // the lowest of eight: 0.5 / 8
  t.is(s['se-2'].compensation_value_score, s['se-3'].compensation_value_score) // the same pay, the same score
  t.is(s['se-2'].compensation_value_score, 0.375) // (2 paid less + 2 / 2) / 8
  t.is(s.range.compensation_value_score, round3(midRank(85_000, engineers)))
  t.is(s.hourly.compensation_value_score, round3(midRank(104_000, engineers)))
  // two nurses in Germany are too few: they are ranked among the country's ten salaries
  const germany = [...engineers, ...NURSES_BERLIN]
  t.is(s['rn-0'].compensation_value_score, round3(midRank(40_000, germany)))
  t.is(s['rn-1'].compensation_value_score, 0.15) // (1 + 0.5) / 10
  // alone in Japan: ranked among all eleven comparable salaries, in US dollars
  const usd = [...germany.map((e) => e * USD_PER_UNIT.EUR), 9_000_000 * USD_PER_UNIT.JPY]
  t.is(s.tokyo.compensation_value_score, round3(midRank(9_000_000 * USD_PER_UNIT.JPY, usd)))
})

test.serial('compensation: 0 without a comparable salary, and expired postings take no part', async (t) => {
  const s = await scores(t)
  t.is(s.none.compensation_value_score, 0)
  t.is(s['no-period'].compensation_value_score, 0) // "$2,000-3,000": a month's or a year's pay, no period, so no annual figure
  t.is(s['no-rate'].compensation_value_score, 0) // XOF has no rate
  // the expired posting's million would top every group; it counts in none and keeps the 0 it was loaded with
  t.is(s.expired.compensation_value_score, 0)
  t.is(s['se-5'].compensation_value_score, round3(midRank(110_000, [...SE_BERLIN, 85_000, 104_000])))
})

test.serial('coolness is recomputed with the percentile: the mean of the six parts', async (t) => {
  for (const [source, r] of Object.entries(await scores(t))) {
    const mean = (r.compensation_value_score + r.parts.reduce((a, b) => a + b, 0)) / 6
    t.true(Math.abs(r.coolness_score - mean) <= 0.0006, `${source}: ${r.coolness_score} vs ${mean}`)
  }
})

test.serial('a refresh writes only what changed, and jobIds limits what it writes', async (t) => {
  const { sql } = t.context.db
  t.deepEqual(await refreshCompensationPercentiles(sql), { updated: 0 })
  const before = await scores(t)
  const [a, b] = await sql<{ id: string }[]>`
    select j.id::text from jobs j join job_sources s on s.job_id = j.id where s.source_key in ('se-0', 'se-5') order by s.source_key`
  await sql`update jobs set compensation_value_score = 0.999 where id in (${a.id}, ${b.id})`
  t.deepEqual(await refreshCompensationPercentiles(sql, { jobIds: [a.id] }), { updated: 1 })
  let now = await scores(t)
  t.is(now['se-0'].compensation_value_score, before['se-0'].compensation_value_score)
  t.is(now['se-5'].compensation_value_score, 0.999)
  t.deepEqual(await refreshCompensationPercentiles(sql, { jobIds: [] }), { updated: 0 })
  t.deepEqual(await refreshCompensationPercentiles(sql), { updated: 1 })
  now = await scores(t)
  t.is(now['se-5'].compensation_value_score, before['se-5'].compensation_value_score)
})

test.serial('a score that drifted by less than one percentile point is left as it is', async (t) => {
  const { sql } = t.context.db
  t.is(DRIFT, 0.01)
  const [job] = await sql<{ id: string; score: number }[]>`
    select j.id::text, j.compensation_value_score as score from jobs j join job_sources s on s.job_id = j.id where s.source_key = 'se-4'`
  await sql`update jobs set compensation_value_score = ${job.score + 0.005} where id = ${job.id}`
  t.deepEqual(await refreshCompensationPercentiles(sql), { updated: 0 })
  await sql`update jobs set compensation_value_score = ${job.score + 0.02} where id = ${job.id}`
  t.deepEqual(await refreshCompensationPercentiles(sql), { updated: 1 })
  t.is((await scores(t))['se-4'].compensation_value_score, job.score)
})
