/**
 * The one notification: an email to the account when a task it asked to hear about
 * (notify: true) finishes or fails. Sent over SMTP when SMTP_URL is set, otherwise
 * written to DATA_DIR/outbox as .eml files, so a self-hosted instance without a mail
 * server still shows what it would have sent. docs/notifications.md
 */
import { randomBytes } from 'node:crypto'
import { mkdir, rename, unlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import nodemailer from 'nodemailer'
import type { Logger } from 'pino'
import type { Config } from '../sql/config.ts'
import type { Db } from '../sql/db.ts'
import { claimTaskNotification, releaseTaskNotification } from '../sql/notifications.ts'
import { taskMessage, type MessageOptions } from './notify-message.ts'

export type MailMessage = { to: string; subject: string; text: string; html?: string; headers?: Record<string, string> }
export type SentMail = { via: 'smtp' | 'outbox'; messageId: string; path?: string }
export type Mailer = { send(msg: MailMessage): Promise<SentMail>; close(): void }

// A send that has not finished by then fails, so a dead or silent server costs a
// retry rather than a worker stuck on it; the per-phase timeouts below fit inside.
const SEND_DEADLINE_MS = 30_000

export function createMailer(mail: Config['mail'], dataDir: string, log?: Logger, opts: { deadlineMs?: number } = {}): Mailer {
  const deadlineMs = opts.deadlineMs ?? SEND_DEADLINE_MS
  return mail.smtpUrl ? smtpMailer(mail.smtpUrl, mail.from, deadlineMs, log) : outboxMailer(path.join(dataDir, 'outbox'), mail.from, log)
}

// Not pooled: a notification is one message per task, and a pool puts a message whose
// connection drops mid-send back in its queue, which can deliver it twice.
function smtpMailer(url: string, from: string, deadlineMs: number, log?: Logger): Mailer {
  const transport = nodemailer.createTransport(
    {
      url,
      dnsTimeout: Math.min(10_000, deadlineMs),
      connectionTimeout: Math.min(10_000, deadlineMs),
      greetingTimeout: Math.min(10_000, deadlineMs),
      socketTimeout: Math.min(20_000, deadlineMs),
    },
    { from },
  )
  return {
    async send(msg) {
      try {
        const info = await transport.sendMail({ ...msg, signal: AbortSignal.timeout(deadlineMs) })
        log?.info({ via: 'smtp', message_id: info.messageId }, 'mail sent')
        return { via: 'smtp', messageId: info.messageId }
      } catch (err) {
        const e = err as { code?: string; responseCode?: number; message?: string }
        log?.warn({ via: 'smtp', code: e.code, response_code: e.responseCode, err: e.message }, 'mail not sent')
        throw err
      }
    },
    close: () => transport.close(),
  }
}

function outboxMailer(dir: string, from: string, log?: Logger): Mailer {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' }, { from })
  return {
    async send(msg) {
      const info = await transport.sendMail(msg)
      if (!Buffer.isBuffer(info.message)) throw new Error('stream transport returned no buffer')
      await mkdir(dir, { recursive: true })
      // ISO time first so a listing sorts by when; colons left out for filesystems that refuse them
      const name = `${new Date().toISOString().replace(/:/g, '-')}-${safeName(info.messageId)}.eml`
      const file = path.join(dir, name)
      // a reader of the outbox sees a whole .eml or none: the partial file is a dotfile until the rename
      const tmp = path.join(dir, `.${name}.${randomBytes(4).toString('hex')}.tmp`)
      try {
        await writeFile(tmp, info.message, { flag: 'wx' })
        await rename(tmp, file)
      } catch (err) {
        await unlink(tmp).catch(() => {})
        throw err
      }
      log?.info({ via: 'outbox', message_id: info.messageId, path: file }, 'mail written to outbox')
      return { via: 'outbox', messageId: info.messageId, path: file }
    },
    close: () => transport.close(),
  }
}

const safeName = (messageId: string) => messageId.replace(/^<|>$/g, '').replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100)

/**
 * Sends the task's notification at most once. The claim (notified_at) is taken before
 * sending, so concurrent callers cannot both send; a failed send releases it and
 * rethrows, so the caller's retry sends it. Null when there is nothing to send: no
 * such task, notify false, already notified, or not finished or failed yet.
 */
export async function notifyTask(sql: Db, mailer: Mailer, taskId: string, opts: MessageOptions): Promise<SentMail | null> {
  const task = await claimTaskNotification(sql, taskId)
  if (!task) return null
  try {
    const message = taskMessage(task, task.email, opts)
    return await mailer.send({ to: task.email, ...message, headers: { 'X-Task-Id': task.id } })
  } catch (err) {
    await releaseTaskNotification(sql, taskId)
    throw err
  }
}
