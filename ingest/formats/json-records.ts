/**
 * JSON records however a file lays them out: one per line (JSONL), the elements of a
 * top-level array (streamed, so a large array never sits in memory whole), or one or
 * more top-level documents (a board's `{"jobs": [...]}`), which the adapter unwraps.
 */
import readline from 'node:readline'
import streamArray from 'stream-json/streamers/stream-array.js'
import streamValues from 'stream-json/streamers/stream-values.js'
import type { Sample } from './adapter.ts'

export type JsonRecord = { n: number; value: unknown } | { n: number; error: string }

const firstChar = (text: string) => text.trimStart()[0] ?? ''

/** How the sample's JSON is laid out, and its first records. */
export function sampleJson(text: string): Pick<Sample, 'layout' | 'records'> {
  const first = firstChar(text)
  if (first === '[') return { layout: 'array', records: leadingElements(text) }
  if (first !== '{') return { layout: null, records: [] }
  const lines = text.split('\n').filter((l) => l.trim())
  try {
    const record = JSON.parse(lines[0])
    const records = [record]
    for (const line of lines.slice(1, 3)) {
      try {
        records.push(JSON.parse(line))
      } catch {
        break // the sample may end mid-line
      }
    }
    return { layout: 'lines', records }
  } catch {
    // a document spread over lines; whole only when the sample holds all of it
    try {
      return { layout: 'document', records: [JSON.parse(text)] }
    } catch {
      return { layout: 'document', records: [] }
    }
  }
}

/** The first elements of an array whose text may be cut short. */
function leadingElements(text: string) {
  const out: unknown[] = []
  // complete elements parse one by one; a cut-off one is where this stops
  let depth = 0
  let inString = false
  let start = -1
  for (let i = text.indexOf('[') + 1; i < text.length && out.length < 3; i++) {
    const c = text[i]
    if (inString) {
      if (c === '\\') i++
      else if (c === '"') inString = false
      continue
    }
    if (c === '"') inString = true
    else if (c === '{' || c === '[') {
      if (depth === 0) start = i
      depth++
    } else if (c === '}' || c === ']') {
      depth--
      if (depth === 0 && start >= 0) {
        try {
          out.push(JSON.parse(text.slice(start, i + 1)))
        } catch {
          return out
        }
        start = -1
      }
      if (depth < 0) break
    }
  }
  return out
}

/** Every record of the input, numbered from 1 (the line, for JSONL). */
export async function* jsonRecords(input: NodeJS.ReadableStream, layout: Sample['layout']): AsyncGenerator<JsonRecord> {
  if (layout === 'lines') {
    let n = 0
    for await (const line of readline.createInterface({ input, crlfDelay: Infinity })) {
      n++
      if (!line.trim()) continue
      try {
        yield { n, value: JSON.parse(line) }
      } catch (e) {
        yield { n, error: `invalid JSON: ${(e as Error).message}` }
      }
    }
    return
  }
  const pipeline = input.pipe(layout === 'array' ? streamArray.withParserAsStream() : streamValues.withParserAsStream({ jsonStreaming: true }))
  input.on('error', (e) => pipeline.destroy(e))
  let n = 0
  try {
    for await (const item of pipeline as AsyncIterable<{ key: number; value: unknown }>) yield { n: ++n, value: item.value }
  } catch (e) {
    yield { n: n + 1, error: `invalid JSON after record ${n}: ${(e as Error).message}` }
  }
}
