/**
 * Saved searches and webhook events in the OpenAPI document (api/routes/saved-searches.ts,
 * docs/webhooks.md). document.ts lists these with the other families.
 */
import type { RouteDoc } from './route-doc.ts'
import { eventListQuery, savedSearchFor, savedSearchListQuery, savedSearchPatch } from '../schemas/saved-searches.ts'
import type { JsonSchema } from '../schemas/responses.ts'
import { EVENT_RETENTION_DAYS, EVENT_STATUSES, EVENT_TYPES, JOBS_PER_EVENT, ROTATION_OVERLAP_HOURS, SAVED_SEARCH_LIMITS } from '../../sql/saved-searches.ts'
import { WEBHOOK_RETRY_SCHEDULE } from '../../sql/config.ts'

const rules = { allowHttp: false }
const str: JsonSchema = { type: 'string' }
const time = (description: string, nullable = true): JsonSchema => ({ type: nullable ? ['string', 'null'] : 'string', format: 'date-time', description })
const closed = (properties: Record<string, JsonSchema>, description?: string): JsonSchema => ({
  type: 'object', ...(description ? { description } : {}), properties, required: Object.keys(properties), additionalProperties: false,
})

const limits = Object.entries(SAVED_SEARCH_LIMITS).map(([plan, n]) => `${plan} ${n.toLocaleString('en')}`).join(', ')
const seconds = (s: number) => (s < 60 ? `${s} s` : s < 3600 ? `${s / 60} min` : `${s / 3600} h`)
const retryTable = ['at once', ...WEBHOOK_RETRY_SCHEDULE.map(seconds)].join(', ')

const savedSearchProperties: Record<string, JsonSchema> = {
  id: { type: 'string', format: 'uuid' },
  name: str,
  kind: { type: 'string', enum: ['search', 'vsearch'] },
  filters: { type: 'object', additionalProperties: true, description: 'The filters as saved (validated, unknown fields dropped)' },
  events: { type: 'array', items: { type: 'string', enum: [...EVENT_TYPES] } },
  status: { type: 'string', enum: ['active', 'paused', 'disabled'], description: '`disabled` after a 410 Gone or 3 days of failures (see disabled_reason); set it `active` again with PATCH' },
  webhook: closed({ url: str }),
  created_at: time('', false),
  last_delivery_at: time('The last successful delivery'),
  failing_since: time('The first failure of the current run of failures; null while deliveries succeed'),
  disabled_reason: { type: ['string', 'null'], description: 'Why the service disabled the search' },
}
const SavedSearch = closed(savedSearchProperties, 'A saved search. Its secret is shown only when created and when rotated')
const SavedSearchWithSecret = closed(
  { ...savedSearchProperties, webhook: closed({ url: str, secret: { type: 'string', description: 'whsec_ and base64: the Standard Webhooks signing secret. Shown only in this answer' } }) },
  'The saved search, with its signing secret (shown only here)',
)

const WebhookEvent = closed({
  id: { type: 'string', description: `The event's id; deliveries carry \`webhook-id: evt_<id>\`` },
  saved_search_id: { type: 'string', format: 'uuid' },
  type: { type: 'string', enum: [...EVENT_TYPES] },
  status: { type: 'string', enum: [...EVENT_STATUSES], description: '`pending`: waiting for its first attempt or a retry; `held_quota`: the account is out of units, delivered once the period resets or the allowance grows; `delivered`; `failed`: the retry table ran out, or the endpoint answered 410' },
  job_count: { type: 'integer', minimum: 1, maximum: JOBS_PER_EVENT },
  job_ids: { type: 'array', items: str, description: 'The jobs the event delivers, in the order they were matched' },
  created_at: time('', false),
  delivered_at: time('When the last successful delivery was made'),
  next_attempt_at: time('When the next attempt is due (pending and held events)'),
  attempts: {
    type: 'array',
    items: closed({
      attempted_at: time('', false),
      status_code: { type: ['integer', 'null'], description: 'null when no answer came (a refused address, a timeout, a connection error)' },
      error: { type: ['string', 'null'], description: 'A short reason for a failure' },
      duration_ms: { type: 'integer' },
    }),
  },
})

const page = (name: string, item: JsonSchema) =>
  closed({ [name]: { type: 'array', items: item }, total_count: { type: 'integer' }, page: { type: 'integer' }, limit: { type: 'integer' }, total_pages: { type: 'integer' } })

const ownerOnly = 'No saved search with this id belongs to the calling account'

