/**
 * A webhook receiver on a loopback port (node:http): every request is checked with the
 * `standardwebhooks` package against the secrets the test gives it, recorded, and
 * answered as `respond` says (200 by default). A test waits for what it expects with
 * eventually() on `received`.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'

export type Received = {
  id: string
  timestamp: string
  signatures: string[]
  body: { type: string; timestamp: string; data: { saved_search_id: string; jobs: { _id: string; job_title: string }[] } }
  raw: string
  /** the secrets (of those set with `verifyWith`) whose signature the package accepted */
  verifiedBy: string[]
  at: number
}

/** What to answer: a status, optionally with headers; or 'hang' to answer nothing. */
export type Answer = number | { status: number; headers?: Record<string, string> } | 'hang'

export async function startReceiver(respond: (r: Received, n: number) => Answer = () => 200) {
  const received: Received[] = []
  let secrets: string[] = []
  const hanging: http.ServerResponse[] = []
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8')
      const headers = { 'webhook-id': String(req.headers['webhook-id']), 'webhook-timestamp': String(req.headers['webhook-timestamp']), 'webhook-signature': String(req.headers['webhook-signature']) }
      const verifiedBy = secrets.filter((s) => {
        try {
          new Webhook(s).verify(raw, headers)
          return true
        } catch {
          return false
        }
      })
      const r: Received = {
        id: headers['webhook-id'], timestamp: headers['webhook-timestamp'], signatures: headers['webhook-signature'].split(' '),
        body: JSON.parse(raw), raw, verifiedBy, at: Date.now(),
      }
      received.push(r)
      const answer = respond(r, received.length)
      if (answer === 'hang') return void hanging.push(res)
      const { status, headers: extra } = typeof answer === 'number' ? { status: answer, headers: {} } : answer
      res.writeHead(status, extra)
      res.end('ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
  return {
    url,
    received,
    /** the secrets signatures are checked against */
    verifyWith: (s: string[]) => void (secrets = s),
    close: async () => {
      for (const res of hanging) res.destroy()
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}
