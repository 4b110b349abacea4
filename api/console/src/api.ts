/**
 * The console's one way to the service: the public /v2 API, with the signed-in
 * credential from sessionStorage (an API key as x-api-key, a usage-summary JWT as a
 * Bearer token). Errors carry the API's `detail`.
 */
export type Session = { kind: 'key' | 'token'; secret: string }

const STORE = 'jds.console.session'

export function loadSession(): Session | null {
  try {
    const s = JSON.parse(sessionStorage.getItem(STORE) ?? 'null')
    return s && (s.kind === 'key' || s.kind === 'token') && typeof s.secret === 'string' ? s : null
  } catch {
    return null
  }
}
export const saveSession = (s: Session) => sessionStorage.setItem(STORE, JSON.stringify(s))
export const clearSession = () => sessionStorage.removeItem(STORE)

/** A JWT is three base64url parts; a key starts with jds_. */
export const kindOf = (secret: string): Session['kind'] => (/^[\w-]+\.[\w-]+\.[\w-]+$/.test(secret) && !secret.startsWith('jds_') ? 'token' : 'key')

export class ApiError extends Error {
  constructor(public status: number, public detail: unknown, public headers: Headers) {
    super(describe(status, detail))
  }
}

/** The detail as a sentence: a string as it is, 422 items as "where: what". */
export function describe(status: number, detail: unknown): string {
  if (typeof detail === 'string') return `${status}: ${detail}`
  if (Array.isArray(detail)) return `${status}: ` + detail.map((i: { loc?: unknown[]; msg?: string }) => `${(i.loc ?? []).join('.')}: ${i.msg}`).join('; ')
  return `${status}: the service answered without a detail`
}

export type Answer<T> = { status: number; headers: Headers; body: T }

export async function api<T = any>(session: Session, method: string, path: string, body?: unknown): Promise<Answer<T>> {
  const headers: Record<string, string> = session.kind === 'key' ? { 'x-api-key': session.secret } : { authorization: `Bearer ${session.secret}` }
  let payload: BodyInit | undefined
  if (body instanceof FormData) payload = body
  else if (body !== undefined) {
    headers['content-type'] = 'application/json'
    payload = JSON.stringify(body)
  }
  let res: Response
  try {
    res = await fetch(path, { method, headers, body: payload, credentials: 'omit', cache: 'no-store' })
  } catch (e) {
    throw new ApiError(0, `the service could not be reached (${(e as Error).message})`, new Headers())
  }
  const text = await res.text()
  let parsed: unknown = null
  if (text) {
    try {
      parsed = JSON.parse(text)
    } catch {
      parsed = text
    }
  }
  if (!res.ok) throw new ApiError(res.status, (parsed as { detail?: unknown } | null)?.detail ?? parsed, res.headers)
  return { status: res.status, headers: res.headers, body: parsed as T }
}

/** Task ids looked up by hand in this tab, newest first: shown beside GET /v2/tasks's latest page. */
const TASKS = 'jds.console.tasks'
export const rememberedTasks = (): string[] => JSON.parse(sessionStorage.getItem(TASKS) ?? '[]')
export function rememberTask(id: string) {
  sessionStorage.setItem(TASKS, JSON.stringify([id, ...rememberedTasks().filter((t) => t !== id)].slice(0, 50)))
}
