/**
 * `make bench` (historical part): POST /v2/jobs/historical/search over an archive of
 * ARCHIVE_ROWS (1,000,000) expired postings, a mix of 12 searches timed over HTTP, with
 * the plan each counting query takes (the rollup, or the facts and the indexes read).
 * Prints a table; the target is a median of at most 300 ms over all of them.
 *
 * The archive is written into job_archive directly in SQL (generate_series) in a
 * database of its own on the machine's Postgres, built once and kept
 * (jds_bench_historical_<rows>); its trigger indexes the rows as it does expiry's. Its
 * shape follows the spec's description of the archive: dense from 2025 and sparse
 * before, about 60 % in the United States (a tenth of those remote, scoped to the
 * country), the rest over Europe, Canada, India, Australia, Latin America and Asia;
 * company sizes skewed (a few large employers hold a large share); titles from a
 * weighted list of real job titles with seniority words; skills, technologies and
 * benefits from real vocabularies; a description kept for 40 % of the postings (20 %
 * before 2024). Rows are archived in the order expiry archives them (by the day they
 * ended). Values are drawn with setseed, so a rebuild is the same.
 */
import slugify from '@sindresorhus/slugify'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import pino from 'pino'
import postgres from 'postgres'
import { buildApp } from '../../api/app.ts'
import { toHistorical } from '../../api/routes/historical.ts'
import { historicalSearchBody } from '../../api/schemas/historical.ts'
import { loadConfig } from '../../sql/config.ts'
import { explainHistorical, resolveHistorical, rollupFilter } from '../../sql/historical.ts'
import { createAccount, createKey } from '../../sql/accounts.ts'
import { keepAlivePost } from './search-mix.ts'
import { resolvePlace } from '../../seeds/places/geocode.ts'
import { placeKeys } from '../../seeds/places/place-keys.ts'
import { connect, connectAdmission, type Sql } from '../../sql/db.ts'
import { migrate } from '../../sql/migrate.ts'

const ARCHIVE_ROWS = Number(process.env.BENCH_ARCHIVE_ROWS ?? 1_000_000)
/** The last day of the archive: postings run up to it, and expire on it at the latest. */
const ARCHIVE_END = '2026-11-20'

const archiveCorpusName = (rows: number) => `jds_bench_historical_${rows}`

