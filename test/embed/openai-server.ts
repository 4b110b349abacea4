/**
 * A real HTTP server speaking the OpenAI embeddings API (POST /v1/embeddings), for
 * the openai provider's tests: the SDK talks to it over a socket as it would to any
 * compatible endpoint. Each text's vector is derived from its sha256, so it is
 * deterministic and different texts differ. Every request is recorded; while `hold` is
 * set, none is answered.
 */
import { createHash } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export type EmbeddingsRequest = { model: string; input: string[]; dimensions?: number; encoding_format?: string; authorization: string | undefined }

export type FakeOpenAI = {
  url: string
  requests: EmbeddingsRequest[]
  /** every request's method and path, embeddings or not (`POST /v1/chat/completions`); only embeddings are answered */
  calls: string[]
  /** answers every request with this status and an OpenAI-style error body, when set */
  failWith: number | null
  /** numbers per vector regardless of `dimensions`, as servers that ignore it do */
  fixedDims: number | null
  /** records requests but never answers them, as a model that hangs, while set */
  hold: boolean
  close: () => Promise<void>
}

export function vectorOf(text: string, dims: number): number[] {
  const out: number[] = []
  for (let block = 0; out.length < dims; block++) {
    const digest = createHash('sha256').update(`${block}:${text}`).digest()
    for (let i = 0; i < digest.length && out.length < dims; i++) out.push(digest[i] / 255 - 0.5)
  }
  const norm = Math.hypot(...out)
  return out.map((x) => x / norm)
}

export async function startFakeOpenAI(): Promise<FakeOpenAI> {
  const fake: FakeOpenAI = { url: '', requests: [], calls: [], failWith: null, fixedDims: null, hold: false, close: async () => {} }
  const server = http.createServer((req, res) => {
    fake.calls.push(`${req.method} ${req.url}`)
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      const send = (status: number, payload: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' })
        res.end(JSON.stringify(payload))
      }
      if (req.method !== 'POST' || req.url !== '/v1/embeddings') return send(404, { error: { message: 'not found', type: 'invalid_request_error' } })
      const parsed = JSON.parse(body) as Omit<EmbeddingsRequest, 'authorization'> & { input: string | string[] }
      const input = typeof parsed.input === 'string' ? [parsed.input] : parsed.input
      fake.requests.push({ ...parsed, input, authorization: req.headers.authorization })
      if (fake.hold) return
      if (fake.failWith) return send(fake.failWith, { error: { message: `failing with ${fake.failWith}`, type: 'server_error' } })
      const dims = fake.fixedDims ?? parsed.dimensions ?? 1536
      // answered out of order: clients must order by index
      const data = input.map((text, index) => ({ object: 'embedding', index, embedding: vectorOf(text, dims) })).reverse()
      send(200, { object: 'list', data, model: parsed.model, usage: { prompt_tokens: input.length, total_tokens: input.length } })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
  fake.close = () =>
    new Promise((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections() // held requests too
    })
  return fake
}
