/**
 * Work experience entries: title, company, location and dates from an entry's header lines,
 * responsibilities and achievements from its body. Header layouts handled:
 * "Title, Company", "Title at Company", "Company — Title", "Title | Company | Dates",
 * title and company on separate lines, dates on their own line or at the end of one.
 */
import { findDateRange } from '../dates.ts'
import { splitEntries, splitFields, type Entry } from '../entries.ts'
import type { WorkExperience } from '../types.ts'
import { isPlace, splitAtPlaceholder, trailingPlace } from './places.ts'
import { readTable, type TableRow } from './table.ts'

const TITLE_WORDS = new RegExp(
  '\\b(' +
    [
      'engineer', 'engineering manager', 'developer', 'programmer', 'manager', 'director', 'analyst', 'consultant', 'designer',
      'architect', 'scientist', 'researcher', 'intern', 'internship', 'assistant', 'associate', 'specialist', 'coordinator',
      'administrator', 'officer', 'lead', 'head', 'president', 'vp', 'vice', 'chief', 'ceo', 'cto', 'cfo', 'coo', 'cio',
      'founder', 'co-founder', 'cofounder', 'owner', 'partner', 'representative', 'agent', 'advisor', 'adviser', 'accountant',
      'auditor', 'nurse', 'teacher', 'tutor', 'instructor', 'professor', 'lecturer', 'technician', 'operator', 'supervisor',
      'clerk', 'cashier', 'receptionist', 'editor', 'writer', 'journalist', 'producer', 'attorney', 'lawyer', 'paralegal',
      'counsel', 'physician', 'therapist', 'pharmacist', 'chef', 'cook', 'driver', 'mechanic', 'electrician', 'fellow',
      'trainee', 'apprentice', 'volunteer', 'sre', 'devops', 'recruiter', 'strategist', 'planner', 'executive', 'postdoc',
      'tester', 'buyer', 'bartender', 'server', 'barista', 'photographer', 'artist', 'staff', 'principal', 'senior', 'junior',
      'sr', 'jr', 'member', 'contractor', 'freelance', 'freelancer', 'teaching assistant', 'research assistant', 'student',
      'pentester', 'penetration tester', 'product owner', 'scrum master', 'controller', 'bookkeeper', 'secretary', 'estimator',
      'inspector', 'foreman', 'welder', 'plumber', 'carpenter', 'dentist', 'surgeon', 'paramedic', 'caregiver', 'counselor',
      'counsellor', 'librarian', 'ambassador', 'organizer', 'organiser', 'mentor', 'coach', 'trainer', 'evangelist', 'expert',
      'marketer', 'salesperson', 'seller', 'worker', 'handler', 'courier', 'housekeeper', 'waiter', 'waitress', 'host', 'hostess',
      'dispatcher', 'surveyor', 'midwife', 'doctor', 'veterinarian', 'economist', 'statistician', 'actuary', 'underwriter',
      'banker', 'trader', 'broker', 'educator', 'negotiator', 'translator', 'interpreter', 'copywriter', 'illustrator', 'animator',
    ].join('|') +
    ')s?\\b',
  'i',
)
/** Legal forms that end a company's name: a field with one is the company even beside a title word. */
const LEGAL_FORM = /(?<!\p{L})(inc|llc|l\.l\.c|ltd|limited|corp|corporation|co|gmbh|ag|s\.a|s\.a\.s|sa|sas|srl|s\.r\.l|spa|s\.p\.a|plc|pty|bv|b\.v|nv|oy|ab|kk|pvt|llp|lp)\.?\)?$/iu
/** Words that mark an organisation's name, used when no title word decides. */
const COMPANY_WORDS =
  /\b(inc|llc|l\.l\.c|ltd|limited|corp|corporation|co|company|gmbh|ag|s\.?a|s\.?a\.?s|plc|pty|bv|b\.v|oy|ab|k\.?k|pvt|group|technologies|labs?|systems|solutions|bank|university|college|school|hospital|institute|partners|consulting|capital|holdings|ventures|studios?|agency|foundation|associates|services|international|networks|pharmaceuticals|clinic|centre|center|department|ministry|government|council|command|army|navy|air force|church|restaurant|hotel|store|market|startup|google|microsoft|amazon|apple|meta|facebook|netflix|ibm|oracle|intel)\b\.?/i

