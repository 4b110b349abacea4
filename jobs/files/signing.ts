/**
 * Download links: the link itself is the credential, like an S3 presigned URL, so a
 * link from a notification email works in a browser or curl without an API key.
 *
 *   ${PUBLIC_URL}/v2/downloads/<task_id>/<expires, unix seconds>/<signature>/<filename>
 *
 * The signature is HMAC-SHA256 (base64url) over the task id, the expiry and the file
 * name, so none of the three can be changed without it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import type { Db } from '../../sql/db.ts'
import { loadSecret, secretSource } from '../../sql/secrets.ts'

/** DOWNLOAD_SIGNING_SECRET when it is set; otherwise the key generated once and kept in service_secrets (sql/secrets.ts). */
export const loadSigningKey = (db: Db, configuredSecret: string | null) => loadSecret(db, 'download_signing_key', configuredSecret)

/** loadSigningKey on first use, once per process (see secretSource). */
export const signingKeySource = (db: Db, configuredSecret: string | null) => secretSource(db, 'download_signing_key', configuredSecret)

// JSON keeps the three fields apart: no id and name can be re-split into another pair
const sign = (key: string, taskId: string, expires: string, filename: string) =>
  createHmac('sha256', key).update(JSON.stringify(['download', taskId, expires, filename])).digest('base64url')

export const expirySeconds = (at: Date) => Math.floor(at.getTime() / 1000)

export function downloadUrl(key: string, publicUrl: string, taskId: string, expiresAt: Date, filename: string) {
  const expires = String(expirySeconds(expiresAt))
  const parts = [taskId, expires, sign(key, taskId, expires, filename), filename].map(encodeURIComponent)
  return `${publicUrl}/v2/downloads/${parts.join('/')}`
}

/**
 * Whether the link's parts are the ones signed. The expiry is checked as the text
 * given (only the canonical digits were signed), not whether it has passed: the route
 * answers a passed expiry with 410 rather than 404.
 */
export function verifyDownload(key: string, taskId: string, expires: string, signature: string, filename: string) {
  if (!/^\d{1,12}$/.test(expires)) return false
  const expected = Buffer.from(sign(key, taskId, expires, filename))
  const given = Buffer.from(signature)
  return given.length === expected.length && timingSafeEqual(given, expected)
}

// the signature segment of a link or path, whatever comes before /v2 (PUBLIC_URL) or after it (the file name, a
// query); case-insensitive because the router matches /V2/Downloads/... too
const SIGNED_SEGMENT = /(\/v2\/downloads\/[^/?#\s"]*\/[^/?#\s"]*\/)[^/?#\s"]+/gi

/**
 * The text with the signature of every download link in it replaced, for logs: the link
 * is the credential, so whoever reads a log must not be able to fetch the files it
 * mentions. The task id, expiry and file name stay, to tell the downloads apart.
 */
export const redactDownloadLinks = (text: string) => text.replace(SIGNED_SEGMENT, '$1[redacted]')
