/**
 * This process's leases on meter rows: requests reserve and settle in memory, and the
 * database is asked only to grant more units and, every flushMs (METER_FLUSH_MS, default
 * FLUSH_MS), to record what was charged.
 *
 * A lease is a number of units held in meter_leases (migration 0002) and granted under
 * the meter row's lock out of units nobody has used or leased, so in block mode the
 * units a process can hand out never pass the allowance, whatever other processes
 * do. Locally a row's lease is split into what requests in flight hold (inFlight),
 * charges settled but not yet flushed (pending, then flushing) and free units. A
 * request that finds too few free units waits for one grant per row at a time; a
 * grant that cannot cover it refuses it, and later requests that could not fit in
 * what is known to be left are refused without asking again for REFUSAL_MEMORY_MS.
 *
 * Flushes move charges from the lease to `used` (with a ledger row per meter row and
 * endpoint that lists each request), give back the free units of rows idle for
 * IDLE_MS (METER_MODE_IDLE_MS in meter mode), and renew every lease. A lease
 * lives TTL_SECONDS past its last renewal; a process that cannot renew stops using
 * its leases at half that, so a lease that expired in the database is never spent.
 * A process that dies gives its leases back by expiry and loses at most flushMs of
 * charges (never more than were served); `close()` flushes and gives everything back.
 *
 * Grants and flushes run one at a time: both lock meter rows, and one at a time they
 * keep this process's own statements from waiting on each other.
 */
import { randomUUID } from 'node:crypto'
import { TextElements } from '../../sql/array-literals.ts'
import type { Db } from '../../sql/db.ts'
import { flushUsage, grantLeases, type Allowance, type Charge, type FlushItem, type LedgerEntry, type MeterKey, type MeterState } from '../../sql/meters.ts'

export const TTL_SECONDS = 30
/**
 * Each flush is one meter_flush transaction, whose cost in Postgres is mostly per meter
 * row rather than per charge, so flushing much more often than this adds latency under
 * load (docs/performance.md, "The flush interval")
 */
export const FLUSH_MS = 1000
export const IDLE_MS = 2000
export const METER_MODE_IDLE_MS = 30_000
export const RENEW_MS = 5000
export const REFUSAL_MEMORY_MS = 250
/** what a grant asks for beyond the request's need; block mode gets at most half of what is free */
export const LEASE_CHUNK = 1000
/** a lease with fewer free units asks for more while requests go on using what is left */
export const TOP_UP_BELOW = LEASE_CHUNK / 4
/** flush at once when this many charges wait (about 1 MB) */
const FLUSH_AT = 10_000

export type LeasedRow = {
  /** the latest request's key: the plan in it follows the account */
  key: MeterKey
  allowance: Allowance | null
  /** units this process holds on the row, in the database's lease */
  lease: number
  inFlight: number
  pending: number
  flushing: number
  /** the pending charges, one entry per endpoint, for the ledger */
  charges: LedgerEntry[]
  /** the row's used, as of the last grant or flush (without pending and flushing) */
  dbUsed: number
  /** what other processes' live leases hold, as of the last grant or flush */
  others: number
  lastUse: number
  /** when the lease was last granted or renewed */
  renewedAt: number
  /** the account changed: give the free units back and grant again before using them */
  refresh: boolean
  refusedAt: number
  /** when a grant last gave less than it asked for: no top-up for REFUSAL_MEMORY_MS */
  shortAt: number
  granting: Promise<void> | null
  /** no longer in the map (idle and empty): a key that still points here makes a new row */
  dropped: boolean
}

export type Reservation = { ok: true; row: LeasedRow } | { ok: false; state: MeterState; remaining: number }

type GrantRequest = { row: LeasedRow; need: number; resolve: () => void; reject: (e: unknown) => void }

/**
 * When an idle row gives its free units back. Block mode soon: another process near the
 * cap may need them. In meter mode nobody is refused for want of them, and keeping
 * them spares the row's next request a grant (a key that pauses for a few seconds
 * would otherwise wait for one every time).
 */
const idleAfter = (r: LeasedRow) => (r.allowance?.overage_mode === 'block' ? IDLE_MS : METER_MODE_IDLE_MS)
const free = (r: LeasedRow) => r.lease - r.inFlight - r.pending - r.flushing
const rowId = (k: Pick<MeterKey, 'accountId' | 'meter' | 'period'>) => `${k.accountId}|${k.meter}|${k.period.start.getTime()}`

export class MeterLeases {
  readonly holder = randomUUID()
  private rows = new Map<string, LeasedRow>()
  private byKey = new WeakMap<MeterKey, LeasedRow>()
  /** charges settled since the last flush, on all rows */
  private pendingCharges = 0
  private grants: GrantRequest[] = []
  private chain: Promise<unknown> = Promise.resolve()
  /** when a flush last started (it paces them), and when one last renewed every lease */
  private lastFlushAt = 0
  private lastRenewedAt = 0
  private flushQueued = false
  private closed = false

  constructor(
    private db: Db,
    private onError: (err: unknown) => void = () => {},
    private flushMs = FLUSH_MS,
  ) {}