const PLACEHOLDER_COMPANY = /^company name$/i
export const hasTitleWord = (s: string) => TITLE_WORDS.test(s)
export const hasCompanyWord = (s: string) => COMPANY_WORDS.test(s)

/** Results: numbers, money, percentages, or a verb of outcome. */
const ACHIEVEMENT_RE = /\d|%|[$€£¥]|\b(increas|reduc|improv|sav(ed|ing)|grew|grow|boost|doubl|tripl|exceed|won\b|award|recogni[sz]ed|promoted|achiev|ranked|top \d)/i
const ACHIEVEMENT_LABELS = new Set(['achievements', 'key achievements', 'accomplishments', 'results', 'impact'])

/**
 * e.g. ["Haneul Systems Inc.  Seoul, S.Korea", "Platform Engineer  Apr. 2019 – Nov. 2021", "• Led build pipeline migration ..."]
 *   -> [{company: "Haneul Systems Inc.", location: "Seoul, S.Korea", title: "Platform Engineer", start_date: "2019-04", end_date: "2021-11", responsibilities: [...]}]
 */
export function extractExperience(lines: string[], towns?: ReadonlySet<string>): WorkExperience[] {
  const table = readTable(lines)
  const rows = table?.rows.map(tableJob) ?? []
  const entries = splitEntries(table?.rest ?? lines)
  const jobs = entries.map((e) => readJob(e, towns))
  inheritEmployer(entries, jobs)
  return [...rows, ...jobs].filter((j) => j.title || j.company)
}

/**
 * Roles listed under one employer, as LinkedIn's export and "promoted to" entries write them:
 * "Google" / "Senior Engineer" / "2020 – Present" / "Engineer" / "2017 – 2019". A dated role with
 * no employer of its own works for the one above it.
 */
function inheritEmployer(entries: Entry[], jobs: WorkExperience[]) {
  let employer: string | undefined
  for (let i = 0; i < jobs.length; i++) {
    const j = jobs[i]
    // an employer heads its group alone on the entry's first line
    if (j.company && entries[i].head[0]?.trim() === j.company) employer = j.company
    else if (j.company) employer = undefined
    else if (employer && j.title && (j.start_date || j.end_date)) j.company = employer
  }
}

/** A table row's cells are already fields; only the dates need reading, and the notes sorting. */
function tableJob(row: TableRow): WorkExperience {
  const job = readJob({ head: [], body: row.notes.map((text) => ({ text, bullet: true })) })
  const range = row.dates ? findDateRange(row.dates) : null
  const head: WorkExperience = {
    ...(row.title ? { title: clean(row.title) } : {}),
    ...(row.company ? { company: clean(row.company) } : {}),
    ...(row.location ? { location: clean(row.location) } : {}),
    ...(range?.start_date ? { start_date: range.start_date } : {}),
    ...(range?.end_date ? { end_date: range.end_date } : {}),
  }
  return { ...head, ...job }
}

/** `towns`: the resume's own towns (headerTowns), to cut from a line as its place. */
export function readJob(entry: Entry, towns?: ReadonlySet<string>): WorkExperience {
  const job: WorkExperience = {}
  const head = readHead(entry.head, towns)
  Object.assign(job, head)
  const responsibilities: string[] = []
  const achievements: string[] = []
  for (const b of entry.body) {
    if (b.label && !ACHIEVEMENT_LABELS.has(b.label) && !/responsibilit|duties|description/.test(b.label)) {
      responsibilities.push(`${cap(b.label)}: ${b.text}`)
      continue
    }
    if ((b.label && ACHIEVEMENT_LABELS.has(b.label)) || (!b.label && ACHIEVEMENT_RE.test(b.text))) achievements.push(b.text)
    else responsibilities.push(b.text)
  }
  if (responsibilities.length) job.responsibilities = responsibilities
  if (achievements.length) job.achievements = achievements
  return job
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)

