/**
 * An adapter reads one source format into the posting shape the pipeline normalizes
 * (RawPosting, ingest/types.ts). Adding a format is adding one module here that exports
 * an Adapter, listing it in index.ts, and a test.
 */
import type { ReadItem } from '../read.ts'

/** What detection sees: the file's name and its first SAMPLE_BYTES, decompressed, and the first records when they parse as JSON. */
export type Sample = {
  file: string
  text: string
  /** up to 3 leading records: JSONL lines, a JSON array's elements, or the one top-level document */
  records: unknown[]
  /** how the JSON records were laid out, when the text is JSON */
  layout: 'lines' | 'array' | 'document' | null
}

export type Source = {
  /** the path given (a file, or a directory for page formats) */
  file: string
  /** the file's bytes, decompressed when it is .gz */
  open: () => NodeJS.ReadableStream
  /** bytes read from disk so far, for the progress bar */
  bytes: () => number
  /** what detection saw */
  sample: Sample
}

export type ReadOptions = {
  /** the company of every posting, for feeds that do not name it (an ATS board's) */
  company?: string
}

export type Adapter = {
  /** the --format name */
  name: string
  /** one line for `--help` and the README's formats table */
  summary: string
  /** how sure it is, from 0 (not this format) to 1, that the sample is in its format */
  detect: (sample: Sample) => number
  read: (source: Source, options: ReadOptions) => AsyncIterable<ReadItem>
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The share of `keys` present on the object: a detection score. */
export function keyScore(record: unknown, keys: string[]) {
  if (!isObject(record)) return 0
  return keys.filter((k) => k in record).length / keys.length
}
