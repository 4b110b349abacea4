/**
 * The embedded database: PGlite (Postgres compiled to WASM) with pgvector and the
 * contrib extensions the schema uses, served on a loopback port so the app, pg-boss
 * and psql speak the ordinary wire protocol to it.
 *
 * PGlite is one backend session. SessionServer lends it to one client at a time:
 * from the client's first message until the backend answers ReadyForQuery with no
 * transaction open (after a Sync, a simple Query, or startup).
 * Another client's extended-protocol batch (Parse/Bind/Execute … Sync) therefore
 * never lands inside this one's, where it would replace the unnamed portal ("portal
 * \"\" does not exist") or run inside its transaction. It uses PGlite's public API
 * only; docs/embedded-database.md says what clients still share.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { vector } from '@electric-sql/pglite-pgvector'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import { cube } from '@electric-sql/pglite/contrib/cube'
import { earthdistance } from '@electric-sql/pglite/contrib/earthdistance'
import { unaccent } from '@electric-sql/pglite/contrib/unaccent'
import { fuzzystrmatch } from '@electric-sql/pglite/contrib/fuzzystrmatch'
import { SESSION_SETTINGS } from './session-settings.ts'

/**
 * PGlite's memory settings. Postgres runs inside this process's WebAssembly heap, which
 * grows to the largest it has been and never gives memory back, so whatever a setting
 * lets Postgres take once is held until the process ends (docs/embedded-database.md,
 * Memory). Given on the command line, they hold for data directories made before them
 * and are not changed by ALTER SYSTEM.
 * - shared_buffers: PGlite touches all of shared memory at start, so it is resident from
 *   the first second: 146 MB with the default 128 MB of buffers, 42 MB with 32 MB. Pages
 *   not in the buffers come from the OS page cache; ingest and search took the same CPU.
 * - maintenance_work_mem: what one index build may hold (the demo's HNSW graph of 2,000
 *   vectors about 8 MB; rebuilt over 16,690 jobs it grew the heap by about 40 MB). A
 *   larger graph is built more slowly rather than with more memory: at 32 MB, that
 *   rebuild took twice the CPU. 64 MB, PGlite's default, stated so it stays.
 * - work_mem: each sort or hash of a query; 4 MB, Postgres's default, stated so it stays.
 */
export const MEMORY_SETTINGS = { shared_buffers: '32MB', maintenance_work_mem: '64MB', work_mem: '4MB' } as const

const startParams = [...PGlite.defaultStartParams, ...Object.entries({ ...MEMORY_SETTINGS, ...SESSION_SETTINGS }).flatMap(([name, value]) => ['-c', `${name}=${value}`])]

/**
 * Creates a data directory (initdb) in a child process. PGlite runs initdb in a second
 * instance of itself beside the first, and that instance's heap and copy of the data
 * directory (300–400 MB) stay in this process until V8 happens to collect them, which it
 * may not do for minutes; a child process returns them when it exits.
 */
async function initDataDir(pgDir: string) {
  const code = `const { PGlite } = await import(${JSON.stringify(import.meta.resolve('@electric-sql/pglite'))})
    const db = await PGlite.create(${JSON.stringify(pgDir)}, { startParams: ${JSON.stringify(startParams)} })
    await db.close()`
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('exit', (status) => (status === 0 ? resolve() : reject(new Error(`could not create the embedded database in ${pgDir} (exit ${status}): ${stderr.trim()}`))))
  })
}

// Untyped requests a client may send before its startup packet (first int: length, second: code)
const SSL_REQUEST = 80877103
const GSSENC_REQUEST = 80877104
const CANCEL_REQUEST = 80877102
const MAX_STARTUP = 10_000

const TERMINATE = 0x58 // 'X'
const PARSE = 0x50 // 'P'
const CLOSE = 0x43 // 'C'
const STATEMENT = 0x53 // 'S': what a Close closes
const READY_FOR_QUERY = 0x5a // 'Z'
const IDLE = 0x49 // 'I': ReadyForQuery's status outside a transaction block
/** Sync, Query, FunctionCall: the backend answers each with ReadyForQuery. */
const TURN_ENDS = new Set([0x53, 0x51, 0x46])

const frame = (type: string, body: string) => {
  const bytes = Buffer.alloc(5 + Buffer.byteLength(body))
  bytes.write(type, 0, 'latin1')
  bytes.writeInt32BE(bytes.length - 1, 1)
  bytes.write(body, 5)
  return bytes
}

/**
 * What a client that leaves while holding the session may have left open: a batch
 * without its Sync (the ROLLBACK undoes what it executed, or, after an error, the
 * backend skips it on the way to the Sync), then a transaction (the second ROLLBACK,
 * which only warns when there is none).
 */
const RESET = [frame('Q', 'ROLLBACK\0'), frame('S', ''), frame('Q', 'ROLLBACK\0')]

/**
 * Closes a leaving client's named prepared statements, then a Sync. They live in the
 * session, not in the connection, so without this every statement of every connection
 * that ever closed (an ingest's 500-row inserts: about 1 MB of plan each; a pool's
 * connections at the end of their lifetime) would stay in PGlite's heap until it stops.
 * Closing a statement that does not exist (its Parse failed) is not an error.
 */
