/**
 * A flattened experience section (no line breaks, punctuation stripped, two spaces where a line
 * or a separator was) back into one header line per job. Job sites write each job as
 * "Title Company  Town Region  Month YYYY to Month YYYY" followed by its description, so the date
 * range is the anchor: the words right before it are the job's header, read from the end (place,
 * then employer, then title), and whatever precedes the title is the previous job's last bullet.
 *
 * e.g. "… capacity planning for peak load Lead Storage Administrator Tallyrand Data Services  Pune Maharashtra March 2015 to June 2020 …"
 *   -> "• capacity planning for peak load" / "" / "Lead Storage Administrator | Tallyrand Data Services | Pune, Maharashtra | March 2015 to June 2020"
 */
import { DATE_SOURCE } from './dates.ts'
import { hasCompanyWord, hasTitleWord } from './extract/experience.ts'
import { isCity, isPlace, isRegion } from './extract/places.ts'

const PRESENT = '(?:present|current|now|till date|to date|today)'
/** "August 2020 to Present", "2016 to 2020", "May 2015 - March 2018": the ranges a job site writes under each job. */
const RANGE_RE = new RegExp(`(?<![\\w/])(${DATE_SOURCE})\\s+(?:to|-|–|—|till|until)\\s+(${DATE_SOURCE}|${PRESENT})(?!\\w)`, 'gi')

/** Words that open a title: reading back from the role word, the title starts at one of them. */
const OPENS_TITLE = /^(senior|sr|junior|jr|lead|principal|chief|head|assistant|associate|intern|trainee|staff|deputy|vice|executive|former)$/i
/** Lowercase words a title may hold between capitalised ones ("Director of Sales", "Research and Development Engineer"). */
const TITLE_LINK = /^(and|of|&|for)$/
/** Legal forms after which a town written without a gap still is the place ("… Private Limited Pune"). */
const LEGAL_END = /^(ltd|limited|pvt|inc|llc|llp|corp|corporation|gmbh|plc|co)$/i

type Word = { text: string; gap: boolean }

const capital = (w: string) => /^[\p{Lu}\d]/u.test(w)
const allCaps = (w: string) => /\p{Lu}/u.test(w) && !/\p{Ll}/u.test(w)
const isRole = (w: string) => hasTitleWord(w) && capital(w)

export type FlatJob = { tail: string[]; title?: string; company?: string; place?: string }

/** Words with a flag for the gap (two spaces or more) before each. */
function toWords(s: string): Word[] {
  const out: Word[] = []
  for (const m of s.matchAll(/(\s*)(\S+)/g)) out.push({ text: m[2], gap: m[1].length >= 2 })
  return out
}

/**
 * The place at the end of a job's header: the block after the last gap when it is a place
 * ("Pune Maharashtra", "Noida Uttar Pradesh", "Ontario"), else a town and region at the very end
 * ("… Pvt Ltd Bengaluru Karnataka"), else a known town right after a legal form. Returns how many
 * words it takes.
 */
function placeAtEnd(words: Word[]): { place: string; n: number } | null {
  const n = words.length
  // a known town written in lower case alone after a gap: "… Telecom private Limited  jaipur"
  const last = words[n - 1]
  if (last && last.gap && /^\p{Ll}+$/u.test(last.text) && last.text.length > 3) {
    const town = last.text.charAt(0).toUpperCase() + last.text.slice(1)
    if (isCity(town) && isPlace(town)) return { place: town, n: 1 }
  }
  for (let k = Math.min(4, n); k >= 1; k--) {
    const block = words.slice(n - k)
    if (!block.every((w) => capital(w.text))) continue
    const afterGap = block[0].gap || n - k === 0
    const text = block.map((w) => w.text)
    // a town and its region (one or two words each)
    for (let r = 1; r <= Math.min(2, k); r++) {
      const region = text.slice(k - r).join(' ')
      const town = text.slice(0, k - r).join(' ')
      if (!isRegion(region) && !isPlace(region)) continue
      if (town && isPlace(`${town}, ${region}`) && (afterGap || isCity(town))) return { place: `${town}, ${region}`, n: k }
      if (!town && afterGap && k === r) return { place: region, n: k }
    }
    if (k <= 2 && isCity(text.join(' ')) && isPlace(text.join(' ')) && (afterGap || LEGAL_END.test(words[n - k - 1]?.text ?? ''))) return { place: text.join(' '), n: k }
  }
  return null
}

/**
 * Where the title starts, reading back from its role word: capitalised words, at most four, and
 * never across what marks the end of a sentence or bullet before it: a lowercase word, a gap
 * (unless what lies before the gap is a short run of capitalised words, as "Hardware  Network
 * Engineer" where "&" was stripped), an all-capital word beside a title in title case
 * ("PREVIOUS EMPLOYER Support Engineer"), and it stops after a word that opens titles ("Senior").
 */
