/**
 * HTML → lines: each block element (p, li, td, h1 …) and each <br> ends a line, inline
 * text runs together with HTML's whitespace collapsing, <pre> keeps its line breaks,
 * and script, style and head contents are skipped. htmlparser2 decodes the entities.
 * Mammoth's DOCX output goes through the same function, so a Word paragraph, list item
 * or table cell is one line.
 *
 * Example: <ul><li>Python &amp; Go</li><li>SQL</li></ul><p>Jane<br>Doe</p>
 *   → ["Python & Go", "SQL", "Jane", "Doe"]
 */
import { Parser } from 'htmlparser2'
import { decodeText, textLines } from './read-text.ts'
import { ResumeFileError } from './types.ts'

const BLOCK = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'caption', 'dd', 'div', 'dl', 'dt', 'fieldset', 'figcaption',
  'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'html', 'li', 'main', 'nav', 'ol',
  'p', 'pre', 'section', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'ul',
])
const SKIP = new Set(['script', 'style', 'head', 'noscript', 'template', 'svg', 'object', 'iframe'])

export function htmlLines(html: string): string[] {
  const lines: string[] = []
  let line = ''
  let skipping = 0
  let pre = 0
  const end = () => {
    // block boundaries make no blank lines: only the text's own lines count
    lines.push(...(pre ? textLines(line) : [line.replace(/\s+/g, ' ').trim()]).filter((l) => l !== ''))
    line = ''
  }
  const parser = new Parser(
    {
      onopentag(name) {
        if (SKIP.has(name)) skipping++
        else if (name === 'br') end()
        else if (BLOCK.has(name)) {
          end()
          if (name === 'pre') pre++
        }
      },
      ontext(text) {
        if (!skipping) line += text
      },
      // also called for tags the parser closes itself (an unclosed <p> or <li>)
      onclosetag(name) {
        if (SKIP.has(name)) skipping = Math.max(0, skipping - 1)
        else if (BLOCK.has(name)) {
          end()
          if (name === 'pre') pre = Math.max(0, pre - 1)
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  )
  parser.write(html)
  parser.end()
  end()
  return lines
}

/** anything that is clearly a tag of an HTML document, in the first 64 KiB */
const MARKUP = /<(!doctype\s+html|html|head|body|div|p|span|table|h[1-6]|ul|ol|li|br|section|article|a)[\s>/]/i

export function readHtml(bytes: Buffer): string[] {
  const html = decodeText(bytes, 'HTML')
  if (!MARKUP.test(html.slice(0, 65_536))) {
    throw new ResumeFileError('The file is not HTML: it holds no HTML markup. Send plain text as text/plain.')
  }
  return htmlLines(html)
}
