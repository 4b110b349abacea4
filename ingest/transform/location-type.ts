/**
 * Work arrangement -> 'Remote' | 'Hybrid' | 'In-Person' | null (unknown; a city alone does not make a
 * posting in-person, since many boards list an office city for remote roles; a street address,
 * postcode or coordinates do).
 */
import type { LocationType } from '../types.ts'

const TABLE: Record<string, LocationType> = {
  remote: 'Remote', 'fully remote': 'Remote', '100% remote': 'Remote', 'work from home': 'Remote', wfh: 'Remote', telecommute: 'Remote',
  telework: 'Remote', distributed: 'Remote', anywhere: 'Remote', 'remote first': 'Remote', 'home based': 'Remote', 'home office': 'Remote',
  'home working': 'Remote', homeworking: 'Remote',
  hybrid: 'Hybrid', 'hybrid remote': 'Hybrid', 'partially remote': 'Hybrid', 'partly remote': 'Hybrid', 'remote hybrid': 'Hybrid', flexible: 'Hybrid',
  'on site': 'In-Person', onsite: 'In-Person', 'in office': 'In-Person', office: 'In-Person', 'in person': 'In-Person', 'office based': 'In-Person',
  'on premises': 'In-Person', 'in-person': 'In-Person', 'work from office': 'In-Person',
}

/**
 * Maps a given value. e.g. "Fully Remote" -> 'Remote', "On-site" -> 'In-Person', "in office" ->
 * 'In-Person', "TELECOMMUTE" (schema.org jobLocationType) -> 'Remote', "Hybrid (3 days)" -> 'Hybrid'
 */
export function mapLocationType(value: string): LocationType | null {
  const k = value.toLowerCase().replace(/[_-]+/g, ' ').replace(/\s+/g, ' ').trim()
  if (TABLE[k]) return TABLE[k]
  if (/\bhybrid\b/.test(k)) return 'Hybrid'
  if (/\b(?:remote|work from home|telecommut)/.test(k)) return 'Remote'
  if (/\b(?:on ?site|in office|in person)\b/.test(k)) return 'In-Person'
  return null
}

/**
 * Infers from what the location fields said, hybrid first ("Hybrid remote" is hybrid). A specific
 * site (a location with a street address, a postcode or coordinates, locations.ts) is In-Person
 * when nothing says remote or hybrid: an NHS posting at "Arlesey Medical Centre, SG15 6SN" with
 * its coordinates is worked there. A city alone still says nothing.
 * e.g. {remote: true} -> 'Remote'; {hybrid: true, remote: true} -> 'Hybrid'; {site: true} -> 'In-Person';
 *      {site: true, remote: true} ("Remote | London & Southend, SS2 6DF") -> 'Remote'; nothing -> null
 */
export function inferLocationType(flags: { remote: boolean; hybrid: boolean; onsite: boolean; site?: boolean }): LocationType | null {
  if (flags.hybrid) return 'Hybrid'
  if (flags.remote) return 'Remote'
  if (flags.onsite || flags.site) return 'In-Person'
  return null
}

// What a description states of the arrangement, in the forms that mean it: "This is a fully remote
// role", "hybrid (3 days in the office)", "This position is on-site". A word alone is no statement:
// "Remote Patient Monitoring", "hybrid cloud", "remote-controlled", and "not a remote position"
// says the opposite. Scrapers that mark a posting remote whenever the word appears (JobSpy's
// is_remote on Indeed, LinkedIn, Google, Naukri) are read through this.
const NOT_REMOTE_RE = /\b(?:not|no|non)[- ](?:a |an )?(?:fully |100% )?remote\b|\bremote (?:work(?:ing)? )?(?:is )?not (?:available|possible|an option|offered)\b/i
const HYBRID_STATED_RE =
  /\bhybrid (?:role|position|job|work(?:ing)?|schedule|model|arrangement|environment|opportunity|setup|policy)\b|\b(?:role|position|job) is hybrid\b|\bhybrid\s*[-–(:,]\s*(?:\d|one|two|three|four)\s*days?\b|\b(?:\d|one|two|three|four) days? (?:a|per) week (?:in|at) (?:the |our )?(?:office|site)\b/i
const REMOTE_STATED_RE =
  /\b(?:fully|100\s?%|completely|entirely) remote\b|\bremote[- ](?:first|only|position|role|job|opportunity|based|eligible)\b|\b(?:role|position|job) is(?: fully| 100%)? remote\b|\bwork (?:from home|remotely) (?:full[- ]time|100%|from anywhere)\b|\bremote work(?:ing)? (?:is )?(?:available|allowed|possible|offered)\b/i
const ONSITE_STATED_RE = /\b(?:role|position|job) is (?:fully |100% )?(?:on[- ]?site|in[- ]person|in[- ]office|office[- ]based)\b|\b(?:on[- ]?site|in[- ]person|in[- ]office) (?:role|position|job)\b|\bmust (?:work|be) (?:on[- ]?site|in[- ]person|in the office)\b/i

/**
 * The arrangement a description states, or null when it states none.
 * e.g. "This is a fully remote role." -> 'Remote'; "Hybrid (3 days in office)" -> 'Hybrid';
 *      "This is not a remote position; the role is on-site in Denver." -> 'In-Person';
 *      "Experience with Remote Patient Monitoring" -> null
 */
export function statedLocationType(text: string): LocationType | null {
  const head = text.length > 20_000 ? text.slice(0, 20_000) : text
  if (HYBRID_STATED_RE.test(head)) return 'Hybrid'
  if (NOT_REMOTE_RE.test(head)) return 'In-Person'
  if (REMOTE_STATED_RE.test(head)) return 'Remote'
  if (ONSITE_STATED_RE.test(head)) return 'In-Person'
  return null
}