export const savedSearchRouteDocs: RouteDoc[] = [
  {
    method: 'post',
    path: '/v2/saved-searches',
    summary: 'Save a search and its webhook',
    description:
      'Saves a search whose new matches are pushed to `webhook.url` (docs/webhooks.md). `kind` `search`: `filters` is a job-search body ' +
      '(POST /v2/jobs/search) without page, limit or sorting, validated as search validates it. `kind` `vsearch`: `filters` is a vsearch body\'s ' +
      '`query` (required) and filters, with `min_similarity` (0 to 1, default 0.5): a job matches when its vector is written and its cosine ' +
      'similarity to the query is at least that. `events`: `job.new` (default) and/or `job.expired`.\n\n' +
      `**Deliveries** follow the Standard Webhooks specification: headers \`webhook-id\`, \`webhook-timestamp\` and \`webhook-signature\` ` +
      '(`v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, under the secret returned here; verify with the `standardwebhooks` npm package); body ' +
      `\`{type, timestamp, data: {saved_search_id, jobs}}\`, at most ${JOBS_PER_EVENT} job records (as search returns them) per event. ` +
      `A 2xx within 15 s is success; redirects are failures. Retries: ${retryTable}; \`Retry-After\` on a 429 or 503 is honoured. ` +
      '410 Gone disables the search at once; 3 days of failures disable it and email its owner.\n\n' +
      `**Billing**: 1 unit of m_jobs_api_calls per job delivered, charged when the delivery succeeds; nothing to save a search. Plans allow ${limits} saved searches.\n\n` +
      'The URL must be https (http only where the operator allows it) and resolve to a public address, checked again at every delivery.',
    tags: ['Saved searches'],
    auth: 'key',
    body: savedSearchFor(rules, 'search'),
    okStatus: 201,
    responseDescription: 'Created',
    response: SavedSearchWithSecret,
    errors: {
      403: `The plan's saved searches are all used (X-Billing-Code: saved_search_limit)`,
      503: 'A vsearch search needs the embedding model, which is unavailable',
    },
  },
  {
    method: 'get',
    path: '/v2/saved-searches',
    summary: 'List saved searches',
    description: 'The calling account\'s saved searches, newest first.',
    tags: ['Saved searches'],
    auth: 'key',
    query: savedSearchListQuery,
    response: page('saved_searches', SavedSearch),
  },
  {
    method: 'get',
    path: '/v2/saved-searches/:saved_search_id',
    summary: 'Get a saved search',
    description: 'Another account\'s saved search, like an unknown id, is a 404.',
    tags: ['Saved searches'],
    auth: 'key',
    params: { saved_search_id: 'The saved search\'s `id`' },
    response: SavedSearch,
    errors: { 404: ownerOnly },
  },
  {
    method: 'patch',
    path: '/v2/saved-searches/:saved_search_id',
    summary: 'Change a saved search',
    description:
      'Changes its `name`, `events`, `webhook.url` or `status` (`active` or `paused`). A paused search still records its events and delivers them, ' +
      'oldest first, once active again; setting a disabled search `active` enables it again. The filters cannot change: save another search.',
    tags: ['Saved searches'],
    auth: 'key',
    params: { saved_search_id: 'The saved search\'s `id`' },
    body: savedSearchPatch(rules),
    response: SavedSearch,
    errors: { 404: ownerOnly },
  },
  {
    method: 'delete',
    path: '/v2/saved-searches/:saved_search_id',
    summary: 'Delete a saved search',
    description: 'Deletes the search and its events.',
    tags: ['Saved searches'],
    auth: 'key',
    params: { saved_search_id: 'The saved search\'s `id`' },
    okStatus: 204,
    responseDescription: 'Deleted',
    response: { content: {} },
    errors: { 404: ownerOnly },
  },
  {
    method: 'post',
    path: '/v2/saved-searches/:saved_search_id/rotate-secret',
    summary: 'Rotate the signing secret',
    description: `A new secret. For ${ROTATION_OVERLAP_HOURS} hours, deliveries carry two signatures in \`webhook-signature\` (space-separated), one under each secret, so a receiver can switch at any time within them.`,
    tags: ['Saved searches'],
    auth: 'key',
    params: { saved_search_id: 'The saved search\'s `id`' },
    response: closed({ id: { type: 'string', format: 'uuid' }, secret: str, previous_secret_expires_at: time('Until when the previous secret also signs', false) }),
    errors: { 404: ownerOnly },
  },
  {
    method: 'get',
    path: '/v2/events',
    summary: 'List webhook events',
    description: `The calling account's webhook events, newest first, with their attempts (time, status code, a short error). Events are kept ${EVENT_RETENTION_DAYS} days. \`since\` is an ISO 8601 instant (events created then or later).`,
    tags: ['Saved searches'],
    auth: 'key',
    query: eventListQuery,
    response: page('events', WebhookEvent),
  },
  {
    method: 'post',
    path: '/v2/events/:event_id/replay',
    summary: 'Deliver an event again',
    description: 'Queues the event for delivery at once, ahead of its search\'s later events, with the same `webhook-id`. A delivered event is charged again when delivered again.',
    tags: ['Saved searches'],
    auth: 'key',
    params: { event_id: 'The event\'s `id`' },
    okStatus: 202,
    responseDescription: 'Queued',
    response: WebhookEvent,
    errors: { 404: 'No event with this id belongs to the calling account' },
  },
]
