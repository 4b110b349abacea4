import type { Session } from './api.ts'

/**
 * What main.ts gives the page it shows: the signed-in session, a signal aborted when the
 * reader leaves the page, and the way to another page. Apart from main.ts, so the pages
 * need not import the module that imports them.
 */
export type PageContext = { session: Session; signal: AbortSignal; go: (hash: string) => void }
