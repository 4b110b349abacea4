/**
 * A failed task tells its client a plain sentence and a reference, in GET /v2/tasks/{id}
 * and in the notification email; the cause, here a real Postgres error naming a column,
 * is only in the log, under that reference.
 */
import test from 'ava'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import { simpleParser } from 'mailparser'
import pino from 'pino'
import { createBoss, createQueues } from '../../jobs/boss.ts'
import { createMailer, notifyTask } from '../../jobs/notify.ts'
import { createTask, startTaskWorkers, TASK_QUEUES } from '../../jobs/tasks.ts'
import { loadConfig } from '../../sql/config.ts'
import { startTestApp } from '../helpers/app.ts'
import { waitForTask } from '../helpers/tasks.ts'

const COLUMN = 'no_such_column_for_the_test'

test('a task that fails on a Postgres error shows and mails a plain message with a reference; the log has the error under it', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'jds-task-errors-'))
  const app = await startTestApp({ embedder: null })
  const lines: string[] = []
  const log = pino({ level: 'info' }, new Writable({ write: (chunk, _enc, cb) => (lines.push(String(chunk)), cb()) }))
  const config = { ...loadConfig().tasks, concurrency: 1, retryLimit: 1, retryDelay: 0 }
  const boss = createBoss(app.db.url, log, { maintenanceSeconds: 1 })
  await boss.start()
  await createQueues(boss, app.db.sql, TASK_QUEUES)
  const mailer = createMailer({ smtpUrl: null, from: 'Tasks <tasks@example.test>' }, dir, log)
  const workers = await startTaskWorkers({
    boss,
    sql: app.db.sql,
    log,
    config,
    // a real type's name (the table checks it), with a handler that runs a broken query
    types: [{ name: 'salary_benchmark', run: async () => (await app.db.sql`select no_such_column_for_the_test from tasks`, { result: {} }) }],
    notify: async (id) => void (await notifyTask(app.db.sql, mailer, id, { publicUrl: 'http://jobs.example.test' })),
  })
  t.teardown(async () => {
    await workers.stop()
    await boss.stop({ graceful: false, wait: true, timeout: 5000 }).catch(() => {})
    mailer.close()
    await app.close()
    await rm(dir, { recursive: true, force: true })
  })

  const task = await app.db.sql.begin((tx) => createTask(tx, boss, config, { accountId: app.accountId, type: 'salary_benchmark', input: {}, notify: true }))
  const done = await waitForTask(app, task.id)
  t.is(done.state, 'failed')
  const shown = /^The task failed because of an error on the server \(reference ([0-9a-f]{12})\)\.$/.exec(done.error ?? '')
  t.truthy(shown, done.error ?? '')
  const ref = shown![1]

  const entries = lines.map((l) => JSON.parse(l))
  const attempts = entries.filter((e) => e.msg === 'task attempt failed' && e.task_id === task.id)
  t.is(attempts.length, 2, 'the first attempt and its retry')
  const logged = attempts.find((e) => e.error_ref === ref)
  t.truthy(logged, 'the reference the client sees is in the log')
  t.regex(logged.err.message, new RegExp(`column "${COLUMN}" does not exist`))

  const outbox = path.join(dir, 'outbox')
  const until = Date.now() + 30_000
  while (!(await readdir(outbox).catch(() => [])).length && Date.now() < until) await new Promise((r) => setTimeout(r, 100))
  const [file] = await readdir(outbox)
  const mail = await simpleParser(await readFile(path.join(outbox, file)))
  t.is(mail.subject, 'Your salary benchmark failed')
  t.true(mail.text?.includes(`Error: ${done.error}`), mail.text)
  for (const text of [JSON.stringify(done), mail.text ?? '', String(mail.html)]) {
    t.false(text.includes(COLUMN), 'no internal message reaches the client')
    t.false(text.includes('does not exist'))
  }
})
