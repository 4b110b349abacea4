/**
 * Checkouts of this repository measured side by side (the lookup and search-shape
 * benches): a checkout's commit, and its own server started as its package.json's
 * start script runs it, with rate limits raised, no embedding model and no demo data.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, openSync, readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { freePort } from '../helpers/free-port.ts'

const run = promisify(execFile)
const raised = '100000000'

export type Checkout = {
  dir: string
  /** the commit, with `_wip` when the checkout has uncommitted changes */
  label: string
  commit: string
  wip: boolean
  start: { env: Record<string, string>; args: string[]; shown: string }
  server?: ChildProcess
  port?: number
  logFile?: string
}

export async function git(dir: string, ...args: string[]) {
  return (await run('git', ['-C', dir, ...args])).stdout.trim()
}

/** The checkout's server: bin/server.ts, or api/server.ts in a checkout from before the entry points moved to bin/. */
export function serverScript(dir: string) {
  return existsSync(path.join(dir, 'bin/server.ts')) ? 'bin/server.ts' : 'api/server.ts'
}

/** How the checkout's package.json starts the server: `[NAME=value ...] node <flags> <script>`; BENCH_NODE_FLAGS="..." overrides it. */
function startCommand(dir: string): Checkout['start'] {
  const fallback = { env: {}, args: ['--import', 'tsx', serverScript(dir)] }
  const flags = process.env.BENCH_NODE_FLAGS
  if (flags !== undefined) {
    const args = [...flags.split(/\s+/).filter(Boolean), '--import', 'tsx', serverScript(dir)]
    return { env: {}, args, shown: `node ${args.join(' ')} (BENCH_NODE_FLAGS)` }
  }
  const script: string | undefined = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).scripts?.start
  const words = (script ?? '').trim().split(/\s+/)
  const env: Record<string, string> = {}
  while (words.length && /^[A-Za-z_][A-Za-z0-9_]*=\S*$/.test(words[0])) {
    const [name, ...value] = words.shift()!.split('=')
    env[name] = value.join('=')
  }
  if (words[0] !== 'node' || words.some((w) => /[;&|<>$`'"]/.test(w))) {
    return { ...fallback, shown: `node ${fallback.args.join(' ')} (start script not of the form [VAR=value] node …: ${JSON.stringify(script)})` }
  }
  return { env, args: words.slice(1), shown: script! }
}

export async function checkout(dir: string): Promise<Checkout> {
  dir = path.resolve(dir)
  const commit = await git(dir, 'rev-parse', '--short=7', 'HEAD')
  const wip = (await git(dir, 'status', '--porcelain', '--untracked-files=normal')).length > 0
  return { dir, label: `${commit}${wip ? '_wip' : ''}`, commit, wip, start: startCommand(dir) }
}

/** A data directory of the checkout's own for `bench` (signing keys, files). */
export function dataDir(bench: string, c: Checkout) {
  const dir = path.join(os.tmpdir(), `bench-${bench}-data-${c.label}`)
  mkdirSync(dir, { recursive: true })
  return dir
}

/** `npm run -s <script> -- args` in the checkout against `databaseUrl`; its stdout. */
export async function npm(bench: string, c: Checkout, databaseUrl: string, script: string, args: string[]) {
  const env = { ...process.env, DATABASE_URL: databaseUrl, EMBEDDING_PROVIDER: 'none', LOG_LEVEL: 'warn', DATA_DIR: dataDir(bench, c) }
  try {
    const { stdout } = await run('npm', ['run', '-s', script, '--', ...args], { cwd: c.dir, env, maxBuffer: 64 << 20 })
    return stdout
  } catch (e) {
    const err = e as { stderr?: string; stdout?: string; message: string }
    throw new Error(`${c.label}: npm run ${script} ${args.join(' ')} failed: ${err.message}\n${err.stdout ?? ''}\n${err.stderr ?? ''}`)
  }
}

function tail(file: string) {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').slice(-30).join('\n')
  } catch {
    return ''
  }
}

/** Starts the checkout's server on `databaseUrl` and waits for /healthz. */
export async function startServer(bench: string, c: Checkout, databaseUrl: string, log: (m: string) => void) {
  c.port = await freePort()
  c.logFile = path.join(os.tmpdir(), `bench-${bench}-server-${c.label}.log`)
  const out = openSync(c.logFile, 'w')
  c.server = spawn(process.execPath, c.start.args, {
    cwd: c.dir,
    stdio: ['ignore', out, out],
    env: {
      ...process.env,
      ...c.start.env,
      DATABASE_URL: databaseUrl,
      PORT: String(c.port),
      DATA_DIR: dataDir(bench, c),
      EMBEDDING_PROVIDER: 'none',
      DEMO_JOBS: '0',
      RATE_LIMIT_PER_MINUTE: raised,
      SEARCH_RATE_LIMIT_PER_SECOND: raised,
      ANON_RATE_LIMIT_PER_MINUTE: raised,
      LOG_LEVEL: 'warn',
    },
  })
  const exited = new Promise<never>((_, reject) => c.server!.once('exit', (code) => reject(new Error(`${c.label}: the server exited (${code}):\n${tail(c.logFile!)}`))))
  exited.catch(() => {})
  const deadline = Date.now() + 180_000
  for (;;) {
    const status = await Promise.race([fetch(`http://127.0.0.1:${c.port}/healthz`).then((r) => r.status, () => 0), exited])
    if (status === 200) break
    if (Date.now() > deadline) throw new Error(`${c.label}: not ready after 180 s:\n${tail(c.logFile)}`)
    await new Promise((r) => setTimeout(r, 250))
  }
  log(`${c.label}: ready on port ${c.port} (pid ${c.server.pid}; log ${c.logFile})`)
}

export async function stopServer(c: Checkout) {
  const s = c.server
  if (!s || s.exitCode !== null || s.signalCode !== null) return
  const gone = new Promise((r) => s.once('exit', r))
  s.kill('SIGTERM')
  const timer = setTimeout(() => s.kill('SIGKILL'), 20_000)
  await gone
  clearTimeout(timer)
}
