/**
 * Response headers set on every keyed request (the three X-RateLimit-* and nine
 * Platform-Usage-*), set without going through res.setHeader's work each time.
 *
 * Why: through Node's header table, twelve headers cost a metered response about
 * 1.6 µs and 4.5 KB of allocation in process (setHeader validates name and value with
 * a regular expression each and lower-cases the name; the table is a dictionary that
 * grows, and writing the head walks it, entry by entry, in string pieces); under load
 * a µs in process costs about 2.5, and each of those about 0.2 ms of the median at
 * 200 concurrent requests (README: Performance). These names are constants, checked
 * once here, and the values are numbers, ISO dates and names from our own catalog.
 *
 * On an ApiResponse (what the app serves with: buildApp's listen) they wait beside
 * Node's table and go out as one block of lines after the status line: 0.8 to 1.0 µs
 * and 1.7 KB for the twelve. Anything that asks about one of them (getHeader, hasHeader,
 * setHeader, removeHeader, appendHeader) or about all headers (getHeaders,
 * getHeaderNames, writeHead with headers) first moves them into Node's table, so from
 * then on they behave exactly as setHeader's would. On any other response they go into
 * the table directly, the one setHeader itself fills ({ lowercased name: [name, value] }).
 */
import { OutgoingMessage, ServerResponse, validateHeaderName, validateHeaderValue, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http'

const outHeaders = Object.getOwnPropertySymbols(new OutgoingMessage()).find((s) => s.description === 'kOutHeaders')
const checkValues = process.env.NODE_ENV === 'test'

export type HeaderName = { readonly name: string; readonly lower: string; /** "\r\nName: ", as it follows the line before */ readonly line: string }

/** every known name, lower-cased, and their lengths: a name of another length is surely not one (no lower-casing needed) */
const knownLowers = new Set<string>()
const knownLengths: boolean[] = []
const mayBeKnown = (name: unknown): name is string => typeof name === 'string' && knownLengths[name.length] === true

/** A header name checked once, as setHeader would check it on every call. */
export function headerName(name: string): HeaderName {
  validateHeaderName(name)
  knownLengths[name.length] = true
  knownLowers.add(name.toLowerCase())
  return { name, lower: name.toLowerCase(), line: `\r\n${name}: ` }
}

type Table = Record<string, [string, string | string[] | number]>

function tableOf(res: ServerResponse): Table | null {
  return outHeaders ? (res as unknown as Record<symbol, Table | null>)[outHeaders] : null
}

/** Node's way, minus the checks: into the table, or through setHeader where there is none yet. */
function intoTable(res: ServerResponse, names: readonly HeaderName[], values: readonly string[]) {
  const table = res.headersSent ? null : tableOf(res)
  for (let i = 0; i < values.length; i++) {
    const h = names[i]
    if (!table) ServerResponse.prototype.setHeader.call(res, h.name, values[i])
    else table[h.lower] = [h.name, values[i]]
  }
}

/**
 * Sets values[i] under names[i], for each i of values: headers whose values are safe by
 * construction (digits, an ISO date, a catalog name). NODE_ENV=test checks the values
 * anyway, so a test would catch one that is not.
 */
export function setKnownHeaders(res: ServerResponse, names: readonly HeaderName[], values: readonly string[]) {
  if (checkValues) for (let i = 0; i < values.length; i++) validateHeaderValue(names[i].name, values[i])
  if (res instanceof ApiResponse && !res.headersSent) res.addKnown(names, values)
  else intoTable(res, names, values)
}

/**
 * The app's response: known headers (setKnownHeaders) wait in `known` until the head is
 * written, unless something asks about them first (see the top of this file).
 */
export class ApiResponse<Req extends IncomingMessage = IncomingMessage> extends ServerResponse<Req> {
  /** groups of known headers not in Node's table: names, values, names, values, ... */
  private known: (readonly HeaderName[] | readonly string[])[] | null = null
  /** setHeader or appendHeader was given a known name: the table may hold one */
  private tableMayHaveKnown = false

  addKnown(names: readonly HeaderName[], values: readonly string[]) {
    if (this.tableMayHaveKnown || (this.known && this.overlaps(names, values.length))) {
      this.moveKnownIntoTable()
      intoTable(this, names, values)
    } else (this.known ??= []).push(names, values)
  }

  /** Moves the known headers into Node's table, in the order they were set. */
  private moveKnownIntoTable() {
    const known = this.known
    if (!known) return
    this.known = null
    this.tableMayHaveKnown = true
    for (let g = 0; g < known.length; g += 2) intoTable(this, known[g] as HeaderName[], known[g + 1] as string[])
  }

  private overlaps(names: readonly HeaderName[], count: number) {
    for (let i = 0; i < count; i++) if (this.isKnown(names[i].lower)) return true
    return false
  }

  private isKnown(lower: string) {
    const known = this.known!
    for (let g = 0; g < known.length; g += 2) {
      const names = known[g] as HeaderName[]
      for (let i = 0; i < known[g + 1].length; i++) if (names[i].lower === lower) return true
    }
    return false
  }

  /**
   * A call names a header: one of those waiting here goes into the table first. Returns
   * the lower-cased name when it may be a known one, else null.
   */
  private touch(name: unknown): string | null {
    if (!mayBeKnown(name)) return null
    const lower = name.toLowerCase()
    if (this.known && this.isKnown(lower)) this.moveKnownIntoTable()
    return lower
  }

  /** touch(), and remember that the table may now hold a known name */
  private touchToSet(name: unknown) {
    const lower = this.touch(name)
    if (lower !== null && knownLowers.has(lower)) this.tableMayHaveKnown = true
  }

  override setHeader(name: string, value: number | string | readonly string[]) {
    this.touchToSet(name)
    return super.setHeader(name, value)
  }

  override appendHeader(name: string, value: string | readonly string[]) {
    this.touchToSet(name)
    return super.appendHeader(name, value)
  }

  override getHeader(name: string) {
    if (this.known) this.touch(name)
    return super.getHeader(name)
  }

  override hasHeader(name: string) {
    if (this.known) this.touch(name)
    return super.hasHeader(name)
  }

  override removeHeader(name: string) {
    if (this.known) this.touch(name)
    super.removeHeader(name)
  }

  override getHeaders() {
    this.moveKnownIntoTable()
    return super.getHeaders()
  }

  override getHeaderNames() {
    this.moveKnownIntoTable()
    return super.getHeaderNames()
  }

  /** Node has it, its types do not */
  getRawHeaderNames(): string[] {
    this.moveKnownIntoTable()
    return (ServerResponse.prototype as unknown as { getRawHeaderNames: () => string[] }).getRawHeaderNames.call(this)
  }

  override writeHead(statusCode: number, reason?: string | OutgoingHttpHeaders | OutgoingHttpHeaders[keyof OutgoingHttpHeaders][], headers?: OutgoingHttpHeaders | OutgoingHttpHeaders[keyof OutgoingHttpHeaders][]) {
    // headers given here are merged into the table, through setHeader (Node does so once there is one)
    if (headers || (reason && typeof reason === 'object')) this.moveKnownIntoTable()
    return super.writeHead(statusCode, reason as string, headers as OutgoingHttpHeaders)
  }

  /** Node writes the head here: the known headers' lines follow the status line. */
  _storeHeader(firstLine: string, headers: unknown) {
    const known = this.known
    if (known) {
      this.known = null
      // concatenated (V8 joins the pieces once, when the head is written): faster
      // than Array#join here
      let head = firstLine.slice(0, -2)
      for (let g = 0; g < known.length; g += 2) {
        const names = known[g] as HeaderName[]
        const values = known[g + 1] as string[]
        for (let i = 0; i < values.length; i++) head += names[i].line + values[i]
      }
      firstLine = head + '\r\n'
    }
    return (ServerResponse.prototype as unknown as { _storeHeader: (l: string, h: unknown) => void })._storeHeader.call(this, firstLine, headers)
  }
}
