/**
 * The service as a newcomer runs it: `npm start` on an empty embedded database, demo
 * data, /healthz, and the admin CLI from a second process through the server's socket.
 */
import test from 'ava'
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { freePort } from '../helpers/free-port.ts'
import { logLines } from '../helpers/processes.ts'

const run = promisify(execFile)


/** Polls /healthz until it is 200, then the log until its "ready" line: every line of the start-up is in by then. */
async function waitReady(base: string, child: ChildProcess, lines: { msg: string }[], seconds: number) {
  const until = Date.now() + seconds * 1000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`)
    const status = await fetch(`${base}/healthz`).then((r) => r.status, () => 0)
    if (status === 200 && lines.some((l) => l.msg === 'ready')) return
    if (Date.now() > until) throw new Error(`server not ready after ${seconds} s (healthz ${status})`)
    await new Promise((r) => setTimeout(r, 250))
  }
}

test('npm start serves demo data; the admin CLI works beside it; a restart opens the same data without loading it again', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'server-test-'))
  const port = await freePort()
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), EMBEDDED_PG_PORT: String(await freePort()), DEMO_JOBS: '60', LOG_LEVEL: 'info' }
  delete env.DATABASE_URL
  const base = `http://127.0.0.1:${port}`
  const start = () => spawn('node', ['--import', 'tsx', 'bin/server.ts'], { env, stdio: ['ignore', 'pipe', 'inherit'] })
  let server = start()
  t.teardown(() => {
    server.kill('SIGKILL')
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  const first = logLines(server)
  await waitReady(base, server, first, 90)
  t.true(fs.existsSync(path.join(dataDir, 'embedded.json')))
  t.like(first.find((l) => l.msg === 'demo data loaded'), { read: 60, rejected: 0 }, 'the first start loads DEMO_JOBS postings')
  t.true(first.some((l) => l.msg === 'migrations applied'))

  const { stdout } = await run('node', ['--import', 'tsx', 'bin/admin.ts', 'accounts:create', '--email', 'newcomer@example.test', '--plan', 'free'], { env })
  const { api_key } = JSON.parse(stdout)
  const job = await fetch(`${base}/v2/jobs/1`, { headers: { 'x-api-key': api_key } })
  t.is(job.status, 200)
  const body = await job.json()
  t.is(body._id, '1')
  const company = await fetch(`${base}/v2/platform/companies/${body.company_slug}`, { headers: { 'x-api-key': api_key } })
  t.is(company.status, 200)
  const profile = await company.json()
  t.is(profile.company.company_slug, body.company_slug)
  t.true(profile.jobs.some((j: { _id: string }) => j._id === '1'), 'the profile lists the job')
  t.true(profile.jobs.every((j: { company_slug: string }) => j.company_slug === body.company_slug))

  server.kill('SIGTERM')
  await new Promise((r) => server.once('exit', r))
  t.is(server.exitCode, 0)
  t.false(fs.existsSync(path.join(dataDir, 'embedded.json')))

  // the restart opens what the first start left: nothing to migrate, load or build, and the same job
  server = start()
  const second = logLines(server)
  await waitReady(base, server, second, 30)
  const firstRunOnly = ['migrations applied', 'demo data loaded', 'deferred indexes built']
  t.deepEqual(second.filter((l) => firstRunOnly.includes(l.msg)), [])
  const again = await fetch(`${base}/v2/jobs/1`, { headers: { 'x-api-key': api_key } })
  t.is(again.status, 200)
  t.deepEqual(await again.json(), body)
  server.kill('SIGTERM')
  await new Promise((r) => server.once('exit', r))
})
