/**
 * Postgres array literals built here rather than by the driver, which serializes an
 * array element by element: for the ledger's thousands of charges a second that cost
 * more than the rest of a flush. Pass the result as a parameter with a cast
 * (`${textArray(xs)}::text[]`): it is still a value, never part of the statement.
 */

/** `{"a","b",NULL}` */
export function textArray(xs: (string | null)[]) {
  const list = new TextElements()
  for (const x of xs) list.push(x)
  return `{${list}}`
}

/** `{1,2,3}` */
export const numberArray = (xs: number[]) => `{${xs.join(',')}}`

/**
 * The elements of a text[] literal (`"a","b",NULL`), written into one growing buffer
 * as they arrive, so nothing per element stays on the heap. The ledger keeps every
 * charge's request id until the next flush: held as strings, thousands a second
 * outlived the young generation, so the garbage collector copied and promoted each one
 * before the flush joined them.
 */
export class TextElements {
  private buf = Buffer.allocUnsafe(512)
  private used = 0
  /** how many elements were pushed */
  length = 0

  push(s: string | null) {
    if (s === null) return this.append('NULL', false)
    // request ids are ours (UUIDs) or the client's X-Request-Id, which may hold quotes
    if (s.includes('"') || s.includes('\\')) s = s.replace(/["\\]/g, '\\$&')
    this.append(s, true)
  }

  private append(s: string, quoted: boolean) {
    // UTF-8 takes at most 3 bytes per UTF-16 unit; then a comma and two quotes
    const most = s.length * 3 + 3
    if (this.used + most > this.buf.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.used + most))
      this.buf.copy(grown, 0, 0, this.used)
      this.buf = grown
    }
    if (this.length++ > 0) this.buf[this.used++] = 0x2c // ,
    if (quoted) this.buf[this.used++] = 0x22 // "
    this.used += this.buf.write(s, this.used)
    if (quoted) this.buf[this.used++] = 0x22
  }

  toString() {
    return this.buf.toString('utf8', 0, this.used)
  }
}
