/**
 * The project's own posting shape (README "Ingest format"): JSON lines, a JSON array of
 * postings, or CSV with the same names as columns.
 */
import { csvRowToPosting } from '../csv-row.ts'
import { readCsv, readJsonl, type ReadItem } from '../read.ts'
import type { RawPosting } from '../types.ts'
import { keyScore, type Adapter, type Sample } from './adapter.ts'
import { jsonRecords } from './json-records.ts'

/** Fields that say "a posting in this project's shape". */
const POSTING_KEYS = ['job_title', 'company', 'description', 'job_board', 'location_raw']

const postingScore = (s: Sample) => Math.max(0, ...s.records.slice(0, 3).map((r) => keyScore(r, POSTING_KEYS)))

/**
 * A file named for a format the project reads is taken as the project's shape unless
 * a source format recognizes it better: its rows are then validated, and rows that are
 * not postings are reported as rejected rather than the file refused.
 */
const NAMED = 0.3
const named = (s: Sample, ...extensions: string[]) => extensions.some((e) => s.file.toLowerCase().replace(/\.gz$/, '').endsWith(e))

export const postingsJsonl: Adapter = {
  name: 'jsonl',
  summary: 'postings in the project\'s shape, one JSON object per line (.jsonl, .ndjson)',
  detect: (s) => (s.layout === 'lines' ? Math.max(postingScore(s), named(s, '.jsonl', '.ndjson') ? NAMED : 0) : 0),
  // the lines travel as text: the normalize worker parses them off the main thread
  read: (source) => readJsonl(source.open()),
}

export const postingsJson: Adapter = {
  name: 'json',
  summary: 'postings in the project\'s shape, as a JSON array (or one posting object)',
  detect: (s) => (s.layout === 'array' || s.layout === 'document' ? Math.max(postingScore(s), named(s, '.json') ? NAMED : 0) : 0),
  read: (source) => postingRecords(jsonRecords(source.open(), source.sample.layout)),
}

export const postingsCsv: Adapter = {
  name: 'csv',
  summary: 'postings in the project\'s shape as CSV, one column per field (nested fields as JSON text)',
  detect: (s) => {
    if (s.layout) return 0
    const header = s.text.split(/\r?\n/, 1)[0].toLowerCase()
    const columns = header.split(',').map((c) => c.trim().replace(/^"|"$/g, ''))
    if (columns.includes('job_title')) return 0.5 + 0.5 * keyScore(Object.fromEntries(columns.map((c) => [c, 1])), POSTING_KEYS)
    return named(s, '.csv') ? NAMED : 0
  },
  read: (source) => readCsv(source.open(), csvRowToPosting),
}

/** Each JSON record as a posting, or why it is not one. */
export async function* postingRecords(records: AsyncIterable<{ n: number; value?: unknown; error?: string }>): AsyncGenerator<ReadItem> {
  for await (const r of records) {
    if (r.error !== undefined) yield { line: r.n, error: r.error }
    else if (r.value === null || typeof r.value !== 'object' || Array.isArray(r.value)) yield { line: r.n, error: 'not a JSON object' }
    else yield { line: r.n, raw: r.value as RawPosting }
  }
}
