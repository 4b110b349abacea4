/** Task notifications: the message, SMTP and outbox delivery, and sending at most once per task. */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import anyTest, { type TestFn } from 'ava'
import { simpleParser, type ParsedMail } from 'mailparser'
import pino from 'pino'
import { SMTPServer } from 'smtp-server'
import { createMailer, notifyTask, type Mailer } from '../../jobs/notify.ts'
import { escapeHtml, formatBytes, taskMessage, type NotifiedTask } from '../../jobs/notify-message.ts'
import type { Db } from '../../sql/db.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'
import { createAccountWithKey } from '../helpers/factories.ts'

type Received = { rcpt: string[]; mail: ParsedMail }
type Smtp = { url: string; received: Received[]; close: () => Promise<void> }
type Ctx = { db: TestDb; smtp: Smtp; rejecting: Smtp; good: Mailer; bad: Mailer }

const test = anyTest as TestFn<Ctx>
const FROM = 'Job Data Service <jobs@example.test>'
const PUBLIC_URL = 'https://jobs.example.test'

/** A real SMTP server on a random port, keeping every message it accepts. */
async function startSmtp(opts: { rejectRcpt?: boolean } = {}): Promise<Smtp> {
  const received: Received[] = []
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(_address, _session, callback) {
      if (!opts.rejectRcpt) return callback()
      const err = Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 })
      callback(err)
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          received.push({ rcpt: session.envelope.rcptTo.map((r) => r.address), mail })
          callback()
        })
        .catch(callback)
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.server.address() as net.AddressInfo
  return { url: `smtp://127.0.0.1:${port}`, received, close: () => new Promise((resolve) => server.close(() => resolve())) }
}

test.before(async (t) => {
  const [db, smtp, rejecting] = await Promise.all([testDatabase(), startSmtp(), startSmtp({ rejectRcpt: true })])
  t.context = {
    db,
    smtp,
    rejecting,
    good: createMailer({ smtpUrl: smtp.url, from: FROM }, os.tmpdir()),
    bad: createMailer({ smtpUrl: rejecting.url, from: FROM }, os.tmpdir()),
  }
})
test.after.always(async (t) => {
  if (!t.context) return
  t.context.good.close()
  t.context.bad.close()
  await Promise.all([t.context.db.close(), t.context.smtp.close(), t.context.rejecting.close()])
})

const downloadUrl = 'https://jobs.example.test/v2/downloads/abc?expires=1798000000&sig=x%2By'

function exportTask(overrides: Partial<NotifiedTask> = {}): NotifiedTask {
  return {
    id: '5d8e2c3a-1f4b-4c2d-9a7e-0b1c2d3e4f5a',
    type: 'export_job_data',
    state: 'finished',
    error: null,
    result: { download_url: downloadUrl, file_size: 2_400_512, record_count: 1234, expiry_time: '2026-12-20T10:11:12.345Z' },
    ...overrides,
  }
}

const received = (smtp: Smtp, to: string) => smtp.received.filter((r) => r.rcpt.includes(to))

// ---- the message

test('an export message: count, size, link, expiry in UTC and the task id, in text and in html', (t) => {
  const m = taskMessage(exportTask(), 'ann@example.test', { publicUrl: PUBLIC_URL })
  t.is(m.subject, 'Your job export is ready')
  for (const s of ['Records: 1,234', 'File size: 2.4 MB (2,400,512 bytes)', `Download: ${downloadUrl}`, 'Link expires: 2026-12-20 10:11 UTC', 'Task: 5d8e2c3a-1f4b-4c2d-9a7e-0b1c2d3e4f5a', 'ann@example.test']) {
    t.true(m.text.includes(s), s)
  }
  t.true(m.html.includes(`<a href="${escapeHtml(downloadUrl)}">`))
  t.false(m.html.includes('&sig='), 'a bare & in the link is escaped')
  t.true(m.html.includes('2026-12-20 10:11 UTC'))
})

test('the expired-jobs export says what it exported', (t) => {
  const m = taskMessage(exportTask({ type: 'export_expired_jobs' }), 'ann@example.test', { publicUrl: PUBLIC_URL })
  t.is(m.subject, 'Your job export is ready')
  t.true(m.text.startsWith('Your export of expired jobs is ready'))
  t.true(m.text.includes(downloadUrl))
})