  /**
   * Reserves `units` on the row: from the lease, synchronously, when it has them free;
   * otherwise after a grant. Refused when block mode cannot cover them.
   */
  reserve(key: MeterKey, units: number, now = Date.now()): Reservation | Promise<Reservation> {
    const row = this.rowFor(key)
    row.key = key
    row.lastUse = now
    if (this.usable(row, now) && free(row) >= units) {
      row.inFlight += units
      if (free(row) < TOP_UP_BELOW && !row.granting && row.shortAt < row.lastUse - REFUSAL_MEMORY_MS) this.topUp(row)
      return { ok: true, row }
    }
    return this.reserveLater(row, units)
  }

  /**
   * More units for a lease running low, asked for while requests still have some: the
   * requests of a busy row would otherwise all wait for a grant each time it ran out.
   */
  private topUp(row: LeasedRow) {
    row.granting = this.grant(row, 0)
      .catch(this.onError)
      .finally(() => (row.granting = null))
  }

  private async reserveLater(row: LeasedRow, units: number): Promise<Reservation> {
    let asked = 0
    let waited = false
    for (;;) {
      if (this.usable(row) && free(row) >= units) {
        row.inFlight += units
        return { ok: true, row }
      }
      if (row.granting) {
        await row.granting
        waited = true
        continue
      }
      const refusedLately = row.refusedAt > Date.now() - REFUSAL_MEMORY_MS
      if (row.allowance && !row.refresh && (asked > 0 || waited || refusedLately) && units > this.available(row)) {
        return { ok: false, state: this.state(row), remaining: Math.max(0, this.available(row)) }
      }
      // a grant covers the request that asked for it, which resumes first; this is a bug guard
      if (asked >= 3) throw new Error('three lease grants did not cover one request')
      asked++
      const need = this.usable(row) ? units - Math.max(0, free(row)) : units
      row.granting = this.grant(row, need).finally(() => (row.granting = null))
      await row.granting
    }
  }

  /** Turns a reservation into a charge of `charged` units (0 releases it), for the next flush. */
  settle(row: LeasedRow, reserved: number, charged: number, charge: Charge) {
    const now = Date.now()
    row.inFlight -= reserved
    row.lastUse = now
    if (charged > 0) {
      row.pending += charged
      // a column per field, no object per request to outlive a scavenge (the request ids
      // go into a buffer, see TextElements); searched from the end, where the entry
      // usually is
      let entry: LedgerEntry | undefined
      for (let i = row.charges.length - 1; i >= 0 && !entry; i--) if (row.charges[i].endpoint === charge.endpoint) entry = row.charges[i]
      if (!entry) row.charges.push((entry = { endpoint: charge.endpoint, units: [], at: [], requestIds: new TextElements() }))
      entry.units.push(charged)
      entry.at.push(now)
      entry.requestIds.push(charge.requestId)
      if (++this.pendingCharges >= FLUSH_AT) this.queueFlush()
    }
  }

  /** What the row stands at, as this process knows it: for usage headers. */
  state(row: LeasedRow): MeterState {
    const a = row.allowance
    return {
      included: a ? a.included : null,
      overage_mode: a ? a.overage_mode : null,
      overage_cents_per_unit: a ? a.overage_cents_per_unit : null,
      used: row.dbUsed + row.pending + row.flushing,
      reserved: row.others + row.inFlight,
    }
  }

  /** Units that requests in flight hold on the row. */
  inFlight(key: Pick<MeterKey, 'accountId' | 'meter' | 'period'>) {
    return this.rows.get(rowId(key))?.inFlight ?? 0
  }

  /** The row as this process knows it, if it has one with a current allowance. */
  known(key: MeterKey): MeterState | null {
    const row = this.rows.get(rowId(key))
    return row?.allowance && !row.refresh ? this.state(row) : null
  }

  /** An account, plan or allowance changed: every lease is given back and granted again before use. */
  invalidate() {
    for (const row of this.rows.values()) row.refresh = true
  }

  /** Flushes now (tests, the usage summary, shutdown): returns once everything settled so far is recorded. */
  flush(): Promise<void> {
    return this.serial(() => this.flushOnce(false))
  }

  /** The periodic tick: flush when charges wait, rows went idle or leases are due for renewal. */
  tick() {
    const now = Date.now()
    // ticks come every TICK_MS (admission.ts); a few ms early is on time
    if (now - this.lastFlushAt < this.flushMs - 10 && this.pendingCharges < FLUSH_AT) return
    const due =
      this.pendingCharges > 0 ||
      [...this.rows.values()].some((r) => r.pending > 0 || (now - r.lastUse > idleAfter(r) && r.inFlight === 0 && r.lease > 0)) ||
      (this.rows.size > 0 && now - this.lastRenewedAt > RENEW_MS)
    if (due) this.queueFlush()
  }

  /** Flushes and gives back every lease; reservations after this are still served, from the database. */
  async close() {
    this.closed = true
    await this.serial(() => this.flushOnce(true))
  }