function titleStart(words: Word[], role: number, floor: number): number {
  const caps = allCaps(words[role].text)
  let start = role
  while (start > floor && role - start < 3) {
    const w = words[start - 1].text
    if (words[start].gap) {
      // a short run of capitalised words alone before the gap belongs to the title
      let b = start - 1
      while (b > floor && !words[b].gap) b--
      const block = words.slice(b, start)
      const whole = b === floor || words[b].gap
      if (whole && block.length <= 2 && block.every((x) => capital(x.text) && (!caps || allCaps(x.text)))) start = b
      else if (caps && allCaps(w)) {
        // a title in capitals: the run of capitals right before the gap, after a word that is not
        // ("… KibanaStack QA TOOLS  BUILD ENGINEER", where "&" was stripped)
        let c = start - 1
        while (c > floor && start - c < 2 && !words[c].gap && allCaps(words[c - 1].text)) c--
        if (c === floor || words[c].gap || !allCaps(words[c - 1].text)) start = c
      }
      break
    }
    if (caps ? !allCaps(w) : !(capital(w) || TITLE_LINK.test(w))) break
    // (the first word of the text is the title's: "PLSQL Database Developer" right after the heading)
    if (!caps && allCaps(w) && w.length > 4 && start - 1 > floor) break
    start--
    if (OPENS_TITLE.test(w)) break
  }
  // the capitalised run goes on past the longest title: the words before are a list the bullet
  // ended with ("… Ruby Rails Sidekiq Redis IT Support Engineer"), so the title starts at
  // a word that opens titles or names a department in capitals ("IT", "QA", "HR")
  if (start > floor && role - start >= 3 && !words[start].gap && capital(words[start - 1].text) && !OPENS_TITLE.test(words[start].text)) {
    const head = words.findIndex((x, k) => k > start && k < role && (OPENS_TITLE.test(x.text) || /^\p{Lu}{2,3}$/u.test(x.text)))
    if (head > 0) start = head
  }
  while (start < role && TITLE_LINK.test(words[start].text)) start++
  // a town right after the previous job's dates is that job's place: "… to March 2018 Pune Associate Engineer"
  if (start === floor && start < role && !allCaps(words[start].text) && isCity(words[start].text) && isPlace(words[start].text) && !hasTitleWord(words[start].text)) start++
  return start
}

/** The header of one job out of the text between the previous job's dates (or the heading) and its own. */
export function cutJobHeader(pre: string): FlatJob {
  const words = toWords(pre.trimEnd())
  const place = placeAtEnd(words)
  const body = place ? words.slice(0, words.length - place.n) : words
  // the title's role word: the last one that the employer follows (a capitalised word, or words
  // with a company mark: "eduquity career technologies"), else the last word
  let role = -1
  for (let i = body.length - 2; i >= 0; i--) {
    const next = body[i + 1].text
    if (isRole(body[i].text) && !isRole(next) && (!TITLE_LINK.test(next) || (/^(of|for)$/.test(next) && capital(body[i + 2]?.text ?? '') && i + 3 < body.length)) && (capital(next) || hasCompanyWord(body.slice(i + 1).map((w) => w.text).join(' ')))) {
      role = i
      break
    }
  }
  if (role < 0 && body.length && isRole(body[body.length - 1].text)) role = body.length - 1
  const join = (ws: Word[]) => ws.map((w) => w.text).join(' ')
  if (role < 0) {
    // no role word: a short run of capitalised words right before the dates (all capitals, or with
    // a company word) names the employer alone
    let s = body.length
    while (s > 0 && body.length - s < 5 && capital(body[s - 1].text)) {
      s--
      if (body[s].gap) break
    }
    const company = body.slice(s)
    if (!company.length || !(company.every((w) => allCaps(w.text)) || hasCompanyWord(join(company)))) return { tail: splitGaps(body) }
    return { tail: splitGaps(body.slice(0, s)), company: join(company), place: place?.place }
  }
  const start = titleStart(body, role, 0)
  // "Head of Department Lycée Victor Hugo": a role word's "of" and the word after it are the title's
  let end = role
  if (/^(of|for)$/.test(body[role + 1]?.text ?? '') && capital(body[role + 2]?.text ?? '') && role + 3 < body.length) end = role + 2
  let company = join(body.slice(end + 1))
  let title = join(body.slice(start, end + 1))
  // "Support Engineer L2 in Brightlink Telecom": a specialty after the role word, then "in" or "at" and the employer
  const inFirm = company.match(/^((?:\p{Lu}[\p{L}\d]*\s+){1,2})(?:in|at)\s+(\p{Lu}.*)$/u)
  if (inFirm && !hasCompanyWord(inFirm[1])) {
    title = `${title} ${inFirm[1].trim()}`
    company = inFirm[2]
  }
  return { tail: splitGaps(body.slice(0, start)), title, ...(company ? { company } : {}), place: place?.place }
}

/** Words back into the segments their gaps separated. */
function splitGaps(ws: Word[]): string[] {
  const out: string[][] = []
  for (const w of ws) {
    if (w.gap || !out.length) out.push([])
    out[out.length - 1].push(w.text)
  }
  return out.map((s) => s.join(' ')).filter((s) => s.trim() !== '')
}

