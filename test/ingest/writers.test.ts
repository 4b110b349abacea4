/**
 * Two batches written at once (pipeline.ts, `writers`) store what one writer, batch after
 * batch, stores: on a feed whose batches share duplicate groups, sources and companies,
 * ingested and then re-ingested with edits.
 */
import anyTest, { type TestFn } from 'ava'
import { loadBatch, postingKeys, sourceOf, type BatchCounts } from '../../ingest/load.ts'
import { normalizePosting } from '../../ingest/normalize.ts'
import { ingest, type Summary } from '../../ingest/pipeline.ts'
import type { Posting } from '../../ingest/types.ts'
import { generatePostings } from '../../ingest/generator/postings.ts'
import type { Sql } from '../../sql/db.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'
import { rawPosting, readItems } from '../helpers/factories.ts'

const test = anyTest as TestFn<{ one: TestDb; two: TestDb }>

test.before(async (t) => {
  t.context = { one: await testDatabase(), two: await testDatabase() }
})
test.after.always(async (t) => {
  await t.context.one?.close()
  await t.context.two?.close()
})

type Raw = Record<string, any>
const now = new Date('2026-11-20T12:00:00Z')
const later = new Date('2026-11-20T13:00:00Z')
const base = [...generatePostings({ jobs: 600, seed: 5, now: '2026-11-20' })] as Raw[]

/**
 * The generated postings with, a few batches on, another board's copy of every 7th, a
 * repeat of every 11th and a fuller profile of every 13th's company.
 */
function firstFeed(): Raw[] {
  const feed = [...base]
  base.forEach((p, i) => {
    const at = Math.min(feed.length, i + 60)
    if (i % 7 === 0) feed.splice(at, 0, { ...p, job_board: 'Other Board', source_id: `ob-${i}`, job_board_link: `https://other.example.test/${i}` })
    if (i % 11 === 0) feed.splice(at, 0, { ...p })
    if (i % 13 === 0) feed.splice(at, 0, { ...p, source_id: `co-${i}`, company: { ...p.company, logo: `https://logo.example.test/${i}.png`, description: `Profile ${i}` } })
  })
  return feed
}

/** Every 9th posting edited at its source, and the other board's copies of every 63rd as well, differently. */
function secondFeed(): Raw[] {
  return firstFeed().map((p, i) => {
    const n = base.indexOf(p)
    if (n >= 0 && n % 9 === 0) return { ...p, description: `${p.description}<p>Edited ${n}.</p>` }
    if (p.job_board === 'Other Board' && Number(p.source_id.slice(3)) % 63 === 0) return { ...p, description: `${p.description}<p>Copy edited ${i}.</p>` }
    return p
  })
}

/** What was stored, without ids (assigned in the order rows were written). */
async function stored(sql: Sql) {
  const jobs = await sql`
    select j.job_slug, j.md5_hash, j.source_key, j.job_board, j.job_title, md5(j.description) as description,
           j.expired, j.date_expired, c.slug as company, j.first_seen_at, j.last_seen_at
    from jobs j join companies c on c.id = j.company_id
    order by j.job_slug`
  const sources = await sql`
    select s.job_board, s.source_key, s.content_hash, j.job_slug, s.first_seen_at, s.last_seen_at
    from job_sources s join jobs j on j.id = s.job_id
    order by s.job_board, s.source_key`
  const companies = await sql`
    select slug, name, logo, link, description_summary, services, size_min, size_max, industries, type,
           is_recruiting_agency, job_board
    from companies order by slug`
  return { jobs, sources, companies }
}

const counts = ({ seconds: _s, ...rest }: Summary) => rest

