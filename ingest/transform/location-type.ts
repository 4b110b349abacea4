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
  'on premises': 'In-Person', 'in-person': 'In-Person',
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
