/**
 * Description HTML -> safe HTML + plain text + text blocks, in one pass.
 *
 * Why not sanitize-html directly: measured on a 3 KB posting it costs ~0.19 ms, two thirds of the
 * whole per-posting budget, and deriving the text needs a second pass. `xss` is faster (~0.07 ms)
 * but it is not a real parser: it swallowed "5 < 6 and 7 > 3" as a tag and leaves tags unbalanced.
 * So this module does what sanitize-html does internally, with the same parser (htmlparser2, the
 * one sanitize-html is built on): an allowlist serializer over the parser's events. It emits only
 * allowed tag names it spells itself, at most one attribute (a[href] with an allowed scheme), all
 * text re-escaped, and closes every tag it opened. The tests check that sanitize-html leaves this
 * output unchanged (it is a fixed point), i.e. nothing here survives that sanitize-html would strip.
 *
 * e.g. '<p onclick="x()">Hi <script>alert(1)</script><b>there</b></p><div>Next</div>'
 *   -> html '<p>Hi <b>there</b></p> Next', text 'Hi there Next', blocks ['Hi there', 'Next']
 */
import { Parser } from 'htmlparser2'

const ALLOWED = new Set(['p', 'br', 'ul', 'ol', 'li', 'strong', 'em', 'b', 'i', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'a', 'code', 'pre', 'blockquote'])
// Content dropped with its tag: executable, styling, embedded or form content is never description text.
const DROP_BODY = new Set(['script', 'style', 'noscript', 'template', 'iframe', 'object', 'embed', 'svg', 'math', 'textarea', 'select', 'option', 'title', 'head', 'xmp', 'noembed', 'noframes', 'frameset', 'canvas', 'audio', 'video'])
// Tags after which text must not run together ("<div>Foo</div><div>Bar</div>" is "Foo Bar").
/** Allowed tags that end an open <p>. */
const P_CLOSERS = new Set(['p', 'ul', 'ol', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'blockquote'])
const BLOCK = new Set(['p', 'br', 'ul', 'ol', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'blockquote', 'div', 'section', 'article', 'header', 'footer', 'main', 'aside', 'nav', 'table', 'thead', 'tbody', 'tfoot', 'tr', 'td', 'th', 'dl', 'dt', 'dd', 'hr', 'address', 'figure', 'figcaption', 'details', 'summary', 'center', 'form', 'fieldset'])
const VOID = new Set(['br', 'hr', 'img', 'input', 'meta', 'link', 'area', 'base', 'col', 'embed', 'source', 'track', 'wbr', 'param'])
const SAFE_SCHEMES = new Set(['http', 'https', 'mailto', 'tel'])

export type SanitizedDescription = {
  html: string // safe HTML, allowlisted tags only
  text: string // plain text: tags stripped, entities decoded, whitespace collapsed
  blocks: string[] // text of each block element, for section look-ups (requirements summary)
}

// Whitespace that needs collapsing: a run of it other than one plain space. Collapsing only these
// gives what replacing every run would ("a \n b" -> "a b"), but most runs in a description are
// single spaces already, and rewriting each of them made collapsing a third of sanitizing.
const SPACE_TO_COLLAPSE = /[^\S ]\s*| \s+/g

/** Whitespace collapsed to single spaces, trimmed. e.g. " Hi\n\u00a0 there " -> "Hi there" */
function collapseSpace(s: string): string {
  return s.replace(SPACE_TO_COLLAPSE, ' ').trim()
}

const NEEDS_ESCAPE = /[&<>]/

function escapeText(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return s
  return s.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'))
}

