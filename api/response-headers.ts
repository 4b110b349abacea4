/**
 * Response headers set on every keyed request (the three X-RateLimit-* and nine
 * Platform-Usage-*), written into the Node response's header table directly.
 *
 * Why: res.setHeader validates the name and the value with a regular expression each
 * and lower-cases the name, every time. These names are constants, checked once here,
 * and the values are numbers, ISO dates and names from our own catalog; for the twelve
 * headers of a metered response the checks cost more than the rest of metering did
 * (measured by the metering bench's in-process part). The table is the one
 * setHeader itself fills ({ lowercased name: [name, value] }), so getHeader,
 * removeHeader, Koa and errorHandler see these headers as usual. Where this Node keeps
 * its headers elsewhere, or none were set yet, setHeader does the work.
 */
import { OutgoingMessage, validateHeaderName, validateHeaderValue, type ServerResponse } from 'node:http'

const outHeaders = Object.getOwnPropertySymbols(new OutgoingMessage()).find((s) => s.description === 'kOutHeaders')
const checkValues = process.env.NODE_ENV === 'test'

export type HeaderName = { readonly name: string; readonly lower: string }

/** A header name checked once, as setHeader would check it on every call. */
export function headerName(name: string): HeaderName {
  validateHeaderName(name)
  return { name, lower: name.toLowerCase() }
}

/**
 * Sets values[i] under names[i], for each i of values: headers whose values are safe by
 * construction (digits, an ISO date, a catalog name). NODE_ENV=test checks the values
 * anyway, so a test would catch one that is not.
 */
export function setKnownHeaders(res: ServerResponse, names: readonly HeaderName[], values: readonly string[]) {
  const table = outHeaders && !res.headersSent ? (res as unknown as Record<symbol, Record<string, [string, string]> | null>)[outHeaders] : null
  for (let i = 0; i < values.length; i++) {
    const h = names[i]
    if (!table) res.setHeader(h.name, values[i])
    else {
      if (checkValues) validateHeaderValue(h.name, values[i])
      table[h.lower] = [h.name, values[i]]
    }
  }
}
