/**
 * The insights routes' bodies. POST /v2/jobs/insights takes the shared job search filter
 * set, validated exactly as POST /v2/jobs/search validates it (unknown fields ignored,
 * string flags, the page-depth cap), with one change: `currency` is the currency the
 * salary statistics are reported in (default USD, one of the rate table's), not a filter
 * on the currency postings state. page, limit, sort_by, sort_order and
 * return_raw_description are accepted, so that a search's body can be sent as it is, and
 * change nothing. POST /v2/platform/companies/{slug}/insights takes only `currency`.
 */
import { object, type InferType } from 'yup'
import { closed, knownCurrency } from './salary-benchmark.ts'
import { jobSearchBody } from './search.ts'

export const DEFAULT_CURRENCY = 'USD'

export const jobInsightsBody = jobSearchBody.shape({ currency: knownCurrency().default(DEFAULT_CURRENCY) })
export type JobInsightsBody = InferType<typeof jobInsightsBody>

export const companyInsightsBody = closed(object({ currency: knownCurrency().default(DEFAULT_CURRENCY) }))
