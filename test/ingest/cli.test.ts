/** The commands as an operator runs them: real processes, real files, a real database. */
import anyTest, { type TestFn } from 'ava'
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { generatePostings } from '../../ingest/generator/postings.ts'
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
  const r = await cli(t, 'bin/ingest.ts', [file])
  t.is(r.code, 0, r.stderr)
  t.regex(r.stderr, /^line 11: invalid JSON/m)
  t.regex(r.stdout, /read 51, inserted \d+, updated 0, duplicates \d+, unchanged 0, rejected 1, expired on arrival \d+, [\d.]+ s/)
  // the default model is not waited for: every job is queued, none has a vector when the command returns
  const inserted = Number(/inserted (\d+)/.exec(r.stdout)![1])
  t.regex(r.stdout, new RegExp(`^queued ${inserted} jobs for vectors of use universal-sentence-encoder-lite: the running server and workers embed them in the background`, 'm'))
  const [{ without }] = await t.context.db.sql<{ without: number }[]>`select count(*)::int as without from jobs where embedding is null`
  t.is(without, inserted)
  const again = await cli(t, 'bin/ingest.ts', [file])
  t.regex(again.stdout, /inserted 0, updated 0, duplicates 0, unchanged 50, rejected 1/)
})

test.serial('make ingest --errors FILE --dry-run --report: every rejected row with all its problems, grouped reasons, the report, nothing written', async (t) => {
  const lines = [...generatePostings({ jobs: 20, seed: 5, now: '2026-11-20' })].map((p) => JSON.stringify(p))
  lines.splice(3, 0, 'not json at all')
  lines.splice(7, 0, JSON.stringify({ job_title: 7, company: { name: 'Acme', size_range: 'huge' }, job_board: 'B', date_posted: 'soon' }))
  lines.splice(9, 0, JSON.stringify({ job_title: '', company: { name: 'Acme' }, job_board: 'B' }))
  const file = path.join(t.context.dir, 'rejects.jsonl')
  const errors = path.join(t.context.dir, 'rejects.errors.jsonl')
  fs.writeFileSync(file, lines.join('\n'))
  const runsBefore = await t.context.db.sql`select count(*)::int as n from ingest_runs`
  const r = await cli(t, 'bin/ingest.ts', [file, '--dry-run', '--report', '--errors', errors])
  t.is(r.code, 0, r.stderr)
  t.regex(r.stdout, /^dry run, nothing written: read 23, would land 20, rejected 3, /m)
  t.regex(r.stdout, /^rejected rows by problem \(a row may have several\); every rejected row is in .*rejects\.errors\.jsonl:$/m)
  t.regex(r.stdout, /^\s+2 {2}job_title: required non-empty string$/m)
  t.regex(r.stdout, /^\s+1 {2}invalid JSON$/m)
  t.regex(r.stdout, /^\s+1 {2}date_posted: expected YYYY-MM-DD or an ISO datetime$/m)
  t.regex(r.stdout, /^report: 20 postings normalized$/m)
  t.regex(r.stdout, /^job_title\s+100\.0 %\s+20$/m)
  t.regex(r.stdout, /values worth a look:/)
  const rows = fs.readFileSync(errors, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
  t.deepEqual(rows.map((x) => x.line), [4, 8, 10])
  t.deepEqual(rows[0], { line: 4, problems: [rows[0].problems[0]], text: 'not json at all' })
  t.regex(rows[0].problems[0], /^invalid JSON/)
  t.deepEqual(rows[1].problems.map((p: string) => p.split(':')[0]), ['job_title', 'company.size_range', 'date_posted'])
  t.like(rows[1].record, { job_title: 7, date_posted: 'soon' })
  t.deepEqual(rows[2].problems, ['job_title: required non-empty string'])
  // a dry run writes nothing
  t.deepEqual(await t.context.db.sql`select count(*)::int as n from ingest_runs`, runsBefore)
})

test('make ingest exits non-zero when the input is unreadable or nothing lands', async (t) => {
  const missing = await cli(t, 'bin/ingest.ts', [path.join(t.context.dir, 'nope.jsonl')])
  t.is(missing.code, 1)
  t.regex(missing.stderr, /cannot read/)
  const junk = path.join(t.context.dir, 'junk.jsonl')
  fs.writeFileSync(junk, '{"job_title": 1}\n[]\n')
  const nothing = await cli(t, 'bin/ingest.ts', [junk])
  t.is(nothing.code, 1)
  t.regex(nothing.stderr, /nothing could be ingested/)
  const unknown = path.join(t.context.dir, 'postings.xml')
  fs.writeFileSync(unknown, '<jobs/>')
  t.is((await cli(t, 'bin/ingest.ts', [unknown])).code, 1)
  // a count out of its bounds is a usage error, exit 2, naming the option
  for (const [option, value] of [['--writers', '0'], ['--writers', '9'], ['--workers', 'two'], ['--batch', '0.5']]) {
    const bad = await cli(t, 'bin/ingest.ts', [junk, option, value])
    t.is(bad.code, 2, `${option} ${value}`)
    t.regex(bad.stderr, new RegExp(`${option} must be a whole number from 1 to \\d+, got "${value}"`))
  }
})

test('admin: accounts:create prints an account and a key that works; keys:revoke ends it', async (t) => {
  const created = await cli(t, 'bin/admin.ts', ['accounts:create', '--email', `cli-${Date.now()}@example.test`, '--plan', 'starter'])
  t.is(created.code, 0, created.stderr)
  const { account_id, api_key } = JSON.parse(created.stdout)
  t.regex(account_id, /^[0-9a-f-]{36}$/)
  t.regex(api_key, /^jds_/)
  const [stored] = await t.context.db.sql`select key_hash from api_keys where account_id = ${account_id}`
  t.not(stored.key_hash, api_key) // only the hash is stored
  t.false(JSON.stringify(await t.context.db.sql`select * from api_keys`).includes(api_key))

  const second = await cli(t, 'bin/admin.ts', ['keys:create', '--account', account_id])
  t.is(second.code, 0)
  t.not(JSON.parse(second.stdout).api_key, api_key)

  const revoked = await cli(t, 'bin/admin.ts', ['keys:revoke', '--key', api_key])
  t.deepEqual(JSON.parse(revoked.stdout), { revoked: true })
  const [{ live }] = await t.context.db.sql`select count(*)::int as live from api_keys where account_id = ${account_id} and revoked_at is null`
  t.is(live, 1)

  t.is((await cli(t, 'bin/admin.ts', ['accounts:create', '--email', 'x@example.test', '--plan', 'platinum'])).code, 2)
  t.is((await cli(t, 'bin/admin.ts', ['keys:revoke', '--key', 'jds_nope'])).code, 2)
  t.is((await cli(t, 'bin/admin.ts', ['bogus'])).code, 2)
})