/** [city, region, country, weight]: the weight is per 1,000 postings. */
const PLACES: [string | null, string | null, string, number][] = [
  // United States: 600 (60 of them remote, scoped to the country)
  [null, null, 'United States', 60],
  ['New York City', 'New York', 'US', 70], ['San Francisco', 'California', 'US', 40], ['San Jose', 'California', 'US', 15],
  ['Oakland', 'California', 'US', 8], ['Palo Alto', 'California', 'US', 7], ['Los Angeles', 'California', 'US', 30], ['San Diego', 'California', 'US', 12],
  ['Seattle', 'Washington', 'US', 30], ['Bellevue', 'Washington', 'US', 8], ['Portland', 'Oregon', 'US', 8], ['Austin', 'Texas', 'US', 22],
  ['Dallas', 'Texas', 'US', 20], ['Houston', 'Texas', 'US', 18], ['Chicago', 'Illinois', 'US', 28], ['Boston', 'Massachusetts', 'US', 25],
  ['Cambridge', 'Massachusetts', 'US', 6], ['Washington, D.C.', 'District of Columbia', 'US', 18], ['Arlington', 'Virginia', 'US', 8],
  ['Atlanta', 'Georgia', 'US', 18], ['Miami', 'Florida', 'US', 12], ['Tampa', 'Florida', 'US', 7], ['Denver', 'Colorado', 'US', 14],
  ['Phoenix', 'Arizona', 'US', 12], ['Philadelphia', 'Pennsylvania', 'US', 12], ['Pittsburgh', 'Pennsylvania', 'US', 6],
  ['Minneapolis', 'Minnesota', 'US', 9], ['Raleigh', 'North Carolina', 'US', 8], ['Charlotte', 'North Carolina', 'US', 8],
  ['Nashville', 'Tennessee', 'US', 8], ['Columbus', 'Ohio', 'US', 7], ['Detroit', 'Michigan', 'US', 7], ['Salt Lake City', 'Utah', 'US', 6],
  ['Kansas City', 'Missouri', 'US', 5], ['St. Louis', 'Missouri', 'US', 5],
  // the rest: 400
  ['London', 'England', 'GB', 45], ['Manchester', 'England', 'GB', 10], ['Birmingham', 'England', 'GB', 6], ['Edinburgh', 'Scotland', 'GB', 5],
  ['Bristol', 'England', 'GB', 4], ['Leeds', 'England', 'GB', 4], ['Glasgow', 'Scotland', 'GB', 3],
  ['Berlin', 'State of Berlin', 'DE', 18], ['Munich', 'Bavaria', 'DE', 14], ['Hamburg', 'Hamburg', 'DE', 8], ['Frankfurt am Main', 'Hesse', 'DE', 7],
  ['Vienna', 'Vienna', 'AT', 4], ['Zürich', 'Zurich', 'CH', 6], ['Geneva', 'Geneva', 'CH', 2],
  ['Paris', 'Île-de-France', 'FR', 18], ['Lyon', 'Auvergne-Rhône-Alpes', 'FR', 4], ['Amsterdam', 'North Holland', 'NL', 12], ['Rotterdam', 'South Holland', 'NL', 3],
  ['Dublin', 'Leinster', 'IE', 9], ['Madrid', 'Madrid', 'ES', 8], ['Barcelona', 'Catalonia', 'ES', 7], ['Lisbon', 'Lisbon', 'PT', 4],
  ['Milan', 'Lombardy', 'IT', 5], ['Stockholm', 'Stockholm', 'SE', 5], ['Copenhagen', 'Capital Region', 'DK', 3], ['Oslo', 'Oslo', 'NO', 2],
  ['Helsinki', 'Uusimaa', 'FI', 2], ['Warsaw', 'Mazovia', 'PL', 6], ['Kraków', 'Lesser Poland', 'PL', 4], ['Prague', 'Prague', 'CZ', 3],
  ['Toronto', 'Ontario', 'CA', 22], ['Vancouver', 'British Columbia', 'CA', 10], ['Montréal', 'Quebec', 'CA', 7],
  ['Bengaluru', 'Karnataka', 'IN', 20], ['Hyderabad', 'Telangana', 'IN', 10], ['Pune', 'Maharashtra', 'IN', 6], ['Mumbai', 'Maharashtra', 'IN', 6],
  ['Sydney', 'New South Wales', 'AU', 12], ['Melbourne', 'Victoria', 'AU', 8], ['Singapore', null, 'SG', 10], ['Tokyo', 'Tokyo', 'JP', 6],
  ['Tel Aviv', 'Tel Aviv', 'IL', 5], ['São Paulo', 'São Paulo', 'BR', 8], ['Mexico City', 'Mexico City', 'MX', 6], ['Buenos Aires', 'Buenos Aires F.D.', 'AR', 3],
  ['Dubai', 'Dubai', 'AE', 4],
]

/** [title, weight] */
const TITLES: [string, number][] = [
  ['Software Engineer', 60], ['Backend Engineer', 20], ['Frontend Engineer', 15], ['Full Stack Developer', 18], ['Data Engineer', 15],
  ['Data Scientist', 14], ['Data Analyst', 16], ['Machine Learning Engineer', 10], ['DevOps Engineer', 10], ['Site Reliability Engineer', 6],
  ['Product Manager', 18], ['Project Manager', 16], ['Program Manager', 8], ['Engineering Manager', 8], ['Product Designer', 8],
  ['UX Designer', 6], ['QA Engineer', 6], ['Security Engineer', 5], ['Cloud Architect', 4], ['Solutions Architect', 5],
  ['Registered Nurse', 40], ['Staff Nurse', 12], ['Nurse Practitioner', 8], ['Travel Nurse', 6], ['Medical Assistant', 12],
  ['Pharmacist', 6], ['Physical Therapist', 6], ['Physician', 5], ['Healthcare Assistant', 10], ['Dental Hygienist', 4],
  ['Account Executive', 18], ['Sales Representative', 16], ['Sales Development Representative', 10], ['Account Manager', 12], ['Customer Success Manager', 10],
  ['Customer Service Representative', 18], ['Marketing Manager', 10], ['Content Writer', 5], ['Social Media Manager', 4], ['Recruiter', 8],
  ['HR Generalist', 5], ['Financial Analyst', 10], ['Accountant', 12], ['Controller', 3], ['Business Analyst', 12],
  ['Operations Manager', 10], ['Warehouse Associate', 18], ['Delivery Driver', 14], ['Truck Driver', 10], ['Electrician', 6],
  ['Mechanical Engineer', 7], ['Electrical Engineer', 6], ['Civil Engineer', 5], ['Teacher', 10], ['Store Manager', 8],
  ['Retail Sales Associate', 14], ['Cashier', 8], ['Line Cook', 6], ['Administrative Assistant', 10], ['Executive Assistant', 4],
]

