/**
 * Counts the searches being answered now, which background work gives way to
 * (jobs/pace.ts). A search (lexical, vector, company, historical) or an insights query
 * reads many rows for one answer; a lookup, a task's status or a reference list reads a
 * few and is over in a millisecond or two, which no export need rest for.
 */
import type { Middleware } from 'koa'

export type SearchCount = { inFlight: number }

const SEARCH = /\/(search|vsearch|neural-search|insights)$/

export function countSearches(count: SearchCount): Middleware {
  return async (ctx, next) => {
    if (!SEARCH.test(ctx.path)) return next()
    count.inFlight++
    try {
      await next()
    } finally {
      count.inFlight--
    }
  }
}

declare module 'koa' {
  interface DefaultContext {
    /** set by buildApp */
    searches?: SearchCount
  }
}
