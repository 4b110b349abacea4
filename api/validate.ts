/**
 * Runs a yup schema over one part of the request and raises the spec's 422 on
 * failure. Bodies are validated strictly: JSON already carries types, and the spec
 * wants a boolean where a string is required to fail (string_type), not be coerced.
 * Query and path values arrive as text, so they are cast.
 *
 * Before any schema sees the input, screen() refuses what no field may hold and what
 * would make the schema or the database fail rather than answer: nesting past
 * MAX_NESTING (yup recurses, so a few thousand levels overflow the stack), lists past
 * MAX_LIST_ITEMS (each element would cost yup an error object), control characters
 * (Postgres refuses U+0000 in text) and numbers JSON parses to Infinity (1e309).
 * Keys named like Object.prototype's members are then dropped (withoutInheritedNames).
 */
import type { Context, Next } from 'koa'
import { ValidationError, type AnySchema, type InferType } from 'yup'
import { errors, toItems, type ErrorItem } from './errors.ts'

export type Where = 'body' | 'query' | 'path'

/** A filter body needs 3 levels (body, geo_locations, an entry); this leaves room for any route's shape. */
export const MAX_NESTING = 16
/** No field takes more than 50 items; longer lists are refused before a schema walks them. */
export const MAX_LIST_ITEMS = 1_000
/** C0 controls other than tab, line feed and carriage return, and DEL. */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/

export const codePoint = (c: string) => `U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`

/** Control characters as screen() refuses them (exported for routes that answer them with a 400). */
export const CONTROL_CHARACTER = CONTROL

/**
 * A UTF-16 surrogate without its pair. JSON can carry one ("\ud800") though it is no
 * character: Postgres, and most clients, refuse such text.
 */
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/** "body.locations[0].city" */
export const locText = (loc: (string | number)[]) => loc.reduce<string>((acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '')

/**
 * The first answer `check` gives for a string of `input` (each value, and each key,
 * depth first, located under `at`), or null. It stops at MAX_NESTING levels, as
 * screen() does: deeper input is screen()'s to refuse.
 */
export function checkStrings(input: unknown, at: (string | number)[], check: (s: string, loc: (string | number)[], key: boolean) => string | null): string | null {
  const loc = [...at]
  const walk = (v: unknown, depth: number): string | null => {
    if (typeof v === 'string') return check(v, loc, false)
    if (v === null || typeof v !== 'object' || depth >= MAX_NESTING) return null
    const entries: [string | number, unknown][] = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v)
    for (const [k, x] of entries) {
      loc.push(k)
      const found = (typeof k === 'string' ? check(k, loc, true) : null) ?? walk(x, depth + 1)
      loc.pop()
      if (found) return found
    }
    return null
  }
  return walk(input, 0)
}

/** What screen() refuses in `input`, as 422 items located under `at`; empty when nothing is. */
export function screen(input: unknown, at: (string | number)[]): ErrorItem[] {
  const items: ErrorItem[] = []
  const loc = [...at]
  const walk = (v: unknown, depth: number) => {
    if (typeof v === 'string') {
      const found = CONTROL.exec(v)
      if (found) {
        const msg = 'Input should not contain control characters (U+0000 to U+001F other than tab, line feed and carriage return, or U+007F)'
        items.push({ type: 'value_error', loc: [...loc], msg, input: v, ctx: { character: codePoint(found[0]), position: found.index } })
      }
      return
    }
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) items.push({ type: 'finite_number', loc: [...loc], msg: 'Input should be a finite number', input: v })
      return
    }
    if (v === null || typeof v !== 'object') return
    if (depth >= MAX_NESTING) {
      items.push({ type: 'value_error', loc: [...loc], msg: `Input is nested too deeply: at most ${MAX_NESTING} levels of lists and objects`, input: v, ctx: { max_depth: MAX_NESTING } })
      return
    }
    if (Array.isArray(v)) {
      if (v.length > MAX_LIST_ITEMS) {
        const msg = `List should have at most ${MAX_LIST_ITEMS} items, not ${v.length}`
        items.push({ type: 'too_long', loc: [...loc], msg, input: v, ctx: { max_length: MAX_LIST_ITEMS, actual_length: v.length } })
        return
      }
      for (let i = 0; i < v.length; i++) {
        loc.push(i)
        walk(v[i], depth + 1)
        loc.pop()
      }
      return
    }
    for (const k of Object.keys(v)) {
      loc.push(k)
      walk((v as Record<string, unknown>)[k], depth + 1)
      loc.pop()
    }
  }
  walk(input, 0)
  return items
}

/**
 * A copy of a screened input without keys such as `constructor`, `toString` or
 * `__proto__`. yup 1.7 casts an object by looking each input key up in the schema's
 * plain-object field map, so such a key finds Object.prototype's member and the cast
 * throws a TypeError (a 500). No schema has a field of that name, and unknown fields
 * are ignored anyway, so dropping them changes no answer.
 */
export function withoutInheritedNames(input: unknown): unknown {
  if (input === null || typeof input !== 'object') return input
  if (Array.isArray(input)) return input.map(withoutInheritedNames)
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(input)) if (!(k in Object.prototype)) out[k] = withoutInheritedNames(v)
  return out
}

export async function validate<S extends AnySchema>(schema: S, given: unknown, where: Where = 'body'): Promise<InferType<S>> {
  const refused = screen(given, [where])
  if (refused.length) throw errors.validation(refused)
  const input = withoutInheritedNames(given)
  try {
    if (where !== 'body') return await schema.validate(input, { abortEarly: false, stripUnknown: true })
    const valid = await schema.validate(input, { abortEarly: false, strict: true })
    return schema.cast(valid, { stripUnknown: true }) // now the defaults
  } catch (e) {
    if (e instanceof ValidationError) throw errors.validation(toItems(e, where))
    throw e
  }
}

/**
 * For router.param: a path segment gets the same screen as a body or query value, so
 * `/v2/platform/companies/a%00b` is a 422 and never reaches the database. Other
 * malformed ids stay 404s: the route's lookup finds nothing.
 */
export function pathSegment(name: string) {
  return (value: string, _ctx: Context, next: Next) => {
    const refused = screen(value, ['path', name])
    if (refused.length) throw errors.validation(refused)
    return next()
  }
}
