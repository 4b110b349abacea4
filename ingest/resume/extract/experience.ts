/**
 * Work experience entries: title, company, location and dates from an entry's header lines,
 * responsibilities and achievements from its body. Header layouts handled:
 * "Title, Company", "Title at Company", "Company — Title", "Title | Company | Dates",
 * title and company on separate lines, dates on their own line or at the end of one.
 */
import { findDateRange } from '../dates.ts'
import { splitEntries, splitFields, type Entry } from '../entries.ts'
import type { WorkExperience } from '../types.ts'
import { isPlace, trailingPlace } from './places.ts'

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
      'banker', 'trader', 'broker', 'negotiator', 'translator', 'interpreter', 'copywriter', 'illustrator', 'animator',
    ].join('|') +
    ')s?\\b',
  'i',
)
/** Legal forms that end a company's name: a field with one is the company even beside a title word. */
const LEGAL_FORM = /(?<!\p{L})(inc|llc|l\.l\.c|ltd|limited|corp|corporation|co|gmbh|ag|s\.a|s\.a\.s|sa|sas|srl|s\.r\.l|spa|s\.p\.a|plc|pty|bv|b\.v|nv|oy|ab|kk|pvt|llp|lp)\.?\)?$/iu
/** Words that mark an organisation's name, used when no title word decides. */
const COMPANY_WORDS =
  /\b(inc|llc|l\.l\.c|ltd|limited|corp|corporation|co|company|gmbh|ag|s\.?a|s\.?a\.?s|plc|pty|bv|b\.v|oy|ab|k\.?k|pvt|group|technologies|labs?|systems|solutions|bank|university|college|school|hospital|institute|partners|consulting|capital|holdings|ventures|studios?|agency|foundation|associates|services|international|networks|pharmaceuticals|clinic|centre|center|department|ministry|government|council|command|army|navy|air force|church|restaurant|hotel|store|market|startup|google|microsoft|amazon|apple|meta|facebook|netflix|ibm|oracle|intel)\b\.?/i

export const hasTitleWord = (s: string) => TITLE_WORDS.test(s)
export const hasCompanyWord = (s: string) => COMPANY_WORDS.test(s)

/** Results: numbers, money, percentages, or a verb of outcome. */
const ACHIEVEMENT_RE = /\d|%|[$€£¥]|\b(increas|reduc|improv|sav(ed|ing)|grew|grow|boost|doubl|tripl|exceed|won\b|award|recogni[sz]ed|promoted|achiev|ranked|top \d)/i
const ACHIEVEMENT_LABELS = new Set(['achievements', 'key achievements', 'accomplishments', 'results', 'impact'])

/**
 * e.g. ["Dunamu Inc.  Seoul, S.Korea", "DevOps Engineer  Sep. 2023 – Mar. 2024", "• Led service mesh research ..."]
 *   -> [{company: "Dunamu Inc.", location: "Seoul, S.Korea", title: "DevOps Engineer", start_date: "2023-09", end_date: "2024-03", responsibilities: [...]}]
 */
export function extractExperience(lines: string[]): WorkExperience[] {
  return splitEntries(lines).map(readJob).filter((j) => j.title || j.company)
}

export function readJob(entry: Entry): WorkExperience {
  const job: WorkExperience = {}
  const head = readHead(entry.head)
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
export function readHead(headLines: string[]): Head {
  const out: Head = {}
  type Field = { text: string; dated: boolean; line: number }
  const fields: Field[] = []
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
    const parts = splitFields(text)
    // a place ending the line is taken before commas split the fields: "R.O.K Cyber Command, MND  Seoul, S.Korea"
    const tp = !out.location && parts.length ? trailingPlace(parts[parts.length - 1]) : null
    if (tp?.rest) {
      out.location = tp.place
      parts[parts.length - 1] = tp.rest
    }
    for (const part of parts) {
      for (const p of splitAt(part)) fields.push({ text: p, dated, line })
    }
  })
  const rest: Field[] = []
  for (const f of fields) {
    const t = f.text.replace(/^\((.*)\)$/, '$1').trim()
    if (!t) continue
    // "Google Mountain View, CA": the town found in the gazetteer splits the field first
    const tp = !out.location ? trailingPlace(t) : null
    if (tp && tp.rest) {
      out.location = tp.place
      rest.push({ ...f, text: tp.rest })
      continue
    }
    if (!out.location && isPlace(t)) {
      out.location = t
      continue
    }
    rest.push({ ...f, text: t })
  }
  // title: a field with a title word and no company mark; company: one with a company mark
  // a title ends with its role word ("Investment Associate"), a firm may only contain one ("Meridian Capital Partners")
  const lastWordTitle = (s: string) => !/(?:^|\s)(partners?|associates|group|services)$/i.test(s) && hasTitleWord(s.split(/\s+/).slice(-1)[0])
  let titleIdx = rest.findIndex((f) => lastWordTitle(f.text) && !LEGAL_FORM.test(f.text))
  if (titleIdx < 0) titleIdx = rest.findIndex((f) => hasTitleWord(f.text) && !LEGAL_FORM.test(f.text))
  let companyIdx = rest.findIndex((f, i) => i !== titleIdx && LEGAL_FORM.test(f.text))
  if (companyIdx < 0) companyIdx = rest.findIndex((f, i) => i !== titleIdx && hasCompanyWord(f.text) && (titleIdx >= 0 || !hasTitleWord(f.text)))
  let t = titleIdx
  if (t < 0) t = rest.findIndex((f, i) => i !== companyIdx && hasTitleWord(f.text))
  if (t < 0 && rest.length > 1) {
    // no title word anywhere: the first field of the dated line, else the first field
    const onDated = rest.findIndex((f, i) => f.dated && i !== companyIdx)
    t = onDated >= 0 && companyIdx >= 0 ? onDated : rest.findIndex((_, i) => i !== companyIdx)
  }
  if (companyIdx < 0) companyIdx = rest.findIndex((_, i) => i !== t)
  if (t >= 0) out.title = clean(rest[t].text)
  if (companyIdx >= 0) out.company = clean(rest[companyIdx].text)
  if (!out.title) delete out.title
  if (!out.company) delete out.company
  return out
}

/** "Software Engineer at Google" / "Engineer @ Acme" / "Analyst, Deloitte" -> two fields. */
function splitAt(part: string): string[] {
  const at = part.match(/^(.+?)\s+(?:at|@)\s+(\p{Lu}.+)$/u)
  if (at && (hasTitleWord(at[1]) || at[1].split(/\s+/).length <= 5)) return [at[1], at[2]]
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