const closeStatements = (names: Iterable<string>) => [...[...names].map((name) => frame('C', `S${name}\0`)), frame('S', '')]

type Message = { bytes: Buffer; endsTurn: boolean }

type Conn = {
  socket: net.Socket
  chunks: Buffer[] // received bytes not yet split into messages
  size: number
  need: number // bytes needed before the next message can be split off
  started: boolean // startup packet seen
  inbox: Message[]
  /** named prepared statements this client has parsed and not closed */
  statements: Set<string>
  gone: boolean
  busy: boolean
  done: Promise<void>
}

/** Serves one PGlite session to many wire-protocol clients, one client's turn at a time. */
class SessionServer {
  readonly server = net.createServer((socket) => this.accept(socket))
  private conns = new Set<Conn>()
  private holder: Conn | null = null
  // `leaving`: a client that has gone and waits only to close its statements
  private waiting: { conn: Conn; wake: () => void; leaving?: boolean }[] = []

  constructor(private db: PGlite, maxConnections: number) {
    this.server.maxConnections = maxConnections
  }

  async listen(port: number) {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject)
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', reject)
        resolve()
      })
    })
    return (this.server.address() as net.AddressInfo).port
  }

  /** Stops listening, drops every client (rolling back what the session holder left open) and waits until PGlite is idle. */
  async stop() {
    const closed = new Promise((resolve) => this.server.close(resolve))
    const conns = [...this.conns]
    for (const conn of conns) this.drop(conn)
    await closed
    await Promise.all(conns.map((c) => c.done))
  }

  private accept(socket: net.Socket) {
    socket.setNoDelay(true)
    const conn: Conn = { socket, chunks: [], size: 0, need: 8, started: false, inbox: [], statements: new Set(), gone: false, busy: false, done: Promise.resolve() }
    this.conns.add(conn)
    socket.on('data', (data) => {
      this.read(conn, data)
      this.kick(conn)
    })
    socket.on('error', () => {}) // 'close' follows
    socket.on('close', () => this.drop(conn))
  }

  private drop(conn: Conn) {
    conn.socket.destroy()
    conn.gone = true
    const at = this.waiting.findIndex((w) => w.conn === conn && !w.leaving)
    if (at !== -1) this.waiting.splice(at, 1)[0].wake()
    this.kick(conn)
  }

  /** Splits complete messages off the bytes received so far. */
  private read(conn: Conn, data: Buffer) {
    conn.chunks.push(data)
    conn.size += data.length
    if (conn.size < conn.need) return
    let buf = conn.chunks.length === 1 ? conn.chunks[0] : Buffer.concat(conn.chunks)
    for (;;) {
      if (!conn.started) {
        if (buf.length < 8) break
        const length = buf.readInt32BE(0)
        const code = buf.readInt32BE(4)
        if (length === 8 && (code === SSL_REQUEST || code === GSSENC_REQUEST)) {
          conn.socket.write('N') // no encryption on loopback: the client goes on in plain text
          buf = buf.subarray(8)
          continue
        }
        if (length === 16 && code === CANCEL_REQUEST) {
          // PGlite runs each message to its end; there is nothing to interrupt
          conn.socket.end()
          buf = Buffer.alloc(0)
          break
        }
        if (length < 8 || length > MAX_STARTUP) {
          conn.socket.destroy()
          buf = Buffer.alloc(0)
          break
        }
        if (buf.length < length) {
          conn.need = length
          break
        }
        conn.inbox.push({ bytes: buf.subarray(0, length), endsTurn: true })
        conn.started = true
        buf = buf.subarray(length)
        continue
      }
      if (buf.length < 5) {
        conn.need = 5
        break
      }
      const length = buf.readInt32BE(1)
      if (length < 4) {
        conn.socket.destroy()
        buf = Buffer.alloc(0)
        break
      }
      if (buf.length < 1 + length) {
        conn.need = 1 + length
        break
      }
      const bytes = buf.subarray(0, 1 + length)
      conn.inbox.push({ bytes, endsTurn: TURN_ENDS.has(buf[0]) })
      this.track(conn, bytes)
      buf = buf.subarray(1 + length)
    }
    conn.chunks = buf.length ? [buf] : []
    conn.size = buf.length
    if (conn.size === 0) conn.need = conn.started ? 5 : 8
  }

  /** Notes the named statements a Parse creates and a Close removes (the unnamed one needs no closing). */
  private track(conn: Conn, msg: Buffer) {
    const nameAt = msg[0] === PARSE ? 5 : msg[0] === CLOSE && msg[5] === STATEMENT ? 6 : -1
    if (nameAt === -1) return
    const end = msg.indexOf(0, nameAt)
    if (end <= nameAt) return
    const name = msg.toString('utf8', nameAt, end)
    if (msg[0] === PARSE) conn.statements.add(name)
    else conn.statements.delete(name)
  }

  private kick(conn: Conn) {
    if (!conn.busy) conn.done = this.drain(conn)
  }

  /** Runs the client's messages in order, each once the client holds the session. */
  private async drain(conn: Conn) {
    conn.busy = true
    try {
      while (!conn.gone && conn.inbox.length) {
        const msg = conn.inbox.shift()!
        if (msg.bytes[0] === TERMINATE) {
          this.drop(conn)
          break
        }
        if (this.holder !== conn) {
          if (this.holder) await new Promise<void>((wake) => this.waiting.push({ conn, wake }))
          else this.holder = conn
          if (conn.gone) break
        }
        // the last six bytes PGlite sent: a ReadyForQuery ('Z', length 5, status) when the turn is over
        let tail = Buffer.alloc(0)
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(msg.bytes, {
              onRawData: (data) => {
                const out = Buffer.from(data) // a copy: the view is into PGlite's memory
                if (!conn.gone) conn.socket.write(out)
                tail = out.length >= 6 ? out.subarray(-6) : Buffer.concat([tail, out]).subarray(-6)
              },
            }),
          )
        } catch {
          this.drop(conn) // PGlite failed: end this client's connection, which resets the session
          break
        }
        const idle = tail.length === 6 && tail[0] === READY_FOR_QUERY && tail.readInt32BE(1) === 5 && tail[5] === IDLE
        if (msg.endsTurn && idle) this.release(conn)
      }
      if (conn.gone) {
        this.conns.delete(conn)
        if (this.holder === conn) await this.reset(conn, [...RESET, ...(conn.statements.size ? closeStatements(conn.statements) : [])])
        else if (conn.statements.size) {
          // its turn, behind the clients already waiting, only to close what it prepared
          if (this.holder) await new Promise<void>((wake) => this.waiting.push({ conn, wake, leaving: true }))
          else this.holder = conn
          await this.reset(conn, closeStatements(conn.statements))
        }
        conn.statements.clear()
      }
    } finally {
      conn.busy = false
    }
  }

  private release(conn: Conn) {
    if (this.holder !== conn) return
    const next = this.waiting.shift()
    this.holder = next ? next.conn : null
    next?.wake()
  }

  private async reset(conn: Conn, messages: Buffer[]) {
    try {
      for (const msg of messages) {
        await this.db.runExclusive(() => this.db.execProtocolRawStream(msg, { onRawData: () => {} }))
      }
    } catch {
      // PGlite itself failed; the next client's own messages will report it
    } finally {
      this.release(conn)
    }
  }
}

