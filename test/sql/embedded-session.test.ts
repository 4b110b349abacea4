/**
 * The embedded server shares PGlite's one backend session between clients. These
 * tests speak the wire protocol by hand so that each step lands where it should: a
 * client's extended-protocol batch (Parse/Bind … Sync) and its transaction must run
 * whole before another client's messages, and a client that leaves mid-batch or
 * mid-transaction must leave the session clean. They always use an embedded server,
 * whatever TEST_DATABASE_URL says.
 */
import test from 'ava'
import net from 'node:net'
import PgBoss from 'pg-boss'
import postgres from 'postgres'
import { startEmbedded, type Embedded } from '../../sql/embedded.ts'

type Msg = { type: string; body: Buffer }

const frame = (type: string, body: Buffer | string = Buffer.alloc(0)) => {
  const b = typeof body === 'string' ? Buffer.from(body) : body
  const head = Buffer.alloc(5)
  head.write(type, 0, 'latin1')
  head.writeInt32BE(b.length + 4, 1)
  return Buffer.concat([head, b])
}
const Query = (sql: string) => frame('Q', `${sql}\0`)
const Parse = (sql: string) => frame('P', Buffer.concat([Buffer.from(`\0${sql}\0`), Buffer.alloc(2)]))
const Bind = () => frame('B', Buffer.alloc(8)) // unnamed portal and statement, no parameters or formats
const Execute = () => frame('E', Buffer.alloc(5))
const Sync = () => frame('S')
const Flush = () => frame('H')

const startup = () => {
  const params = Buffer.from('user\0postgres\0database\0postgres\0\0')
  const head = Buffer.alloc(8)
  head.writeInt32BE(8 + params.length, 0)
  head.writeInt32BE(196608, 4) // protocol 3.0
  return Buffer.concat([head, params])
}

/** A bare wire-protocol client: sends frames, reads backend messages in order. */
class Wire {
  private buf = Buffer.alloc(0)
  private inbox: Msg[] = []
  private waiter: (() => void) | null = null
  readonly received: Msg[] = []

  private constructor(
    readonly socket: net.Socket,
    private sslAnswer: ((answer: string) => void) | null = null,
  ) {
    socket.on('data', (d) => {
      this.buf = Buffer.concat([this.buf, d])
      if (this.sslAnswer && this.buf.length) {
        // the one-byte answer to an SSLRequest comes before any message
        this.sslAnswer(String.fromCharCode(this.buf[0]))
        this.sslAnswer = null
        this.buf = this.buf.subarray(1)
      }
      while (this.buf.length >= 5 && this.buf.length >= 1 + this.buf.readInt32BE(1)) {
        const end = 1 + this.buf.readInt32BE(1)
        const msg = { type: String.fromCharCode(this.buf[0]), body: this.buf.subarray(5, end) }
        this.buf = this.buf.subarray(end)
        this.inbox.push(msg)
        this.received.push(msg)
      }
      this.waiter?.()
    })
    socket.on('close', () => this.waiter?.())
  }

  static async connect(port: number) {
    const socket = net.connect(port, '127.0.0.1')
    await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject))
    const wire = new Wire(socket)
    socket.write(startup())
    await wire.until('Z')
    wire.received.length = 0
    return wire
  }

  /**
   * A client whose startup and `frames` go in one write behind an SSLRequest, while
   * another client holds the session. The server answers an SSLRequest ('N') as it reads
   * it, before any turn at the session, and one small write arrives in one read: so once
   * the answer is here, the server has every frame of this client, before anything the
   * test sends next. A server that ran them out of turn would have them run first.
   */
  static async queued(port: number, ...frames: Buffer[]) {
    const socket = net.connect(port, '127.0.0.1')
    await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject))
    let answered!: (answer: string) => void
    const answer = new Promise<string>((resolve) => (answered = resolve))
    const wire = new Wire(socket, answered)
    const sslRequest = Buffer.alloc(8)
    sslRequest.writeInt32BE(8, 0)
    sslRequest.writeInt32BE(80877103, 4)
    socket.write(Buffer.concat([sslRequest, startup(), ...frames]))
    if ((await answer) !== 'N') throw new Error('the SSLRequest was not refused')
    return wire
  }

  send(...frames: Buffer[]) {
    this.socket.write(Buffer.concat(frames))
  }

  /** Messages up to and including the next one of `type`; a session left stuck fails rather than hangs. */
  async until(type: string, ms = 10_000): Promise<Msg[]> {
    const deadline = Date.now() + ms
    for (;;) {
      const at = this.inbox.findIndex((m) => m.type === type)
      if (at !== -1) return this.inbox.splice(0, at + 1)
      if (this.socket.destroyed) throw new Error(`connection closed before ${type}`)
      if (Date.now() >= deadline) throw new Error(`no ${type} within ${ms} ms`)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deadline - Date.now())
        this.waiter = () => (clearTimeout(timer), resolve())
      })
    }
  }

  close() {
    this.socket.destroy()
  }
}

const rows = (msgs: Msg[]) => msgs.filter((m) => m.type === 'D').map((m) => m.body.subarray(6).toString())
const errors = (msgs: Msg[]) => msgs.filter((m) => m.type === 'E').map((m) => m.body.toString().replace(/\0/g, ' '))
const status = (msgs: Msg[]) => String.fromCharCode(msgs.at(-1)!.body[0])
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

