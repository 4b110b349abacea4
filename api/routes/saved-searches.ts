/**
 * Saved searches (/v2/saved-searches) and their webhook events (/v2/events): owner
 * only, another account's is a 404. None of these routes is metered; deliveries are,
 * 1 unit per job delivered (jobs/webhooks-deliver.ts). docs/webhooks.md
 */
import Router from '@koa/router'
import type { Context } from 'koa'
import type { Embedder } from '../../ingest/embed/embedder.ts'
import type { Config } from '../../sql/config.ts'
import type { Sql } from '../../sql/db.ts'
import {
  deleteSavedSearch, findSavedSearch, insertSavedSearch, listEvents, listSavedSearches, replayEvent, rotateSecret, savedSearchRecord,
  SAVED_SEARCH_LIMITS, updateSavedSearch, type CompiledSearch, type EventStatus, type EventType, type NewSavedSearch, type SavedSearchRow,
} from '../../sql/saved-searches.ts'
import { namesPrivateHost } from '../../jobs/webhooks/send.ts'
import { errors } from '../errors.ts'
import { jsonBody } from '../middleware/body.ts'
import { keyed } from '../middleware/keyed.ts'
import { inSlot } from '../middleware/queues.ts'
import { pageEnvelope } from '../schemas/common.ts'
import {
  eventListQuery, savedSearchBody, savedSearchFor, savedSearchListQuery, savedSearchPatch, type SavedSearchFilters, type SavedVsearchFilters,
} from '../schemas/saved-searches.ts'
import type { JobSearchBody } from '../schemas/search.ts'
import type { VsearchBody } from '../schemas/vector-search.ts'
import { toSearch } from '../search-filters.ts'
import { validate, pathSegment } from '../validate.ts'
import { queryVector, vsearchFilters } from '../vector-search-input.ts'

/** A literal private address or localhost is refused when saved; every delivery checks what the name resolves to. */
function checkHost(url: string, allowPrivate: boolean) {
  if (allowPrivate || !namesPrivateHost(new URL(url))) return
  throw errors.validation([{ type: 'value_error', loc: ['body', 'webhook', 'url'], msg: 'The URL names a private address; webhooks go to public addresses only', input: url }])
}

/**
 * The filters as matching runs them: search's own compilation (toSearch), days_ago kept
 * apart so that it counts back from the day of matching.
 */
function compileSearch(f: SavedSearchFilters): CompiledSearch {
  const { days_ago, ...rest } = f
  const { filters } = toSearch({ ...rest, page: 1, limit: 10 } as JobSearchBody)
  return days_ago === undefined ? { filters } : { filters, daysAgo: days_ago }
}

const withSecret = (r: SavedSearchRow) => ({ ...savedSearchRecord(r), webhook: { url: r.webhook_url, secret: r.secret } })

export function savedSearchRoutes(sql: Sql, embedder: Embedder | undefined, config: Config['webhooks']) {
  const router = new Router({ prefix: '/v2/saved-searches' })
  router.param('saved_search_id', pathSegment('saved_search_id'))

  // slot 'queries': a vsearch search embeds its query on the CPU queue first
  router.post('/', jsonBody(), keyed({ slot: 'queries' }), async (ctx) => {
    const envelope = await validate(savedSearchBody(config), ctx.request.body)
    const kind = envelope.kind as 'search' | 'vsearch'
    const body = await validate(savedSearchFor(config, kind), ctx.request.body)
    checkHost(body.webhook.url, config.allowPrivate)
    const accountId: string = ctx.state.account.id
    const s: NewSavedSearch = {
      accountId, name: body.name.trim(), kind, filters: body.filters as Record<string, unknown>, events: body.events as EventType[], url: body.webhook.url,
      compiled: { filters: {} },
    }
    if (kind === 'search') s.compiled = compileSearch(body.filters as SavedSearchFilters)
    else {
      const f = body.filters as SavedVsearchFilters
      const { vector, model } = await queryVector(ctx, sql, embedder, accountId, { query: f.query.trim() })
      s.compiled = { filters: vsearchFilters(f as unknown as VsearchBody) }
      s.vector = { embedding: vector, model, minSimilarity: f.min_similarity }
    }
    const plan: string = ctx.state.account.plan
    const limit = SAVED_SEARCH_LIMITS[plan as keyof typeof SAVED_SEARCH_LIMITS] ?? SAVED_SEARCH_LIMITS.free
    const row = await inSlot(ctx, () => insertSavedSearch(sql, s, limit))
    if (!row) throw errors.savedSearchLimit(plan, limit)
    ctx.status = 201
    ctx.body = withSecret(row)
  })

  router.get('/', keyed(), async (ctx) => {
    const { page, limit } = await validate(savedSearchListQuery, ctx.query, 'query')
    const { rows, total } = await listSavedSearches(sql, ctx.state.account.id, (page - 1) * limit, limit)
    ctx.body = { saved_searches: rows.map(savedSearchRecord), ...pageEnvelope(total, page, limit) }
  })

  router.get('/:saved_search_id', keyed(), async (ctx) => {
    const row = await findSavedSearch(sql, ctx.state.account.id, ctx.params.saved_search_id)
    if (!row) throw errors.notFound('Saved search')
    ctx.body = savedSearchRecord(row)
  })

  router.patch('/:saved_search_id', jsonBody(), keyed(), async (ctx) => {
    const p = await validate(savedSearchPatch(config), ctx.request.body)
    if (p.webhook) checkHost(p.webhook.url, config.allowPrivate)
    const row = await updateSavedSearch(sql, ctx.state.account.id, ctx.params.saved_search_id, {
      name: p.name?.trim(), events: p.events as EventType[] | undefined, url: p.webhook?.url, status: p.status as 'active' | 'paused' | undefined,
    })
    if (!row) throw errors.notFound('Saved search')
    ctx.body = savedSearchRecord(row)
  })

  router.post('/:saved_search_id/rotate-secret', keyed(), async (ctx) => {
    const row = await rotateSecret(sql, ctx.state.account.id, ctx.params.saved_search_id)
    if (!row) throw errors.notFound('Saved search')
    ctx.body = { id: row.id, secret: row.secret, previous_secret_expires_at: row.previous_secret_until }
  })

  // last of the routes on one search, so a walk over the routes in order (the fuzz test's) finds it until the end
  router.delete('/:saved_search_id', keyed(), async (ctx) => {
    if (!(await deleteSavedSearch(sql, ctx.state.account.id, ctx.params.saved_search_id))) throw errors.notFound('Saved search')
    ctx.status = 204
  })

  return router
}

export function eventRoutes(sql: Sql) {
  const router = new Router({ prefix: '/v2/events' })
  router.param('event_id', pathSegment('event_id'))

  router.get('/', keyed(), async (ctx: Context) => {
    const q = await validate(eventListQuery, ctx.query, 'query')
    const { rows, total } = await listEvents(sql, ctx.state.account.id, {
      savedSearchId: q.saved_search_id, since: q.since, status: q.status as EventStatus | undefined, offset: (q.page - 1) * q.limit, limit: q.limit,
    })
    ctx.body = { events: rows, ...pageEnvelope(total, q.page, q.limit) }
  })

  router.post('/:event_id/replay', keyed(), async (ctx) => {
    const row = await replayEvent(sql, ctx.state.account.id, ctx.params.event_id)
    if (!row) throw errors.notFound('Event')
    ctx.status = 202
    ctx.body = row
  })

  return router
}
