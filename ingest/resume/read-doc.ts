/**
 * Word 97-2003 (.doc) with word-extractor. The page headers come first: resumes often
 * put the name and contact details there.
 */
import WordExtractor from 'word-extractor'
import { textLines } from './read-text.ts'

export async function readDoc(bytes: Buffer): Promise<string[]> {
  const doc = await new WordExtractor().extract(bytes)
  const headers = doc.getHeaders({ includeFooters: false })
  return textLines([headers, doc.getBody()].join('\n'))
}
