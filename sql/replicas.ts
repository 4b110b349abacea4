/**
 * Read replicas (DATABASE_REPLICA_URLS, docs/scaling.md): Postgres streaming replicas
 * that take the API's read-only work (search, lookups, company search, insights,
 * historical search), while admission, settlement, tasks, ingest and every write stay
 * on the primary.
 *
 * Which replica is usable is decided by a check every `checkMs` on a connection of its
 * own (so that a pool full of long searches cannot delay it): the primary's flushed WAL
 * position is sampled with the time, then each replica says how far it has replayed.
 * A replica's lag is the age of the newest primary sample it has replayed past, so it
 * needs no clock shared between the servers, it reads 0 while the primary is idle (no
 * commit to compare timestamps with), and it keeps growing when the replica stops
 * receiving WAL, which a replica's own pg_last_xact_replay_timestamp() would not show.
 * A replica is skipped while it is down, is no longer a standby (promoted), or lags by
 * more than `maxLagSeconds`; it is used again on the first check that finds it well.
 *
 * run() gives a read a replica when one is usable, round robin, and the primary
 * otherwise. A read that fails on a replica because the replica went away, refused the
 * connection, or cancelled the statement for a conflict with recovery is run again on
 * the primary, so clients see no error; the replica is skipped from then until a check
 * finds it well. A 404 on a replica is asked of the primary too: what a client has just
 * written (a job or company ingested a moment ago) may not have reached the
 * replica yet, and a miss costs one more lookup.
 *
 * A replica found down also ends the reads still running on it: they are run again on
 * the primary at once, and the replica's pool is replaced by a new one. A reserved
 * connection (an export's cursor) whose server went away can leave its next query
 * pending for ever in postgres.js 3.4.9, or crash the process when it is used again
 * after its release (porsager/postgres#1208); the read is not waited for, and the old
 * pool, with that connection, is destroyed rather than reused.
 */
import type postgres from 'postgres'
import { connectReplica, POOL_SIZE, type Sql } from './db.ts'

export type ReplicaState = 'starting' | 'up' | 'lagging' | 'down' | 'not a standby'

export type ReplicaStatus = {
  /** the URL without its password */
  name: string
  state: ReplicaState
  /** seconds behind the primary at the last check; null when it could not be measured */
  lagSeconds: number | null
  /** reads run on it so far */
  reads: number
}

/**
 * Where a process's reads run: run(f) calls f with a replica's pool or the primary's. f
 * may be run twice (again on the primary when a replica fails it), so it only reads.
 */
export type Reads = {
  primary: Sql
  run<T>(f: (db: Sql) => Promise<T>): Promise<T>
}

/** Reads that all run on one pool: without replicas, and in tests that pass a bare pool. */
export const primaryReads = (primary: Sql): Reads => ({ primary, run: (f) => f(primary) })

/** A route factory's argument: a bare pool reads from that pool. */
export const readsOf = (db: Sql | Reads): Reads => (typeof db === 'function' ? primaryReads(db) : db)

/** Errors after which the replica is skipped until a check finds it well. */
const CONNECTION_ERRORS = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN',
  'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT',
  // admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections, a database not (yet) replicated
  '57P01', '57P02', '57P03', '53300', '3D000',
])

type Failure = 'down' | 'retry' | null

/** What a failed read on a replica means: the replica is gone (down), the statement may run on the primary (retry), or the error is the request's own. */
export function replicaFailure(err: unknown): Failure {
  const e = err as { code?: unknown; status?: unknown; message?: unknown }
  const code = typeof e?.code === 'string' ? e.code : ''
  if (CONNECTION_ERRORS.has(code) || code.startsWith('08')) return 'down'
  // serialization_failure: on a standby, "canceling statement due to conflict with recovery"
  if (code === '40001' || code === '40P01') return 'retry'
  if (e?.status === 404) return 'retry'
  return null
}

/** `X/Y` (hex halves) as one number. */
export function parseLsn(lsn: string): bigint {
  const [hi, lo] = lsn.split('/')
  return (BigInt(`0x${hi}`) << 32n) | BigInt(`0x${lo}`)
}

type Sample = { at: number; lsn: bigint }

type Replica = {
  name: string
  url: string
  sql: Sql
  /** aborted when the replica is found down: the reads running on it stop waiting for it */
  lost: AbortController
  /** one connection for the checks */
  probe: Sql
  state: ReplicaState
  lagSeconds: number | null
  reads: number
}

export type ReplicaOptions = {
  /** a replica further behind than this is skipped (REPLICA_MAX_LAG_SECONDS) */
  maxLagSeconds: number
  /** how often the replicas are checked */
  checkMs?: number
  /** each replica's pool size */
  max?: number
  /** opens a pool (default connectReplica; tests count the statements a replica runs) */
  connect?: (url: string, max: number) => Sql
  /** told when a replica's state changes */
  onChange?: (status: ReplicaStatus, was: ReplicaState) => void
}

/** The URL with its password hidden, for logs and metrics. */
export function replicaName(url: string) {
  try {
    const u = new URL(url)
    if (u.password) u.password = '***'
    return u.toString()
  } catch {
    return 'replica'
  }
}

export class Replicas implements Reads {
  private readonly replicas: Replica[]
  private samples: Sample[] = []
  private next = 0
  private timer: NodeJS.Timeout | null = null
  private checking: Promise<void> | null = null
  private closed = false
  private readonly open: (url: string, max: number) => Sql
  readonly checkMs: number
  /** reads the primary ran because no replica was usable, or after one failed them */
  primaryReads = 0

