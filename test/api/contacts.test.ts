/**
 * POST /v2/jobs/contacts end to end: the add-on gate, every status and detail shape,
 * contacts from postings (with the name and role beside the address) and from profiles
 * (`make ingest-companies`), dedupe by e-mail, the order, billing per contact (nothing for
 * an empty answer), `admin contacts:delete`, and no contact data in the logs.
 */
import anyTest, { type TestFn } from 'ava'
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { ingestCompanies } from '../../ingest/companies.ts'
import { openCompanyFeed } from '../../ingest/formats/index.ts'
import { ingest } from '../../ingest/pipeline.ts'
import { grantFeature, upsertAllowance } from '../../sql/billing.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { createAccountWithKey, rawPosting } from '../helpers/factories.ts'
import { ledgerSum, periodOf, usage } from '../billing/fixtures.ts'

type Ctx = { app: TestApp; dir: string }
const test = anyTest as TestFn<Ctx>
const run = promisify(execFile)
const roomy = { limit: 100_000, windowSeconds: 60 }
const METER = 'm_hiring_manager_contacts'

test.before(async (t) => {
  const app = await startTestApp({ embedder: null, config: { rateLimits: { key: roomy, search: { limit: 100_000, windowSeconds: 1 }, anonymous: roomy } } })
  t.context = { app, dir: await mkdtemp(path.join(tmpdir(), 'jds-contacts-')) }
})
test.after.always(async (t) => {
  await t.context.app?.close()
  await rm(t.context.dir, { recursive: true, force: true })
})

type Contact = { name: string | null; role: string | null; email: string | null; phone: string | null; source: string; job_id: string | null }

/** An account with the add-on and 1,000 contacts a period (block), its own so its meter counts only its requests. */
async function granted(t: { context: Ctx }) {
  const { sql } = t.context.app.db
  const { accountId, key } = await createAccountWithKey(sql, 'starter')
  await grantFeature(sql, accountId, 'hiring_manager_contacts')
  await upsertAllowance(sql, accountId, { meter: METER, included: 1000, overage_mode: 'block', overage_cents_per_unit: null })
  const contacts = async (body: unknown) => {
    const res = await t.context.app.post('/v2/jobs/contacts', body, { 'x-api-key': key })
    return { res, status: res.status, body: (await res.json()) as { contacts?: Contact[]; detail?: unknown } }
  }
  const billed = async () => ledgerSum(sql, t.context.app.admission, accountId, METER, await periodOf(sql, accountId))
  return { accountId, key, contacts, billed }
}

/** A company of its own: postings (title → [date_posted, description]), and optionally a profile with contacts. */
async function company(t: { context: Ctx }, postings: Record<string, [string, string]>, profile?: Record<string, unknown>) {
  const { sql } = t.context.app.db
  const tag = randomBytes(4).toString('hex')
  const name = `Contacts Co ${tag}`
  const domain = `co-${tag}.example`
  const titles = Object.keys(postings)
  const summary = await ingest(
    sql,
    titles.map((job_title, i) => ({
      line: i + 1,
      raw: rawPosting({ source_id: `${tag}-${i}`, job_title, date_posted: postings[job_title][0], description: postings[job_title][1].replaceAll('DOMAIN', domain), company: { name } }, i) as never,
    })),
    { source: `contacts-${tag}` },
  )
  if (summary.inserted !== titles.length) throw new Error(JSON.stringify(summary))
  const rows = await sql<{ id: string; job_title: string; slug: string }[]>`
    select j.id::text, j.job_title, c.slug from jobs j join companies c on c.id = j.company_id where c.name = ${name}`
  const slug = rows[0].slug
  if (profile) await ingestProfiles(t, [{ title: name, slug, ...JSON.parse(JSON.stringify(profile).replaceAll('DOMAIN', domain)) }])
  return { name, slug, domain, ids: new Map(rows.map((r) => [r.job_title, r.id])) }
}

/** Profiles through the path `make ingest-companies` takes: the file, its feed, ingestCompanies. */
async function ingestProfiles(t: { context: Ctx }, profiles: Record<string, unknown>[]) {
  const file = path.join(t.context.dir, `profiles-${randomBytes(4).toString('hex')}.json`)
  await writeFile(file, JSON.stringify(profiles))
  const rejected: [number, string][] = []
  const summary = await ingestCompanies(t.context.app.db.sql, (await openCompanyFeed(file, { force: true }))!.items, (line, reason) => rejected.push([line, reason]))
  return { summary, rejected }
}