test('a salary benchmark message: p50, sample size and where to read the report', (t) => {
  const task = exportTask({ type: 'salary_benchmark', result: { market: { salary: { count: 412, p50: 85000, p25: 70000 } }, confidence: { grade: 'B' }, proposed: null } })
  const m = taskMessage(task, 'ann@example.test', { publicUrl: PUBLIC_URL })
  t.is(m.subject, 'Your salary benchmark report is ready')
  t.true(m.text.includes('Median salary (p50): 85,000'))
  t.true(m.text.includes('Salaries sampled: 412'))
  t.true(m.text.includes(`GET ${PUBLIC_URL}/v2/tasks/${task.id}`))
  // without figures the message still points at the report
  const bare = taskMessage({ ...task, result: {} }, 'ann@example.test', { publicUrl: PUBLIC_URL })
  t.false(bare.text.includes('p50'))
  t.true(bare.text.includes(`/v2/tasks/${task.id}`))
})

test('a failed export: the error, escaped in html, and the refund', (t) => {
  const error = 'query failed: <script>alert("x")</script> & more'
  const m = taskMessage(exportTask({ state: 'failed', result: null, error, refunded_units: 25 }), 'ann@example.test', { publicUrl: PUBLIC_URL })
  t.is(m.subject, 'Your job export failed')
  t.true(m.text.includes(`Error: ${error}`))
  t.true(m.text.includes('The 25 units charged for this export have been refunded.'))
  t.false(m.html.includes('<script>'))
  t.true(m.html.includes('&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; more'))
  // a failed benchmark is refunded too, and says so in its own words
  const benchmark = taskMessage(exportTask({ type: 'salary_benchmark', state: 'failed', result: null, error: 'boom', refunded_units: 1 }), 'a@b.test', { publicUrl: PUBLIC_URL })
  t.is(benchmark.subject, 'Your salary benchmark failed')
  t.true(benchmark.text.includes('The 1 unit charged for this benchmark has been refunded.'), benchmark.text)
})

test('an unknown task type gets the generic message; a non-web link is not made a link', (t) => {
  const m = taskMessage(exportTask({ type: 'company_report' }), 'ann@example.test', { publicUrl: PUBLIC_URL })
  t.is(m.subject, 'Your task has finished')
  t.true(m.text.includes('company_report'))
  const js = taskMessage(exportTask({ result: { download_url: 'javascript:alert(1)' } }), 'a@b.test', { publicUrl: PUBLIC_URL })
  t.false(js.html.includes('href'))
  t.true(js.text.includes('Download: javascript:alert(1)'))
})

test('file sizes in decimal units', (t) => {
  t.deepEqual([0, 999, 1000, 1530, 999_499, 999_500, 12_345_678, 3e12].map(formatBytes), ['0 bytes', '999 bytes', '1.0 kB', '1.5 kB', '999 kB', '1.0 MB', '12 MB', '3.0 TB'])
})

// ---- delivery

test('smtp: the server receives the message with to, from, subject and the link in text and html', async (t) => {
  const to = `smtp-${Date.now()}@example.test`
  const msg = taskMessage(exportTask(), to, { publicUrl: PUBLIC_URL })
  const sent = await t.context.good.send({ to, ...msg, headers: { 'X-Task-Id': 'abc' } })
  t.is(sent.via, 'smtp')
  const [got, ...more] = received(t.context.smtp, to)
  t.is(more.length, 0)
  t.is(got.mail.messageId, sent.messageId)
  t.is(got.mail.subject, 'Your job export is ready')
  t.deepEqual(got.mail.from?.value.map((a) => a.address), ['jobs@example.test'])
  t.deepEqual([got.mail.to].flat().flatMap((a) => a?.value.map((v) => v.address)), [to])
  t.true(got.mail.text?.includes(downloadUrl))
  t.true(typeof got.mail.html === 'string' && got.mail.html.includes(`href="${escapeHtml(downloadUrl)}"`))
  t.is(got.mail.headers.get('x-task-id'), 'abc')
})

