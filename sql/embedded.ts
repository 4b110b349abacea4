/**
 * The embedded database: PGlite (Postgres compiled to WASM) with pgvector and the
 * contrib extensions the schema uses, served on a loopback port through
 * pglite-socket so the app, pg-boss and psql speak the ordinary wire protocol to it.
 *
 * PGlite is one backend session. pglite-socket multiplexes clients onto it, but its
 * queue only keeps a client's messages together inside an explicit transaction, so
 * two clients' extended-protocol batches (Parse/Bind/Execute … Sync) could interleave
 * and steal each other's unnamed portal ("portal \"\" does not exist"). SessionQueue
 * below hands the session to one client from its first message until its Sync (or
 * simple Query) completes with no transaction open.
 */
import fs from 'node:fs'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { vector } from '@electric-sql/pglite-pgvector'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import { cube } from '@electric-sql/pglite/contrib/cube'
import { earthdistance } from '@electric-sql/pglite/contrib/earthdistance'
import { unaccent } from '@electric-sql/pglite/contrib/unaccent'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'

type Item = {
  handlerId: number
  message: Uint8Array
  onData: (data: Uint8Array) => void
  resolve: (n: number) => void
  reject: (e: unknown) => void
}

const SYNC = 0x53 // 'S'
const QUERY = 0x51 // 'Q'
const TERMINATE = 0x58 // 'X'

/** Drop-in replacement for pglite-socket's QueryQueueManager (same three methods). */
export class SessionQueue {
  private queue: Item[] = []
  private running = false
  private owner: number | null = null

  constructor(private db: PGlite) {}

  enqueue(handlerId: number, message: Uint8Array, onData: (d: Uint8Array) => void) {
    return new Promise<number>((resolve, reject) => {
      this.queue.push({ handlerId, message, onData, resolve, reject })
      void this.run()
    })
  }

  private next(): Item | undefined {
    if (this.owner === null) return this.queue.shift()
    const i = this.queue.findIndex((q) => q.handlerId === this.owner)
    return i === -1 ? undefined : this.queue.splice(i, 1)[0]
  }

  private async run() {
    if (this.running) return
    this.running = true
    try {
      for (let item = this.next(); item; item = this.next()) {
        let bytes = 0
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(item!.message, {
              onRawData: (d: Uint8Array) => {
                bytes += d.length
                item!.onData(d)
              },
            }),
          )
          this.afterMessage(item)
          item.resolve(bytes)
        } catch (e) {
          this.owner = null
          item.reject(e)
        }
      }
    } finally {
      this.running = false
    }
  }

  private afterMessage(item: Item) {
    const type = item.message[0]
    const inTx = this.db.isInTransaction()
    // A batch ends at Sync or a simple Query; an open transaction keeps the session.
    if (type === SYNC || type === QUERY) this.owner = inTx ? item.handlerId : null
    // Startup packets begin with their length (first byte 0); Terminate ends the client.
    else if (type === 0 || type === TERMINATE) this.owner = inTx ? this.owner : null
    else this.owner = item.handlerId
  }

  getQueueLength() {
    return this.queue.length
  }

  clearQueueForHandler(handlerId: number) {
    this.queue = this.queue.filter((q) => {
      if (q.handlerId !== handlerId) return true
      q.reject(new Error('Handler disconnected'))
      return false
    })
  }

  async clearTransactionIfNeeded(handlerId: number) {
    if (this.owner !== handlerId) return
    if (this.db.isInTransaction()) await this.db.exec('ROLLBACK')
    this.owner = null
    void this.run()
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
    const db = await PGlite.create(dataDir ? path.join(dataDir, 'pg') : 'memory://', {
      extensions: { vector, pg_trgm, cube, earthdistance, unaccent },
    })
    const server = new PGLiteSocketServer({ db, port, host: '127.0.0.1', maxConnections: 64 })
    // The server hands this queue to every connection it accepts.
    ;(server as unknown as { queryQueue: SessionQueue }).queryQueue = new SessionQueue(db)
    await server.start()
    const bound = (server as unknown as { port: number }).port
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