const acme = {
  'Backend Engineer': ['2026-11-05', '<p>Build APIs.</p><p>Contact Jane Doe (Head of Talent) at jane@DOMAIN</p>'],
  'Data Engineer': ['2026-11-04', '<p>Pipelines.</p><p>Reach out to jane@DOMAIN</p>'],
  'Frontend Engineer': ['2026-11-03', '<p>UIs.</p><p>Questions? Email careers@DOMAIN</p>'],
  'Support Engineer': ['2026-11-02', '<p>Help customers. Call us at +1 415 555 0199</p>'],
  'Designer': ['2026-11-01', '<p>No contact given.</p>'],
} satisfies Record<string, [string, string]>
const acmeProfile = { contacts: [{ name: 'Sam Lee', role: 'CTO', email: 'sam@DOMAIN' }, { name: 'Careers Team', email: 'Careers@DOMAIN', phone: '+1 415 555 0100' }] }

// --- auth, the add-on, validation -----------------------------------------------------------

test('401 without a key; 403 feature_missing with X-Billing-Code for an account without the add-on', async (t) => {
  const { app } = t.context
  const anonymous = await app.post('/v2/jobs/contacts', { company_slug: 'anything' }, {})
  t.is(anonymous.status, 401)
  t.deepEqual(await anonymous.json(), { detail: 'Missing authorization header' })
  const bad = await app.post('/v2/jobs/contacts', { company_slug: 'anything' }, { 'x-api-key': 'jds_not-a-real-key' })
  t.is(bad.status, 401)
  t.deepEqual(await bad.json(), { detail: 'Invalid or revoked API key' })

  // every plan, even the biggest, lacks it until granted; the gate comes before validation
  const { key } = await createAccountWithKey(app.db.sql, 'scale')
  for (const body of [{ company_slug: 'anything' }, {}]) {
    const refused = await app.post('/v2/jobs/contacts', body, { 'x-api-key': key })
    t.is(refused.status, 403)
    t.is(refused.headers.get('x-billing-code'), 'feature_missing')
    t.deepEqual(await refused.json(), { detail: 'Your plan does not include the hiring_manager_contacts feature; upgrade at /v2/billing/portal' })
  }
})

test('422: nothing asked for, too many job_ids, limit out of range, a job id that is not one; none of them costs', async (t) => {
  const { contacts, billed } = await granted(t)
  const cases: [unknown, unknown[]][] = [
    // the item is the body's, so its input is the body (as POST /v2/embed's one-of item)
    [{}, [{ type: 'missing', loc: ['body', 'job_id'], msg: 'Field required: job_id, job_ids (a non-empty list) or company_slug', input: {} }]],
    [{ job_ids: [], limit: 5 }, [{ type: 'missing', loc: ['body', 'job_id'], msg: 'Field required: job_id, job_ids (a non-empty list) or company_slug', input: { job_ids: [], limit: 5 } }]],
    [
      { job_ids: Array.from({ length: 101 }, (_, i) => String(i + 1)) },
      [{ type: 'too_long', loc: ['body', 'job_ids'], msg: 'List should have at most 100 items, not 101', ctx: { max_length: 100, actual_length: 101 } }],
    ],
    [{ company_slug: 'x', limit: 101 }, [{ type: 'less_than_equal', loc: ['body', 'limit'], msg: 'Input should be less than or equal to 100', input: 101, ctx: { le: 100 } }]],
    [{ company_slug: 'x', limit: 0 }, [{ type: 'greater_than_equal', loc: ['body', 'limit'], msg: 'Input should be greater than or equal to 1', input: 0, ctx: { ge: 1 } }]],
    [{ job_ids: ['12', 'abc'] }, [{ type: 'value_error', loc: ['body', 'job_ids', 1], msg: "Input should be a job id: the digits of a job record's _id", input: 'abc' }]],
    [{ job_id: 12 }, [{ type: 'string_type', loc: ['body', 'job_id'], msg: 'Input should be a valid string', input: 12 }]],
  ]
  for (const [body, detail] of cases) {
    const { status, body: got } = await contacts(body)
    t.is(status, 422, JSON.stringify(body).slice(0, 80))
    t.is((got.detail as unknown[]).length, detail.length)
    ;(detail as Record<string, unknown>[]).forEach((item, i) => t.like((got.detail as Record<string, unknown>[])[i], item))
  }
  t.is(await billed(), 0)
})

