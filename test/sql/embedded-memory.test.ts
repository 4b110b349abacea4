/**
 * What bounds the embedded database's memory (docs/embedded-database.md, Memory): the
 * settings PGlite runs with, on a new data directory and on one made before them, and
 * the prepared statements of clients that leave, which live in PGlite's one session and
 * would otherwise stay in its heap. Always an embedded server, whatever
 * TEST_DATABASE_URL says.
 */
import test from 'ava'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import postgres from 'postgres'
import { openDatabase } from '../../sql/db.ts'
import { MEMORY_SETTINGS, startEmbedded, type Embedded } from '../../sql/embedded.ts'
import { eventually } from '../helpers/eventually.ts'

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'jds-embedded-memory-test-'))

/** Polls `f` until it returns true; false at the deadline. */

test.serial("a new data directory, and the same one reopened, run with the memory settings through the app's connection", async (t) => {
  const dataDir = tempDir()
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }))
  const settings = async () => {
    const db = await openDatabase({ databaseUrl: null, dataDir, embeddedPort: 0, own: true })
    try {
      const shown: Record<string, string> = {}
      for (const name of Object.keys(MEMORY_SETTINGS)) {
        const [row] = await db.sql.unsafe(`show ${name}`)
        shown[name] = row[name]
      }
      return shown
    } finally {
      await db.close()
    }
  }
  t.deepEqual(MEMORY_SETTINGS, { shared_buffers: '32MB', maintenance_work_mem: '64MB', work_mem: '4MB' }, 'the values docs/embedded-database.md gives')
  t.deepEqual(await settings(), { ...MEMORY_SETTINGS }, 'created by initdb in a child process')
  t.true(fs.existsSync(path.join(dataDir, 'pg', 'PG_VERSION')))
  // initdb's postgresql.conf still says shared_buffers = 128MB: the command line wins
  t.deepEqual(await settings(), { ...MEMORY_SETTINGS }, 'reopened')
})

test.serial('the in-memory database of the tests runs with the same settings', async (t) => {
  const embedded = await startEmbedded({ dataDir: null, port: 0 })
  const sql = postgres(embedded.url, { max: 1, onnotice: () => {} })
  t.teardown(async () => {
    await sql.end()
    await embedded.stop()
  })
  const [{ shared_buffers }] = await sql`show shared_buffers`
  const [{ maintenance_work_mem }] = await sql`show maintenance_work_mem`
  t.deepEqual({ shared_buffers, maintenance_work_mem }, { shared_buffers: MEMORY_SETTINGS.shared_buffers, maintenance_work_mem: MEMORY_SETTINGS.maintenance_work_mem })
})

test.serial('a data directory that cannot be created fails the start with the reason and leaves no lock behind', async (t) => {
  const dataDir = tempDir()
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }))
  fs.writeFileSync(path.join(dataDir, 'pg'), 'a file where the database directory goes')
  const error = await t.throwsAsync(openDatabase({ databaseUrl: null, dataDir, embeddedPort: 0, own: true }))
  t.regex(error!.message, /could not create the embedded database in .*pg \(exit 1\): .+/)
  t.false(fs.existsSync(path.join(dataDir, 'embedded.json')))
})

test.serial('clients that leave take their prepared statements, and their plans, out of the session', async (t) => {
  const embedded: Embedded = await startEmbedded({ dataDir: null, port: 0 })
  // unnamed statements only: the probe leaves nothing of its own in the session
  const probe = postgres(embedded.url, { max: 1, prepare: false, onnotice: () => {} })
  t.teardown(async () => {
    await probe.end()
    await embedded.stop()
  })
  const statements = async (marker: string) => {
    const [{ n }] = await probe<{ n: number }[]>`select count(*)::int as n from pg_prepared_statements where statement like ${`%${marker}%`}`
    return n
  }
  const planBytes = async () => {
    const [{ bytes }] = await probe<{ bytes: number }[]>`select coalesce(sum(total_bytes), 0)::int as bytes from pg_backend_memory_contexts where name like 'CachedPlan%'`
    return bytes
  }

  // idle when it leaves: both pool connections prepared the statement
  const idle = postgres(embedded.url, { max: 2, onnotice: () => {} })
  await Promise.all([idle`select ${1}::int as left_idle, pg_sleep(0.05)`, idle`select ${2}::int as left_idle, pg_sleep(0.05)`])
  t.true((await statements('left_idle')) >= 1)
  const stays = postgres(embedded.url, { max: 1, onnotice: () => {} })
  await stays`select ${1}::int as still_here`
  await idle.end()
  await eventually('the leaving client’s statements are closed', async () => (await statements('left_idle')) === 0, { ms: 10_000 })
  t.is(await statements('still_here'), 1, 'a client still connected keeps its own')

  // leaves while another client's transaction holds the session: closed after it, never inside it
  const waiting = postgres(embedded.url, { max: 1, onnotice: () => {} })
  await waiting`select ${1}::int as left_waiting`
  const inside = await stays.begin(async (tx) => {
    await tx`select 1`
    await waiting.end()
    await new Promise((r) => setTimeout(r, 200))
    const [{ n }] = await tx<{ n: number }[]>`select count(*)::int as n from pg_prepared_statements where statement like ${'%left_waiting%'}`
    return n
  })
  t.is(inside, 1, 'still there while the transaction holds the session')
  await eventually('the waiting client’s statements closed', async () => (await statements('left_waiting')) === 0, { ms: 10_000 })

  // leaves while it holds the session, inside its own transaction
  const holding = postgres(embedded.url, { max: 1, onnotice: () => {} })
  let entered!: () => void
  const inTransaction = new Promise<void>((r) => (entered = r))
  const abandoned = holding
    .begin(async (tx) => {
      await tx`select ${1}::int as left_holding`
      entered()
      await new Promise(() => {}) // never commits
    })
    .catch((e: Error) => e)
  await inTransaction
  await holding.end({ timeout: 0 })
  t.true((await abandoned) instanceof Error)
  await eventually('the holding client’s statements closed', async () => (await statements('left_holding')) === 0, { ms: 10_000 })
  t.deepEqual([...(await probe`select ${'free'}::text as session`)], [{ session: 'free' }], 'the session is not left inside the transaction')

  // many clients, each with a large statement of its own: the plans go with them
  const before = await planBytes()
  const thousandRows = Array.from({ length: 1000 }, (_, j) => `(${j})`).join(', ')
  for (let i = 0; i < 12; i++) {
    const client = postgres(embedded.url, { max: 1, onnotice: () => {} })
    const [row] = await client.unsafe(`select sum(v)::int as client_${i} from (values ${thousandRows}) as v (v) where v >= $1`, [i], { prepare: true })
    t.is(row[`client_${i}`], 499_500 - (i * (i - 1)) / 2)
    await client.end()
  }
  await eventually('every client’s statements closed', async () => (await statements('client_')) === 0, { ms: 10_000 })
  const after = await planBytes()
  t.log(`cached plans: ${before} bytes before, ${after} after`)
  t.true(after - before < 1_000_000, `cached plans grew by ${after - before} bytes`)
  await stays.end()
})
