/**
 * Restarts under load: `npm start` on TEST_DATABASE_URL's server (a scratch database)
 * receives GET /v2/jobs/{id} at a steady BENCH_RATE a second (open loop, keep-alive
 * connections) while it is stopped with SIGTERM and started again BENCH_RESTARTS times.
 * Every request ends one of three ways, counted apart:
 * - answered: an HTTP response, whatever its status;
 * - refused: the connection was refused (no server listening: between a stop and the
 *   next start). Nothing was accepted, so a balancer or client retries it elsewhere;
 * - lost: accepted and never answered (reset or hung up), what a graceful stop must not do.
 *
 *   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test nice -n 10 node --import tsx test/bench/shutdown.ts
 */
import { spawn, type ChildProcess } from 'node:child_process'
import http from 'node:http'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { testDatabase } from '../helpers/db.ts'
import { createAccountWithKey } from '../helpers/factories.ts'
import { freePort } from '../helpers/free-port.ts'
import { seedCompany } from '../billing/fixtures.ts'

if (!process.env.TEST_DATABASE_URL) throw new Error('TEST_DATABASE_URL names the server the bench runs on')
const RATE = Number(process.env.BENCH_RATE ?? 50)
const RESTARTS = Number(process.env.BENCH_RESTARTS ?? 20)
/** how long each server runs under the load before it is stopped */
const UP_MS = Number(process.env.BENCH_UP_MS ?? 2000)

const db = await testDatabase()
const dir = await mkdtemp(path.join(tmpdir(), 'jds-restarts-'))
const company = await seedCompany(db.sql, 50)
const { key } = await createAccountWithKey(db.sql, 'scale')
const port = await freePort()
const env = {
  ...process.env, DATABASE_URL: db.url, PORT: String(port), DATA_DIR: dir, LOG_LEVEL: 'warn', EMBEDDING_PROVIDER: 'none',
  RATE_LIMIT_PER_MINUTE: '1000000', SHUTDOWN_GRACE_SECONDS: '10',
}
const start = () => spawn(process.execPath, ['--import', 'tsx', 'bin/server.ts'], { env, stdio: ['ignore', 'ignore', 'inherit'] })
const ready = async () => {
  for (;;) {
    if (await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status === 200, () => false)) return
    await new Promise((r) => setTimeout(r, 50))
  }
}

const counts = { sent: 0, answered: 0, refused: 0, lost: 0, non2xx: 0 }
const lostCodes = new Map<string, number>()
const agent = new http.Agent({ keepAlive: true, maxSockets: 16 })
const inFlight = new Set<Promise<void>>()
function send() {
  counts.sent++
  const id = company.jobIds[counts.sent % company.jobIds.length]
  const p = new Promise<void>((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: `/v2/jobs/${id}`, agent, headers: { 'x-api-key': key } }, (res) => {
      res.resume()
      res.on('end', () => {
        counts.answered++
        if (res.statusCode! >= 300) counts.non2xx++
        resolve()
      })
    })
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'ECONNREFUSED') counts.refused++
      else {
        counts.lost++
        lostCodes.set(e.code ?? e.message, (lostCodes.get(e.code ?? e.message) ?? 0) + 1)
      }
      resolve()
    })
  })
  inFlight.add(p)
  void p.then(() => inFlight.delete(p))
}

let server: ChildProcess = start()
await ready()
const started = Date.now()
const timer = setInterval(send, 1000 / RATE)
const stops: number[] = []
try {
  for (let i = 0; i < RESTARTS; i++) {
    await new Promise((r) => setTimeout(r, UP_MS))
    const t0 = Date.now()
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)))
    server.kill('SIGTERM')
    const code = await exited
    if (code !== 0) throw new Error(`the server exited with ${code}`)
    stops.push(Date.now() - t0)
    server = start()
    await ready()
  }
  await new Promise((r) => setTimeout(r, UP_MS))
} finally {
  clearInterval(timer)
  await Promise.all(inFlight)
  server.kill('SIGTERM')
  await new Promise((r) => server.once('exit', r))
  agent.destroy()
  await db.close()
  await rm(dir, { recursive: true, force: true })
}
const seconds = (Date.now() - started) / 1000
stops.sort((a, b) => a - b)
console.log(`${RESTARTS} restarts of npm start under ${RATE} GET /v2/jobs/{id} a second, ${seconds.toFixed(0)} s, ${new Date().toISOString().slice(0, 10)}`)
console.log('| sent | answered | of them non-2xx | refused (no listener) | lost (accepted, not answered) | stop time median / max |')
console.log('|---|---|---|---|---|---|')
console.log(`| ${counts.sent} | ${counts.answered} | ${counts.non2xx} | ${counts.refused} | ${counts.lost}${lostCodes.size ? ` (${[...lostCodes].map(([c, n]) => `${c} ${n}`).join(', ')})` : ''} | ${stops[Math.floor(stops.length / 2)]} / ${stops[stops.length - 1]} ms |`)