/** [prefix, weight]: seniority words as titles carry them */
const SENIORITY: [string, number][] = [['', 50], ['Senior ', 20], ['Junior ', 7], ['Lead ', 6], ['Staff ', 4], ['Principal ', 2], ['Associate ', 6], ['Head of ', 1], ['Intern ', 2], ['Remote ', 2]]

const SKILLS = [
  'communication', 'leadership', 'problem solving', 'teamwork', 'project management', 'stakeholder management', 'agile', 'scrum', 'negotiation',
  'customer service', 'data analysis', 'statistics', 'machine learning', 'patient care', 'phlebotomy', 'triage', 'budgeting', 'forecasting',
  'sales', 'account management', 'recruiting', 'coaching', 'mentoring', 'technical writing', 'ux research', 'prototyping', 'accounting', 'auditing',
  'inventory management', 'forklift', 'scheduling', 'cpr', 'bls', 'medication administration', 'lesson planning', 'troubleshooting',
]
const TECHNOLOGIES = [
  'Python', 'Java', 'JavaScript', 'TypeScript', 'Go', 'Rust', 'C++', 'C#', 'Ruby', 'PHP', 'Kotlin', 'Swift', 'SQL', 'PostgreSQL', 'MySQL',
  'MongoDB', 'Redis', 'Kafka', 'Spark', 'Airflow', 'dbt', 'Snowflake', 'AWS', 'GCP', 'Azure', 'Docker', 'Kubernetes', 'Terraform', 'React',
  'Vue', 'Angular', 'Node.js', 'Django', 'Spring', 'TensorFlow', 'PyTorch', 'Tableau', 'Power BI', 'Excel', 'Salesforce', 'SAP', 'Workday',
  'Epic', 'Cerner', 'Jira', 'Figma',
]
const BENEFITS = [
  'health insurance', 'dental insurance', 'vision insurance', '401k', 'pension', 'stock options', 'equity', 'remote work', 'flexible hours',
  'paid time off', 'parental leave', 'tuition reimbursement', 'gym membership', 'bonus', 'relocation assistance', 'visa sponsorship',
]

const COMPANY_FIRST = [
  'Acme', 'Northwind', 'Globex', 'Initech', 'Umbrella', 'Stark', 'Wayne', 'Tyrell', 'Cyberdyne', 'Soylent', 'Hooli', 'Pied', 'Vandelay', 'Wonka',
  'Aperture', 'Black Mesa', 'Gringotts', 'Monarch', 'Oscorp', 'Massive', 'Blue Harbor', 'Red Rock', 'Silver Lake', 'Green Valley', 'Summit',
  'Pinnacle', 'Evergreen', 'Cascade', 'Riverside', 'Lakeside', 'Harbor', 'Keystone', 'Liberty', 'Pioneer', 'Frontier', 'Atlas', 'Orion',
  'Nova', 'Apex', 'Vertex', 'Quantum', 'Helix', 'Nimbus', 'Zenith', 'Polar', 'Sterling', 'Beacon', 'Meridian', 'Crescent', 'Granite',
]
const COMPANY_SECOND = [
  'Health', 'Logistics', 'Labs', 'Systems', 'Software', 'Analytics', 'Bank', 'Insurance', 'Foods', 'Retail', 'Energy', 'Motors', 'Media',
  'Pharma', 'Robotics', 'Networks', 'Consulting', 'Capital', 'Medical Center', 'Hospital', 'Airlines', 'Hotels', 'Security', 'Cloud', 'Data',
  'Biotech', 'Foods Group', 'Staffing', 'Telecom', 'Manufacturing', 'Construction', 'Education', 'Games', 'Studios', 'Payments', 'Markets',
  'Mobility', 'Semiconductors', 'Solar', 'Water', 'Clinic', 'Care', 'Partners', 'Group', 'Industries', 'Technologies', 'Dynamics',
  'Ventures', 'Works', 'Supply', 'Freight', 'Brands', 'Outfitters', 'Apparel', 'Home', 'Pet', 'Dental', 'Vision', 'Therapy', 'Nursing',
  'Transit', 'Aerospace', 'Defense', 'Chemicals', 'Materials', 'Mining', 'Agriculture', 'Legal', 'Realty', 'Properties', 'Travel',
  'Events', 'Sports', 'Fitness', 'Wellness', 'Beauty', 'Cosmetics', 'Jewelry', 'Furniture', 'Printing', 'Packaging', 'Paper', 'Steel',
  'Glass', 'Plastics', 'Textiles', 'Tools', 'Machines', 'Devices', 'Instruments', 'Optics', 'Audio', 'Video', 'Radio', 'Publishing',
  'News', 'Learning', 'Academy', 'University', 'School', 'Institute', 'Foundation', 'Trust', 'Credit Union', 'Mutual', 'Holdings',
]