type Head = Pick<WorkExperience, 'title' | 'company' | 'location' | 'start_date' | 'end_date'>

/** Reads an entry's header lines into title, company, location and dates. */
export function readHead(headLines: string[], towns?: ReadonlySet<string>): Head {
  const out: Head = {}
  // placed: the field a place was written after, as "Company ï¼ Town , Region" writes the employer
  type Field = { text: string; dated: boolean; line: number; placed?: boolean }
  const fields: Field[] = []
  let placeLine = -1
  headLines.forEach((raw, line) => {
    let text = raw
    let dated = false
    if (!out.start_date && !out.end_date) {
      const r = findDateRange(text)
      if (r) {
        if (r.start_date) out.start_date = r.start_date
        if (r.end_date) out.end_date = r.end_date
        text = r.rest
        dated = true
      }
    }
    const parts = splitFields(splitAtPlaceholder(unglueRole(text)))
    // a place ending the line is taken before commas split the fields: "Eastern Signals Brigade, MOD  Seoul, S.Korea"
    const tp = !out.location && parts.length ? trailingPlace(parts[parts.length - 1], towns) : null
    if (tp?.rest) {
      out.location = tp.place
      placeLine = line
      parts[parts.length - 1] = tp.rest
    }
    parts.forEach((part, k) => {
      const ps = splitAt(part)
      ps.forEach((p, j) => fields.push({ text: p, dated, line, ...(tp?.rest && k === parts.length - 1 && j === ps.length - 1 ? { placed: true } : {}) }))
    })
  })
  // "DAEJIN | Seoul, S.Korea": a town with its country is the place, before any one-word town
  const full = fields.findIndex((f) => f.text.includes(',') && isPlace(f.text))
  if (!out.location && full >= 0) {
    out.location = fields[full].text
    if (full > 0 && fields[full - 1].line === fields[full].line) fields[full - 1].placed = true
    fields.splice(full, 1)
  }
  const rest: Field[] = []
  for (const f of fields) {
    const t = f.text.replace(/^\((.*)\)$/, '$1').trim()
    if (!t) continue
    // "Brightwave Mountain View, CA": the town found in the gazetteer splits the field first
    const tp = !out.location ? trailingPlace(t, towns) : null
    if (tp && tp.rest) {
      out.location = tp.place
      placeLine = f.line
      rest.push({ ...f, text: tp.rest, placed: true })
      continue
    }
    if (!out.location && isPlace(t)) {
      out.location = t
      const before = rest[rest.length - 1]
      if (before && before.line === f.line) before.placed = true
      continue
    }
    // "Head of Sales Company Name": the anonymized employer run on after a title
    const anon = t.match(/^(.+?)\s+(Company Name)$/i)
    const lower = anon ? [anon[1], anon[2]] : lowerTail(t)
    if (lower) rest.push({ ...f, text: lower[0] }, { ...f, text: lower[1], placed: f.placed })
    else rest.push({ ...f, text: t })
  }
  joinWrappedFields(rest, placeLine)
  // title: a field with a title word and no company mark; company: one with a company mark
  // a title ends with its role word ("Investment Associate"), a firm may only contain one ("Meridian Capital Partners")
  const lastWordTitle = (s: string) => !/(?:^|\s)(partners?|associates|group|services)$/i.test(s) && hasTitleWord(s.split(/\s+/).slice(-1)[0])
  let titleIdx = rest.findIndex((f) => lastWordTitle(f.text) && !LEGAL_FORM.test(f.text))
  if (titleIdx < 0) titleIdx = rest.findIndex((f) => hasTitleWord(f.text) && !LEGAL_FORM.test(f.text))
  // "Store Buyer - Outdoor and Garden": what follows the title after a dash and names no role, firm
  // or place is the title's department or line, unless nothing else can be the employer
  const after = titleIdx >= 0 ? rest[titleIdx + 1] : undefined
  let spec = after && after.line === rest[titleIdx].line && !hasTitleWord(after.text) && !hasCompanyWord(after.text) && !LEGAL_FORM.test(after.text) && after.text.split(/\s+/).length <= 6 && dashBetween(unglueRole(headLines[after.line]), rest[titleIdx].text, after.text) ? titleIdx + 1 : -1
  if (spec >= 0 && !rest.some((f, i) => i !== titleIdx && i !== spec)) spec = -1
  let companyIdx = rest.findIndex((f, i) => i !== titleIdx && LEGAL_FORM.test(f.text))
  if (companyIdx < 0) companyIdx = rest.findIndex((f, i) => i !== titleIdx && hasCompanyWord(f.text) && (titleIdx >= 0 || !hasTitleWord(f.text)))
  // no mark decides: the field the place follows is the employer ("… 08/2019 - 02/2022 Vantage Office Supplies ï¼ Accra , Ghana")
  if (companyIdx < 0 && titleIdx >= 0) companyIdx = rest.findIndex((f, i) => i !== titleIdx && i !== spec && f.placed && f.line === rest[titleIdx].line && !hasTitleWord(f.text) && !f.text.includes(','))
  let t = titleIdx
  if (t < 0) t = rest.findIndex((f, i) => i !== companyIdx && hasTitleWord(f.text))
  if (t < 0 && rest.length > 1) {
    // no title word anywhere: the first field of the dated line, else the first field
    // (never the anonymized employer "Company Name" that resume sites write, which names no title)
    const onDated = rest.findIndex((f, i) => f.dated && i !== companyIdx && !PLACEHOLDER_COMPANY.test(f.text))
    t = onDated >= 0 && companyIdx >= 0 ? onDated : rest.findIndex((f, i) => i !== companyIdx && !PLACEHOLDER_COMPANY.test(f.text))
  }
  if (companyIdx < 0) companyIdx = rest.findIndex((_, i) => i !== t && i !== spec)
  if (t >= 0 && companyIdx < 0) {
    const split = splitAfterRole(rest[t].text)
    if (split) {
      rest.splice(t, 1, { ...rest[t], text: split[0] }, { ...rest[t], text: split[1] })
      companyIdx = t + 1
    }
  }
  if (t >= 0) out.title = clean(rest[t].text)
  if (companyIdx >= 0) out.company = clean(rest[companyIdx].text)
  if (out.title && spec >= 0 && t === titleIdx && companyIdx !== spec) out.title = `${out.title} - ${clean(rest[spec].text)}`
  if (!out.title) delete out.title
  if (!out.company) delete out.company
  return out
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
/** Whether the line writes `b` after `a` with a dash between: "Store Buyer - Outdoor and Garden". */
const dashBetween = (line: string, a: string, b: string) => new RegExp(`${escapeRe(a)}\\s+[-–—]\\s+${escapeRe(b)}`).test(line)

/**
 * "Assistant Store Manager northfield outfitters" -> the title and an employer that writes its name
 * in lower case. The words after the role word are all in lower case, none names a role, and the
 * first is no connector ("Director of sales" stays whole, as does "Senior sales associate").
 */
function lowerTail(field: string): [string, string] | null {
  const m = field.match(/^(.*?\S)\s+(\p{Ll}[\p{Ll}'.-]*(?: (?:&|\p{Ll}[\p{Ll}'.-]*))*)$/u)
  if (!m || !hasTitleWord(m[1]) || hasTitleWord(m[2]) || /^(of|and|for|in|at|to|the|with|on|or|de)\b/.test(m[2])) return null
  return [m[1], m[2]]
}

