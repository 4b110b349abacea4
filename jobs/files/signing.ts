/**
 * Download links: the link itself is the credential, like an S3 presigned URL, so a
 * link from a notification email works in a browser or curl without an API key.
 *
 *   ${PUBLIC_URL}/v2/downloads/<task_id>/<expires, unix seconds>/<signature>/<filename>
 *
 * The signature is HMAC-SHA256 (base64url) over the task id, the expiry and the file
 * name, so none of the three can be changed without it.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { Db } from '../../sql/db.ts'

const SECRET_NAME = 'download_signing_key'

/**
 * DOWNLOAD_SIGNING_SECRET when it is set; otherwise a key generated on first use and
 * kept in service_secrets, so every process, and the next start, signs alike. When
 * several processes start at once each offers a key and the first insert wins: the
 * others' inserts wait for it, do nothing, and read the winner's.
 */
export async function loadSigningKey(db: Db, configuredSecret: string | null): Promise<string> {
  if (configuredSecret) return configuredSecret
  const offered = randomBytes(32).toString('base64url')
  await db`insert into service_secrets (name, value) values (${SECRET_NAME}, ${offered}) on conflict (name) do nothing`
  const [row] = await db<{ value: string }[]>`select value from service_secrets where name = ${SECRET_NAME}`
  return row.value
}

/**
 * loadSigningKey on first use, once per process. The app is built before the
 * migrations run (the server answers /healthz meanwhile), so the key cannot be read
 * when the routes are made; a failed load is tried again on the next call.
 */
export function signingKeySource(db: Db, configuredSecret: string | null): () => Promise<string> {
  let key: Promise<string> | null = null
  return () =>
    (key ??= loadSigningKey(db, configuredSecret).catch((e) => {
      key = null
      throw e
    }))
}

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