/** The weighted list as an array of values, each repeated by its weight, for an index drawn with random(). */
const expand = <T>(pairs: [T, number][]) => pairs.flatMap(([v, w]) => Array.from({ length: w }, () => v))

/** Years posted, per 1,000 postings: sparse before 2025, dense from it (the spec's "dense from 2025"). */
const YEARS: [number, number][] = [[2018, 10], [2019, 15], [2020, 20], [2021, 30], [2022, 40], [2023, 60], [2024, 95], [2025, 380], [2026, 350]]

function places() {
  return PLACES.map(([city, region, country, weight], id) => {
    const found = resolvePlace({ city, region, country })
    if (!found || (city && (found.lat === null || found.lng === null))) throw new Error(`bench place ${city}, ${region}, ${country} does not resolve`)
    const loc = { city: found.city, region: found.region, country: found.country }
    const location = { ...loc, ...(found.lat !== null && found.lng !== null ? { coordinates: { lat: found.lat, lng: found.lng } } : {}) }
    return { id, weight, locations: [location], countries: [found.country!], place_keys: placeKeys([loc]) }
  })
}

function companies() {
  const out: { id: number; name: string; slug: string }[] = []
  for (const second of COMPANY_SECOND) for (const first of COMPANY_FIRST) out.push({ id: out.length, name: `${first} ${second}`, slug: slugify(`${first} ${second}`) })
  return out
}

/**
 * Connects to the archive corpus, creating and filling it on first use. Migrations run
 * every time, so a new one (an index, a rollup) applies to the kept rows.
 */
