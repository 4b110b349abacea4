/**
 * What the logs must not hold: a download link's signature (the link is the credential),
 * an API key, a Bearer token or a query string's values. A real export, its download and
 * keyed requests run against an app whose log is captured.
 */
import test from 'ava'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { loadConfig } from '../../sql/config.ts'
import { startTestApp, ROOMY_LIMITS } from '../helpers/app.ts'
import { download, waitForTask, type Task } from '../helpers/tasks.ts'
import { seedCompany } from '../billing/fixtures.ts'


/** The request log's line for a response, once it is written (when the response closes). */
async function requestLine(logs: string[], res: Response) {
  const id = res.headers.get('x-request-id')
  for (let i = 0; i < 200; i++) {
    const line = logs.find((l) => l.includes(`"req_id":"${id}"`) && l.includes('"status"'))
    if (line) return JSON.parse(line)
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error(`no request log line for ${id}`)
}

test('a download, the task that made it and keyed requests leave no signature, key, token or query value in the log', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'jds-log-redaction-'))
  const app = await startTestApp({
    tasks: true,
    embedder: null,
    config: { dataDir: dir, downloadsDir: path.join(dir, 'downloads'), rateLimits: ROOMY_LIMITS, tasks: { ...loadConfig().tasks, retryDelay: 0, maintenanceSeconds: 1 } },
  })
  t.teardown(async () => {
    await app.close()
    await rm(dir, { recursive: true, force: true })
  })
  await app.db.sql`update accounts set plan = 'scale' where id = ${app.accountId}`
  await app.sync()
  await seedCompany(app.db.sql, 3)

  const created = (await (await app.post('/v2/jobs/export', { search: { limit: 3 }, format: 'json' })).json()) as Task
  const done = await waitForTask(app, created.id)
  t.is(done.state, 'finished', done.error ?? '')
  const link = new URL(done.result!.download_url)
  const [, , , taskId, expires, signature, filename] = link.pathname.split('/')
  t.is(taskId, created.id)

  const file = await download(app, done.result!.download_url)
  t.is(file.status, 200)
  await file.arrayBuffer()
  const line = await requestLine(app.logs, file)
  t.is(line.path, `/v2/downloads/${taskId}/${expires}/[redacted]/${filename}`)
  t.is(line.route, '/v2/downloads/:task_id/:expires/:signature/:filename')

  // the router matches any case; a wrong file name is a 404; each still logs no signature
  const shouting = await fetch(`${app.base}${link.pathname.replace('/v2/downloads/', '/V2/DOWNLOADS/')}`)
  await shouting.arrayBuffer()
  t.regex((await requestLine(app.logs, shouting)).path, /\/\[redacted\]\//)
  const wrongName = await fetch(`${app.base}/v2/downloads/${taskId}/${expires}/${signature}/other.json?download=1`)
  t.is(wrongName.status, 404)
  t.is((await requestLine(app.logs, wrongName)).path, `/v2/downloads/${taskId}/${expires}/[redacted]/other.json`)

  // credentials in a query string, a header and a Bearer token
  const queried = await fetch(`${app.base}/v2/tasks/${taskId}?api_key=query-secret-key&token=query-secret-token`, { headers: { 'x-api-key': app.key } })
  t.is(queried.status, 200)
  t.is((await requestLine(app.logs, queried)).path, `/v2/tasks/${taskId}`)
  const bearer = await fetch(`${app.base}/v2/billing/usage/summary`, { headers: { authorization: 'Bearer header-secret-token' } })
  t.is(bearer.status, 401)
  await requestLine(app.logs, bearer)

  const finished = app.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'task finished' && l.task_id === taskId)
  t.truthy(finished, 'the task logs its end')
  t.is(finished.result.download_url, `${link.origin}/v2/downloads/${taskId}/${expires}/[redacted]/${filename}`)

  const all = app.logs.join('')
  t.false(all.includes(signature), 'no line holds the signature')
  t.false(all.includes(encodeURIComponent(signature)))
  for (const secret of [app.key, 'query-secret-key', 'query-secret-token', 'header-secret-token']) t.false(all.includes(secret), secret)
})
