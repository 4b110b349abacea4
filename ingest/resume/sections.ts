/**
 * Splits a resume's lines into the header (name and contact, before the first heading)
 * and sections under their headings. A heading is a line that is one of the known
 * heading words or synonyms ("Work History", "TECHNICAL SKILLS", "Education:"), or,
 * once a known heading has set the document's style, another short line in that style
 * (all capitals, or ending with ':') which becomes a custom section.
 */

export type SectionKind =
  | 'summary' | 'experience' | 'education' | 'skills' | 'projects' | 'certifications' | 'awards'
  | 'volunteer' | 'languages' | 'hobbies' | 'custom'

export type Section = { kind: SectionKind; title: string; lines: string[] }
export type SplitResume = { header: string[]; sections: Section[] }

/** Folded heading text -> kind. Combined headings ("Honors & Awards") are matched word by word below. */
const HEADINGS: [SectionKind, string[]][] = [
  ['summary', ['summary', 'professional summary', 'career summary', 'executive summary', 'profile', 'professional profile', 'career profile', 'personal profile', 'objective', 'career objective', 'professional objective', 'objectives', 'about', 'about me', 'overview', 'introduction', 'personal statement', 'summary of qualifications', 'qualifications summary', 'highlights', 'career highlights']],
  ['experience', ['experience', 'work experience', 'professional experience', 'work history', 'employment', 'employment history', 'career', 'career history', 'relevant experience', 'professional background', 'experiences', 'industry experience', 'work', 'positions', 'positions held', 'professional history', 'job history', 'employment record', 'work record', 'career experience', 'internships', 'internship experience', 'research experience', 'teaching experience', 'other experience', 'additional experience']],
  ['education', ['education', 'academic background', 'academics', 'academic history', 'education and training', 'educational background', 'academic qualifications', 'qualifications', 'education history', 'studies']],
  ['skills', ['skills', 'technical skills', 'core skills', 'key skills', 'skill set', 'skillset', 'competencies', 'core competencies', 'key competencies', 'technologies', 'technical proficiencies', 'proficiencies', 'expertise', 'areas of expertise', 'tools', 'tools and technologies', 'technical expertise', 'tech stack', 'it skills', 'computer skills', 'hard skills', 'soft skills', 'top skills', 'abilities', 'strengths']],
  ['projects', ['projects', 'personal projects', 'academic projects', 'selected projects', 'key projects', 'side projects', 'project experience', 'open source', 'open source projects', 'portfolio']],
  ['certifications', ['certifications', 'certification', 'certificates', 'licenses', 'licences', 'licenses and certifications', 'certifications and licenses', 'professional certifications', 'credentials', 'accreditations']],
  ['awards', ['awards', 'honors', 'honours', 'achievements', 'honors and awards', 'awards and honors', 'awards and achievements', 'accomplishments', 'recognition', 'key achievements', 'scholarships', 'prizes']],
  ['volunteer', ['volunteer', 'volunteering', 'volunteer experience', 'volunteer work', 'community service', 'community involvement', 'volunteer activities', 'social impact']],
  ['languages', ['languages', 'language skills', 'spoken languages', 'language proficiency', 'foreign languages', 'languages spoken']],
  ['hobbies', ['hobbies', 'interests', 'hobbies and interests', 'personal interests', 'interests and hobbies', 'activities and interests', 'outside interests', 'leisure']],
]
const KNOWN = new Map<string, SectionKind>()
for (const [kind, names] of HEADINGS) for (const n of names) KNOWN.set(n, kind)

/** Headings that are not in the schema but common enough to be recognised in any style. */
const CUSTOM_HEADINGS = new Set([
  'publications', 'references', 'patents', 'presentations', 'talks', 'conferences', 'research', 'training',
  'activities', 'leadership', 'leadership experience', 'memberships', 'affiliations', 'professional affiliations',
  'courses', 'coursework', 'relevant coursework', 'extracurricular activities', 'extracurriculars', 'extra curricular activities',
  'co curricular activities', 'student activities', 'campus involvement', 'clubs and societies', 'societies', 'military service',
  'teaching', 'additional information', 'miscellaneous', 'other', 'personal details', 'personal information',
  'references available upon request', 'writing', 'media', 'exhibitions', 'professional development', 'workshops',
  'publications and talks', 'selected publications', 'contact', 'contact information', 'links', 'online presence',
])

/**
 * The heading text folded for look-up: case, decoration, trailing colon and letter-spacing removed.
 * e.g. "W O R K  E X P E R I E N C E" -> "work experience", "## Skills & Tools:" -> "skills and tools"
 */