/**
 * The space a PDF's font lost between a title's words, where the second names a role:
 * "OfficeManager" -> "Office Manager", "SalesAssociate" -> "Sales Associate". "PowerPoint",
 * "JavaScript" and "DevOps" end in no role word and stay.
 */
const GLUED_ROLE_RE = /(?<![\p{L}])(\p{Lu}\p{Ll}{2,})((?:Manager|Engineer|Director|Developer|Analyst|Assistant|Associate|Specialist|Coordinator|Consultant|Administrator|Officer|Supervisor|Designer|Architect|Technician|Representative|Accountant|Teacher|Intern|Executive|Clerk|Advisor)s?)(?![\p{L}])/gu
export const unglueRole = (s: string) => s.replace(GLUED_ROLE_RE, '$1 $2')

/**
 * A title and its employer run together with no separator, as OCR reads a table row:
 * "Warehouse Supervisor DHL Supply Chain" -> ["Warehouse Supervisor", "DHL Supply Chain"].
 * Only used when no other field can be the company; "Director of Sales" stays whole.
 */
function splitAfterRole(text: string): [string, string] | null {
  const words = text.split(/\s+/)
  let last = -1
  words.forEach((w, i) => {
    if (hasTitleWord(w)) last = i
  })
  if (last < 0 || last === words.length - 1) return null
  const tail = words.slice(last + 1).join(' ')
  if (!/^\p{Lu}/u.test(tail) || /^(of|and|for|the|at|in|to)\b/i.test(tail)) return null
  return [words.slice(0, last + 1).join(' '), tail]
}

