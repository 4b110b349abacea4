/**
 * The database pool under sustained overload (docs/performance.md, "The database pool
 * under load"): 100 clients in closed loops, each sending its next search as soon as
 * the last answered, against an app whose pool has 10 connections, in windows of 5,000
 * requests, with requests admitted 10 at a time (as the app runs) and all at once.
 * Then the driver alone: 200 loops of `select 1` through a pool of 10. A rate that
 * falls window after window is the driver's busy queue growing. Machine's Postgres
 * (BENCH_DATABASE_URL), a scratch database dropped at the end.
 */
import pino from 'pino'
import type { AddressInfo } from 'node:net'
import postgres from 'postgres'
import { buildApp } from '../../api/app.ts'
import { createAccountWithKey, rawPosting, readItems } from '../helpers/factories.ts'
import { loadConfig } from '../../sql/config.ts'
import { connect, POOL_SIZE } from '../../sql/db.ts'
import { migrate } from '../../sql/migrate.ts'
import { ingest } from '../../ingest/pipeline.ts'
import { keepAlivePost } from './search-mix.ts'

const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const WINDOWS = Number(process.env.BENCH_WINDOWS ?? 8)
const PER_WINDOW = 5_000
const name = `jds_bench_pool_${process.pid}`
const admin = postgres(serverUrl, { max: 1, onnotice: () => {} })
await admin`create database ${admin(name)}`
const url = Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString()
const sql = connect(url, POOL_SIZE)

/** Requests (or queries) per second of each window of `perWindow`, `loops` closed loops running `once`. */
async function windows(loops: number, perWindow: number, once: () => Promise<unknown>) {
  const rates: number[] = []
  let done = 0
  let mark = performance.now()
  const total = perWindow * WINDOWS
  await Promise.all(Array.from({ length: loops }, async () => {
    while (done < total) {
      await once()
      if (++done % perWindow === 0) {
        const now = performance.now()
        rates.push(Math.round(perWindow / ((now - mark) / 1000)))
        mark = now
      }
    }
  }))
  return rates
}

try {
  await migrate(sql)
  await ingest(sql, readItems(Array.from({ length: 200 }, (_, i) => rawPosting({}, i))), { source: 'bench' })
  const { key } = await createAccountWithKey(sql, 'scale')
  const roomy = { limit: 1_000_000_000, windowSeconds: 60 }
  const config = { ...loadConfig(), rateLimits: { key: roomy, search: roomy, anonymous: roomy } }
  const rows: [string, number[]][] = []
  for (const [label, slots] of [['HTTP, 10 at a time', POOL_SIZE], ['HTTP, all at once', 1_000_000]] as const) {
    const app = buildApp({ sql, config, log: pino({ level: 'silent' }), poolSize: slots })
    const server = app.listen(0, '127.0.0.1')
    await new Promise((r) => server.once('listening', r))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const clients = Array.from({ length: 100 }, () => keepAlivePost(base, key))
    let next = 0
    rows.push([`${label} (search, 100 clients)`, await windows(100, PER_WINDOW, () => clients[next++ % 100].post('/v2/jobs/search', { job_titles: ['engineer'], limit: 1 }))])
    for (const c of clients) c.close()
    await new Promise((r) => server.close(r))
    await app.context.admission!.close()
  }
  rows.push(['driver alone (select 1, 200 loops)', await windows(200, 20_000, () => sql`select 1 as n`)])
  console.log(`\n| Load, pool of ${POOL_SIZE} | ${Array.from({ length: WINDOWS }, (_, i) => `${i + 1}`).join(' | ')} |`)
  console.log(`|---|${'---|'.repeat(WINDOWS)}`)
  for (const [label, rates] of rows) console.log(`| ${label} | ${rates.map((r) => r.toLocaleString('en')).join(' | ')} |`)
  console.log('\nrequests (or queries) per second in each successive window')
} finally {
  await sql.end({ timeout: 5 })
  await admin`drop database if exists ${admin(name)} with (force)`
  await admin.end()
}
