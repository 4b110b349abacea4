/**
 * What a file's first bytes say it is, to catch a part whose content type does not match
 * its file (a PDF sent as text/plain). Only the signatures of the accepted formats are
 * known; anything else is "unknown", which text and HTML then check as UTF-8.
 */
export type Sniffed = 'pdf' | 'docx' | 'doc' | 'zip' | 'unknown'

const OLE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])
const ZIP = Buffer.from([0x50, 0x4b, 0x03, 0x04])

export function sniff(bytes: Buffer): Sniffed {
  // PDF readers accept the header anywhere in the first 1024 bytes (junk before it is common)
  if (bytes.subarray(0, 1024).includes('%PDF-')) return 'pdf'
  if (bytes.subarray(0, 8).equals(OLE)) return 'doc'
  if (bytes.subarray(0, 4).equals(ZIP)) {
    // zip entry names are stored uncompressed, in each local header and the central directory
    return bytes.includes('word/document.xml') ? 'docx' : 'zip'
  }
  return 'unknown'
}

export const FORMAT_NAMES: Record<Exclude<Sniffed, 'unknown'>, string> = {
  pdf: 'a PDF',
  docx: 'a Word document (DOCX)',
  doc: 'a Word 97-2003 document (DOC)',
  zip: 'a ZIP archive',
}