test.serial('two writers store what one writer stores, with the same counts', async (t) => {
  const runs: Summary[][] = [[], []]
  for (const [i, db] of [t.context.one, t.context.two].entries()) {
    const writers = i + 1
    runs[i].push(await ingest(db.sql, readItems(firstFeed()), { source: 'first', now, batchSize: 25, writers }))
    runs[i].push(await ingest(db.sql, readItems(secondFeed()), { source: 'second', now: later, batchSize: 25, writers }))
  }
  t.deepEqual(runs[1].map(counts), runs[0].map(counts))
  const [first, second] = runs[0]
  // the feed holds what the comparison is about
  t.true(first.duplicates >= 100, `duplicates ${first.duplicates}`)
  t.true(second.updated >= 60, `updated ${second.updated}`)
  const [one, two] = await Promise.all([stored(t.context.one.sql), stored(t.context.two.sql)])
  t.true(one.companies.some((c) => c.logo?.startsWith('https://logo.example.test/')))
  t.is(two.jobs.length, one.jobs.length)
  t.deepEqual(two.jobs, one.jobs)
  t.deepEqual(two.sources, one.sources)
  t.deepEqual(two.companies, one.companies)
})

test.serial('a batch leaves the companies it would not change unlocked', async (t) => {
  if (t.context.one.kind === 'embedded') {
    // the embedded database runs one transaction at a time: a held lock there holds the whole session
    t.pass('a server-only case')
    return
  }
  const { sql } = t.context.one
  const [company] = await sql<{ name: string; slug: string }[]>`select name, slug from companies order by id limit 1`
  let release!: () => void
  const holding = new Promise<void>((resolve) => (release = resolve))
  let locked!: () => void
  const isLocked = new Promise<void>((resolve) => (locked = resolve))
  const holder = sql.begin(async (tx) => {
    await tx`select 1 from companies where slug = ${company.slug} for no key update` // as an upsert's update of it would
    locked()
    await holding
  })
  await isLocked
  try {
    // the company by name alone: nothing it would change
    const posting = normalizePosting(rawPosting({ company: { name: company.name } }), { now: later }) as Posting
    t.is(posting.company.slug, company.slug)
    const deadline = new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 30_000).unref())
    const outcome = await Promise.race([loadBatch(sql, [posting], later), deadline])
    t.not(outcome, 'waited')
    t.is((outcome as BatchCounts).inserted, 1)
  } finally {
    release()
    await holder
  }
})

test.serial("a posting's keys: its source, its group, the group its source's job is in, and a company it creates or changes", async (t) => {
  const { sql } = t.context.one
  const original = base[0]
  const [stored] = await sql<{ md5_hash: string; slug: string; name: string }[]>`
    select j.md5_hash, c.slug, c.name from job_sources s join jobs j on j.id = s.job_id join companies c on c.id = j.company_id
    where s.job_board = ${original.job_board} and s.source_key = ${original.source_id}`
  const normalized = (raw: Raw) => normalizePosting(raw, { now: later }) as Posting
  const edited = normalized({ ...original, job_title: 'Chief Tea Officer', company: { name: stored.name } })
  const elsewhere = normalized(rawPosting({ company: { name: 'Kettle Works' } }))
  const known = normalized({ ...original, company: { ...original.company, logo: 'https://logo.example.test/new.png' } })
  t.not(edited.md5_hash, stored.md5_hash)
  const keys = await postingKeys(sql, [edited, elsewhere, known])
  t.deepEqual(keys[0], [sourceOf(edited), `#${edited.md5_hash}`, `#${stored.md5_hash}`, `@${stored.slug}`])
  t.deepEqual(keys[1], [sourceOf(elsewhere), `#${elsewhere.md5_hash}`, '@kettle-works'])
  t.deepEqual(keys[2], [sourceOf(known), `#${known.md5_hash}`, `#${stored.md5_hash}`, `@${stored.slug}`])
  // the company by name alone changes nothing: no company key
  t.deepEqual(await postingKeys(sql, [edited]), [[sourceOf(edited), `#${edited.md5_hash}`, `#${stored.md5_hash}`]])
})
