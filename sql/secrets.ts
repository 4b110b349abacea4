/**
 * Secrets the service makes for itself: the download links' HMAC key and the usage
 * summary's JWT secret, when the environment does not give one. Each is generated on
 * first use and kept in service_secrets under its name, so every process (the API, the
 * workers, the admin CLI) and the next start use the same one. None is ever a value
 * written in the source: anyone could read that and sign with it.
 */
import { randomBytes } from 'node:crypto'
import type { Db } from './db.ts'

export type SecretName = 'download_signing_key' | 'jwt_secret'

/**
 * The configured secret when it is set; otherwise the stored one, generated on first
 * use. When several processes start at once each offers a secret and the first insert
 * wins: the others' inserts wait for it, do nothing, and read the winner's.
 */
export async function loadSecret(db: Db, name: SecretName, configured: string | null): Promise<string> {
  if (configured) return configured
  const offered = randomBytes(32).toString('base64url')
  await db`insert into service_secrets (name, value) values (${name}, ${offered}) on conflict (name) do nothing`
  const [row] = await db<{ value: string }[]>`select value from service_secrets where name = ${name}`
  return row.value
}

/**
 * loadSecret on first use, once per process. The app is built before the migrations
 * run (the server answers /healthz meanwhile), so a secret cannot be read when the
 * routes are made; a failed load is tried again on the next call.
 */
export function secretSource(db: Db, name: SecretName, configured: string | null): () => Promise<string> {
  let secret: Promise<string> | null = null
  return () =>
    (secret ??= loadSecret(db, name, configured).catch((e) => {
      secret = null
      throw e
    }))
}
