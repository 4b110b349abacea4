/**
 * Every shape of job search at 1,000,000 postings, over HTTP, through the servers of
 * several checkouts side by side on one corpus (docs/performance.md, "Search shapes"):
 *
 *   BENCH_BASELINE=/path/to/before node --import tsx test/bench/search-shapes.ts [CHECKOUT ...]
 *
 * The corpus is the search bench's (search-mix.ts searchCorpus, BENCH_SEARCH_JOBS
 * postings, default 1,000,000; built once and kept). Each checkout's own server runs on
 * it as its start script runs it (checkouts.ts), after this checkout's `npm run expire`
 * has archived what a server would archive on its start. The shapes (search-mix.ts shapes) run
 * one at a time: per shape two warm-ups, then BENCH_REPS (20) repetitions, the
 * checkouts taking turns within each so that the machine's drift falls on all alike.
 * Then the whole mix with BENCH_CONCURRENCY (8) requests in flight for BENCH_SECONDS
 * (20) per checkout: requests a second and their median. Prints, per shape, the number
 * of matches and each checkout's median and p95; the median of the per-shape medians,
 * the worst p95 and the shapes over their targets (median ≤ 50 ms, p95 ≤ 150 ms).
 * BENCH_ONLY=substring runs the shapes whose name holds it.
 */
import http from 'node:http'
import os from 'node:os'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { createAccount, createKey } from '../../sql/accounts.ts'
import { checkout, npm, startServer, stopServer, type Checkout } from './checkouts.ts'
import { corpusName, searchCorpus, shapes } from './search-mix.ts'

const JOBS = Number(process.env.BENCH_SEARCH_JOBS ?? 1_000_000)
const REPS = Number(process.env.BENCH_REPS ?? 20)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20)
const ONLY = process.env.BENCH_ONLY
const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const corpusUrl = Object.assign(new URL(serverUrl), { pathname: `/${corpusName(JOBS)}` }).toString()
const TARGET = { median: 50, p95: 150 }
const log = (m: string) => console.error(`[search-shapes] ${m}`)

const here = fileURLToPath(new URL('../..', import.meta.url))
const baselines = (process.env.BENCH_BASELINE ?? '').split(',').filter(Boolean)
const positional = process.argv.slice(2)

type Server = Checkout & { agent: http.Agent; key: string }

function post(s: Server, body: unknown) {
  return new Promise<{ status: number; text: string; ms: number }>((resolve, reject) => {
    const t = performance.now()
    const req = http.request(`http://127.0.0.1:${s.port}/v2/jobs/search`, { method: 'POST', agent: s.agent, headers: { 'content-type': 'application/json', 'x-api-key': s.key } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - t }))
    })
    req.on('error', reject)
    req.end(JSON.stringify(body))
  })
}

async function search(s: Server, name: string, body: unknown) {
  const r = await post(s, body)
  if (r.status !== 200) throw new Error(`${s.label}, ${name}: ${r.status} ${r.text.slice(0, 300)}`)
  return r
}

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]
const f1 = (x: number) => x.toFixed(1)
const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ')[0]

function table(title: string, head: string[], rows: string[][]) {
  console.log(`\n${title}\n`)
  console.log(`| ${head.join(' | ')} |`)
  console.log(`|${head.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`)
  for (const r of rows) console.log(`| ${r.join(' | ')} |`)
}