export function foldHeading(line: string): string {
  let s = line.trim()
  // OCR reads a capital I as l: "EDUCATlON"
  if (/l/.test(s) && isUpper(s.replace(/l/g, ''))) s = s.replace(/l/g, 'I')
  // letter-spaced headings: "E X P E R I E N C E" (words separated by two or more spaces)
  if (/^(?:\p{L} ){2,}\p{L}(?:\s{2,}(?:\p{L} )*\p{L})*$/u.test(s)) s = s.split(/\s{2,}/).map((w) => w.replace(/ /g, '')).join(' ')
  return s
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^\p{L}\s/]+/gu, ' ')
    .replace(/\//g, ' and ')
    .replace(/\s+/g, ' ')
    .trim()
}

/** The kind of a known heading, also for combinations: "Honors & Awards", "Skills and Interests" -> first part's kind. */
export function headingKind(folded: string): SectionKind | null {
  const direct = knownKind(folded)
  if (direct) return direct
  const parts = folded.split(/ and |, /).map((p) => p.trim()).filter(Boolean)
  if (parts.length > 1 && parts.every((p) => knownKind(p) || isCustom(p))) {
    const first = parts.find((p) => knownKind(p))
    if (first) return knownKind(first)!
  }
  return null
}

/**
 * The heading's singular and plural: "Extracurricular Activity" is "extracurricular activities".
 * Only for headings of two words or more: a lone "Position" or "Award" is more often a table's label.
 */
function numberForms(folded: string): string[] {
  const forms = [folded]
  if (!folded.includes(' ')) return forms
  if (/ies$/.test(folded)) forms.push(folded.replace(/ies$/, 'y'))
  else if (/y$/.test(folded)) forms.push(folded.replace(/y$/, 'ies'))
  if (/[^s]s$/.test(folded)) forms.push(folded.slice(0, -1))
  else if (!/s$/.test(folded)) forms.push(`${folded}s`)
  return forms
}
const knownKind = (folded: string) => numberForms(folded).map((f) => KNOWN.get(f)).find(Boolean) ?? null
const isCustom = (folded: string) => numberForms(folded).some((f) => CUSTOM_HEADINGS.has(f))

/** Whether a text is a heading's words, known or common: "CONTACT", "Skills", "Publications". */
export const isHeadingWords = (text: string) => {
  const f = foldHeading(text)
  return !!f && (!!headingKind(f) || isCustom(f))
}

const BULLET_START = /^\s*[•●▪■◦○◆◇►▸‣⁃∙·\-*–—>✓✔➢➤]\s*/u
const isUpper = (s: string) => /\p{L}/u.test(s) && s === s.toUpperCase() && s !== s.toLowerCase()

type Candidate = { kind: SectionKind | null; title: string; inline?: string; upper: boolean; colon: boolean }

/** A line's reading as a heading, or null. Headings are short: at most 5 words, no digits, no '@'. */
function asHeading(raw: string): Candidate | null {
  const marked = markedHeading(raw)
  if (marked) return marked
  const line = raw.trim().replace(/^#+\s*/, '').replace(/^[|=_~*\-–—:]+\s*|\s*[|=_~*\-–—]+$/g, '').trim()
  if (!line || BULLET_START.test(raw) && !/^\s*[-=_*]{2,}/.test(raw)) return null
  if (/[@\d]|https?:|www\./.test(line)) return null
  const colon = line.match(/^([^:]{2,40}):\s*(.*)$/)
  const head = colon ? colon[1].trim() : line
  const inline = colon?.[2]?.trim() || undefined
  const spaced = /^(?:\p{L} ){2,}\p{L}/u.test(head)
  if ((!spaced && head.split(/\s+/).length > 5) || head.length > 45) return null
  if (/[,.;!?]$/.test(head) || /[.;!?]/.test(head.replace(/\b\p{L}\./gu, ''))) return null
  const folded = foldHeading(head)
  if (!folded) return null
  const title = head.replace(/\s{2,}/g, ' ')
  return { kind: headingKind(folded), title: tidyTitle(title, folded), inline, upper: isUpper(head), colon: !!colon }
}

/** An icon, a bullet or a number templates put before a heading: "➤ EXPERIENCE", " Education", "01. Skills". */
const HEADING_MARK_RE = /^\s*(?:[\p{So}\p{Co}\p{Cs}•●▪■◦○◆◇►▸‣⁃∙·*➢➤✓✔>]+\uFE0F?|\d{1,2}[.)]?|[IVX]{1,4}\.)\s*(?=\p{L})/u

/**
 * A known heading behind a mark. Only known headings: "• Leadership" is as likely a bullet as a heading.
 * e.g. "➤ EXPERIENCE" -> experience; "• Python" -> null.
 */
function markedHeading(raw: string): Candidate | null {
  const m = raw.match(HEADING_MARK_RE)
  if (!m) return null
  const head = raw.slice(m[0].length).replace(/[:\s]+$/, '').trim()
  if (!head || /\d/.test(head) || head.split(/\s+/).length > 4) return null
  const kind = headingKind(foldHeading(head))
  return kind ? { kind, title: head, upper: isUpper(head), colon: /:\s*$/.test(raw) } : null
}

