/** The tests' ways of running the project's own processes and reading what they print. */
import { execFile, type ChildProcess } from 'node:child_process'
import { promisify } from 'node:util'

const run = promisify(execFile)

export type LogLine = { msg: string; [k: string]: unknown }

/** Each JSON line the process writes to stdout, parsed, as it arrives. */
export function logLines(child: ChildProcess) {
  const lines: LogLine[] = []
  let rest = ''
  child.stdout!.on('data', (d: Buffer) => {
    const parts = (rest + String(d)).split('\n')
    rest = parts.pop()!
    for (const line of parts) if (line.startsWith('{')) lines.push(JSON.parse(line))
  })
  return lines
}

/** `make embed` (bin/embed.ts) against the database at `databaseUrl`, one model thread: its exit code and output. */
export async function makeEmbed(databaseUrl: string, env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run('node', ['--import', 'tsx', 'bin/embed.ts'], {
      env: { ...process.env, DATABASE_URL: databaseUrl, EMBEDDING_THREADS: '1', ...env },
      timeout: 120_000,
    })
    return { code: 0, stdout, stderr }
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string }
    return { code: err.code, stdout: err.stdout, stderr: err.stderr }
  }
}