test('smtp: a server that never greets fails the send by the deadline', async (t) => {
  const sockets: net.Socket[] = []
  const connected: (() => void)[] = []
  const silent = net.createServer((s) => (sockets.push(s), connected.shift()?.()))
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
  const { port } = silent.address() as net.AddressInfo
  const mailer = (deadlineMs: number) => createMailer({ smtpUrl: `smtp://127.0.0.1:${port}`, from: FROM }, os.tmpdir(), undefined, { deadlineMs })
  const [patient, hasty] = [mailer(60_000), mailer(300)]
  const msg = { to: 'x@example.test', subject: 's', text: 't' }
  try {
    // the same send with a minute's deadline, connected first, is still waiting when the 300 ms one fails: the deadline ended it
    let patientSettled = false
    const waiting = patient.send(msg).then(
      () => (patientSettled = true),
      (err: Error) => ((patientSettled = true), err),
    )
    await new Promise<void>((resolve) => connected.push(resolve))
    const err = await t.throwsAsync(hasty.send(msg))
    t.regex(err.message, /^(Message sending aborted|Greeting never received)/, 'a timeout, not a refusal')
    t.false(patientSettled, 'the send with the longer deadline is still waiting for the greeting')
    t.is(sockets.length, 2, 'each did connect')
    // dropped by the server, the patient send fails too
    sockets.forEach((s) => s.destroy())
    t.true((await waiting) instanceof Error)
  } finally {
    patient.close()
    hasty.close()
    sockets.forEach((s) => s.destroy())
    await new Promise((resolve) => silent.close(resolve))
  }
})

test('outbox: without SMTP_URL a whole .eml is written under DATA_DIR/outbox, and the log has no body', async (t) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'notify-outbox-'))
  const lines: string[] = []
  const log = pino(new Writable({ write: (chunk, _enc, cb) => (lines.push(String(chunk)), cb()) }))
  const mailer = createMailer({ smtpUrl: null, from: FROM }, dataDir, log)
  try {
    const msg = taskMessage(exportTask(), 'out@example.test', { publicUrl: PUBLIC_URL })
    const sent = await mailer.send({ to: 'out@example.test', ...msg })
    t.is(sent.via, 'outbox')
    const files = await readdir(path.join(dataDir, 'outbox'))
    t.is(files.length, 1, 'no temporary file is left behind')
    t.regex(files[0], /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z-[A-Za-z0-9._-]+\.eml$/)
    t.is(sent.path, path.join(dataDir, 'outbox', files[0]))
    const raw = await readFile(sent.path!)
    t.true(raw.includes('\r\n'), 'RFC 822 line ends')
    const mail = await simpleParser(raw)
    t.is(mail.messageId, sent.messageId)
    t.is(mail.subject, 'Your job export is ready')
    t.deepEqual(mail.from?.value.map((a) => a.address), ['jobs@example.test'])
    t.deepEqual([mail.to].flat().flatMap((a) => a?.value.map((v) => v.address)), ['out@example.test'])
    t.true(mail.text?.includes(downloadUrl))
    t.true(typeof mail.html === 'string' && mail.html.includes(`href="${escapeHtml(downloadUrl)}"`))

    await mailer.send({ to: 'out@example.test', ...msg })
    t.is((await readdir(path.join(dataDir, 'outbox'))).length, 2, 'a second message is a second file')

    const entries = lines.map((l) => JSON.parse(l))
    t.true(entries.some((e) => e.via === 'outbox' && e.message_id === sent.messageId))
    t.false(lines.join('').includes('abc?expires'), 'the body is not logged')
  } finally {
    mailer.close()
    await rm(dataDir, { recursive: true, force: true })
  }
})

// ---- notifyTask against the database

async function insertTask(db: Db, accountId: string, row: { type?: string; state?: string; notify?: boolean; result?: object | null; error?: string | null; refunded_units?: number | null }) {
  const [task] = await db<{ id: string }[]>`
    insert into tasks (account_id, type, state, notify, result, error, refunded_units)
    values (${accountId}, ${row.type ?? 'export_job_data'}, ${row.state ?? 'finished'}, ${row.notify ?? true},
            ${row.result === null ? null : db.json((row.result ?? exportTask().result) as never)}, ${row.error ?? null}, ${row.refunded_units ?? null})
    returning id::text`
  return task.id
}

async function emailOf(db: Db, accountId: string) {
  const [a] = await db<{ email: string }[]>`select email from accounts where id = ${accountId}`
  return a.email
}

async function notifiedAt(db: Db, taskId: string) {
  const [row] = await db<{ notified_at: Date | null }[]>`select notified_at from tasks where id = ${taskId}`
  return row.notified_at
}

