/**
 * Settings of every session the service opens: a server's connections send them when
 * they connect (sql/db.ts), the embedded database starts with them (sql/embedded.ts).
 *
 * Every statement is planned for its own values: postgres.js prepares statements, and
 * after five runs Postgres may reuse a generic plan made without them, which for a
 * search whose filters match 50 jobs or 100,000 is the wrong plan for most values (a
 * title phrase with a radius at 1,000,000 postings: 20 ms planned for its values, 330 ms
 * generic; a vector search whose filter keeps most jobs: 5 ms through the index, 100 ms
 * as a generic sequential scan at 30,000 jobs). Planning costs a search 1–4 ms.
 *
 * JIT compilation is off: a search that reads a few thousand rows costs enough to
 * trigger it, and compiling takes longer (15–20 ms) than it saves.
 */
export const SESSION_SETTINGS = { plan_cache_mode: 'force_custom_plan', jit: 'off' } as const

/**
 * A server's connections also sort and build bitmaps in 16 MB rather than Postgres's
 * default 4 MB: a search's bitmap of 100,000 or more jobs outgrows 4 MB and turns lossy,
 * and every row of a lossy page is checked again, its text vectors read from TOAST
 * (python among remote jobs at 1,000,000 postings: 190 ms, 100 ms in 16 MB). The
 * embedded database keeps 4 MB, which bounds its memory (sql/embedded.ts).
 *
 * They price a page read out of order (random_page_cost) at 1.1 times one read in
 * order, not Postgres's default 4, which assumes spinning disks: a search's pages come
 * from memory or an SSD. At the default the planner built large bitmaps to spare itself
 * row reads that cost little; at 1,000,000 postings the search bench's median went from
 * 38.4 to 25.9 ms (industry + size 130 → 13 ms, company keywords 82 → 12 ms), one query
 * of the twenty slower (country + category 22 → 60 ms; docs/performance.md).
 */
export const SERVER_SESSION_SETTINGS = { ...SESSION_SETTINGS, work_mem: '16MB', random_page_cost: '1.1' } as const

/**
 * The admission's own connections (sql/db.ts, openAdmission) keep Postgres's default:
 * after five runs a statement may reuse a generic plan. Their two statements (admit and
 * settle, sql/meters.ts) find every row by its key, so a plan made for their values is
 * the generic one, and planning them was most of what they cost: at 200 requests in
 * flight on a 2-core machine, the median of GET /v2/jobs/{id} went from 479 to 318 ms
 * and the Postgres CPU a request from 3.1 to 1.7 ms (docs/performance.md, "Metering,
 * admission and GET /v2/jobs/{id}").
 */
export const ADMISSION_SESSION_SETTINGS = { ...SERVER_SESSION_SETTINGS, plan_cache_mode: 'auto' } as const
