/**
 * Streams postings from a JSONL or CSV file (optionally .gz) with their line numbers.
 * A line that cannot be parsed comes out as an error for that line; the file goes on.
 */
import fs from 'node:fs'
import readline from 'node:readline'
import { createGunzip } from 'node:zlib'
import { parse } from 'csv-parse'
import { csvRowToPosting } from './csv-row.ts'
import type { RawPosting } from './types.ts'

export type Format = 'jsonl' | 'csv'
/** A JSONL line travels as text: the normalize worker parses it, off the main thread. */
export type ReadItem = { line: number; raw: RawPosting } | { line: number; text: string } | { line: number; error: string }

export function detectFormat(file: string): Format {
  const name = file.toLowerCase().replace(/\.gz$/, '')
  if (name.endsWith('.csv')) return 'csv'
  if (name.endsWith('.jsonl') || name.endsWith('.ndjson') || name.endsWith('.json')) return 'jsonl'
  throw new Error(`cannot tell the format of ${file}: name it .jsonl, .ndjson or .csv (optionally .gz)`)
}

/** Reads `file`; `progress.bytes()` tells how many bytes were read from disk so far. */
export function openInput(file: string, progress: { bytes: () => number }) {
  const stream = fs.createReadStream(file)
  progress.bytes = () => stream.bytesRead // a 'data' listener here would drain the stream early
  return file.toLowerCase().endsWith('.gz') ? stream.pipe(createGunzip()) : stream
}

export async function* readJsonl(input: NodeJS.ReadableStream): AsyncGenerator<ReadItem> {
  let line = 0
  for await (const text of readline.createInterface({ input, crlfDelay: Infinity })) {
    line++
    if (text.trim() !== '') yield { line, text }
  }
}

/** A JSONL line as a posting, or why it is not one. */
export function parseLine(text: string): { raw: RawPosting } | { error: string } {
  try {
    const value = JSON.parse(text)
    return value === null || typeof value !== 'object' || Array.isArray(value) ? { error: 'not a JSON object' } : { raw: value as RawPosting }
  } catch (e) {
    return { error: `invalid JSON: ${(e as Error).message}` }
  }
}

/** CSV rows, each mapped to a posting by `toPosting` (the project's columns by default). */
export async function* readCsv(input: NodeJS.ReadableStream, toPosting: (row: Record<string, string>) => RawPosting = csvRowToPosting): AsyncGenerator<ReadItem> {
  const parser = parse({ columns: true, bom: true, skip_empty_lines: true, relax_column_count: true, info: true, skip_records_with_error: true })
  // a malformed record (say an unclosed quote) is skipped by the parser and reported here
  const skipped: ReadItem[] = []
  parser.on('skip', (err: Error & { lines?: number }) => skipped.push({ line: err.lines ?? 0, error: `invalid CSV: ${err.message}` }))
  input.pipe(parser)
  for await (const { record, info } of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
    yield* skipped.splice(0)
    yield { line: info.lines, raw: toPosting(record) }
  }
  yield* skipped.splice(0)
}

export function readPostings(file: string, progress: { bytes: () => number }, format = detectFormat(file)) {
  const input = openInput(file, progress)
  return format === 'csv' ? readCsv(input) : readJsonl(input)
}