  /** The row of a key; the same key object (metering.ts shares one per account and meter) finds it without building its id. */
  private rowFor(key: MeterKey): LeasedRow {
    const known = this.byKey.get(key)
    if (known && !known.dropped) return known
    const id = rowId(key)
    let row = this.rows.get(id)
    if (!row) {
      row = { key, allowance: null, lease: 0, inFlight: 0, pending: 0, flushing: 0, charges: [], dbUsed: 0, others: 0, lastUse: Date.now(), renewedAt: 0, refresh: false, refusedAt: 0, shortAt: 0, granting: null, dropped: false }
      this.rows.set(id, row)
    }
    this.byKey.set(key, row)
    return row
  }

  /**
   * The lease can be spent: known, current, and surely not expired in the database. A
   * flush leaves a lease with two thirds of its life alone, so one marked renewed at a
   * flush lives at least 2/3 TTL past it; half a TTL keeps clear of that.
   */
  private usable(row: LeasedRow, now = Date.now()) {
    return row.allowance !== null && !row.refresh && !this.closed && now - row.renewedAt < (TTL_SECONDS * 1000) / 2
  }

  /** Units this process could still take on the row: its free units plus what nobody holds. */
  private available(row: LeasedRow) {
    const a = row.allowance
    if (!a || a.overage_mode !== 'block' || a.included === null) return Infinity
    return a.included - (row.dbUsed + row.pending + row.flushing) - row.others - row.inFlight
  }

  private grant(row: LeasedRow, need: number) {
    return new Promise<void>((resolve, reject) => {
      this.grants.push({ row, need, resolve, reject })
      if (this.grants.length === 1) this.serial(() => this.grantQueued())
    })
  }

  /** One meter_grant for every row waiting: a stale lease's free units go back in the same statement. */
  private async grantQueued() {
    const batch = this.grants.splice(0)
    if (batch.length === 0) return
    const releases = batch.map(({ row }) => {
      const release = !this.usable(row) && row.lease > 0 ? Math.max(0, free(row)) : 0
      row.lease -= release
      return release
    })
    try {
      const sent = Date.now()
      const grants = await grantLeases(
        this.db, this.holder, TTL_SECONDS,
        batch.map(({ row, need }, i) => ({ key: row.key, release: releases[i], need, want: need + LEASE_CHUNK })),
      )
      batch.forEach(({ row, need, resolve }, i) => {
        const g = grants[i]
        row.lease += g.granted
        row.allowance = { included: g.included, overage_mode: g.overage_mode, overage_cents_per_unit: g.overage_cents_per_unit }
        row.dbUsed = g.used
        row.others = g.others
        row.refresh = false
        row.renewedAt = sent
        if (g.granted < need) row.refusedAt = Date.now()
        if (g.granted < need + LEASE_CHUNK) row.shortAt = Date.now()
        resolve()
      })
    } catch (err) {
      batch.forEach(({ row, reject }, i) => {
        row.lease += releases[i]
        reject(err)
      })
    }
  }

  private queueFlush() {
    if (this.flushQueued) return
    this.flushQueued = true
    this.serial(() => {
      this.flushQueued = false
      return this.flushOnce(false)
    }).catch(this.onError)
  }

  /** One meter_flush: pending charges, idle rows' free units (every row's, at close), renewal. */
  private async flushOnce(all: boolean) {
    const now = Date.now()
    const items: (FlushItem & { row: LeasedRow })[] = []
    for (const row of this.rows.values()) {
      const idle = all || (now - row.lastUse > idleAfter(row) && row.inFlight === 0 && !row.granting)
      const release = idle ? Math.max(0, free(row)) : 0
      if (row.pending === 0 && release === 0) continue
      items.push({ row, key: row.key, units: row.pending, release, charges: row.charges })
      row.flushing += row.pending
      row.pending = 0
      row.charges = []
      row.lease -= release
    }
    this.pendingCharges = 0
    this.lastFlushAt = now
    if (items.length === 0 && !(this.rows.size > 0 && now - this.lastRenewedAt > RENEW_MS)) return
    try {
      const after = await flushUsage(this.db, this.holder, TTL_SECONDS, items)
      this.lastRenewedAt = now
      for (const row of this.rows.values()) if (row.renewedAt > 0 && !row.refresh) row.renewedAt = now
      items.forEach(({ row, units }, i) => {
        row.flushing -= units
        row.lease -= units
        if (after[i]) {
          row.dbUsed = after[i].used
          row.others = after[i].others
        }
      })
      for (const [id, row] of this.rows) {
        if (row.lease <= 0 && row.inFlight === 0 && row.pending === 0 && row.flushing === 0 && !row.granting && now - row.lastUse > idleAfter(row)) {
          this.rows.delete(id)
          row.dropped = true
        }
      }
    } catch (err) {
      // everything goes back to pending, ahead of what was settled meanwhile
      for (const { row, units, release, charges } of items) {
        row.flushing -= units
        row.pending += units
        row.lease += release
        row.charges = charges.concat(row.charges)
        for (const e of charges) this.pendingCharges += e.units.length
      }
      throw err
    }
  }

  private serial<T>(op: () => Promise<T>): Promise<T> {
    const run = this.chain.then(op, op)
    this.chain = run.catch(() => {})
    return run
  }
}
