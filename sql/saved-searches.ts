/**
 * Saved searches, the matcher's inbox, and the events their webhooks deliver
 * (docs/webhooks.md). Every read of a saved search or an event is scoped to its
 * account: another account's is not found.
 */
import { randomBytes } from 'node:crypto'
import { toSql } from 'pgvector'
import type { Plan } from './accounts.ts'
import type { Db } from './db.ts'
import { jobRecord, type JobRecord } from './jobs.ts'
import { readsCompany, whereClause, type SearchFilters } from './search.ts'
import { isUuid } from './ids.ts'

const EVENT_ID = /^\d{1,18}$/

export const EVENT_TYPES = ['job.new', 'job.expired'] as const
export type EventType = (typeof EVENT_TYPES)[number]
export type InboxType = EventType | 'job.vector'
export type SearchKind = 'search' | 'vsearch'
export type SavedSearchStatus = 'active' | 'paused' | 'disabled'
export const EVENT_STATUSES = ['pending', 'held_quota', 'delivered', 'failed'] as const
export type EventStatus = (typeof EVENT_STATUSES)[number]

/** Saved searches an account may have, by plan (docs/webhooks.md, docs/metering.md). */
export const SAVED_SEARCH_LIMITS: Record<Plan, number> = {
  free: 3,
  starter: 10,
  growth: 50,
  scale: 200,
  pro: 500,
  enterprise: 2_000,
  legacy: 2_000,
}

/** Jobs an event carries at most; more matches make more events. */
export const JOBS_PER_EVENT = 100
/** Events and their attempts are kept this long. */
export const EVENT_RETENTION_DAYS = 30
/** Deliveries are signed with the secret a rotation replaced for this long after it. */
export const ROTATION_OVERLAP_HOURS = 24

/**
 * The compiled form matching runs: the search's SearchFilters and, for a vsearch, how
 * many days back date_posted reaches when the filters counted in days (days_ago is
 * counted from the time of matching, not of saving).
 */
export type CompiledSearch = { filters: SearchFilters; daysAgo?: number }

export type SavedSearchRow = {
  id: string
  account_id: string
  name: string
  kind: SearchKind
  filters: Record<string, unknown>
  compiled: CompiledSearch
  events: EventType[]
  status: SavedSearchStatus
  webhook_url: string
  secret: string
  previous_secret: string | null
  previous_secret_until: Date | null
  embedding_model: number | null
  min_similarity: number | null
  created_at: Date
  updated_at: Date
  last_delivery_at: Date | null
  failing_since: Date | null
  disabled_reason: string | null
}

