import { bool, number, object, string } from 'yup'
import { parseSince } from '../../sql/expired-feed.ts'
import { clip, errors } from '../errors.ts'

/** Items per page of GET /v2/jobs/expired-jobs: identifiers are small, so pages are large. */
export const DEFAULT_FEED_LIMIT = 100
export const MAX_FEED_LIMIT = 1_000

/**
 * How deep paging reaches into a window: the spec's "about the most recent 350,000 to
 * 450,000". Past it a page is empty with a note pointing to the export, which walks
 * the whole window; an offset that deep is a scan of that many index entries per page.
 */
export const FEED_DEPTH = 400_000

export const FEED_DEPTH_NOTE =
  `Only the most recent ${FEED_DEPTH.toLocaleString('en-US')} expired jobs of a window can be reached page by page. ` +
  'For the whole window use POST /v2/jobs/expired-jobs/export with the same since, or narrow the window with a later since.'

/**
 * GET /v2/jobs/expired-jobs. `since` is only text here: an unparseable one is the
 * spec's 400, not a 422, so it is checked by hand (sinceOrBadRequest).
 */
export const expiredFeedQuery = object({
  since: string(),
  page: number().integer().min(1).default(1),
  limit: number().integer().min(1).max(MAX_FEED_LIMIT).default(DEFAULT_FEED_LIMIT),
})

/**
 * `since` as an instant, or the spec's 400 (also for POST /v2/jobs/expired-jobs/export,
 * whose missing since is a 422 of its body schema). The detail shows the accepted forms,
 * and the `+` that an unescaped offset loses in a query string.
 */
export function sinceOrBadRequest(text: string): Date {
  const since = parseSince(text)
  if (since) return since
  throw errors.badRequest(
    `Invalid since: ${JSON.stringify(clip(text))}. Use an ISO 8601 date (2026-01-31, from 00:00 UTC) or datetime ` +
      '(2026-01-31T08:30:00Z, 2026-01-31T10:30:00+02:00; without an offset it is UTC). In a query string, write + as %2B.',
  )
}

/**
 * POST /v2/jobs/expired-jobs/export: since must be there (missing: 422); any text that
 * is not a date, the empty string included, is the 400 of sinceOrBadRequest.
 */
export const expiredExportBody = object({
  since: string().defined(),
  notify: bool().default(false),
})