const sql = await searchCorpus(serverUrl, JOBS, log)
const all = await Promise.all([...baselines, ...(positional.length ? positional : [here])].map(checkout))
// a server archives the expired jobs on its start: done once here, so that no server measures beside it
log(`npm run expire: ${(await npm('search-shapes', await checkout(here), corpusUrl, 'expire', [])).trim()}`)
const servers: Server[] = []
try {
  const mix = (await shapes(sql)).filter(([name]) => !ONLY || name.includes(ONLY))
  for (const c of all) {
    await startServer('search-shapes', c, corpusUrl, log)
    // a metered plan: the bench measures search, not the quota
    const key = await createKey(sql, await createAccount(sql, `bench-shapes-${Date.now()}@example.test`, 'scale'))
    servers.push({ ...c, agent: new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY }), key })
  }
  const loads = [loadAverage()]
  const times = new Map(servers.map((s) => [s, mix.map(() => [] as number[])]))
  const totals = new Map(servers.map((s) => [s, mix.map(() => -1)]))
  for (const [i, [name, body]] of mix.entries()) {
    for (const s of servers) for (let w = 0; w < 2; w++) totals.get(s)![i] = JSON.parse((await search(s, name, body)).text).total_count
    for (let rep = 0; rep < REPS; rep++) {
      for (const s of rep % 2 === 0 ? servers : [...servers].reverse()) times.get(s)![i].push((await search(s, name, body)).ms)
    }
    log(`${name}: ${servers.map((s) => `${s.label} ${f1(quantile(times.get(s)![i], 0.5))} ms`).join(', ')}`)
  }
  loads.push(loadAverage())

  // the whole mix with CONCURRENCY in flight, each worker starting at its own shape
  const throughput = new Map<Server, { rps: number; median: number; p95: number }>()
  for (const s of servers) {
    const latencies: number[] = []
    const until = performance.now() + SECONDS * 1000
    const t = performance.now()
    await Promise.all(Array.from({ length: CONCURRENCY }, async (_, w) => {
      for (let n = w; performance.now() < until; n++) {
        const [name, body] = mix[(n * 7) % mix.length]
        latencies.push((await search(s, name, body)).ms)
      }
    }))
    throughput.set(s, { rps: latencies.length / ((performance.now() - t) / 1000), median: quantile(latencies, 0.5), p95: quantile(latencies, 0.95) })
  }
  loads.push(loadAverage())

  console.log(`\nJob search shapes over HTTP, ${corpusName(JOBS)}; ${REPS} repetitions a shape one at a time, checkouts taking turns; ${CONCURRENCY} in flight for ${SECONDS} s; ${os.cpus().length} cores; ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC; load average ${loads.join(', ')}`)
  console.log('\n| checkout | commit | server command |\n|---|---|---|')
  for (const s of servers) console.log(`| ${s.dir} | ${s.commit}${s.wip ? ' + uncommitted changes' : ''} | \`${s.start.shown}\` |`)
  const over = (xs: number[]) => quantile(xs, 0.5) > TARGET.median || quantile(xs, 0.95) > TARGET.p95
  table('Per shape: matches, then median / p95 ms per checkout (* over the target)', ['shape', 'matches', ...servers.map((s) => s.label)], mix.map(([name], i) => [
    name,
    totals.get(servers[0])![i].toLocaleString('en-US') + (servers.some((s) => totals.get(s)![i] !== totals.get(servers[0])![i]) ? ` (${servers.map((s) => totals.get(s)![i]).join(' / ')})` : ''),
    ...servers.map((s) => {
      const xs = times.get(s)![i]
      return `${f1(quantile(xs, 0.5))} / ${f1(quantile(xs, 0.95))}${over(xs) ? ' *' : ''}`
    }),
  ]))
  table(`Summary (targets: each shape median ≤ ${TARGET.median} ms and p95 ≤ ${TARGET.p95} ms; median of medians ≤ 20 ms; ${CONCURRENCY} in flight ≥ 60 requests/s)`, ['measure', ...servers.map((s) => s.label)], [
    ['median of the per-shape medians, ms', ...servers.map((s) => f1(quantile(times.get(s)!.map((xs) => quantile(xs, 0.5)), 0.5)))],
    ['worst p95, ms', ...servers.map((s) => f1(Math.max(...times.get(s)!.map((xs) => quantile(xs, 0.95)))))],
    ['shapes over their target', ...servers.map((s) => String(times.get(s)!.filter(over).length))],
    [`${CONCURRENCY} in flight: requests/s`, ...servers.map((s) => f1(throughput.get(s)!.rps))],
    [`${CONCURRENCY} in flight: median / p95 ms`, ...servers.map((s) => `${f1(throughput.get(s)!.median)} / ${f1(throughput.get(s)!.p95)}`)],
  ])
} finally {
  for (const s of servers) s.agent.destroy()
  await Promise.all(all.map(stopServer))
  await sql.end()
}
