/**
 * The only postgres() call. With DATABASE_URL it is that server; without it, the
 * embedded PGlite in DATA_DIR/pg. PGlite allows one process per data directory, so
 * when a server already holds it a second process (admin CLI, ingest, expire)
 * connects through that server's socket instead of opening the directory again.
 */
import postgres from 'postgres'
import { runningEmbedded, startEmbedded, type Embedded } from './embedded.ts'
import { ADMISSION_SESSION_SETTINGS, SERVER_SESSION_SETTINGS } from './session-settings.ts'

export type Db = postgres.ISql
export type Sql = postgres.Sql

export type Database = {
  sql: Sql
  url: string
  /** the pool's connections */
  poolSize: number
  /** the embedded server this process runs, if it runs one */
  embedded: Embedded | null
  close: () => Promise<void>
}

type Options = {
  databaseUrl: string | null
  dataDir: string | null // null = in-memory embedded database (tests)
  embeddedPort: number
  /** a server must own the embedded database rather than borrow another process's */
  own?: boolean
  max?: number
  /** the pool's name in pg_stat_activity: APPLICATION unless told otherwise */
  applicationName?: string
}

/** connections a process's pool opens, unless told otherwise */
export const POOL_SIZE = 10

/**
 * The names sessions carry in pg_stat_activity: the API's and the command-line tools'
 * (APPLICATION), the API's admission pool, the task workers' (WORKER_APPLICATION),
 * which sql/foreground.ts tells apart from the others, and the read replicas'.
 */
export const APPLICATION = 'job-data-service'
export const ADMISSION_APPLICATION = 'job-data-service admission'
export const WORKER_APPLICATION = 'job-data-service worker'
/** The pools of read replicas (sql/replicas.ts), on the replicas' servers. */
export const REPLICA_APPLICATION = 'job-data-service replica'

export function connect(url: string, max = POOL_SIZE, applicationName = APPLICATION, settings: Record<string, string> = SERVER_SESSION_SETTINGS): Sql {
  return postgres(url, {
    max,
    onnotice: () => {},
    connection: { application_name: applicationName, ...settings },
  })
}

/** The API's admission connections (buildApp's admissionSql), named apart in pg_stat_activity, with plans they may keep: the admission, settlement and lookups of a job by id. */
export const connectAdmission = (url: string) => connect(url, 4, ADMISSION_APPLICATION, ADMISSION_SESSION_SETTINGS)

/**
 * The connections a server's admission statements run on (buildApp's admissionSql):
 * with a database server, four of their own (connectAdmission); the embedded database
 * has one session for every connection, whose settings no connection can change, so
 * there the admission shares the database's pool.
 */
export function openAdmission(db: Database): { sql: Sql; close: () => Promise<void> } {
  if (db.embedded) return { sql: db.sql, close: async () => {} }
  const sql = connectAdmission(db.url)
  return { sql, close: () => sql.end({ timeout: 5 }) }
}

/**
 * A read replica's pool (sql/replicas.ts), named apart in pg_stat_activity, with the
 * server's session settings. It gives up connecting after 5 s rather than postgres.js's
 * 30, so that a replica whose host stopped answering is skipped in seconds.
 */
export function connectReplica(url: string, max: number, applicationName = REPLICA_APPLICATION): Sql {
  return postgres(url, {
    max,
    onnotice: () => {},
    connect_timeout: 5,
    connection: { application_name: applicationName, ...SERVER_SESSION_SETTINGS },
  })
}

/** The task workers' pool in a process that also serves the API (bin/server.ts), named apart in pg_stat_activity. */
export const connectWorkers = (url: string, max: number) => connect(url, max, WORKER_APPLICATION)

/** Runs `f` on a connection of its own, which session state (cursors, temporary tables, advisory locks) needs. */
export async function reserved<T>(sql: Sql, f: (conn: postgres.ReservedSql) => Promise<T>) {
  const conn = await sql.reserve()
  try {
    return await f(conn)
  } finally {
    conn.release()
  }
}

export async function openDatabase(opts: Options): Promise<Database> {
  if (opts.databaseUrl) {
    const max = opts.max ?? POOL_SIZE
    return wrap(connect(opts.databaseUrl, max, opts.applicationName), max, opts.databaseUrl, null)
  }
  if (opts.dataDir && !opts.own) {
    const running = runningEmbedded(opts.dataDir)
    if (running) {
      const url = `postgres://postgres@127.0.0.1:${running.port}/postgres`
      const max = opts.max ?? 4
      return wrap(connect(url, max, opts.applicationName), max, url, null)
    }
  }
  const embedded = await startEmbedded({ dataDir: opts.dataDir, port: opts.own ? opts.embeddedPort : 0 })
  const max = opts.max ?? 8
  return wrap(connect(embedded.url, max, opts.applicationName), max, embedded.url, embedded)
}

function wrap(sql: Sql, poolSize: number, url: string, embedded: Embedded | null): Database {
  return {
    sql,
    url,
    poolSize,
    embedded,
    close: async () => {
      await sql.end({ timeout: 5 })
      await embedded?.stop()
    },
  }
}