  constructor(
    readonly primary: Sql,
    urls: string[],
    private readonly options: ReplicaOptions,
  ) {
    const open = (this.open = options.connect ?? connectReplica)
    this.checkMs = options.checkMs ?? 1000
    this.replicas = urls.map((url) => ({
      name: replicaName(url),
      url,
      sql: open(url, options.max ?? POOL_SIZE),
      lost: new AbortController(),
      probe: open(url, 1),
      state: 'starting',
      lagSeconds: null,
      reads: 0,
    }))
  }

  /** Checks now, then every checkMs; resolves after the first check. */
  async start() {
    await this.check()
    if (!this.closed) this.timer = setInterval(() => void this.check(), this.checkMs).unref()
  }

  status(): ReplicaStatus[] {
    return this.replicas.map(({ name, state, lagSeconds, reads }) => ({ name, state, lagSeconds, reads }))
  }

  /** The pool of the next usable replica, or the primary's. */
  pick(): Sql {
    const n = this.replicas.length
    for (let i = 0; i < n; i++) {
      const r = this.replicas[(this.next + i) % n]
      if (r.state === 'up') {
        this.next = (this.next + i + 1) % n
        return r.sql
      }
    }
    return this.primary
  }

  async run<T>(f: (db: Sql) => Promise<T>): Promise<T> {
    const db = this.pick()
    const replica = this.replicas.find((r) => r.sql === db)
    if (!replica) {
      this.primaryReads++
      return f(this.primary)
    }
    replica.reads++
    const { signal } = replica.lost
    try {
      return await untilAborted(f(db), signal)
    } catch (err) {
      const failure = signal.aborted ? 'down' : replicaFailure(err)
      if (!failure) throw err
      if (failure === 'down') this.setState(replica, 'down', null)
      this.primaryReads++
      return f(this.primary)
    }
  }

  /** One round of checks; a round still running is awaited rather than doubled. */
  check(): Promise<void> {
    return (this.checking ??= this.checkOnce().finally(() => (this.checking = null)))
  }

  private async checkOnce() {
    const timeout = Math.max(1000, this.checkMs)
    let flushed: bigint
    try {
      const [row] = await within(timeout, this.primary<{ lsn: string }[]>`select pg_current_wal_flush_lsn()::text as lsn`)
      flushed = parseLsn(row.lsn)
    } catch {
      // without the primary's position no lag can be measured; the states stand until it answers
      return
    }
    const now = Date.now()
    this.samples.push({ at: now, lsn: flushed })
    // samples as old as the largest lag worth telling apart from "too far behind"
    const keepMs = (this.options.maxLagSeconds + 5) * 1000 + 2 * this.checkMs
    while (this.samples.length > 1 && now - this.samples[1].at > keepMs) this.samples.shift()
    await Promise.all(this.replicas.map((r) => this.checkReplica(r, timeout)))
  }

  private async checkReplica(r: Replica, timeout: number) {
    let row: { standby: boolean; replayed: string | null }
    try {
      ;[row] = await within(timeout, r.probe<{ standby: boolean; replayed: string | null }[]>`
        select pg_is_in_recovery() as standby, pg_last_wal_replay_lsn()::text as replayed`)
    } catch {
      return this.setState(r, 'down', null)
    }
    if (!row.standby || !row.replayed) return this.setState(r, 'not a standby', null)
    const replayed = parseLsn(row.replayed)
    const now = Date.now()
    // the newest sample of the primary's position the replica has replayed past
    let caughtUp: Sample | null = null
    for (let i = this.samples.length - 1; i >= 0; i--) {
      if (this.samples[i].lsn <= replayed) {
        caughtUp = this.samples[i]
        break
      }
    }
    // behind the one sample there is (the first check): too soon to tell, not yet used
    if (!caughtUp && this.samples.length === 1) return
    const lagSeconds = (now - (caughtUp ?? this.samples[0]).at) / 1000
    const state = caughtUp && lagSeconds <= this.options.maxLagSeconds ? 'up' : 'lagging'
    this.setState(r, state, lagSeconds)
  }

  private setState(r: Replica, state: ReplicaState, lagSeconds: number | null) {
    const was = r.state
    r.state = state
    r.lagSeconds = lagSeconds
    if (state === 'down' && was !== 'down' && !this.closed) {
      r.lost.abort()
      r.lost = new AbortController()
      const old = r.sql
      r.sql = this.open(r.url, this.options.max ?? POOL_SIZE)
      void old.end({ timeout: 0 }).catch(() => {})
    }
    if (was !== state) this.options.onChange?.({ name: r.name, state, lagSeconds, reads: r.reads }, was)
  }

  async close() {
    this.closed = true
    if (this.timer) clearInterval(this.timer)
    await this.checking?.catch(() => {})
    await Promise.all(this.replicas.flatMap((r) => [r.sql.end({ timeout: 5 }), r.probe.end({ timeout: 5 })]))
  }
}

/** `p`, or a rejection once `signal` is aborted; a later rejection of `p` is left unobserved. */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  p.catch(() => {})
  let onAbort = () => {}
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(Object.assign(new Error('the read replica went away'), { code: 'CONNECTION_DESTROYED' }))
    signal.addEventListener('abort', onAbort, { once: true })
  })
  return Promise.race([p, aborted]).finally(() => signal.removeEventListener('abort', onAbort))
}

/** `q`, or a rejection after `ms` (a replica whose host stopped answering never refuses). */
function within<T>(ms: number, q: Promise<T> | postgres.PendingQuery<postgres.Row[]>): Promise<T> {
  let timer: NodeJS.Timeout
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`no answer within ${ms} ms`), { code: 'ETIMEDOUT' })), ms)
  })
  return Promise.race([q as Promise<T>, late]).finally(() => clearTimeout(timer))
}
