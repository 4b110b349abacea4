/**
 * The formats `make ingest` reads, recognized from the file's name and first 64 KB
 * (`--format` overrides). Each adapter scores the sample; the best score above
 * MIN_SCORE wins. Adding a format: a module exporting an Adapter, listed in ADAPTERS.
 */
import fs from 'node:fs'
import path from 'node:path'
import { createGunzip } from 'node:zlib'
import type { ReadItem } from '../read.ts'
import type { Adapter, ReadOptions, Sample, Source } from './adapter.ts'
import { sampleJson } from './json-records.ts'
import { companyProfiles } from './company-profiles.ts'
import { postingsCsv, postingsJson, postingsJsonl } from './postings.ts'
import { schemaOrg } from './schema-org.ts'
import { nhsJobs } from './nhs-jobs.ts'
import { jobspy } from './jobspy.ts'
import { greenhouse } from './greenhouse.ts'
import { lever } from './lever.ts'
import { ashby } from './ashby.ts'
import { newgradListings } from './newgrad-listings.ts'
import { remoteBoards } from './remote-boards.ts'

export const ADAPTERS: Adapter[] = [postingsJsonl, postingsJson, postingsCsv, schemaOrg, nhsJobs, jobspy, greenhouse, lever, ashby, newgradListings, remoteBoards]

export const SAMPLE_BYTES = 64 * 1024
const MIN_SCORE = 0.2

/** A file's bytes, decompressed when its name ends in .gz; `bytes()` counts what was read from disk. */
function opener(file: string) {
  let stream: fs.ReadStream | null = null
  return {
    open: () => {
      stream = fs.createReadStream(file)
      return file.toLowerCase().endsWith('.gz') ? stream.pipe(createGunzip()) : stream
    },
    bytes: () => stream?.bytesRead ?? 0,
  }
}

/** The first SAMPLE_BYTES of the file (of the first file, for a directory), decompressed. */
export async function readSample(file: string): Promise<Sample> {
  const first = fs.statSync(file).isDirectory() ? firstFileIn(file) : file
  let text = ''
  if (first) {
    const input = opener(first).open()
    const chunks: Buffer[] = []
    let size = 0
    try {
      for await (const chunk of input as AsyncIterable<Buffer>) {
        chunks.push(chunk)
        size += chunk.length
        if (size >= SAMPLE_BYTES) break
      }
    } catch {
      // a .gz cut short, or not gzip at all: what was read is the sample
    } finally {
      ;(input as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.()
    }
    text = Buffer.concat(chunks).subarray(0, SAMPLE_BYTES).toString('utf8').replace(/^\uFEFF/, '')
  }
  return { file, text, ...sampleJson(text) }
}

function firstFileIn(dir: string): string | null {
  const names = fs.readdirSync(dir).filter((n) => !n.startsWith('.')).sort()
  for (const n of names) {
    const p = path.join(dir, n)
    if (fs.statSync(p).isFile()) return p
  }
  return null
}

export function findAdapter(name: string) {
  const adapter = ADAPTERS.find((a) => a.name === name)
  if (!adapter) throw new Error(`unknown --format ${name}: use one of ${ADAPTERS.map((a) => a.name).join(', ')}`)
  return adapter
}

/** The adapter whose format the sample is most like, or an error naming the formats there are. */
export function detectAdapter(sample: Sample): Adapter {
  let best: { adapter: Adapter; score: number } | null = null
  for (const adapter of ADAPTERS) {
    const score = adapter.detect(sample)
    if (score > (best?.score ?? MIN_SCORE)) best = { adapter, score }
  }
  if (best) return best.adapter
  throw new Error(
    `cannot tell the format of ${sample.file}; name it with --format, one of: ` + ADAPTERS.map((a) => `${a.name} (${a.summary})`).join('; '),
  )
}

/**
 * Opens a feed: detects (or takes) its format and returns the adapter and its
 * postings, with the bytes read so far for the progress bar.
 */
export async function openFeed(file: string, opts: ReadOptions & { format?: string } = {}) {
  const sample = await readSample(file)
  const adapter = opts.format ? findAdapter(opts.format) : detectAdapter(sample)
  const { open, bytes } = opener(file)
  const source: Source = { file, open, bytes, sample }
  const items: AsyncIterable<ReadItem> = adapter.read(source, { company: opts.company })
  return { adapter, items, bytes: source.bytes }
}

/**
 * A file of company profiles, or null when its records are postings. `force`
 * (make ingest-companies) reads it as profiles whatever detection says.
 */
export async function openCompanyFeed(file: string, { force = false } = {}) {
  const sample = await readSample(file)
  if (!force) {
    const own = companyProfiles.detect(sample)
    if (own <= MIN_SCORE || ADAPTERS.some((a) => a.detect(sample) >= own)) return null
  }
  const { open, bytes } = opener(file)
  return { items: companyProfiles.read({ file, open, bytes, sample }), bytes }
}