async function archiveCorpus(serverUrl: string, rows: number, log: (msg: string) => void): Promise<Sql> {
  const name = archiveCorpusName(rows)
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} })
  const [exists] = await admin`select 1 from pg_database where datname = ${name}`
  if (!exists) await admin`create database ${admin(name)}`
  await admin.end()
  const sql = connect(Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString(), 10)
  await migrate(sql)
  const [{ n }] = await sql<{ n: number }[]>`select count(*)::int as n from job_archive`
  if (n > 0) return sql
  log(`filling job_archive of ${name} with ${rows.toLocaleString('en-US')} rows (once) …`)
  const started = Date.now()
  const placeRows = places()
  const companyRows = companies()
  await sql`create table bench_places (id int primary key, locations jsonb, countries text[], place_keys text[])`
  await sql`insert into bench_places ${sql(placeRows.map((p) => ({ ...p, locations: sql.json(p.locations) })), 'id', 'locations', 'countries', 'place_keys')}`
  await sql`create table bench_companies (id int primary key, name text, slug text)`
  await sql`insert into bench_companies ${sql(companyRows, 'id', 'name', 'slug')}`
  const placeIds = expand(placeRows.map((p) => [p.id, p.weight]))
  const titles = expand(TITLES)
  const seniority = expand(SENIORITY)
  const years = expand(YEARS)
  // the postings, drawn first; then archived in the order expiry archives them (by the day they ended)
  await sql`select setseed(0.42)`
  await sql`
    create unlogged table bench_rows as
    select g as job_id,
           (${seniority}::text[])[1 + floor(random() * ${seniority.length})::int] || (${titles}::text[])[1 + floor(random() * ${titles.length})::int] as title,
           floor(${companyRows.length} * random() ^ 2)::int as company,
           (${placeIds}::int[])[1 + floor(random() * ${placeIds.length})::int] as place,
           make_date(y.y, 1, 1) + floor(random() * (least(make_date(y.y, 12, 31), ${ARCHIVE_END}::date) - make_date(y.y, 1, 1) + 1))::int as posted,
           (7 + floor(random() * 84))::int as days_live,
           array[(${SKILLS}::text[])[1 + floor(random() * ${SKILLS.length})::int], (${SKILLS}::text[])[1 + floor(random() * ${SKILLS.length})::int]] as skills,
           array[(${TECHNOLOGIES}::text[])[1 + floor(random() * ${TECHNOLOGIES.length})::int], (${TECHNOLOGIES}::text[])[1 + floor(random() * ${TECHNOLOGIES.length})::int],
                 (${TECHNOLOGIES}::text[])[1 + floor(random() * ${TECHNOLOGIES.length})::int]] as technologies,
           array[(${BENEFITS}::text[])[1 + floor(random() * ${BENEFITS.length})::int], (${BENEFITS}::text[])[1 + floor(random() * ${BENEFITS.length})::int]] as benefits,
           random() < case when y.y >= 2024 then 0.4 else 0.2 end as kept
    from generate_series(1::bigint, ${rows}::bigint) g,
         -- a lateral subquery that names g is drawn again for every row
         lateral (select (${years}::int[])[1 + floor(random() * ${years.length})::int + (0 * g)::int] as y) y`
  await sql`
    create unlogged table bench_order as
    select job_id, row_number() over (order by least(posted + days_live, ${ARCHIVE_END}::date), job_id) as n from bench_rows`
  await sql`create index on bench_order (n)`
  log(`  drawn in ${((Date.now() - started) / 1000).toFixed(0)} s`)
  const CHUNK = 100_000
  for (let from = 1; from <= rows; from += CHUNK) {
    await sql`
      insert into job_archive (job_id, job_title, company_name, company_slug, locations, countries, place_keys,
                               date_posted, date_expired, skills, technologies, benefits, description_kept, description)
      select s.job_id, s.title, c.name, c.slug, p.locations, p.countries, p.place_keys,
             s.posted, least(s.posted + s.days_live, ${ARCHIVE_END}::date), s.skills, s.technologies, s.benefits,
             s.kept, case when s.kept then (select string_agg(md5((s.job_id * 100 + k)::text), ' ') from generate_series(1, 40) k) end
      from bench_order o
      join bench_rows s on s.job_id = o.job_id
      join bench_companies c on c.id = s.company
      join bench_places p on p.id = s.place
      where o.n between ${from} and ${from + CHUNK - 1}
      order by o.n`
    log(`  ${Math.min(rows, from + CHUNK - 1).toLocaleString('en-US')} rows, ${((Date.now() - started) / 1000).toFixed(0)} s`)
  }
  await sql`drop table bench_rows`
  await sql`drop table bench_order`
  await sql`drop table bench_places`
  await sql`drop table bench_companies`
  await sql`vacuum analyze job_archive`
  for (const table of ['job_archive_facts', 'job_archive_companies', 'job_archive_titles', 'job_archive_places', 'job_archive_place_points', 'job_archive_terms']) {
    await sql`vacuum analyze ${sql(table)}`
  }
  log(`filled in ${((Date.now() - started) / 1000).toFixed(0)} s`)
  return sql
}

const REPS = Number(process.env.BENCH_REPS ?? 15)
const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const dbUrl = Object.assign(new URL(serverUrl), { pathname: `/${archiveCorpusName(ARCHIVE_ROWS)}` }).toString()
const TARGET_MEDIAN = 300

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]
}

const sql = await archiveCorpus(serverUrl, ARCHIVE_ROWS, (m) => console.error(m))
// a company from the corpus's middle ranks: large enough to be typical, not the largest
const [{ company }] = await sql<{ company: string }[]>`
  select c.company_name as company from job_archive_facts f join job_archive_companies c on c.id = f.company_id
  group by c.company_name order by count(*) desc, c.company_name limit 1 offset 20`

