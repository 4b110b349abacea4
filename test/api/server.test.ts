/**
 * The service as a newcomer runs it: `npm start` on an empty embedded database, demo
 * data, /healthz, and the admin CLI from a second process through the server's socket.
 */
import test from 'ava'
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo
      s.close(() => resolve(port))
    })
  })

async function waitReady(base: string, child: ChildProcess, seconds: number) {
  const statuses = new Set<number>()
  for (let i = 0; i < seconds * 4; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`)
    const status = await fetch(`${base}/healthz`).then((r) => r.status, () => 0)
    statuses.add(status)
    if (status === 200) return statuses
    await new Promise((r) => setTimeout(r, 250))
  }
  throw new Error('server did not become ready')
}

test('npm start serves demo data; the admin CLI works beside it; a restart is quick', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'server-test-'))
  const port = await freePort()
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), EMBEDDED_PG_PORT: String(await freePort()), DEMO_JOBS: '60', LOG_LEVEL: 'warn' }
  delete env.DATABASE_URL
  const base = `http://127.0.0.1:${port}`
  const start = () => spawn('node', ['--import', 'tsx', 'api/server.ts'], { env, stdio: ['ignore', 'ignore', 'pipe'] })
  let server = start()
  t.teardown(() => {
    server.kill('SIGKILL')
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  const statuses = await waitReady(base, server, 90)
  t.true(statuses.has(200))
  t.true(fs.existsSync(path.join(dataDir, 'embedded.json')))

  const { stdout } = await run('node', ['--import', 'tsx', 'api/admin.ts', 'accounts:create', '--email', 'newcomer@example.test', '--plan', 'free'], { env })
  const { api_key } = JSON.parse(stdout)
  const job = await fetch(`${base}/v2/jobs/1`, { headers: { 'x-api-key': api_key } })
  t.is(job.status, 200)
  const body = await job.json()
  t.is(body._id, '1')
  const company = await fetch(`${base}/v2/platform/companies/${body.company_slug}`, { headers: { 'x-api-key': api_key } })
  t.is(company.status, 200)
  t.true((await company.json()).jobs.length >= 1)

  server.kill('SIGTERM')
  await new Promise((r) => server.once('exit', r))
  t.is(server.exitCode, 0)
  t.false(fs.existsSync(path.join(dataDir, 'embedded.json')))

  const restarted = Date.now()
  server = start()
  await waitReady(base, server, 30)
  t.true(Date.now() - restarted < 15_000, `restart took ${Date.now() - restarted} ms`)
  const again = await fetch(`${base}/v2/jobs/1`, { headers: { 'x-api-key': api_key } })
  t.is(again.status, 200)
  server.kill('SIGTERM')
  await new Promise((r) => server.once('exit', r))
})
