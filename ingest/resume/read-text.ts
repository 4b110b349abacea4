/**
 * Plain text: UTF-8 (with or without a byte order mark), or UTF-16 when a byte order mark
 * says so. Bytes that are not valid UTF-8, or hold NUL or other control characters, are
 * a binary file sent as text.
 */
import { ResumeFileError } from './types.ts'

export function decodeText(bytes: Buffer, what: string): string {
  let text: string
  try {
    if (bytes[0] === 0xff && bytes[1] === 0xfe) text = new TextDecoder('utf-16le', { fatal: true }).decode(bytes.subarray(2))
    else if (bytes[0] === 0xfe && bytes[1] === 0xff) text = new TextDecoder('utf-16be', { fatal: true }).decode(bytes.subarray(2))
    else text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes)
  } catch {
    throw new ResumeFileError(`The file is not ${what}: it is not valid UTF-8 or UTF-16 text. Send it with its own content type.`)
  }
  // tab, line feed, form feed and carriage return are text; other C0 controls mean binary
  if (/[\x00-\x08\x0b\x0e-\x1f]/.test(text)) {
    throw new ResumeFileError(`The file is not ${what}: it holds binary data. Send it with its own content type.`)
  }
  return text
}

/**
 * Lines with line endings normalized, trailing spaces trimmed and runs of blank lines kept to one.
 * Runs of spaces become one, except on a flattened resume's long lines, where two spaces are all
 * that is left of a line break or a bullet (reflow.ts): there a run stays two spaces.
 */
export function textLines(text: string): string[] {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/\f/g, '\n')
    .split('\n')
    .map((l) => (l.length > 400 ? l.replace(/[ \t\u00a0]{2,}/g, '  ').replace(/[\t\u00a0]/g, ' ') : l.replace(/[ \t\u00a0]+/g, ' ')).trim())
}

export function readText(bytes: Buffer): string[] {
  return textLines(decodeText(bytes, 'plain text'))
}