test('an unknown company_slug is a 404; unknown jobs, or jobs without contacts, are an empty answer; neither costs', async (t) => {
  const { contacts, billed } = await granted(t)
  const { ids } = await company(t, { 'Designer': ['2026-11-01', '<p>No contact given.</p>'] })
  const missing = await contacts({ company_slug: `no-such-company-${randomBytes(4).toString('hex')}` })
  t.is(missing.status, 404)
  t.deepEqual(missing.body, { detail: 'Company not found' })

  const empty = await contacts({ job_ids: ['999999999999', ids.get('Designer')] })
  t.is(empty.status, 200)
  t.deepEqual(empty.body, { contacts: [] })
  t.like(usage(empty.res), { meter: METER, unit: 'contacts', 'total-used': '0' })
  t.is(await billed(), 0)
})

// --- what comes back -------------------------------------------------------------------------

test('a company: its profile contacts, then its postings\' newest first, each e-mail once; 1 unit per contact', async (t) => {
  const { contacts, billed } = await granted(t)
  const { slug, domain, ids } = await company(t, acme, acmeProfile)
  const { status, body, res } = await contacts({ company_slug: slug })
  t.is(status, 200)
  t.deepEqual(body.contacts, [
    { name: 'Sam Lee', role: 'CTO', email: `sam@${domain}`, phone: null, source: 'company', job_id: null },
    // also the Frontend posting's address: once, as the profile lists it
    { name: 'Careers Team', role: null, email: `careers@${domain}`, phone: '+1 415 555 0100', source: 'company', job_id: null },
    // Jane is in two postings: the newest, which names her
    { name: 'Jane Doe', role: 'Head of Talent', email: `jane@${domain}`, phone: null, source: ids.get('Backend Engineer'), job_id: ids.get('Backend Engineer') },
    { name: null, role: null, email: null, phone: '+1 415 555 0199', source: ids.get('Support Engineer'), job_id: ids.get('Support Engineer') },
  ])
  t.like(usage(res), { meter: METER, unit: 'contacts', 'total-used': '4' })

  const two = await contacts({ company_slug: slug, limit: 2 })
  t.deepEqual(two.body.contacts!.map((c) => c.email), [`sam@${domain}`, `careers@${domain}`])
  t.like(usage(two.res), { 'total-used': '6' })
  t.is(await billed(), 6)
})

test('jobs: theirs first in the order asked (the profile fills a name the posting lacks), then their companies\' profile contacts', async (t) => {
  const { contacts, billed } = await granted(t)
  const { domain, ids } = await company(t, acme, acmeProfile)
  const other = await company(t, { 'Other Engineer': ['2026-11-06', '<p>Ping Lee Chang, Engineering Manager, at lee@DOMAIN</p>'] })
  const { status, body, res } = await contacts({ job_id: ids.get('Data Engineer'), job_ids: [ids.get('Frontend Engineer'), other.ids.get('Other Engineer'), ids.get('Data Engineer')], limit: 20 })
  t.is(status, 200)
  t.deepEqual(body.contacts, [
    { name: null, role: null, email: `jane@${domain}`, phone: null, source: ids.get('Data Engineer'), job_id: ids.get('Data Engineer') },
    { name: 'Careers Team', role: null, email: `careers@${domain}`, phone: '+1 415 555 0100', source: ids.get('Frontend Engineer'), job_id: ids.get('Frontend Engineer') },
    { name: 'Lee Chang', role: 'Engineering Manager', email: `lee@${other.domain}`, phone: null, source: other.ids.get('Other Engineer'), job_id: other.ids.get('Other Engineer') },
    { name: 'Sam Lee', role: 'CTO', email: `sam@${domain}`, phone: null, source: 'company', job_id: null },
  ])
  t.like(usage(res), { 'total-used': '4' })
  t.is(await billed(), 4)
})

// --- profiles, deletion, logs ----------------------------------------------------------------

