/**
 * `make seed`: writes the deterministic demo-data generator's postings (ingest/generator/)
 * in the JSONL format that ingest reads (one RawPosting per line, see ingest/types.ts).
 *
 *   npx tsx bin/seed.ts --jobs 100000 [--seed 42] [--companies N] [--now YYYY-MM-DD] > postings.jsonl
 *   npm run -s seed -- --jobs 100000 > postings.jsonl     (-s: npm otherwise prints its "> tsx ..." banner to stdout)
 *   npm run seed -- --jobs 100000 --out postings.jsonl
 *
 * Same options (including --now) give byte-identical output. Without --now, dates are
 * relative to today (UTC), so the output changes from one day to the next.
 */
import { createWriteStream } from 'node:fs'
import { parseArgs } from 'node:util'
import { generatePostings } from '../ingest/generator/postings.ts'

const USAGE = 'usage: tsx bin/seed.ts --jobs N [--seed 42] [--companies N] [--now YYYY-MM-DD] [--out FILE] (default: stdout)'

function intArg(name: string, v: string | undefined, fallback: number | undefined): number | undefined {
  if (v === undefined) return fallback
  if (!/^\d+$/.test(v)) throw new Error(`--${name} must be a non-negative integer, got "${v}"`)
  return Number(v)
}

async function main(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      jobs: { type: 'string' },
      seed: { type: 'string' },
      companies: { type: 'string' },
      now: { type: 'string' },
      out: { type: 'string', short: 'o' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  })
  if (values.help) {
    process.stdout.write(USAGE + '\n')
    return
  }
  const jobs = intArg('jobs', values.jobs, 1000)!
  const seed = intArg('seed', values.seed, 42)
  const companies = intArg('companies', values.companies, undefined)
  if (values.now !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(values.now)) throw new Error(`--now must be YYYY-MM-DD, got "${values.now}"`)

  const out: NodeJS.WritableStream = values.out ? createWriteStream(values.out) : process.stdout
  let closed = false
  out.on('error', (err: NodeJS.ErrnoException) => {
    // `... | head` closes the pipe early; that is not a failure.
    if (err.code === 'EPIPE') closed = true
    else throw err
  })
  // Batch lines into ~1 MB writes and respect backpressure, so memory stays flat.
  let buf: string[] = []
  let size = 0
  const flush = async () => {
    if (!buf.length || closed) return
    const chunk = buf.join('')
    buf = []
    size = 0
    if (!out.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          out.off('drain', done)
          out.off('close', done)
          resolve()
        }
        out.on('drain', done)
        out.on('close', done)
      })
    }
  }
  for (const posting of generatePostings({ jobs, seed, companies, now: values.now })) {
    if (closed) break
    const line = JSON.stringify(posting) + '\n'
    buf.push(line)
    size += line.length
    if (size >= 1 << 20) await flush()
  }
  await flush()
  if (values.out) await new Promise<void>((resolve, reject) => out.end(() => resolve()).once('error', reject))
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n${USAGE}\n`)
  process.exitCode = 1
})
