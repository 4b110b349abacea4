/**
 * HTML entities in short text fields (titles, company names, locations). Feeds scraped from HTML
 * or re-exported through an HTML escaper carry them as text: "St Leonard&#39;s on Sea",
 * "Bristol - Central &amp; South", "backend&#x2F;api", and sometimes escaped twice,
 * "Senior Manager &amp;#8211; Solutions Architect" (an "&" escaped again after "&#8211;").
 *
 * Decoded with the `entities` package's full HTML table (the one htmlparser2 uses for
 * descriptions), strictly: only `&name;` with its semicolon, so "AT&T" or "R&D" never change. A
 * result that still holds an entity is decoded again, up to three passes in all, which undoes
 * double escaping. A no-break space becomes a plain space.
 * e.g. "St Leonard&#39;s on Sea" -> "St Leonard's on Sea"; "Wireless &amp;#038; Modem" -> "Wireless & Modem"
 */
import { decodeHTMLStrict } from 'entities'

const MAX_PASSES = 3
const ENTITY_RE = /&(?:[a-z][a-z0-9]{1,31}|#\d{1,7}|#x[0-9a-f]{1,6});/i

export function decodeEntities(s: string): string {
  let out = s
  for (let i = 0; i < MAX_PASSES && ENTITY_RE.test(out); i++) {
    const next = decodeHTMLStrict(out)
    if (next === out) break
    out = next
  }
  return out.includes('\u00a0') ? out.replace(/\u00a0/g, ' ') : out
}