test('notifyTask sends once to the account address, even when called twice at once', async (t) => {
  const { sql } = t.context.db
  const { accountId } = await createAccountWithKey(sql)
  const email = await emailOf(sql, accountId)
  const taskId = await insertTask(sql, accountId, {})
  const results = await Promise.all([
    notifyTask(sql, t.context.good, taskId, { publicUrl: PUBLIC_URL }),
    notifyTask(sql, t.context.good, taskId, { publicUrl: PUBLIC_URL }),
  ])
  t.is(results.filter(Boolean).length, 1)
  t.is(results.find(Boolean)?.via, 'smtp')
  t.not(await notifiedAt(sql, taskId), null)
  t.is(await notifyTask(sql, t.context.good, taskId, { publicUrl: PUBLIC_URL }), null, 'a later call finds it sent')
  const got = received(t.context.smtp, email)
  t.is(got.length, 1)
  t.is(got[0].mail.subject, 'Your job export is ready')
  t.true(got[0].mail.text?.includes(downloadUrl))
  t.true(got[0].mail.text?.includes(taskId))
  t.is(got[0].mail.headers.get('x-task-id'), taskId)
})

test('notifyTask sends nothing when notify is false, or before the task has ended', async (t) => {
  const { sql } = t.context.db
  const { accountId } = await createAccountWithKey(sql)
  const email = await emailOf(sql, accountId)
  const quiet = await insertTask(sql, accountId, { notify: false })
  const running = await insertTask(sql, accountId, { state: 'processing', result: null })
  t.is(await notifyTask(sql, t.context.good, quiet, { publicUrl: PUBLIC_URL }), null)
  t.is(await notifyTask(sql, t.context.good, running, { publicUrl: PUBLIC_URL }), null)
  t.is(await notifyTask(sql, t.context.good, '00000000-0000-4000-8000-000000000000', { publicUrl: PUBLIC_URL }), null)
  t.is(await notifiedAt(sql, quiet), null)
  t.is(await notifiedAt(sql, running), null)
  t.is(received(t.context.smtp, email).length, 0)
  // once it finishes, the waiting notification goes out
  await sql`update tasks set state = 'finished', result = ${sql.json(exportTask().result as never)} where id = ${running}`
  t.is((await notifyTask(sql, t.context.good, running, { publicUrl: PUBLIC_URL }))?.via, 'smtp')
  t.is(received(t.context.smtp, email).length, 1)
})

test('a refused send leaves notified_at null and rejects, so a retry sends it', async (t) => {
  const { sql } = t.context.db
  const { accountId } = await createAccountWithKey(sql)
  const email = await emailOf(sql, accountId)
  const taskId = await insertTask(sql, accountId, {})
  const err = await t.throwsAsync(notifyTask(sql, t.context.bad, taskId, { publicUrl: PUBLIC_URL }))
  t.regex(err.message, /550|Mailbox unavailable/)
  t.is(await notifiedAt(sql, taskId), null)
  t.is(t.context.rejecting.received.length, 0)
  t.is((await notifyTask(sql, t.context.good, taskId, { publicUrl: PUBLIC_URL }))?.via, 'smtp')
  t.is(received(t.context.smtp, email).length, 1)
})

test('a failed export gets its failure message, once', async (t) => {
  const { sql } = t.context.db
  const { accountId } = await createAccountWithKey(sql)
  const email = await emailOf(sql, accountId)
  const taskId = await insertTask(sql, accountId, { state: 'failed', result: null, error: 'search timed out <57014>', refunded_units: 10 })
  t.is((await notifyTask(sql, t.context.good, taskId, { publicUrl: PUBLIC_URL }))?.via, 'smtp')
  t.is(await notifyTask(sql, t.context.good, taskId, { publicUrl: PUBLIC_URL }), null, 'a retried job does not send again')
  const [got, ...more] = received(t.context.smtp, email)
  t.is(more.length, 0)
  t.is(got.mail.subject, 'Your job export failed')
  t.true(got.mail.text?.includes('Error: search timed out <57014>'))
  t.true(got.mail.text?.includes('The 10 units charged for this export have been refunded.'))
  t.true(typeof got.mail.html === 'string' && got.mail.html.includes('search timed out &#60;57014&#62;'))
})
