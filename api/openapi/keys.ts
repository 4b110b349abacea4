/**
 * API keys (api/routes/keys.ts) and the console (api/routes/console.ts) in the OpenAPI
 * document. document.ts lists these with the other families.
 */
import type { RouteDoc } from './route-doc.ts'
import type { JsonSchema } from '../schemas/responses.ts'
import { keyCreateBody } from '../schemas/keys.ts'
import { MAX_LIVE_KEYS } from '../../sql/keys.ts'

const time = (description: string, nullable = false): JsonSchema => ({ type: nullable ? ['string', 'null'] : 'string', format: 'date-time', description })
const closed = (properties: Record<string, JsonSchema>, description?: string): JsonSchema => ({
  type: 'object', ...(description ? { description } : {}), properties, required: Object.keys(properties), additionalProperties: false,
})

const keyProperties: Record<string, JsonSchema> = {
  id: { type: 'string', format: 'uuid' },
  prefix: { type: 'string', description: 'The first 8 characters of the key (`jds_` and 4 more), to tell keys apart' },
  name: { type: ['string', 'null'], description: 'The name given when it was created; null for keys made by an administrator' },
  created_at: time('When it was created'),
  last_used_at: time('When a request last used it, to within a minute; null if never', true),
}
const Key = closed(keyProperties, 'A live API key (never the key itself)')
const NewKey = closed(
  { ...keyProperties, api_key: { type: 'string', description: 'The key in full: `jds_` and 32 base64url characters. Shown only in this answer; the service keeps only its SHA-256' } },
  'The new key, shown once in full',
)

export const keyRouteDocs: RouteDoc[] = [
  {
    method: 'get',
    path: '/v2/keys',
    summary: 'List API keys',
    description: 'The live keys of the calling key\'s account, newest first. Not metered.',
    tags: ['Keys'],
    auth: 'key',
    response: closed({ keys: { type: 'array', items: Key } }),
  },
  {
    method: 'post',
    path: '/v2/keys',
    summary: 'Create an API key',
    description:
      `A new key for the calling key's account, with a \`name\` (1 to 100 characters). The answer holds the key in full; it is never shown again. ` +
      `It works from the next request. An account holds at most ${MAX_LIVE_KEYS} live keys. Not metered.`,
    tags: ['Keys'],
    auth: 'key',
    body: keyCreateBody,
    okStatus: 201,
    responseDescription: 'Created',
    response: NewKey,
    errors: { 409: `The account already has ${MAX_LIVE_KEYS} live keys` },
  },
  {
    method: 'delete',
    path: '/v2/keys/:key_id',
    summary: 'Revoke an API key',
    description:
      'Revokes a key of the calling key\'s account; the next request with it is a 401. Another account\'s key, like an unknown or revoked one, is a 404. ' +
      'The key making the request cannot revoke itself (409): revoke it with another key. Not metered.',
    tags: ['Keys'],
    auth: 'key',
    params: { key_id: 'The key\'s `id` (from GET /v2/keys)' },
    okStatus: 204,
    responseDescription: 'Revoked',
    response: { content: {} },
    errors: { 404: 'No live key with this id belongs to the calling account', 409: 'The key is the one making the request' },
  },
]

export const consoleRouteDocs: RouteDoc[] = [
  {
    method: 'get',
    path: '/console',
    summary: 'Customer console',
    description:
      'A web console for API customers (docs/console.md): usage, keys, a search playground, tasks and downloads, saved searches and resume matching. ' +
      'It signs in with an API key or a usage-summary JWT, kept in the browser tab\'s sessionStorage, and calls only the /v2 routes of this document. Served from this service (no CDN).',
    tags: ['Service'],
    auth: 'none',
    response: { content: { 'text/html': { schema: { type: 'string' } } } },
  },
  {
    method: 'get',
    path: '/console/:console_file',
    summary: 'Customer console assets',
    description: 'The console\'s built script and style sheet. Only the files of its build are served.',
    tags: ['Service'],
    auth: 'none',
    params: { console_file: 'A file name, e.g. `console.js`' },
    response: { content: { 'text/javascript': { schema: { type: 'string' } }, 'text/css': { schema: { type: 'string' } } } },
    errors: { 404: 'No such file' },
  },
]