export type Embedded = { url: string; port: number; stop: () => Promise<void> }

type LockInfo = { pid: number; port: number }

const lockPath = (dataDir: string) => path.join(dataDir, 'embedded.json')

function alive(pid: number) {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The port of the embedded server another process on this DATA_DIR is running, if any. */
export function runningEmbedded(dataDir: string): LockInfo | null {
  try {
    const info = JSON.parse(fs.readFileSync(lockPath(dataDir), 'utf8')) as LockInfo
    return info.port && alive(info.pid) ? info : null
  } catch {
    return null
  }
}

function takeLock(dataDir: string) {
  const file = lockPath(dataDir)
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, JSON.stringify({ pid: process.pid, port: 0 }), { flag: 'wx' })
      return
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
      const holder = (() => {
        try {
          return JSON.parse(fs.readFileSync(file, 'utf8')) as LockInfo
        } catch {
          return null
        }
      })()
      if (holder && alive(holder.pid)) {
        throw new Error(`the embedded database in ${dataDir} is open in process ${holder.pid}; stop it or connect to 127.0.0.1:${holder.port}`)
      }
      fs.rmSync(file, { force: true }) // left behind by a process that died
    }
  }
  throw new Error(`could not lock ${file}`)
}

/**
 * Opens PGlite in `dataDir/pg` (or in memory when dataDir is null, for tests) and
 * serves it on 127.0.0.1:`port` (0 picks a free port).
 */
export async function startEmbedded({ dataDir, port }: { dataDir: string | null; port: number }): Promise<Embedded> {
  if (dataDir) {
    fs.mkdirSync(dataDir, { recursive: true })
    takeLock(dataDir)
  }
  try {
    const pgDir = dataDir ? path.join(dataDir, 'pg') : null
    if (pgDir && !fs.existsSync(path.join(pgDir, 'PG_VERSION'))) await initDataDir(pgDir)
    const db = await PGlite.create(pgDir ?? 'memory://', {
      extensions: { vector, pg_trgm, cube, earthdistance, unaccent, fuzzystrmatch },
      startParams,
    })
    const server = new SessionServer(db, 64)
    const bound = await server.listen(port).catch(async (e) => {
      await db.close()
      throw e
    })
    if (dataDir) fs.writeFileSync(lockPath(dataDir), JSON.stringify({ pid: process.pid, port: bound }))
    return {
      port: bound,
      url: `postgres://postgres@127.0.0.1:${bound}/postgres`,
      stop: async () => {
        await server.stop()
        await db.close()
        if (dataDir) fs.rmSync(lockPath(dataDir), { force: true })
      },
    }
  } catch (e) {
    if (dataDir) fs.rmSync(lockPath(dataDir), { force: true })
    throw e
  }
}
