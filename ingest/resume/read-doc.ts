/**
 * Word 97-2003 (.doc) with word-extractor, which gives each part of the document as text
 * rather than a tree: the page headers, the body, and the text boxes. What structure the
 * text keeps is read here:
 *   - the page headers come first: resumes often put the name and contact details there,
 *     and text boxes in a header (a letterhead) after them;
 *   - a table cell's end mark becomes a tab, as does a tab stop: both separate fields on
 *     one line, so a line's tab-separated parts are joined with " | ", as a PDF's table rows
 *     are (lines.ts) and a work entry's header is split (entries.ts);
 *   - the body's text boxes (a sidebar, a contact block beside the name) come after the body,
 *     as a PDF's sidebar is read after its main column; word-extractor gives them all as one
 *     text, so they are read in the order Word keeps them.
 * Paragraph styles (which paragraphs are headings) are not exposed by the library.
 */
import WordExtractor from 'word-extractor'
import { textLines } from './read-text.ts'

/** The document's parts as lines, in reading order. */
export function docLines(parts: { headers: string; headerTextboxes: string; body: string; textboxes: string }): string[] {
  const text = [parts.headers, parts.headerTextboxes, parts.body, parts.textboxes]
    .map((p) => p.replace(/\s+$/, ''))
    .filter((p) => p.trim() !== '')
    .join('\n\n')
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => (line.includes('\t') ? line.split(/\t+/).map((c) => c.trim()).filter(Boolean).join(' | ') : line))
    .join('\n')
  return textLines(text)
}

export async function readDoc(bytes: Buffer): Promise<string[]> {
  const doc = await new WordExtractor().extract(bytes)
  return docLines({
    headers: doc.getHeaders({ includeFooters: false }),
    headerTextboxes: doc.getTextboxes({ includeBody: false, includeHeadersAndFooters: true }),
    body: doc.getBody(),
    textboxes: doc.getTextboxes({ includeBody: true, includeHeadersAndFooters: false }),
  })
}
