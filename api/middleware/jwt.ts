/**
 * Bearer JWTs for the usage summary: HS256 only (the algorithm is pinned, so a token
 * cannot choose "none" or an asymmetric one), `sub` = account id, `exp` required.
 * The secret is JWT_SECRET, or the one generated once and kept in the database, which
 * the server and `admin tokens:create` both read, so a token either makes verifies in
 * the other.
 */
import { SignJWT, jwtVerify } from 'jose'
import type { Db } from '../../sql/db.ts'
import { loadSecret, secretSource } from '../../sql/secrets.ts'

export const loadJwtSecret = (db: Db, configured: string | null) => loadSecret(db, 'jwt_secret', configured)

/** loadJwtSecret on first use, once per process: the app is built before the migrations run (sql/secrets.ts). */
export const jwtSecretSource = (db: Db, configured: string | null) => secretSource(db, 'jwt_secret', configured)

const key = (secret: string) => new TextEncoder().encode(secret)

export async function signToken(secret: string, accountId: string, ttlSeconds = 3600) {
  const exp = Math.floor(Date.now() / 1000) + ttlSeconds
  const token = await new SignJWT({}).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setSubject(accountId).setIssuedAt().setExpirationTime(exp).sign(key(secret))
  return { token, expires_at: new Date(exp * 1000).toISOString() }
}

/** The account id the token names, or null for a bad signature, an expired or malformed token. */
export async function verifyToken(secret: string, token: string): Promise<string | null> {
  try {
    const { payload } = await jwtVerify(token, key(secret), { algorithms: ['HS256'], requiredClaims: ['exp', 'sub'] })
    return typeof payload.sub === 'string' ? payload.sub : null
  } catch {
    return null
  }
}
