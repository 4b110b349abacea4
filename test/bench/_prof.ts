import Router from '@koa/router'
import pino from 'pino'
import postgres from 'postgres'
import { randomBytes } from 'node:crypto'
import { IncomingMessage, ServerResponse } from 'node:http'
import { Duplex } from 'node:stream'
import { buildApp } from '../../api/app.ts'
import { loadConfig } from '../../api/config.ts'
import { connect } from '../../sql/db.ts'
import { keyed } from '../../api/middleware/keyed.ts'
import { migrate } from '../../sql/migrate.ts'
import { createAccountWithKey } from '../helpers/factories.ts'
const serverUrl = 'postgres://postgres@127.0.0.1:5432/postgres'
const admin = postgres(serverUrl, { max: 1, onnotice: () => {} })
const dbName = `jds_prof_${randomBytes(4).toString('hex')}`
await admin`create database ${admin(dbName)}`
const url = new URL(serverUrl); url.pathname = `/${dbName}`
const sql = connect(url.toString())
try {
  await migrate(sql)
  const keys = await Promise.all(Array.from({ length: 50 }, () => createAccountWithKey(sql, 'scale')))
  const config = { ...loadConfig(), rateLimits: { ...loadConfig().rateLimits, key: { limit: 1_000_000, windowSeconds: 60 } } }
  const app = buildApp({ sql, config, log: pino({ level: 'silent' }) })
  const fixedBody = { id: 'x'.repeat(20), title: 'Senior engineer', description: 'y'.repeat(2000) }
  const bare = new Router()
  bare.get('/cpu/bare/:n', (ctx) => { ctx.body = fixedBody })
  bare.get('/cpu/auth/:n', keyed(sql, {}), (ctx) => { ctx.body = fixedBody })
  bare.get('/cpu/keyed/:n', keyed(sql, { meter: 'm_jobs_api_calls', cost: 1 }), (ctx) => { ctx.body = fixedBody })
  app.middleware.unshift(bare.routes() as never)
  class Sink extends Duplex { _write(_c: unknown, _e: unknown, d: () => void) { d() } _read() {} }
  const sink = new Sink(); sink.setMaxListeners(0)
  const handle = app.callback()
  async function run(prefix: string, n: number) {
    const started = process.cpuUsage()
    for (let i = 0; i < n; i++) {
      if (i % 20 === 0) await new Promise((r) => setImmediate(r))
      const req = new IncomingMessage(sink as never)
      req.method = 'GET'; req.url = `${prefix}${i}`
      req.headers = { host: 'bench', accept: '*/*', 'x-api-key': keys[i % keys.length].key }
      const res = new ServerResponse(req); res.assignSocket(sink as never)
      await handle(req, res)
      if (res.statusCode !== 200) throw new Error(`${prefix}: ${res.statusCode}`)
      res.detachSocket(sink as never)
    }
    const u = process.cpuUsage(started); return (u.user + u.system) / n
  }
  const which = (process.env.PROF ?? 'bare,keyed').split(',')
  for (const w of which) await run(`/cpu/${w}/`, 20000)
  const res: Record<string, number[]> = Object.fromEntries(which.map((w) => [w, []]))
  for (let r = 0; r < Number(process.env.ROUNDS ?? 5); r++) {
    for (let k = 0; k < which.length; k++) { const w = which[(k + r) % which.length]; res[w].push(await run(`/cpu/${w}/`, Number(process.env.N ?? 20000))) }
  }
  const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  for (const w of which) console.log(w.padEnd(8), 'min', Math.min(...res[w]).toFixed(2), 'median', mid(res[w]).toFixed(2), 'diff-vs-bare median', mid(res[w].map((x, i) => x - res[which[0]][i])).toFixed(2))
} finally {
  await sql.end({ timeout: 5 })
  await admin`drop database if exists ${admin(dbName)} with (force)`
  await admin.end()
}
