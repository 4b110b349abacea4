/**
 * A short requirements summary: the items under the first "Requirements"-like heading.
 * e.g. blocks ["About us", "Requirements:", "3+ years of Go", "Kubernetes", "Benefits"] ->
 *   "3+ years of Go; Kubernetes"
 */
const HEADING_RE = /^(?:requirements|qualifications|(?:minimum|basic|required|preferred) qualifications|what you(?:['’]ll)? (?:need|bring)|what we(?:['’]re| are) looking for|who you are|you (?:have|bring|should have)|about you|must[- ]haves?|skills(?: (?:and|&) experience)?|your profile|profil|ihr profil|dein profil|anforderungen|was du mitbringst)\b/i
const MAX_ITEMS = 6
const MAX_CHARS = 400

export function requirementsSummary(blocks: string[]): string | null {
  const start = blocks.findIndex((b) => b.length <= 60 && HEADING_RE.test(b))
  if (start === -1) return null
  const items: string[] = []
  // The heading block may carry the first item itself: "Requirements: 3+ years of Go".
  const inline = blocks[start].replace(HEADING_RE, '').replace(/^[\s:–-]+/, '')
  if (inline.length > 3) items.push(inline)
  for (let i = start + 1; i < blocks.length && items.length < MAX_ITEMS; i++) {
    const b = blocks[i]
    // A short line ending in ":" or a known heading starts the next section.
    if ((b.length <= 60 && /:$/.test(b)) || (b.length <= 40 && /^(?:benefits|perks|what we offer|about|why|how to apply|nice to have)/i.test(b))) break
    items.push(b.replace(/[.;]\s*$/, ''))
  }
  if (!items.length) return null
  const s = items.join('; ')
  return s.length > MAX_CHARS ? `${s.slice(0, MAX_CHARS - 1).replace(/\s+\S*$/, '')}…` : s
}