/** A Standard Webhooks secret: whsec_ and 32 random bytes in base64. */
export const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`

/** The record as the API shows it; the secret only where the caller adds it (creation, rotation). */
export function savedSearchRecord(r: SavedSearchRow) {
  return {
    id: r.id,
    name: r.name,
    kind: r.kind,
    filters: r.filters,
    events: r.events,
    status: r.status,
    webhook: { url: r.webhook_url },
    created_at: r.created_at,
    last_delivery_at: r.last_delivery_at,
    failing_since: r.failing_since,
    disabled_reason: r.disabled_reason,
  }
}

export type NewSavedSearch = {
  accountId: string
  name: string
  kind: SearchKind
  filters: Record<string, unknown>
  compiled: CompiledSearch
  events: EventType[]
  url: string
  vector?: { embedding: number[]; model: number; minSimilarity: number }
}

/**
 * Inserts a saved search unless the account already has `limit`: one statement, with
 * the account's row locked so two creations at once cannot both pass the count.
 * Returns null when the limit is reached.
 */
export async function insertSavedSearch(db: Db, s: NewSavedSearch, limit: number): Promise<SavedSearchRow | null> {
  const [row] = await db<SavedSearchRow[]>`
    with owner as (select id from accounts where id = ${s.accountId} for update)
    insert into saved_searches (account_id, name, kind, filters, compiled, events, webhook_url, secret, query_vector, embedding_model, min_similarity)
    select owner.id, ${s.name}, ${s.kind}, ${db.json(s.filters as never)}, ${db.json(s.compiled as never)}, ${s.events}::text[], ${s.url}, ${newSecret()},
      ${s.vector ? toSql(s.vector.embedding) : null}::vector, ${s.vector?.model ?? null}, ${s.vector?.minSimilarity ?? null}
    from owner
    where (select count(*) from saved_searches where account_id = owner.id) < ${limit}
    returning *`
  return row ?? null
}

export async function findSavedSearch(db: Db, accountId: string, id: string): Promise<SavedSearchRow | null> {
  if (!isUuid(id)) return null
  const [row] = await db<SavedSearchRow[]>`select * from saved_searches where id = ${id} and account_id = ${accountId}`
  return row ?? null
}

/** The account's saved searches, newest first, and how many there are. */
export async function listSavedSearches(db: Db, accountId: string, offset: number, limit: number) {
  const rows = await db<SavedSearchRow[]>`
    select * from saved_searches where account_id = ${accountId}
    order by created_at desc, id desc
    offset ${offset} limit ${limit}`
  const [{ count }] = await db<{ count: number }[]>`select count(*)::int as count from saved_searches where account_id = ${accountId}`
  return { rows, total: count }
}

export type SavedSearchPatch = { name?: string; events?: EventType[]; url?: string; status?: 'active' | 'paused' }

/**
 * Changes what the patch gives. Setting `active` on a disabled search enables it again
 * and forgets its failure: its held events are delivered from the oldest.
 */
export async function updateSavedSearch(db: Db, accountId: string, id: string, p: SavedSearchPatch): Promise<SavedSearchRow | null> {
  if (!isUuid(id)) return null
  const [row] = await db<SavedSearchRow[]>`
    update saved_searches set
      name = coalesce(${p.name ?? null}, name),
      events = coalesce(${p.events ?? null}::text[], events),
      webhook_url = coalesce(${p.url ?? null}, webhook_url),
      status = coalesce(${p.status ?? null}, status),
      failing_since = case when ${p.status ?? null}::text = 'active' and status = 'disabled' then null else failing_since end,
      disabled_reason = case when ${p.status ?? null}::text is not null then null else disabled_reason end,
      updated_at = now()
    where id = ${id} and account_id = ${accountId}
    returning *`
  return row ?? null
}

export async function deleteSavedSearch(db: Db, accountId: string, id: string) {
  if (!isUuid(id)) return false
  const result = await db`delete from saved_searches where id = ${id} and account_id = ${accountId}`
  return result.count > 0
}

/** A new secret; the old one keeps signing for ROTATION_OVERLAP_HOURS. */
export async function rotateSecret(db: Db, accountId: string, id: string) {
  if (!isUuid(id)) return null
  const [row] = await db<SavedSearchRow[]>`
    update saved_searches set previous_secret = secret, secret = ${newSecret()},
      previous_secret_until = now() + make_interval(hours => ${ROTATION_OVERLAP_HOURS}), updated_at = now()
    where id = ${id} and account_id = ${accountId}
    returning *`
  return row ?? null
}

// --- the inbox ----------------------------------------------------------------------------

/** The searches an inbox row of `type` can match: a job.vector row only vsearch searches. */
function wanting(db: Db, type: InboxType) {
  if (type === 'job.vector') return db`kind = 'vsearch' and 'job.new' = any(events)`
  if (type === 'job.new') return db`kind = 'search' and 'job.new' = any(events)`
  return db`'job.expired' = any(events)`
}

/**
 * Records jobs for the matcher, in the caller's transaction (an ingest batch, an
 * expiry run) or statement: nothing when no search could want them, so a service
 * without saved searches writes nothing more. `ids` may be a subquery's array.
 */
export async function recordForMatching(db: Db, type: InboxType, ids: string[]) {
  if (ids.length === 0) return
  await db`
    insert into saved_search_inbox (type, job_ids)
    select ${type}, ${ids}::bigint[]
    where exists (select 1 from saved_searches where status <> 'disabled' and ${wanting(db, type)})`
}

/** The same, for the jobs an expiry run marked at `expiredAt` (sql/expiry.ts). */
export async function recordExpiredForMatching(db: Db, expiredAt: Date) {
  await db`
    insert into saved_search_inbox (type, job_ids)
    select 'job.expired', array_agg(id order by id) from jobs
    where expired_at = ${expiredAt}
      and exists (select 1 from saved_searches where status <> 'disabled' and ${wanting(db, 'job.expired')})
    having count(*) > 0`
}

export type InboxRow = { id: string; type: InboxType; job_ids: string[] }

/**
 * Claims up to `n` inbox rows of the oldest row's type, oldest first, for the caller's
 * transaction: deleted when it commits.
 */
export async function claimInbox(db: Db, n: number) {
  return db<InboxRow[]>`
    delete from saved_search_inbox where id in (
      select id from saved_search_inbox
      where type = (select type from saved_search_inbox order by id limit 1)
      order by id limit ${n} for update skip locked
    )
    returning id::text, type, job_ids::text[]`
}

/** How long ago the newest and the oldest inbox rows were written, ms; null when the inbox is empty. */
export async function inboxAges(db: Db) {
  const [row] = await db<{ newest_ms: number | null; oldest_ms: number | null }[]>`
    select (extract(epoch from now() - max(created_at)) * 1000)::float8 as newest_ms,
      (extract(epoch from now() - min(created_at)) * 1000)::float8 as oldest_ms
    from saved_search_inbox`
  return row
}

type Matcher = Pick<SavedSearchRow, 'id' | 'account_id' | 'kind' | 'compiled' | 'min_similarity' | 'embedding_model'>

export async function listMatchers(db: Db, type: InboxType) {
  return db<Matcher[]>`
    select id, account_id, kind, compiled, min_similarity, embedding_model from saved_searches
    where status <> 'disabled' and ${wanting(db, type)}
    order by id`
}

/** The filters as of now: days_ago counted back from today. */
function filtersNow(c: CompiledSearch): SearchFilters {
  if (c.daysAgo === undefined) return c.filters
  const fromDays = new Date(Date.now() - c.daysAgo * 86_400_000).toISOString().slice(0, 10)
  const since = c.filters.postedSince
  return { ...c.filters, postedSince: since && since > fromDays ? since : fromDays }
}

/**
 * One search's matches among the jobs of `batch` (SQL): whereClause, the search's own compilation;
 * a vsearch's also at min_similarity or above, cosine, to its query's vector of the
 * job's model. job.expired matches the jobs as they are now, expired.
 */
function matchesOf(db: Db, s: Matcher, type: EventType) {
  const f: SearchFilters = { ...filtersNow(s.compiled), includeExpired: type === 'job.expired' }
  const similar =
    s.kind === 'vsearch'
      ? db`and j.embedding_model = ${s.embedding_model} and 1 - (j.embedding <=> (select query_vector from saved_searches where id = ${s.id})) >= ${s.min_similarity}`
      : db``
  return db`
    select ${s.id}::uuid as saved_search_id, j.id as job_id
    from ${readsCompany(f) ? db`batch j join companies c on c.id = j.company_id` : db`batch j`}
    where ${whereClause(db, f)} ${similar}`
}

/**
 * Records the matches of `searches` among `ids` as one more row each in
 * saved_search_matches, leaving out those already there, and returns the new ones:
 * one statement for a group of searches, a UNION ALL of their own conditions.
 */
export async function insertMatches(db: Db, searches: Matcher[], type: EventType, ids: string[]) {
  if (searches.length === 0 || ids.length === 0) return []
  const union = searches.map((s) => matchesOf(db, s, type)).reduce((acc, q) => db`${acc} union all ${q}`)
  // the jobs read once, not once per search
  return db<{ saved_search_id: string; job_id: string }[]>`
    with batch as materialized (select * from jobs where id = any(${ids}::bigint[]))
    insert into saved_search_matches (saved_search_id, type, job_id)
    select m.saved_search_id, ${type}, m.job_id from (${union}) m
    on conflict do nothing
    returning saved_search_id::text, job_id::text`
}

/** Events of up to JOBS_PER_EVENT jobs each, the jobs in id order (the order they were written). */
export async function insertEvents(db: Db, type: EventType, matches: { saved_search_id: string; job_id: string }[]) {
  if (matches.length === 0) return 0
  const bySearch = new Map<string, string[]>()
  for (const m of matches) (bySearch.get(m.saved_search_id) ?? bySearch.set(m.saved_search_id, []).get(m.saved_search_id)!).push(m.job_id)
  const searches: string[] = []
  const jobs: string[] = []
  for (const [id, ids] of bySearch) {
    ids.sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1))
    for (let i = 0; i < ids.length; i += JOBS_PER_EVENT) {
      searches.push(id)
      jobs.push(`{${ids.slice(i, i + JOBS_PER_EVENT).join(',')}}`)
    }
  }
  const result = await db`
    insert into webhook_events (saved_search_id, account_id, type, job_ids)
    select s.id, s.account_id, ${type}, e.job_ids::bigint[]
    from unnest(${searches}::uuid[], ${jobs}::text[]) with ordinality as e(search_id, job_ids, n)
    join saved_searches s on s.id = e.search_id
    order by e.n`
  return result.count
}

// --- delivery -----------------------------------------------------------------------------

export type ClaimedEvent = {
  id: string
  saved_search_id: string
  account_id: string
  type: EventType
  job_ids: string[]
  attempts: number
  created_at: Date
  webhook_url: string
  secrets: string[]
  failing_since: Date | null
}

/**
 * Claims up to `n` events due now (due for `dueForSeconds` already, while an ingest keeps
 * the machine busy), each the head of its search's queue (its oldest event not delivered
 * or given up) while the search is active, with a lease of `leaseSeconds`: one delivery
 * at a time per search, in event order. The update's own condition decides between two
 * workers that picked the same head.
 */
export async function claimDueEvents(db: Db, n: number, leaseSeconds: number, dueForSeconds = 0): Promise<ClaimedEvent[]> {
  return db<ClaimedEvent[]>`
    with heads as (
      select distinct on (e.saved_search_id) e.id, e.next_attempt_at, e.lease_until
      from webhook_events e
      where e.status in ('pending', 'held_quota')
      order by e.saved_search_id, e.id
    ), due as (
      select h.id from heads h
      join webhook_events e on e.id = h.id
      join saved_searches s on s.id = e.saved_search_id and s.status = 'active'
      where h.next_attempt_at <= now() - make_interval(secs => ${dueForSeconds}) and (h.lease_until is null or h.lease_until < now())
      order by h.next_attempt_at
      limit ${n}
    ), claimed as (
      update webhook_events e set lease_until = now() + make_interval(secs => ${leaseSeconds})
      from due where e.id = due.id and e.status in ('pending', 'held_quota') and (e.lease_until is null or e.lease_until < now())
      returning e.*
    )
    select c.id::text, c.saved_search_id::text, c.account_id::text, c.type, c.job_ids::text[], c.attempts, c.created_at,
      s.webhook_url, s.failing_since,
      array_remove(array[s.secret, case when s.previous_secret_until > now() then s.previous_secret end], null) as secrets
    from claimed c join saved_searches s on s.id = c.saved_search_id
    order by c.id`
}

/** The records of these jobs as search returns them, in the order of `ids`; a job no longer stored is left out. */
export async function findJobRecords(db: Db, ids: string[]): Promise<JobRecord[]> {
  if (ids.length === 0) return []
  return db<JobRecord[]>`
    select ${jobRecord(db)}
    from unnest(${ids}::bigint[]) with ordinality as t(id, n)
    join jobs j on j.id = t.id
    join companies c on c.id = j.company_id
    order by t.n`
}

export type Attempt = { statusCode: number | null; error: string | null; durationMs: number }

async function insertAttempt(db: Db, eventId: string, a: Attempt) {
  await db`
    insert into webhook_attempts (event_id, status_code, error, duration_ms)
    values (${eventId}, ${a.statusCode}, ${a.error === null ? null : a.error.slice(0, 300)}, ${Math.round(a.durationMs)})`
}

/** A delivery that succeeded: the event delivered, the search healthy again. Returns false if the lease was lost meanwhile. */
export async function markDelivered(db: Db, e: ClaimedEvent, a: Attempt) {
  await insertAttempt(db, e.id, a)
  const result = await db`
    update webhook_events set status = 'delivered', delivered_at = now(), attempts = attempts + 1, lease_until = null
    where id = ${e.id} and status <> 'delivered'`
  await db`update saved_searches set last_delivery_at = now(), failing_since = null where id = ${e.saved_search_id}`
  return result.count > 0
}

/** Marks the event's units charged (once; replays of a delivered event charge again on their own row). */
export async function markCharged(db: Db, eventId: string) {
  await db`update webhook_events set charged = true where id = ${eventId}`
}

/**
 * A failed attempt: retried after `retryInSeconds`, or given up (`failed`) when null.
 * The search's failing_since starts at its first failure; returns it.
 */
export async function markFailed(db: Db, e: ClaimedEvent, a: Attempt, retryInSeconds: number | null) {
  await insertAttempt(db, e.id, a)
  await db`
    update webhook_events set
      attempts = attempts + 1,
      lease_until = null,
      status = ${retryInSeconds === null ? 'failed' : 'pending'},
      next_attempt_at = now() + make_interval(secs => ${retryInSeconds ?? 0})
    where id = ${e.id}`
  const [s] = await db<{ failing_since: Date }[]>`
    update saved_searches set failing_since = coalesce(failing_since, now()) where id = ${e.saved_search_id}
    returning failing_since`
  return s?.failing_since ?? null
}

/** Out of units: the event waits, held, and is looked at again after `recheckSeconds`. */
export async function markHeld(db: Db, eventId: string, recheckSeconds: number) {
  await db`
    update webhook_events set status = 'held_quota', lease_until = null, next_attempt_at = now() + make_interval(secs => ${recheckSeconds})
    where id = ${eventId}`
}

/** Disables a search (410, or failing past the limit); its events wait until it is set active again. */
export async function disableSavedSearch(db: Db, id: string, reason: string) {
  const [row] = await db<{ email: string; name: string; webhook_url: string }[]>`
    update saved_searches s set status = 'disabled', disabled_reason = ${reason}, updated_at = now()
    from accounts a
    where s.id = ${id} and a.id = s.account_id and s.status <> 'disabled'
    returning a.email, s.name, s.webhook_url`
  return row ?? null
}

/** Gives a leased event back untouched (a worker stopping). */
export async function releaseEvent(db: Db, eventId: string) {
  await db`update webhook_events set lease_until = null where id = ${eventId}`
}

// --- listing and replay -------------------------------------------------------------------

export type EventListQuery = { savedSearchId?: string; since?: string; status?: EventStatus; offset: number; limit: number }

/** The account's events, newest first, each with its attempts. */
export async function listEvents(db: Db, accountId: string, q: EventListQuery) {
  if (q.savedSearchId !== undefined && !isUuid(q.savedSearchId)) return { rows: [], total: 0 }
  const where = db`
    e.account_id = ${accountId}
    ${q.savedSearchId ? db`and e.saved_search_id = ${q.savedSearchId}` : db``}
    ${q.since ? db`and e.created_at >= ${q.since}::timestamptz` : db``}
    ${q.status ? db`and e.status = ${q.status}` : db``}`
  const rows = await db`
    select ${eventColumns(db)} from webhook_events e
    where ${where}
    order by e.id desc
    offset ${q.offset} limit ${q.limit}`
  const [{ count }] = await db<{ count: number }[]>`select count(*)::int as count from webhook_events e where ${where}`
  return { rows, total: count }
}

const eventColumns = (db: Db) => db`
  e.id::text, e.saved_search_id, e.type, e.status, cardinality(e.job_ids) as job_count, e.job_ids::text[] as job_ids,
  e.created_at, e.delivered_at, case when e.status in ('pending', 'held_quota') then e.next_attempt_at end as next_attempt_at,
  coalesce((
    select jsonb_agg(jsonb_build_object('attempted_at', a.attempted_at, 'status_code', a.status_code, 'error', a.error, 'duration_ms', a.duration_ms) order by a.id)
    from webhook_attempts a where a.event_id = e.id
  ), '[]'::jsonb) as attempts`

/**
 * Queues an event to be delivered again, at once and ahead of its search's later
 * events (the queue is in id order). Its earlier attempts stay listed.
 */
export async function replayEvent(db: Db, accountId: string, id: string) {
  if (!EVENT_ID.test(id)) return null
  const [row] = await db`
    with replayed as (
      update webhook_events set status = 'pending', attempts = 0, next_attempt_at = now(), lease_until = null, charged = false
      where id = ${id} and account_id = ${accountId}
      returning *
    )
    select ${eventColumns(db)} from replayed e`
  return row ?? null
}

/** Events, their attempts and match records past EVENT_RETENTION_DAYS; returns how many events went. */
export async function purgeOldEvents(db: Db) {
  const result = await db`delete from webhook_events where created_at < now() - make_interval(days => ${EVENT_RETENTION_DAYS})`
  return result.count
}