/** Employment terms written on their own line under a job: not part of a name. */
const TERMS_RE = /^(full[- ]?time|part[- ]?time|contract|permanent|temporary|freelance|internship|remote|hybrid|on-?site|seasonal)$/i

/**
 * A field a narrow column wrapped onto the next line, alone there, joined back to the field it
 * ends: the line above already holds a title and a company, so a third short field is their tail.
 * e.g. "Northwind Systems — Junior Software" / "Developer" -> "Junior Software Developer";
 * "Nurse at Lagos University" / "Teaching Hospital" -> "Lagos University Teaching Hospital".
 * A short field under a line with only one field ("Engineer  2019 – 2021" / "Google") is its own.
 */
function joinWrappedFields(fields: { text: string; dated: boolean; line: number }[], placeLine: number) {
  for (let i = fields.length - 1; i > 0; i--) {
    const f = fields[i]
    const prev = fields[i - 1]
    const alone = fields.filter((x) => x.line === f.line).length === 1
    const above = fields.filter((x) => x.line === prev.line).length
    // what is left of a line the location was cut from ("Ciudad de" of "Ciudad de México, Mexico") is no tail
    if (!alone || prev.line !== f.line - 1 || f.dated || above < 2 || f.line === placeLine) continue
    // after a connector ("Klinikum Rechts der" / "Isar") the tail is certain, even one that names a place
    const cut = /\s(of|and|for|the|at|in|&|de|der|del|da|do|di|du|la|von|van)$/i.test(prev.text)
    if (f.text.split(/\s+/).length > 3 || /,/.test(f.text) || (isPlace(f.text) && !cut) || TERMS_RE.test(f.text) || /^\p{Ll}/u.test(f.text)) continue
    if (LEGAL_FORM.test(f.text) && !cut) continue
    prev.text = `${prev.text} ${f.text}`
    fields.splice(i, 1)
  }
}

/** "Software Engineer at Google" / "Engineer @ Acme" / "Analyst, Deloitte" -> two fields. */
function splitAt(part: string): string[] {
  const at = part.match(/^(.+?)\s+(?:at|@)\s+(\p{Lu}.+)$/u)
  // "Intern at Summer Internship Program" names a programme, not an employer: the part after "at"
  // is a company only when it has no role word, or has a company mark
  const employer = at && (!hasTitleWord(at[2]) || hasCompanyWord(at[2]))
  if (at && employer && (hasTitleWord(at[1]) || at[1].split(/\s+/).length <= 5)) return [at[1], at[2]]
  const comma = part.match(/^([^,]+),\s+(.+)$/)
  if (comma && !isPlace(part)) {
    const [a, b] = [comma[1], comma[2]]
    // "Acme, Inc." is one name; "Engineer, Acme Corp" or "Acme Corp, Engineer" is two fields
    if (/^(inc|llc|ltd|co|corp|gmbh|plc|s\.?a)\b\.?/i.test(b)) return [part]
    if (isPlace(b)) return [a, b]
    if (hasTitleWord(a) !== hasTitleWord(b) && !/^(and|&)\b/i.test(b)) return [a, b]
  }
  return [part]
}

const clean = (s: string) => s.replace(/^[\s,;:|–—-]+|[\s,;:|–—-]+$/g, '').trim()