const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*'
const MARK = '(?:Team|Role|Roles|Project|Projects|Duration|Description|Responsibilities|Environment|Technologies|Domain)'
/**
 * "Client Harborline Insurance Jan 2021  Present", "Client Northwind Inc Team size 4": the client's
 * name in capitalised words, then its dates (the dash stripped) or the next label; "Client Focus Groups run …" is prose.
 */
const CLIENT_RE = new RegExp(`\\bClient (\\p{Lu}[\\p{L}\\p{N}&.]*(?: (?!${MARK}\\b|${MONTH}\\b|(?:19|20)\\d\\d\\b)[\\p{Lu}\\d][\\p{L}\\p{N}&.]*){0,5})(?:\\s+((?:${MONTH}\\s+)?(?:19|20)\\d\\d)\\s+(?:to\\s+|-\\s+)?(Present|Current|Till Date|(?:${MONTH}\\s+)?(?:19|20)\\d\\d)|(?= ${MARK}\\b))`, 'gu')
/** "Role Release Coordinator Responsibilities": the role held for that client. */
const ROLE_RE = new RegExp(`\\bRole\\s+((?:\\p{Lu}[\\p{L}]*\\s+){0,4}?\\p{Lu}[\\p{L}]*)(?=\\s+(?:${MARK}|Client)\\b|\\s{2}|\\s*$)`, 'gu')

type Sub = { index: number; end: number; title?: string; client?: string; dates?: string }

/**
 * IT services firms' resumes list the clients a job was spent with, each with its dates and the
 * role held there: "… Client Kestrel Freight Oct 2018  Nov 2019 Role Release Coordinator
 * Responsibilities …". Each client (or a role without one) is an entry of its own, with the job's
 * dates when it has none. A "Role" that names no role word ("Role Based Access Control") is prose.
 */
function clientRoles(text: string): Sub[] {
  const subs: Sub[] = []
  const marks = [
    ...[...text.matchAll(CLIENT_RE)].map((m) => ({ kind: 'client' as const, m })),
    ...[...text.matchAll(ROLE_RE)].filter((m) => hasTitleWord(m[1])).map((m) => ({ kind: 'role' as const, m })),
  ].sort((a, b) => a.m.index! - b.m.index!)
  for (const { kind, m } of marks) {
    const cur = subs[subs.length - 1]
    const end = m.index! + m[0].length
    if (kind === 'client') subs.push({ index: m.index!, end, client: m[1].trim(), ...(m[2] ? { dates: `${m[2]} - ${m[3]}` } : {}) })
    // the role follows its client, perhaps after a short label ("Team size 5")
    else if (cur && !cur.title && m.index! - cur.end <= 40) Object.assign(cur, { title: m[1].trim(), end })
    else subs.push({ index: m.index!, end, title: m[1].trim() })
  }
  return subs
}

/** The lines of one job's description: bullets at its gaps, and an entry for each client or role in it. */
function describe(text: string, job: { title?: string; range: string } | null): string[] {
  const subs = job ? clientRoles(text).filter((s) => s.client || s.title !== job.title) : []
  const out: string[] = []
  let pos = 0
  for (const s of subs) {
    out.push(...splitGaps(toWords(text.slice(pos, s.index))).map((t) => `• ${t}`), '')
    out.push([s.title ?? '', s.client ?? '', s.dates ?? job!.range].join(' | '))
    pos = s.end
  }
  out.push(...splitGaps(toWords(text.slice(pos))).map((t) => `• ${t}`))
  return out
}

/**
 * A flattened experience section's lines: one header line per dated job, "Title | Company | Place | Dates",
 * the text around them as bullets. Null when the section has no job-site date ranges to anchor on.
 */
export function flatJobLines(section: string): string[] | null {
  const ranges = [...section.matchAll(RANGE_RE)]
  if (!ranges.length) return null
  const out: string[] = []
  let pos = 0
  let found = 0
  let prev: { title?: string; range: string } | null = null
  for (const r of ranges) {
    const pre = section.slice(pos, r.index)
    const job = cutJobHeader(pre)
    if (!job.title && !job.company) {
      // dates inside a bullet ("migrated from 2014 to 2016"): the bullet goes on
      continue
    }
    found++
    // the previous job's description is what precedes this job's header
    const headerAt = pre.lastIndexOf(job.title ?? job.company ?? '')
    const description = job.tail.length ? pre.slice(0, Math.max(0, headerAt)) : ''
    out.push(...(prev && description ? describe(description, prev) : job.tail.map((t) => `• ${t}`)), '')
    out.push([job.title, job.company, job.place, r[0]].filter(Boolean).join(' | '))
    pos = r.index! + r[0].length
    prev = { title: job.title, range: r[0] }
  }
  if (!found) return null
  out.push(...describe(section.slice(pos), prev))
  return out
}
