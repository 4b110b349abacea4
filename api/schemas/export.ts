/**
 * POST /v2/jobs/export's body: the shared filter set as `search` (its limit is the
 * number of jobs exported, its page the offset window), the format and notify.
 * Validated as search validates it (string flags, geofilter mode), without search's
 * page-depth cap: going past it is what an export is for.
 */
import { bool, number, object, string, type InferType } from 'yup'
import { jobSearchFields } from './search.ts'

/** The most jobs one export holds; larger sets are exported in page windows. */
export const MAX_EXPORT_LIMIT = 1_000_000
export const MAX_EXPORT_PAGE = 1_000_000

export const exportSearch = jobSearchFields.shape({
  page: number().integer().min(1).max(MAX_EXPORT_PAGE).default(1),
  limit: number().integer().min(1).max(MAX_EXPORT_LIMIT).default(10),
})

export const exportBody = object({
  search: exportSearch.required(),
  format: string().required().oneOf(['csv', 'json']),
  notify: bool().default(false),
})

export type ExportBody = InferType<typeof exportBody>
