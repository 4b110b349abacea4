/**
 * Saved searches and their events (docs/webhooks.md). A saved search's `filters` is
 * validated as the search it wraps: a job-search body without paging or sorting for
 * `search`, a vsearch body's query and filters with min_similarity for `vsearch`. The
 * handler validates the envelope first (savedSearchBody), then the filters with their
 * kind's schema (savedSearchFor), so the 422 items point into `filters`.
 */
import { array, mixed, number, object, string, type InferType } from 'yup'
import { EVENT_STATUSES, EVENT_TYPES } from '../../sql/saved-searches.ts'
import { jobSearchFields } from './search.ts'
import { MAX_QUERY_LENGTH, vsearchBody } from './vector-search.ts'

export type UrlRules = { allowHttp: boolean }

const blank = (s: string | undefined) => s !== undefined && !s.trim()

const name = () =>
  string()
    .max(200)
    .test('not-blank', 'name must not be blank', (v) => !blank(v))

const events = () =>
  array(string().required().oneOf([...EVENT_TYPES]))
    .min(1)
    .max(EVENT_TYPES.length)
    .test('unique', 'events lists each event once', (v) => !v || new Set(v).size === v.length)

/** An endpoint: https (http too when the operator allows it), with a host and no credentials in it. */
export const webhookUrl = ({ allowHttp }: UrlRules) =>
  string()
    .max(2000)
    .test('webhook-url', function (v) {
      if (v === undefined || v === null) return true
      let url: URL
      try {
        url = new URL(v)
      } catch {
        return this.createError({ message: 'Input should be an absolute URL', params: { itemType: 'url_parsing' } })
      }
      if (!(url.protocol === 'https:' || (allowHttp && url.protocol === 'http:'))) {
        return this.createError({ message: allowHttp ? 'The URL should be https or http' : 'The URL should be https', params: { itemType: 'url_scheme' } })
      }
      if (url.username || url.password) return this.createError({ message: 'The URL must not hold credentials', params: { itemType: 'value_error' } })
      return true
    })

/** A job-search body without page, limit or sorting (nor return_raw_description): those fields are ignored, as unknown fields are. */
export const savedSearchFilters = jobSearchFields.omit(['page', 'limit', 'sort_by', 'sort_order', 'return_raw_description'])

/** A vsearch body's query and filters, and the similarity a job needs to match. */
export const savedVsearchFilters = vsearchBody
  .omit(['search_type', 'job_id', 'artifact_id', 'top_k', 'score', 'page', 'limit', 'offset', 'accuracy', 'return_raw_description'])
  .shape({
    query: string().required().max(MAX_QUERY_LENGTH).test('not-blank', 'query must not be blank', (v) => !blank(v)),
    min_similarity: number().min(0).max(1).default(0.5),
  })

/** The envelope; `filters` is checked by savedSearchFor once the kind is known. */
export const savedSearchBody = (rules: UrlRules) =>
  object({
    name: name().required(),
    kind: string().required().oneOf(['search', 'vsearch']),
    filters: mixed<Record<string, unknown>>().test('object', 'filters must be an object', (v) => v === undefined || (typeof v === 'object' && v !== null && !Array.isArray(v))),
    events: events().default(['job.new']),
    webhook: object({ url: webhookUrl(rules).required() }).required(),
  })

export const savedSearchFor = (rules: UrlRules, kind: 'search' | 'vsearch') =>
  savedSearchBody(rules).shape({ filters: (kind === 'search' ? savedSearchFilters : savedVsearchFilters).default(undefined).required() })

export type SavedSearchFilters = InferType<typeof savedSearchFilters>
export type SavedVsearchFilters = InferType<typeof savedVsearchFilters>

export const savedSearchPatch = (rules: UrlRules) =>
  object({
    name: name(),
    events: events(),
    webhook: object({ url: webhookUrl(rules).required() }).default(undefined),
    status: string().oneOf(['active', 'paused']),
  })

export const savedSearchListQuery = object({
  page: number().integer().min(1).max(10_000).default(1),
  limit: number().integer().min(1).max(100).default(10),
})

/** An instant as ISO 8601 (a day alone is its midnight UTC). */
const instant = () =>
  string()
    .max(40)
    .test('instant', function (v) {
      if (v === undefined || v === null) return true
      const ok = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) && !Number.isNaN(Date.parse(v)) && v >= '1900'
      return ok ? true : this.createError({ message: 'Input should be a date or a date-time in ISO 8601, such as 2026-11-01T00:00:00Z', params: { itemType: 'datetime_parsing' } })
    })

export const eventListQuery = object({
  saved_search_id: string().max(100),
  since: instant(),
  status: string().oneOf([...EVENT_STATUSES]),
  page: number().integer().min(1).max(10_000).default(1),
  limit: number().integer().min(1).max(100).default(20),
})
