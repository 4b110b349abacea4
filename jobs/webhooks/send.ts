/**
 * One webhook delivery by the Standard Webhooks specification: the body signed with
 * every secret in force (the new one, and for a day after a rotation the old one), POSTed
 * to the endpoint at an address checked to be public, answered within the timeout.
 *
 * The address is checked when the request is made, not only when the URL was saved: the
 * name is resolved here and the connection goes to the very address that was checked,
 * so a name that resolves to a public address at creation and to 10.0.0.1 later (DNS
 * rebinding) still cannot reach the private network.
 */
import dns from 'node:dns/promises'
import http from 'node:http'
import https from 'node:https'
import net from 'node:net'
import { Webhook } from 'standardwebhooks'

export type SendOptions = { timeoutMs: number; allowPrivate: boolean; allowHttp: boolean }

export type SendResult =
  | { ok: true; status: number; durationMs: number }
  | { ok: false; status: number | null; error: string; durationMs: number; retryAfterSeconds: number | null; gone: boolean }

/** Whether a URL may be an endpoint at all (its scheme); the address is checked on each delivery. */
export function schemeAllowed(url: URL, allowHttp: boolean) {
  return url.protocol === 'https:' || (allowHttp && url.protocol === 'http:')
}

/**
 * Whether an IP address is reachable from the public internet: not loopback, private
 * (RFC 1918, unique-local fc00::/7), link-local (169.254/16 with cloud metadata, fe80::/10),
 * CGNAT (100.64/10), unspecified, multicast, reserved or documentation ranges. An
 * IPv4-mapped IPv6 address is judged as its IPv4 address.
 */
export function isPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped) return isPublicAddress(mapped[1])
  if (net.isIPv4(address)) {
    const [a, b] = address.split('.').map(Number)
    if (a === 0 || a === 10 || a === 127 || a >= 224) return false
    if (a === 100 && b >= 64 && b <= 127) return false
    if (a === 169 && b === 254) return false
    if (a === 172 && b >= 16 && b <= 31) return false
    if (a === 192 && (b === 168 || (b === 0 && [0, 2].includes(Number(address.split('.')[2]))))) return false
    if (a === 198 && (b === 18 || b === 19)) return false
    if ((a === 198 && b === 51) || (a === 203 && b === 0)) return false
    return true
  }
  if (net.isIPv6(address)) {
    const a = address.toLowerCase()
    if (a === '::' || a === '::1') return false
    const first = parseInt(a.split(':')[0] || '0', 16)
    if ((first & 0xfe00) === 0xfc00) return false // fc00::/7 unique local
    if ((first & 0xffc0) === 0xfe80) return false // fe80::/10 link local
    if ((first & 0xff00) === 0xff00) return false // multicast
    if (a.startsWith('2001:db8')) return false // documentation
    if (a.startsWith('64:ff9b:')) return false // NAT64 could reach IPv4 private space
    return true
  }
  return false
}

/** A URL's host names a private address outright (a literal IP, or localhost): refused when saved. */
export function namesPrivateHost(url: URL) {
  const host = url.hostname.replace(/^\[|\]$/g, '')
  if (host === 'localhost' || host.endsWith('.localhost')) return true
  return net.isIP(host) !== 0 && !isPublicAddress(host)
}

/** The address to connect to: the first the name resolves to, if every one is public (or private ones are allowed). */
async function resolve(host: string, allowPrivate: boolean): Promise<{ address: string; family: number }> {
  const bare = host.replace(/^\[|\]$/g, '')
  const found = net.isIP(bare) ? [{ address: bare, family: net.isIP(bare) }] : await dns.lookup(bare, { all: true })
  if (found.length === 0) throw new Error(`${host} does not resolve`)
  if (!allowPrivate) {
    const refused = found.find((a) => !isPublicAddress(a.address))
    if (refused) throw new Error(`${host} resolves to ${refused.address}, not a public address`)
  }
  return found[0]
}

/** Retry-After as seconds: a number of seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterSeconds(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null
  if (/^\d+$/.test(value.trim())) return Number(value.trim())
  const at = Date.parse(value)
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000))
}

/** The Standard Webhooks headers of `body`: one v1 signature per secret, space-separated. */
export function signedHeaders(msgId: string, body: string, secrets: string[], at = new Date()) {
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((s) => new Webhook(s).sign(msgId, at, body)).join(' '),
  }
}

/** POSTs a signed body; any 2xx within the timeout is success, a redirect is a failure. */
export async function sendWebhook(urlText: string, msgId: string, body: string, secrets: string[], o: SendOptions): Promise<SendResult> {
  const started = performance.now()
  const elapsed = () => performance.now() - started
  const fail = (error: string, status: number | null = null, retryAfter: number | null = null, gone = false): SendResult => ({
    ok: false, status, error, durationMs: elapsed(), retryAfterSeconds: retryAfter, gone,
  })
  let url: URL
  try {
    url = new URL(urlText)
  } catch {
    return fail('the URL does not parse')
  }
  if (!schemeAllowed(url, o.allowHttp)) return fail(`${url.protocol.slice(0, -1)} URLs are not allowed`)
  let target: { address: string; family: number }
  try {
    target = await resolve(url.hostname, o.allowPrivate)
  } catch (e) {
    return fail((e as Error).message)
  }
  const headers = {
    ...signedHeaders(msgId, body, secrets),
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    'user-agent': 'job-data-service-webhooks',
  }
  const client = url.protocol === 'https:' ? https : http
  return new Promise<SendResult>((resolveResult) => {
    let settled = false
    const done = (r: SendResult) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolveResult(r)
    }
    const req = client.request(
      url,
      {
        method: 'POST',
        headers,
        // connect to the address checked above, whatever the name resolves to now; TLS still verifies the name
        lookup: (_host, opts, cb) => {
          if ((opts as { all?: boolean }).all) (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [target])
          else cb(null, target.address, target.family)
        },
        agent: false,
      },
      (res) => {
        const status = res.statusCode ?? 0
        // the body is read only to free the socket, and never kept
        res.resume()
        res.on('end', () => {
          if (status >= 200 && status < 300) done({ ok: true, status, durationMs: elapsed() })
          else if (status >= 300 && status < 400) done(fail(`redirect (${status}) to ${String(res.headers.location ?? '').slice(0, 100)}: redirects are failures`, status))
          else done(fail(`HTTP ${status}`, status, status === 429 || status === 503 ? retryAfterSeconds(res.headers['retry-after']) : null, status === 410))
        })
        res.on('error', (e) => done(fail(e.message, status)))
      },
    )
    const timer = setTimeout(() => {
      done(fail(`no answer within ${o.timeoutMs / 1000} s`))
      req.destroy()
    }, o.timeoutMs)
    req.on('error', (e) => done(fail(e.message)))
    req.end(body)
  })
}
