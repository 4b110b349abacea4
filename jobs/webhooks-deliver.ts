/**
 * The dispatcher: delivers the events that are due, each the oldest waiting event of its
 * saved search, so one endpoint gets one delivery at a time and in event order.
 *
 * A delivery is claimed with a lease (sql/saved-searches.ts claimDueEvents) rather than a
 * row lock held across the HTTP call: the embedded database runs one transaction at a
 * time, and a worker that dies mid-delivery leaves the lease to lapse, after which another
 * delivers the event again with the same webhook-id (receivers deduplicate on it).
 *
 * Billing: a delivery costs 1 unit of m_jobs_api_calls per job, charged once it succeeded.
 * Before sending, a block-mode meter that cannot cover the jobs holds the event
 * (held_quota) and the search's later events wait behind it; it is looked at again until
 * the period resets or the allowance grows. Nothing is dropped.
 */
import type { Logger } from 'pino'
import type { Config } from '../sql/config.ts'
import type { Sql } from '../sql/db.ts'
import { chargeUnits, listMeterStates } from '../sql/meters.ts'
import { accountPeriod } from '../sql/periods.ts'
import { ingestInProgress } from '../sql/postings.ts'
import {
  claimDueEvents, disableSavedSearch, findJobRecords, markCharged, markDelivered, markFailed, markHeld, type ClaimedEvent,
} from '../sql/saved-searches.ts'
import type { Mailer } from './notify.ts'
import { MAX_WAIT_MS } from './saved-searches-match.ts'
import { sendWebhook } from './webhooks/send.ts'

export type DeliverDeps = { sql: Sql; log: Logger; config: Config['webhooks']; mailer: Mailer | null; publicUrl: string }

/** The webhook-id of an event: stable across its attempts and replays. */
export const messageId = (eventId: string) => `evt_${eventId}`

/** The body of an event: its jobs as search returns them, in the order they were matched. */
export async function eventBody(sql: Sql, e: Pick<ClaimedEvent, 'type' | 'saved_search_id' | 'job_ids'>, at = new Date()) {
  const jobs = await findJobRecords(sql, e.job_ids)
  return JSON.stringify({ type: e.type, timestamp: at.toISOString(), data: { saved_search_id: e.saved_search_id, jobs } })
}

/** Whether the account's meter can take `units` more now: block mode counts what it used and what requests in flight hold. */
async function canCover(sql: Sql, accountId: string, units: number) {
  const { states } = await listMeterStates(sql, accountId)
  const s = states.find((m) => (m as { meter: string }).meter === 'm_jobs_api_calls')
  if (!s || s.overage_mode !== 'block' || s.included === null) return true
  return s.used + s.reserved + units <= s.included
}

/** The delay before the retry that follows failure number `failures` (1 for the first attempt's); null once the table is used up. */
export const retryDelay = (schedule: number[], failures: number) => (failures <= schedule.length ? schedule[failures - 1] : null)

async function deliver(d: DeliverDeps, e: ClaimedEvent) {
  const units = e.job_ids.length
  if (!(await canCover(d.sql, e.account_id, units))) {
    await markHeld(d.sql, e.id, d.config.heldRecheckSeconds)
    d.log.info({ event_id: e.id, saved_search_id: e.saved_search_id, units }, 'webhook event held: the account is out of units')
    return 'held'
  }
  const body = await eventBody(d.sql, e)
  const result = await sendWebhook(e.webhook_url, messageId(e.id), body, e.secrets, d.config)
  if (result.ok) {
    const attempt = { statusCode: result.status, error: null, durationMs: result.durationMs }
    await d.sql.begin(async (tx) => {
      if (!(await markDelivered(tx, e, attempt))) return
      const period = await accountPeriod(tx, e.account_id)
      if (!period) return
      const charge = await chargeUnits(tx, { accountId: e.account_id, meter: 'm_jobs_api_calls', period }, units, { requestId: messageId(e.id), endpoint: 'webhook' })
      if (charge.ok) await markCharged(tx, e.id)
      // the meter filled between the check and the answer: the jobs were delivered, and are not charged twice later
      else d.log.warn({ event_id: e.id, units }, 'webhook delivered but the meter could no longer cover it; not charged')
    })
    return 'delivered'
  }
  const attempt = { statusCode: result.status, error: result.error, durationMs: result.durationMs }
  if (result.gone) {
    await markFailed(d.sql, e, attempt, null)
    await disable(d, e, 'The endpoint answered 410 Gone')
    return 'gone'
  }
  const scheduled = retryDelay(d.config.retrySchedule, e.attempts + 1)
  // Retry-After on a 429 or 503 replaces the table's delay, within a day
  const delay = scheduled === null ? null : result.retryAfterSeconds !== null ? Math.min(result.retryAfterSeconds, 86_400) : scheduled
  const failingSince = await markFailed(d.sql, e, attempt, delay)
  d.log.info({ event_id: e.id, saved_search_id: e.saved_search_id, status: result.status, error: result.error, retry_in: delay }, 'webhook delivery failed')
  if (failingSince && Date.now() - failingSince.getTime() >= d.config.disableAfterSeconds * 1000) {
    await disable(d, e, `The endpoint has failed since ${failingSince.toISOString()}`)
  }
  return 'failed'
}

async function disable(d: DeliverDeps, e: ClaimedEvent, reason: string) {
  const owner = await disableSavedSearch(d.sql, e.saved_search_id, reason)
  if (!owner) return
  d.log.warn({ saved_search_id: e.saved_search_id, reason }, 'saved search disabled')
  await d.mailer
    ?.send({
      to: owner.email,
      subject: `Saved search "${owner.name.slice(0, 80)}" disabled`,
      text:
        `Deliveries of your saved search "${owner.name}" (${e.saved_search_id}) to ${owner.webhook_url} stopped: ${reason}.\n\n` +
        `Its events are kept for 30 days. Fix the endpoint, then set the search active again with\n` +
        `PATCH ${d.publicUrl}/v2/saved-searches/${e.saved_search_id} {"status": "active"}\n` +
        `and the events waiting are delivered from the oldest. GET ${d.publicUrl}/v2/events?saved_search_id=${e.saved_search_id} lists them.\n`,
    })
    .catch((err: Error) => d.log.warn({ saved_search_id: e.saved_search_id, err: { message: err.message } }, 'disabled-search mail not sent'))
}

/** Claims the events due (up to `n`) and delivers them side by side; returns how many it claimed. */
export async function deliverDue(d: DeliverDeps, n: number) {
  // while an ingest runs, only what has waited MAX_WAIT_MS goes: the ingest keeps the cores
  const waited = (await ingestInProgress(d.sql)) ? MAX_WAIT_MS / 1000 : 0
  const claimed = await claimDueEvents(d.sql, n, d.config.leaseSeconds, waited)
  await Promise.all(
    claimed.map((e) =>
      deliver(d, e).catch((err: Error) => {
        // the lease lapses and another attempt follows; the error is ours, not the endpoint's
        d.log.error({ event_id: e.id, err: { message: err.message, stack: err.stack } }, 'webhook delivery errored')
      }),
    ),
  )
  return claimed.length
}