let server: Embedded
test.before(async () => {
  server = await startEmbedded({ dataDir: null, port: 0 })
})
test.after.always(async () => {
  await server?.stop()
})

test.serial("another client's batch waits for Sync: it cannot take the unnamed portal", async (t) => {
  const a = await Wire.connect(server.port)
  let b: Wire | undefined
  try {
    a.send(Parse("select 'a'"), Bind(), Flush())
    await a.until('2') // BindComplete: a's unnamed portal exists and a has not synced
    // run at once, b's Parse and Bind would replace a's statement and portal, and its Sync would drop them
    b = await Wire.queued(server.port, Parse("select 'b'"), Bind(), Execute(), Sync())
    a.send(Execute(), Sync())
    const fromA = await a.until('Z')
    t.deepEqual(errors(fromA), [])
    t.deepEqual(rows(fromA), ['a'])
    t.is(status(await b.until('Z')), 'I', 'b\'s startup, once a synced')
    const fromB = await b.until('Z')
    t.deepEqual(errors(fromB), [])
    t.deepEqual(rows(fromB), ['b'])
  } finally {
    a.close()
    b?.close()
  }
})

test.serial("a transaction keeps the session: another client sees nothing of it, its query waiting for the transaction to end", async (t) => {
  const a = await Wire.connect(server.port)
  let b: Wire | undefined
  try {
    a.send(Query('begin; create table tx_probe (x int)'))
    t.is(status(await a.until('Z')), 'T')
    // run at once, b's query would run inside a's transaction: its ReadyForQuery would say T
    b = await Wire.queued(server.port, Query("select count(*) from pg_class where relname = 'tx_probe'"))
    a.send(Query('rollback'))
    t.is(status(await a.until('Z')), 'I')
    t.is(status(await b.until('Z')), 'I', 'b\'s startup, once a ended its transaction')
    const fromB = await b.until('Z')
    t.deepEqual(errors(fromB), [])
    t.deepEqual(rows(fromB), ['0'], 'the table a rolled back was never there for b')
    t.is(status(fromB), 'I')
  } finally {
    a.close()
    b?.close()
  }
})

test.serial('a client that leaves inside a transaction or a batch leaves the session clean', async (t) => {
  const setup = await Wire.connect(server.port)
  setup.send(Query('create table leave_probe (x int)'))
  await setup.until('Z')
  setup.close()

  // an open transaction with a row in it
  const a = await Wire.connect(server.port)
  a.send(Query('begin; insert into leave_probe values (1)'))
  t.is(status(await a.until('Z')), 'T')
  a.close()
  // a batch executed up to its last step, without Sync
  const b = await Wire.connect(server.port)
  b.send(Parse('insert into leave_probe values (2)'), Bind(), Execute(), Flush())
  await b.until('C')
  b.close()
  // a batch that failed and would skip everything up to its Sync
  const c = await Wire.connect(server.port)
  c.send(Parse('select no_such_column'), Flush())
  await c.until('E')
  c.close()

  // a failed batch inside a transaction: skipping to its Sync, then in a failed transaction
  const d = await Wire.connect(server.port)
  d.send(Query('begin'))
  await d.until('Z')
  d.send(Parse('select no_such_column'), Flush())
  await d.until('E')
  d.close()

  const f = await Wire.connect(server.port)
  try {
    f.send(Query('select count(*) from leave_probe'))
    const fromF = await f.until('Z')
    t.deepEqual(errors(fromF), [])
    t.deepEqual(rows(fromF), ['0'])
    t.is(status(fromF), 'I')
  } finally {
    f.close()
  }
})

test.serial('many pooled clients with batches split across packets each get their own rows', async (t) => {
  const sql = postgres(server.url, { max: 8, onnotice: () => {} })
  try {
    // 200 KB parameters arrive in several socket reads, so a batch spans many turns of the event loop
    const big = 'x'.repeat(200_000)
    const results = await Promise.all(
      Array.from({ length: 64 }, async (_, i) => {
        const [row] = i % 2
          ? await sql`select ${i}::int as n, length(${big + i}) as len`
          : await sql.begin((tx) => tx`select ${i}::int as n, length(${big + i}) as len`)
        return { ...row }
      }),
    )
    t.deepEqual(results, Array.from({ length: 64 }, (_, i) => ({ n: i, len: big.length + String(i).length })))
  } finally {
    await sql.end({ timeout: 5 })
  }
})

test.serial('pg-boss creates its schema, queues, runs and completes a job', async (t) => {
  const boss = new PgBoss({ connectionString: server.url, max: 3, schema: 'pgboss' })
  boss.on('error', (err) => t.log('pg-boss error', err.message))
  await boss.start()
  try {
    await boss.createQueue('probe.run')
    const done = new Promise<unknown>((resolve) => {
      void boss.work<{ n: number }>('probe.run', { pollingIntervalSeconds: 0.5 }, async ([job]) => resolve(job.data))
    })
    const id = await boss.send('probe.run', { n: 7 })
    t.truthy(id)
    t.deepEqual(await done, { n: 7 })
    for (let i = 0; i < 40; i++) {
      const job = await boss.getJobById('probe.run', id!)
      if (job?.state === 'completed') break
      await sleep(250)
    }
    t.is((await boss.getJobById('probe.run', id!))?.state, 'completed')
  } finally {
    await boss.stop({ graceful: false, wait: true })
  }
})
