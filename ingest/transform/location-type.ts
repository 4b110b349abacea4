/**
 * Work arrangement -> 'Remote' | 'Hybrid' | 'In-Person' | null (unknown; a city alone does not make a
 * posting in-person, since many boards list an office city for remote roles).
 */
import type { LocationType } from '../types.ts'

const TABLE: Record<string, LocationType> = {
  remote: 'Remote', 'fully remote': 'Remote', '100% remote': 'Remote', 'work from home': 'Remote', wfh: 'Remote', telecommute: 'Remote',
  telework: 'Remote', distributed: 'Remote', anywhere: 'Remote', 'remote first': 'Remote', 'home based': 'Remote', 'home office': 'Remote',
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
 * Infers from what the location text said, hybrid first ("Hybrid remote" is hybrid).
 * e.g. {remote: true} -> 'Remote'; {hybrid: true, remote: true} -> 'Hybrid'; nothing -> null
 */
export function inferLocationType(flags: { remote: boolean; hybrid: boolean; onsite: boolean }): LocationType | null {
  if (flags.hybrid) return 'Hybrid'
  if (flags.remote) return 'Remote'
  if (flags.onsite) return 'In-Person'
  return null
}