test('make ingest-companies fills company_contacts: a list replaces, a profile without one keeps, a bad list is rejected', async (t) => {
  const { app } = t.context
  const { contacts } = await granted(t)
  const { slug, name, domain } = await company(t, { 'Designer': ['2026-11-01', '<p>No contact given.</p>'] })
  const emails = async () => (await contacts({ company_slug: slug })).body.contacts!.map((c) => `${c.name} <${c.email}>`)

  // the command itself, on this database
  const file = path.join(t.context.dir, `cli-${slug}.json`)
  await writeFile(file, JSON.stringify([{ title: name, slug, contacts: [{ name: 'Ada Park', role: 'Recruiter', email: `ada@${domain}` }, { name: 'Bo Diaz', email: `bo@${domain}` }] }]))
  const { stdout } = await run('npx', ['tsx', 'bin/ingest.ts', file, '--companies'], { env: { ...process.env, DATABASE_URL: app.db.url } })
  t.regex(stdout, /companies: read 1, .*rejected 0/)
  t.deepEqual(await emails(), [`Ada Park <ada@${domain}>`, `Bo Diaz <bo@${domain}>`])

  await ingestProfiles(t, [{ title: name, slug, contacts: [{ name: 'Cy Moss', phone: '+44 20 7946 0000' }] }])
  t.deepEqual(await emails(), ['Cy Moss <null>'])
  await ingestProfiles(t, [{ title: name, slug, remote_policy: 'remote-first' }])
  t.deepEqual(await emails(), ['Cy Moss <null>'], 'no contacts key: the stored ones stay')
  const bad = await ingestProfiles(t, [{ title: name, slug, contacts: [{ name: 'Di Roe' }] }])
  t.like(bad.summary, { read: 1, rejected: 1 })
  t.deepEqual(bad.rejected, [[1, 'contacts[0]: needs an email or a phone']])
  t.deepEqual(await emails(), ['Cy Moss <null>'])
  await ingestProfiles(t, [{ title: name, slug, contacts: [] }])
  t.deepEqual(await emails(), [])
})

test('admin contacts:delete --company SLUG deletes the profile\'s and the postings\' contacts', async (t) => {
  const { app } = t.context
  const { contacts, billed } = await granted(t)
  const { slug, ids } = await company(t, acme, acmeProfile)
  const kept = await company(t, { 'Kept Engineer': ['2026-11-01', '<p>Email kept@DOMAIN</p>'] })
  t.is((await contacts({ company_slug: slug })).body.contacts!.length, 4)

  const env = { ...process.env, DATABASE_URL: app.db.url }
  const { stdout } = await run('npx', ['tsx', 'bin/admin.ts', 'contacts:delete', '--company', slug], { env })
  // 2 profile contacts; 4 postings had an address (Jane's twice)
  t.deepEqual(JSON.parse(stdout), { company_slug: slug, deleted: { profile_contacts: 2, posting_contacts: 4 } })
  const after = await contacts({ company_slug: slug })
  t.deepEqual(after.body, { contacts: [] })
  t.deepEqual((await contacts({ job_ids: [...ids.values()] })).body, { contacts: [] })
  const [row] = await app.db.sql<{ n: number }[]>`select count(*)::int as n from jobs where id = any(${[...ids.values()]}::bigint[]) and (contact_email is not null or contact_phone is not null)`
  t.is(row.n, 0)
  // another company's stay
  t.deepEqual((await contacts({ company_slug: kept.slug })).body.contacts!.map((c) => c.email), [`kept@${kept.domain}`])
  t.is(await billed(), 4 + 1)

  const unknown = await run('npx', ['tsx', 'bin/admin.ts', 'contacts:delete', '--company', 'no-such-company'], { env }).catch((e) => e)
  t.is(unknown.code, 2)
  t.regex(unknown.stderr, /no company no-such-company/)
})

test('no contact data in the logs: not the addresses, phones, names or roles of answers, errors or rejected bodies', async (t) => {
  const { app } = t.context
  const { contacts } = await granted(t)
  const { slug, domain, ids } = await company(t, acme, acmeProfile)
  const sent: string[] = []
  const note = (res: Response) => sent.push(res.headers.get('x-request-id')!)
  note((await contacts({ company_slug: slug })).res)
  note((await contacts({ job_ids: [...ids.values()] })).res)
  note((await contacts({ company_slug: `jane@${domain}` })).res) // 404
  note((await contacts({ job_ids: [`jane@${domain}`] })).res) // 422, echoing the input in the body only

  // each request's line is written when its response closes: wait for all of them, at most 10 s
  const until = Date.now() + 10_000
  while (!sent.every((id) => app.logs.some((l) => l.includes(id))) && Date.now() < until) await new Promise((r) => setImmediate(r))
  const lines = app.logs.filter((l) => sent.some((id) => l.includes(id)))
  t.is(lines.length, sent.length)
  const personal = [`jane@${domain}`, `sam@${domain}`, `careers@${domain}`, '415 555 0199', '415 555 0100', 'Jane Doe', 'Sam Lee', 'Head of Talent', domain]
  for (const line of app.logs) for (const p of personal) t.false(line.includes(p), `a log line holds ${p}: ${line}`)
})
