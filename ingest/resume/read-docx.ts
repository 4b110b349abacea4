/**
 * DOCX through mammoth's HTML (paragraphs, list items and table cells become lines in
 * read-html.ts). Images are left out rather than inlined as base64, which only costs
 * memory here.
 */
import mammoth from 'mammoth'
import { htmlLines } from './read-html.ts'

export async function readDocx(bytes: Buffer): Promise<string[]> {
  const { value } = await mammoth.convertToHtml(
    { buffer: bytes },
    { convertImage: mammoth.images.imgElement(async () => ({ src: '' })), ignoreEmptyParagraphs: true },
  )
  return htmlLines(value)
}
