/**
 * What every part of the OpenAPI document shares: a route's entry (RouteDoc), the
 * security schemes' names, and the prose several route families repeat.
 */
import type { AnyObjectSchema } from 'yup'
import { ref, type JsonSchema, type SchemaName } from '../schemas/responses.ts'

/**
 * key: x-api-key required; signin: the same, but a missing key is "Sign in to access
 * this endpoint"; token: an x-api-key or an `Authorization: Bearer` JWT; none: public.
 */
export type AuthKind = 'key' | 'signin' | 'token' | 'none'
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete'

export type MediaType = { schema?: JsonSchema; example?: unknown; examples?: Record<string, { summary?: string; value: unknown }> }
export type Header = { description: string; schema: JsonSchema }
export type ResponseObject = { description: string; headers?: Record<string, Header>; content?: Record<string, MediaType> }

export type RouteDoc = {
  method: Method
  /** As the router registers it, prefix included: /v2/jobs/:job_id */
  path: string
  summary: string
  /** Markdown. Say here what the spec leaves "not shown" and this service decided. */
  description?: string
  tags: string[]
  auth: AuthKind
  /** The yup schema the handler validates ctx.query with; each field becomes an `in: query` parameter. */
  query?: AnyObjectSchema
  /** The yup schema the handler validates ctx.params with, when it has one; otherwise path parameters are strings. */
  pathParams?: AnyObjectSchema
  /** The yup schema the handler validates the JSON body with. */
  body?: AnyObjectSchema
  /** A request body given whole, for bodies that are not yup-validated JSON (uploads). */
  requestBody?: { required: boolean; content: Record<string, unknown> }
  /** Descriptions of path and query parameters by name (yup schemas carry none). */
  params?: Record<string, string>
  /** The success body: a schema name from schemas/responses.ts, an inline JSON Schema, or content by media type. */
  response: SchemaName | JsonSchema | { content: Record<string, MediaType> }
  /** Description of the success response; "OK" when omitted. */
  responseDescription?: string
  /** The success status when it is not 200 (201, 202 ...). */
  okStatus?: number
  /** Statuses the handler adds beyond the standard ones, with when they happen; the body is {"detail": string}. */
  errors?: Record<number, string>
  /** Whole response objects by status, replacing any computed one (e.g. healthz's own 503 body). */
  responses?: Record<number, ResponseObject>
  /** Metered (keyed() with a meter): usage headers on success, and the quota 429. */
  metered?: boolean
  /** A public route under the anonymous per-IP rate limit. */
  ipLimited?: boolean
}

export const API_KEY_SCHEME = 'ApiKey'
export const JWT_SCHEME = 'BearerJWT'

export const json = (schema: JsonSchema, extra: Omit<MediaType, 'schema'> = {}) => ({ 'application/json': { schema, ...extra } })
export const refOrInline = (s: SchemaName | JsonSchema): JsonSchema => (typeof s === 'string' ? ref(s) : s)

export const rawDescriptionDoc =
  'Optional. The string `true` adds `description_raw` (the original HTML from the source) to the record; `false` or absent leaves it out. Any other value is a 422.'

export const bodyDoc =
  '**The body** is a JSON object sent with `Content-Type: application/json` (or any `+json` type). Any other content type, such as the form encoding `curl -d` sends, is a 415; ' +
  'a JSON value that is not an object (`null`, a list, a number) is a 422 `dict_type` at `["body"]`. Both are refused before the key is checked and cost nothing. ' +
  'An empty body, with or without a content type, means `{}`. A compressed body (`Content-Encoding` gzip, deflate or br) that does not decompress is a 400.'

export const controlInPath = 'A path segment holds a control character (loc `["path", name]`)'
export const undecodableBody = 'The body does not decompress as its Content-Encoding (gzip, deflate or br) says'
export const unsupportedBody = 'The body has content but is not JSON (e.g. form-encoded or text/plain); nothing is charged'