function escapeAttr(s: string): string {
  return s.replace(/[&<>"]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;'))
}

/**
 * Keeps a link only if it is relative or uses http(s)/mailto/tel. Browsers ignore control characters
 * and whitespace inside a scheme ("jav&#x09;ascript:"), so they are removed before the check; the
 * parser has already decoded entities in attribute values.
 */
export function safeHref(href: string): string | null {
  const compact = href.replace(/[\u0000-\u0020\u007f-\u009f]/g, '')
  if (!compact) return null
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(compact)
  if (m && !SAFE_SCHEMES.has(m[1].toLowerCase())) return null
  if (!m && /^[^/?#]*:/.test(compact)) return null // "javascript&colon;" leftovers and similar
  return href.trim()
}

/**
 * Plain-text descriptions (no "<" at all, common in CSV exports) skip the parser: blank lines become
 * paragraphs and single newlines <br>. e.g. "About us\n\nWe build" -> "<p>About us</p><p>We build</p>"
 */
function fromPlainText(input: string): SanitizedDescription {
  const paragraphs = input.split(/\n\s*\n/).map((p) => p.trim()).filter(Boolean)
  const html = paragraphs.map((p) => `<p>${p.split(/\s*\n\s*/).map((line) => escapeText(decodeBasicEntities(line))).join('<br>')}</p>`).join('')
  const blocks = paragraphs.flatMap((p) => p.split('\n')).map((l) => collapseSpace(decodeBasicEntities(l))).filter(Boolean)
  return { html, text: blocks.join(' '), blocks }
}

const BASIC_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' }

/** Plain text may still carry a few entities ("AT&amp;T"); the full table needs the parser. */
function decodeBasicEntities(s: string): string {
  if (!s.includes('&')) return s
  return s.replace(/&(amp|lt|gt|quot|apos|nbsp|#\d{1,6}|#x[0-9a-f]{1,6});/gi, (m, e: string) => {
    if (e[0] !== '#') return BASIC_ENTITIES[e.toLowerCase()] ?? m
    const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10)
    return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : m
  })
}

/** Sanitizes description HTML; plain text input gets paragraphs. */
export function sanitizeDescription(input: string): SanitizedDescription {
  if (!input.includes('<')) return fromPlainText(input)
  let html = ''
  const blocks: string[] = []
  let block = ''
  let dropDepth = 0
  let dropTag = ''
  const open: string[] = [] // allowed tags opened in the output and not yet closed

  const endBlock = () => {
    const t = collapseSpace(block)
    if (t) blocks.push(t)
    block = ''
  }

  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (dropDepth) {
          if (name === dropTag) dropDepth++
          return
        }
        if (DROP_BODY.has(name)) {
          if (!VOID.has(name)) {
            dropDepth = 1
            dropTag = name
          }
          return
        }
        if (BLOCK.has(name)) endBlock()
        if (!ALLOWED.has(name)) {
          if (BLOCK.has(name) && !html.endsWith(' ')) html += ' '
          return
        }
        // HTML cannot nest these in a <p>, nor a <li> directly in a <li>: close the open one,
        // as a browser would, even where the input's own tags kept the parser from doing so
        const closes = P_CLOSERS.has(name) ? 'p' : name === 'li' ? 'li' : null
        if (closes) {
          const at = open.lastIndexOf(closes)
          const list = Math.max(open.lastIndexOf('ul'), open.lastIndexOf('ol'))
          if (at !== -1 && (closes === 'p' || at > list)) while (open.length > at) html += `</${open.pop()}>`
        }
        if (name === 'a') {
          const href = attribs.href !== undefined ? safeHref(attribs.href) : null
          html += href ? `<a href="${escapeAttr(href)}">` : '<a>'
        } else html += `<${name}>`
        if (!VOID.has(name)) open.push(name)
      },
      ontext(text) {
        if (dropDepth) return
        html += escapeText(text)
        block += text
      },
      onclosetag(name) {
        if (dropDepth) {
          if (name === dropTag && --dropDepth === 0) dropTag = ''
          return
        }
        if (BLOCK.has(name)) endBlock()
        if (!ALLOWED.has(name) || VOID.has(name)) {
          if (BLOCK.has(name) && !VOID.has(name) && !html.endsWith(' ')) html += ' '
          return
        }
        const at = open.lastIndexOf(name)
        if (at === -1) return // a stray close tag we never opened
        // Close anything opened inside it so the output stays balanced: "<b><i>x</b>" -> "<b><i>x</i></b>"
        while (open.length > at) {
          html += `</${open.pop()}>`
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: false },
  )
  parser.write(input)
  parser.end()
  while (open.length) html += `</${open.pop()}>`
  endBlock()

  const text = blocks.join(' ')
  return { html: html.trim(), text, blocks }
}
