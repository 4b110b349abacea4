/**
 * `make bench` (ingest part): generated postings through the whole pipeline, on the
 * embedded database and on BENCH_DATABASE_URL (default: the machine's Postgres, with
 * two batches written at once and with one), first load and re-ingest, plus normalize
 * alone. Prints a table.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { normalizePosting } from '../../ingest/normalize.ts'
import { ingest } from '../../ingest/pipeline.ts'
import { readPostings } from '../../ingest/read.ts'
import { generatePostings } from '../../ingest/generator/postings.ts'
import { connect } from '../../sql/db.ts'
import { startEmbedded } from '../../sql/embedded.ts'
import { migrate } from '../../sql/migrate.ts'
import postgres from 'postgres'

const jobs = Number(process.env.BENCH_JOBS ?? 20000)
const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-ingest-'))
const file = path.join(dir, 'postings.jsonl')
fs.writeFileSync(file, [...generatePostings({ jobs, seed: 42, now: '2026-11-20' })].map((p) => JSON.stringify(p)).join('\n'))

type Row = { target: string; run: string; postings: number; seconds: number; rate: number }
const rows: Row[] = []

{
  const raws = fs.readFileSync(file, 'utf8').split('\n').map((l) => JSON.parse(l))
  normalizePosting(raws[0]) // load the gazetteer outside the timing
  const t0 = performance.now()
  for (const r of raws) normalizePosting(r)
  const seconds = (performance.now() - t0) / 1000
  rows.push({ target: 'normalize only', run: 'cpu', postings: raws.length, seconds, rate: raws.length / seconds })
}

async function measure(target: string, url: string, writers?: number) {
  const sql = connect(url, 4)
  await migrate(sql)
  for (const run of ['first load', 're-ingest']) {
    const s = await ingest(sql, readPostings(file, { bytes: () => 0 }), { source: file, writers })
    rows.push({ target, run, postings: s.read, seconds: s.seconds, rate: s.read / s.seconds })
  }
  await sql.end()
}

const embedded = await startEmbedded({ dataDir: null, port: 0 })
await measure('embedded (PGlite), 1 writer', embedded.url, 1)
await embedded.stop()

const admin = postgres(serverUrl, { max: 1, onnotice: () => {} })
for (const writers of [2, 1]) {
  const name = `jds_bench_${process.pid}_${writers}`
  try {
    await admin`create database ${admin(name)}`
    const u = new URL(serverUrl)
    u.pathname = `/${name}`
    await measure(`Postgres ${u.host}, ${writers} writer${writers > 1 ? 's' : ''}`, u.toString(), writers)
  } catch (e) {
    console.error(`skipping the server run: ${(e as Error).message}`)
  } finally {
    await admin`drop database if exists ${admin(name)} with (force)`.catch(() => {})
  }
}
await admin.end()
fs.rmSync(dir, { recursive: true, force: true })

console.log(`\nIngest, ${jobs.toLocaleString('en-US')} generated postings, ${os.cpus().length} cores, ${new Date().toISOString().slice(0, 10)}\n`)
console.log('| target | run | postings | seconds | postings/s |')
console.log('|---|---|---:|---:|---:|')
for (const r of rows) console.log(`| ${r.target} | ${r.run} | ${r.postings} | ${r.seconds.toFixed(1)} | ${Math.round(r.rate)} |`)
