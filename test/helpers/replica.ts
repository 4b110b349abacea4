/**
 * A real streaming replica of the machine's Postgres (TEST_DATABASE_URL's server), for
 * the read-replica tests: pg_basebackup copies the whole cluster into a temporary
 * directory, writes standby.signal and the primary's connection (-R), and the replica
 * starts from it on a free port of its own, streaming WAL from then on. `make pg` lets
 * 127.0.0.1 connect for replication (sql/provision-pg.sh).
 *
 * The server's binaries are the primary's major version's (/usr/lib/postgresql/<major>/bin
 * on Debian, else pg_config's bindir). Postgres refuses to run as root, so under root
 * the copy and the replica belong to, and run as, the `postgres` user.
 */
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import postgres from 'postgres'
import { eventually } from './eventually.ts'
import { freePort } from './free-port.ts'

const exec = promisify(execFile)

export type TestReplica = {
  port: number
  /** this replica's URL for a database of the primary (its name taken from `primaryUrl`) */
  urlOf: (primaryUrl: string) => string
  /** pg_ctl stop -m fast; start() brings it back, and it catches up from where it stopped */
  stop: () => Promise<void>
  start: () => Promise<void>
  /** stops it and removes its directory */
  remove: () => Promise<void>
}

/** Settings a hot standby must have at least as high as its primary's, or it refuses to start. */
const AT_LEAST_PRIMARY = ['max_connections', 'max_worker_processes', 'max_wal_senders', 'max_prepared_transactions', 'max_locks_per_transaction']

async function binDir(major: number) {
  const debian = `/usr/lib/postgresql/${major}/bin`
  if (existsSync(path.join(debian, 'pg_ctl'))) return debian
  const { stdout } = await exec('pg_config', ['--bindir'])
  return stdout.trim()
}

export async function startReplica(primaryUrl: string): Promise<TestReplica> {
  const primary = new URL(primaryUrl)
  const admin = postgres(primaryUrl, { max: 1, onnotice: () => {} })
  let settings: Record<string, string>
  let major: number
  try {
    const rows = await admin<{ name: string; setting: string }[]>`
      select name, setting from pg_settings where name = any(${[...AT_LEAST_PRIMARY, 'shared_preload_libraries', 'server_version_num']})`
    settings = Object.fromEntries(rows.map((r) => [r.name, r.setting]))
    major = Math.floor(Number(settings.server_version_num) / 10000)
  } finally {
    await admin.end()
  }
  const bin = await binDir(major)
  const asRoot = process.getuid?.() === 0
  const owner = asRoot ? await exec('id', ['-u', 'postgres']).then(({ stdout }) => Number(stdout.trim())) : null
  // under root, every command runs as postgres, which must own the directory
  const run = (cmd: string, args: string[]) =>
    asRoot ? exec('runuser', ['-u', 'postgres', '--', path.join(bin, cmd), ...args]) : exec(path.join(bin, cmd), args)

  const dir = await mkdtemp(path.join(os.tmpdir(), 'jds-replica-'))
  if (owner !== null) await chown(dir, owner, -1)
  const data = path.join(dir, 'data')
  const port = await freePort()
  const pgctl = (...args: string[]) => run('pg_ctl', ['-D', data, '-l', path.join(dir, 'log'), ...args])
  let running = false
  const stop = async () => {
    if (!running) return
    await pgctl('-m', 'fast', '-w', '-t', '60', 'stop')
    running = false
  }
  const remove = async () => {
    await stop().catch(() => pgctl('-m', 'immediate', 'stop').catch(() => {}))
    await rm(dir, { recursive: true, force: true })
  }
  try {
    await run('pg_basebackup', [
      '-h', primary.hostname, '-p', primary.port || '5432', '-U', decodeURIComponent(primary.username || 'postgres'),
      '-D', data, '-X', 'stream', '-R', '--checkpoint=fast', '--no-sync',
    ])
    // a Debian cluster keeps its configuration in /etc, so the copy has none of its own
    const conf = [
      `port = ${port}`,
      `listen_addresses = '127.0.0.1'`,
      `unix_socket_directories = '${dir}'`,
      'hot_standby = on',
      'fsync = off',
      'shared_buffers = 64MB',
      ...AT_LEAST_PRIMARY.map((name) => `${name} = ${settings[name]}`),
      `shared_preload_libraries = '${settings.shared_preload_libraries ?? ''}'`,
    ]
    const files: [string, string][] = [
      ['postgresql.conf', conf.join('\n') + '\n'],
      ['pg_hba.conf', 'local all all trust\nhost all all 127.0.0.1/32 trust\n'],
      ['pg_ident.conf', ''],
    ]
    for (const [name, text] of files) {
      const file = path.join(data, name)
      await writeFile(file, text, { mode: 0o600 })
      if (owner !== null) await chown(file, owner, -1)
    }
    const start = async () => {
      await pgctl('-w', '-t', '120', 'start')
      running = true
      const url = `postgres://postgres@127.0.0.1:${port}/postgres`
      await eventually('the replica to accept connections in recovery', async () => {
        const probe = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 2 })
        try {
          const [{ standby }] = await probe<{ standby: boolean }[]>`select pg_is_in_recovery() as standby`
          return standby
        } catch {
          return false
        } finally {
          await probe.end({ timeout: 1 })
        }
      }, { ms: 60_000, every: 100 })
    }
    await start()
    return {
      port,
      urlOf: (url: string) => {
        const u = new URL(url)
        u.hostname = '127.0.0.1'
        u.port = String(port)
        return u.toString()
      },
      stop,
      start,
      remove,
    }
  } catch (e) {
    const log = await exec('tail', ['-n', '30', path.join(dir, 'log')]).then(({ stdout }) => stdout, () => '')
    await remove()
    throw new Error(`could not start a replica of ${primary.host}: ${(e as Error).message}${log ? `\n${log}` : ''}`)
  }
}