export const historicalQueries: [string, Record<string, unknown>][] = [
  ['title words', { job_titles: ['software engineer'] }],
  ['title phrase + exclusion', { job_titles: ['"registered nurse"', '-travel'] }],
  ['company', { company_names: [company] }],
  ['country (60 % of the archive)', { geo_locations: [{ country: 'United States' }] }],
  ['location group of countries', { location_group: 'DACH' }],
  ['location group, a metro', { location_group: 'Bay_Area' }],
  ['date window posted', { date_posted_from: '2025-03-01', date_posted_to: '2025-06-30' }],
  ['keywords', { keywords: ['python'] }],
  ['title + country + date', { job_titles: ['nurse'], geo_locations: [{ country: 'United States' }], date_posted_from: '2025-01-01' }],
  ['company + expired window', { company_names: [company], date_expired_from: '2026-01-01' }],
  ['region + keyword phrase', { geo_locations: [{ region: 'California' }], keywords: ['"machine learning"'] }],
  ['country since 2018', { geo_locations: [{ country: 'United Kingdom' }], date_posted_from: '2018-01-01' }],
]

const roomy = { limit: 1_000_000, windowSeconds: 60 }
const admissionSql = connectAdmission(dbUrl)
const app = buildApp({ sql, config: { ...loadConfig(), rateLimits: { key: roomy, search: roomy, anonymous: roomy } }, log: pino({ level: 'silent' }), admissionSql })
const server = app.listen(0, '127.0.0.1')
await new Promise((r) => server.once('listening', r))
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
const key = await createKey(sql, await createAccount(sql, `bench-historical-${Date.now()}@example.test`, 'scale'))
const { post, close: closeClient } = keepAlivePost(base, key)

type Row = { name: string; total: number; http: number[]; plan: string }
const rows: Row[] = []
for (const [label, body] of historicalQueries) {
  const valid = historicalSearchBody.cast(await historicalSearchBody.validate(body, { strict: true }))
  const filters = toHistorical(valid, body)
  const plan = await explainHistorical(sql, await resolveHistorical(sql, filters))
  const read = rollupFilter(filters)
    ? ['rollup']
    : [...new Set([...plan.matchAll(/(?:Index|Bitmap Index) (?:Only )?Scan(?: Backward)? (?:using|on) (job_archive_facts\w*)/g)].map((m) => m[1].replace('job_archive_facts_', '')))]
  const seq = /(?:Parallel )?Seq Scan on job_archive_facts /.test(plan) ? ['seq scan of the facts'] : []
  const row: Row = { name: label, total: 0, http: [], plan: [...read, ...seq].join(', ') }
  for (let i = 0; i < REPS + 2; i++) {
    const t = performance.now()
    const res = await post('/v2/jobs/historical/search', body)
    const ms = performance.now() - t
    if (res.status !== 200) throw new Error(`${label}: ${res.status} ${res.body}`)
    row.total = JSON.parse(res.body).total_count
    if (i >= 2) row.http.push(ms)
  }
  rows.push(row)
}
closeClient()
server.close()
await app.context.admission!.close()
await admissionSql.end()
const [{ archived }] = await sql<{ archived: number }[]>`select count(*)::int as archived from job_archive_facts`
await sql.end()

const all = rows.flatMap((r) => r.http)
const median = pct(all, 50)
console.log(`\nHistorical search, ${archived.toLocaleString('en-US')} archived postings on ${new URL(serverUrl).host}, ${REPS} runs each over HTTP, ${os.cpus().length} cores, ${new Date().toISOString().slice(0, 10)}\n`)
console.log('| search | matches | HTTP median ms | HTTP p95 ms | counted from |')
console.log('|---|---:|---:|---:|---|')
for (const r of rows) console.log(`| ${r.name} | ${r.total.toLocaleString('en-US')} | ${pct(r.http, 50).toFixed(1)} | ${pct(r.http, 95).toFixed(1)} | ${r.plan} |`)
console.log(`| **all ${rows.length} searches** | | **${median.toFixed(1)}** | **${pct(all, 95).toFixed(1)}** | |`)
console.log(`\ntarget: median ≤ ${TARGET_MEDIAN} ms (${median <= TARGET_MEDIAN ? 'met' : 'MISSED'})`)
