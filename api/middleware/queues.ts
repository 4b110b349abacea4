/**
 * The two queues a request's work waits in, so that no key can take the server from the
 * others:
 *
 * - `db`: database slots, sized to the pool. A slot is held only while queries run on
 *   the pool: a keyed request's handler when the handler is nothing but queries
 *   (keyed's default), or each query of a handler that does other work too. Admission
 *   and settlement take no slot: they run on the admission's own connections, many
 *   requests to a statement (admission.ts). Far past the pool's connections postgres.js
 *   pipelines each new query behind a busy connection, and while its queue of busy
 *   connections never empties that queue grows a slot per query, which every later query
 *   scans (docs/performance.md, "The database pool under load").
 * - `cpu`: the CPU-heavy steps of a request (reading a resume, OCR, embedding a query
 *   text), a few at a time, at most `perKey` of them for one account, so one key's
 *   uploads cannot hold the slots another key's lookups need, nor the whole CPU queue.
 *
 * Each queue has a cap on what waits and a limit on how long: past either the request
 * is answered 503 with Retry-After. A request that finds the database queue full is
 * refused before it is admitted (neither charged nor counted); one refused later, or
 * on the CPU queue, has been admitted, and the failure refunds its charge
 * (metering.ts). A request whose client has gone is dropped from the queue and never
 * run (ClientGone).
 */
import type { Context } from 'koa'
import PQueue from 'p-queue'
import { AppError } from '../errors.ts'
import { RETRY_AFTER } from '../headers.ts'

export type QueueLimits = {
  /** how many run at once */
  concurrency: number
  /** how many may wait; one more is refused */
  max: number
  /** how long one may wait, in ms */
  waitMs: number
  /** how many one account may have waiting or running; unset, no limit of its own */
  perKey?: number
}

/** The client closed its connection before its request ran: nobody to answer, nothing run or charged. */
export class ClientGone extends AppError {
  constructor() {
    super(499, 'The client closed the request')
  }
}

const busy = (what: string, retryAfter: number) =>
  new AppError(503, `The server is busy (${what}); retry after ${retryAfter} seconds`, { [RETRY_AFTER]: String(retryAfter) })

/** Whether the client has closed its connection before its response was written. */
export const clientGone = (ctx: Context) => ctx.res.destroyed && !ctx.res.writableFinished

export class RequestQueue {
  private queue: PQueue
  private byKey = new Map<string, number>()

  constructor(
    readonly name: string,
    readonly limits: QueueLimits,
  ) {
    this.queue = new PQueue({ concurrency: limits.concurrency })
  }

  /** running now */
  get active() {
    return this.queue.pending
  }

  /** waiting for their turn */
  get waiting() {
    return this.queue.size
  }

  /** Throws the 503 that run would when no more may wait. */
  refuseWhenFull() {
    const { max, waitMs } = this.limits
    if (this.queue.size >= max) throw busy(`${this.queue.size} requests wait for ${this.name}`, Math.max(1, Math.ceil(waitMs / 1000)))
  }

  /**
   * Runs `work` in its turn, for account `key` when the queue limits accounts. Throws the
   * 503 when the queue is full, the account has its share or the wait runs out, and
   * ClientGone when the client closes its connection first.
   */
  async run<T>(ctx: Context, work: () => Promise<T>, key?: string): Promise<T> {
    const { waitMs, perKey } = this.limits
    if (clientGone(ctx)) throw new ClientGone()
    const retryAfter = Math.max(1, Math.ceil(waitMs / 1000))
    this.refuseWhenFull()
    const mine = key === undefined ? 0 : (this.byKey.get(key) ?? 0)
    if (perKey !== undefined && key !== undefined && mine >= perKey) throw busy(`this account has ${mine} requests on ${this.name}`, retryAfter)
    if (key !== undefined) this.byKey.set(key, mine + 1)

    // the signal only ever fires while the work waits: p-queue rejects a running task's
    // promise when its signal aborts, and a task that started runs to its end
    const waiting = new AbortController()
    let gone = false
    const timer = setTimeout(() => waiting.abort(), waitMs)
    const onClose = () => {
      gone = true
      waiting.abort()
    }
    // the response closes before it is written only when the connection does
    ctx.res.once('close', onClose)
    const started = () => {
      clearTimeout(timer)
      ctx.res.off('close', onClose)
    }
    try {
      return await this.queue.add(
        () => {
          started()
          if (clientGone(ctx)) throw new ClientGone()
          return work()
        },
        { signal: waiting.signal },
      )
    } catch (e) {
      if (waiting.signal.aborted) throw gone || clientGone(ctx) ? new ClientGone() : busy(`waited ${waitMs / 1000} s for ${this.name}`, retryAfter)
      throw e
    } finally {
      started()
      if (key !== undefined) {
        const left = (this.byKey.get(key) ?? 1) - 1
        if (left > 0) this.byKey.set(key, left)
        else this.byKey.delete(key)
      }
    }
  }
}

export type Queues = { db: RequestQueue; cpu: RequestQueue }

declare module 'koa' {
  interface DefaultContext {
    /** set by buildApp */
    queues?: Queues
  }
}

/** Throws the 503 a request would meet in the database queue when the queue is full now. */
export function refuseWhenFull(ctx: Context) {
  ctx.queues?.db.refuseWhenFull()
}

/** Runs `work` (queries) in one of the app's database slots; a router served outside buildApp runs it at once. */
export function inSlot<T>(ctx: Context, work: () => Promise<T>): Promise<T> {
  return ctx.queues ? ctx.queues.db.run(ctx, work) : work()
}

/** Runs CPU-heavy `work` in the app's CPU queue, in the share of the request's account. */
export function onCpu<T>(ctx: Context, work: () => Promise<T>): Promise<T> {
  const account = (ctx.state.account as { id?: string } | undefined)?.id
  return ctx.queues ? ctx.queues.cpu.run(ctx, work, account) : work()
}
