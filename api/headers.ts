/**
 * The names of the headers the API sends beyond HTTP's own, each spelled once: the
 * middleware that sets them, the error factories and the CORS list all read them here.
 */

export const REQUEST_ID = 'X-Request-Id'
export const CORRELATION_ID = 'X-Correlation-Id'
export const BILLING_CODE = 'X-Billing-Code'
export const RETRY_AFTER = 'Retry-After'

/** limit, remaining, seconds until the window resets: the order rate-limit.ts gives their values */
export const RATE_LIMIT = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] as const

/** the Platform-Usage-* headers, in the order metering.ts gives their values; the period's two come last */
export const USAGE = [
  'Feature', 'Meter', 'Unit', 'Included-Limit', 'Included-Used', 'Included-Remaining', 'Overage-Used', 'Overage-Mode', 'Total-Used', 'Period-Start', 'Period-End',
].map((name) => `Platform-Usage-${name}`)

/** what browser clients may read (the spec: usage headers, X-Billing-Code and X-RateLimit-*) */
export const EXPOSED = [REQUEST_ID, CORRELATION_ID, BILLING_CODE, RETRY_AFTER, ...RATE_LIMIT, ...USAGE]

/** Sets values[i] under names[i], for each value given. */
export function setHeaders(set: (name: string, value: string) => void, names: readonly string[], values: readonly string[]) {
  for (let i = 0; i < values.length; i++) set(names[i], values[i])
}
