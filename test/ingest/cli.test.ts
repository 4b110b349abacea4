/** The commands as an operator runs them: real processes, real files, a real database. */
import anyTest, { type TestFn } from 'ava'
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { generatePostings } from '../../seeds/generate.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'

const run = promisify(execFile)
const test = anyTest as TestFn<{ db: TestDb; dir: string }>

test.before(async (t) => {
  t.context = { db: await testDatabase(), dir: fs.mkdtempSync(path.join(os.tmpdir(), 'cli-test-')) }
})
test.after.always(async (t) => {
  await t.context.db?.close()
  fs.rmSync(t.context.dir, { recursive: true, force: true })
})

async function cli(t: { context: { db: TestDb } }, script: string, args: string[]) {
  try {
    const { stdout, stderr } = await run('node', ['--import', 'tsx', script, ...args], {
      env: { ...process.env, DATABASE_URL: t.context.db.url },
      timeout: 120_000,
    })
    return { code: 0, stdout, stderr }
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string }
    return { code: err.code, stdout: err.stdout, stderr: err.stderr }
  }
}

test.serial('make ingest: summary, rejected lines on stderr, exit 0', async (t) => {
  const lines = [...generatePostings({ jobs: 50, seed: 3, now: '2026-11-20' })].map((p) => JSON.stringify(p))
  lines.splice(10, 0, 'not json at all')
  const file = path.join(t.context.dir, 'fifty.jsonl')
  fs.writeFileSync(file, lines.join('\n'))
  const r = await cli(t, 'ingest/cli.ts', [file])
  t.is(r.code, 0, r.stderr)
  t.regex(r.stderr, /^line 11: invalid JSON/m)
  t.regex(r.stdout, /read 51, inserted \d+, updated 0, duplicates \d+, unchanged 0, rejected 1, expired on arrival \d+, [\d.]+ s/)
  const again = await cli(t, 'ingest/cli.ts', [file])
  t.regex(again.stdout, /inserted 0, updated 0, duplicates 0, unchanged 50, rejected 1/)
})

test('make ingest exits non-zero when the input is unreadable or nothing lands', async (t) => {
  const missing = await cli(t, 'ingest/cli.ts', [path.join(t.context.dir, 'nope.jsonl')])
  t.is(missing.code, 1)
  t.regex(missing.stderr, /cannot read/)
  const junk = path.join(t.context.dir, 'junk.jsonl')
  fs.writeFileSync(junk, '{"job_title": 1}\n[]\n')
  const nothing = await cli(t, 'ingest/cli.ts', [junk])
  t.is(nothing.code, 1)
  t.regex(nothing.stderr, /nothing could be ingested/)
  const unknown = path.join(t.context.dir, 'postings.xml')
  fs.writeFileSync(unknown, '<jobs/>')
  t.is((await cli(t, 'ingest/cli.ts', [unknown])).code, 1)
})

test('admin: accounts:create prints an account and a key that works; keys:revoke ends it', async (t) => {
  const created = await cli(t, 'api/admin.ts', ['accounts:create', '--email', `cli-${Date.now()}@example.test`, '--plan', 'starter'])
  t.is(created.code, 0, created.stderr)
  const { account_id, api_key } = JSON.parse(created.stdout)
  t.regex(account_id, /^[0-9a-f-]{36}$/)
  t.regex(api_key, /^jds_/)
  const [stored] = await t.context.db.sql`select key_hash from api_keys where account_id = ${account_id}`
  t.not(stored.key_hash, api_key) // only the hash is stored
  t.false(JSON.stringify(await t.context.db.sql`select * from api_keys`).includes(api_key))

  const second = await cli(t, 'api/admin.ts', ['keys:create', '--account', account_id])
  t.is(second.code, 0)
  t.not(JSON.parse(second.stdout).api_key, api_key)

  const revoked = await cli(t, 'api/admin.ts', ['keys:revoke', '--key', api_key])
  t.deepEqual(JSON.parse(revoked.stdout), { revoked: true })
  const [{ live }] = await t.context.db.sql`select count(*)::int as live from api_keys where account_id = ${account_id} and revoked_at is null`
  t.is(live, 1)

  t.is((await cli(t, 'api/admin.ts', ['accounts:create', '--email', 'x@example.test', '--plan', 'platinum'])).code, 2)
  t.is((await cli(t, 'api/admin.ts', ['keys:revoke', '--key', 'jds_nope'])).code, 2)
  t.is((await cli(t, 'api/admin.ts', ['bogus'])).code, 2)
})