/** "E X P E R I E N C E" -> "EXPERIENCE"; other titles as written. */
function tidyTitle(title: string, folded: string): string {
  return /^(?:\p{L} ){2,}\p{L}/u.test(title) ? folded.toUpperCase() : title
}

/**
 * Splits the text. Inline headings ("Skills: Python, Go") open a section with their content as
 * the first line, except inside skills, where "Languages: Python, Go" is a skill category.
 */
export function splitSections(text: string): SplitResume {
  // rules ("-------", "=====") are layout, like blank lines; blank lines are kept inside
  // sections because they separate entries, and dropped from the header
  const lines = text.split(/\r?\n/).map((l) => (/^\s*[-=_~*.·•─━═]{3,}\s*$/.test(l) ? '' : l.replace(/\s+$/, '')))
  const cands = lines.map(asHeading)
  // the document's heading style, from its known headings: all capitals? ending with ':'?
  const known = cands.filter((c): c is Candidate => !!c && !!c.kind && !c.inline)
  const upperStyle = known.length > 0 && known.filter((c) => c.upper).length >= known.length / 2
  const colonStyle = known.length > 0 && known.filter((c) => c.colon).length >= known.length / 2
  const header: string[] = []
  const sections: Section[] = []
  let current: Section | null = null
  for (let i = 0; i < lines.length; i++) {
    const c = cands[i]
    const line = lines[i]
    if (line.trim() === '') {
      if (current && current.lines.length && current.lines[current.lines.length - 1] !== '') current.lines.push('')
      continue
    }
    const inSkills = current?.kind === 'skills'
    let heading: Candidate | null = null
    if (c?.kind && !c.inline && !isSubHeading(c, current, upperStyle, colonStyle)) heading = c
    else if (c?.kind && c.inline && !inSkills && current?.kind !== c.kind && c.kind !== 'experience' && c.kind !== 'education') heading = c
    // inside skills, a line in the headings' style that is no common heading names a group of skills ("PROGRAMMING")
    else if (c && !c.kind && !c.inline && (current || known.length === 0) && !(inSkills && !isCustom(foldHeading(c.title))) && customHeadingFits(c, lines, i, upperStyle, colonStyle)) heading = c
    if (heading && !(heading.kind && !heading.inline && isEmptyRepeat(current, heading))) {
      current = { kind: heading.kind ?? 'custom', title: heading.title, lines: heading.inline ? [heading.inline] : [] }
      sections.push(current)
      continue
    }
    if (current) current.lines.push(line)
    else header.push(line)
  }
  for (const s of sections) while (s.lines.length && s.lines[s.lines.length - 1] === '') s.lines.pop()
  return { header, sections: sections.filter((s) => s.lines.length > 0 || s.kind !== 'custom') }
}

/**
 * "Achievements:" inside an experience section, in another style than the document's headings,
 * heads a job's achievements rather than an awards section.
 */
function isSubHeading(c: Candidate, current: Section | null, upperStyle: boolean, colonStyle: boolean): boolean {
  if (current?.kind !== 'experience' || c.kind !== 'awards') return false
  return c.upper !== upperStyle || c.colon !== colonStyle
}

/** A heading repeated right after itself (a running page header) adds no section. */
function isEmptyRepeat(current: Section | null, heading: Candidate): boolean {
  return !!current && current.lines.length === 0 && current.kind === heading.kind
}

/**
 * A line not among the known headings is a custom heading when it matches the document's
 * heading style, or is a common extra heading word ("Publications") in title or upper case.
 * e.g. with "EXPERIENCE" and "EDUCATION" as headings, "PUBLICATIONS" and "MILITARY SERVICE" are headings;
 * "GOOGLE" directly followed by a dated line is an employer, not a heading.
 */
function customHeadingFits(c: Candidate, lines: string[], i: number, upperStyle: boolean, colonStyle: boolean): boolean {
  const folded = foldHeading(c.title)
  const following = lines.slice(i + 1).filter((l) => l.trim() !== '')
  const next = following[0]
  if (!next) return false
  const common = isCustom(folded)
  if (common && (c.upper || c.colon || /^\p{Lu}/u.test(c.title))) return true
  if (c.title.split(/\s+/).length > 4) return false
  // an employer or school in capitals is followed by its dates or title, a heading by content
  if (/\b(19|20)\d\d\b/.test(next) || /\b(19|20)\d\d\b/.test(following[1] ?? '')) return false
  if (upperStyle && c.upper && !c.colon) return true
  if (colonStyle && c.colon && (c.upper || /^\p{Lu}/u.test(c.title))) return true
  return false
}
