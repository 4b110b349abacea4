/**
 * Posting scores, each 0..1, from simple documented heuristics. They rank and filter; they are not
 * a judgement of the employer.
 */
import type { Posting, Scores } from '../types.ts'

type Scored = Omit<Posting, 'scores' | 'md5_hash' | 'content_hash'>

const clamp = (n: number) => Math.max(0, Math.min(1, Math.round(n * 1000) / 1000))

// Rough USD value of one unit, to compare salaries across currencies. Deliberately coarse and
// static (scores must be deterministic); unknown currencies score as neutral (0.5).
const USD_PER_UNIT: Record<string, number> = {
  USD: 1, EUR: 1.08, GBP: 1.27, CHF: 1.12, CAD: 0.73, AUD: 0.66, NZD: 0.6, SGD: 0.74, HKD: 0.13, JPY: 0.0067, CNY: 0.14,
  INR: 0.012, SEK: 0.095, NOK: 0.093, DKK: 0.145, PLN: 0.25, CZK: 0.043, BRL: 0.18, MXN: 0.055, ZAR: 0.054, ILS: 0.27, AED: 0.27,
}

/**
 * compensation: annual midpoint in USD on a log scale, 20k -> 0, 400k -> 1; no annual salary -> 0.
 * e.g. 120k-150k USD yearly -> ~0.66
 */
export function compensationScore(p: Scored): number {
  const s = p.salary
  if (!s || (s.annual_min === null && s.annual_max === null)) return 0
  const mid = ((s.annual_min ?? s.annual_max!) + (s.annual_max ?? s.annual_min!)) / 2
  const rate = s.currency ? USD_PER_UNIT[s.currency] : undefined
  if (rate === undefined) return 0.5
  const usd = mid * rate
  return clamp(Math.log(usd / 20_000) / Math.log(400_000 / 20_000))
}

/** flexibility: Remote 1, Hybrid 0.7, In-Person 0.2, unknown 0.4; +0.15 flexible hours; +0.1 part time. */
export function flexibilityScore(p: Scored): number {
  const base = p.location_type === 'Remote' ? 1 : p.location_type === 'Hybrid' ? 0.7 : p.location_type === 'In-Person' ? 0.2 : 0.4
  return clamp(base + (p.benefits.includes('Flexible Hours') ? 0.15 : 0) + (p.job_type === 'Part Time' ? 0.1 : 0))
}

/** benefits: one eighth per distinct benefit, full at 8. */
export function benefitsScore(p: Scored): number {
  return clamp(p.benefits.length / 8)
}

const AUTONOMY_RE = /\b(?:ownership|autonomy|autonomous|end[- ]to[- ]end|greenfield|from scratch|founding|high[- ]impact|impact|self[- ]directed|decision[- ]making|lead the|shape the)\b/gi
const GROWTH_RE = /\b(?:mentor(?:ship|ing)?|career (?:growth|development|path|progression)|learning budget|professional development|training|conferences?|promotion|growth opportunities|upskill(?:ing)?|coaching)\b/gi

function hits(re: RegExp, text: string, cap: number): number {
  let n = 0
  for (const _ of text.slice(0, 20_000).matchAll(re)) if (++n >= cap) break
  return n
}

/** impact/autonomy: ownership words in the text, full at 4 mentions; +0.2 for Senior/Executive roles. */
export function impactScore(p: Scored): number {
  return clamp(hits(AUTONOMY_RE, p.description_text, 4) / 4 * 0.8 + (p.experience_level === 'Senior' || p.experience_level === 'Executive' ? 0.2 : 0))
}

/** growth: learning words, full at 4 mentions; +0.2 for Entry/Junior roles; +0.1 learning budget benefit. */
export function growthScore(p: Scored): number {
  return clamp(hits(GROWTH_RE, p.description_text, 4) / 4 * 0.7 + (p.experience_level === 'Entry' || p.experience_level === 'Junior' ? 0.2 : 0) + (p.benefits.includes('Learning Budget') ? 0.1 : 0))
}

const PRESTIGE_BY_BUCKET: Record<string, number> = {
  '1-10': 0.2, '11-50': 0.3, '51-200': 0.4, '201-500': 0.5, '501-1000': 0.6, '1001-5000': 0.7, '5001-10000': 0.8, '10000+': 0.9,
}

/** prestige: company size bucket (unknown 0.3); +0.1 when equity is offered. */
export function prestigeScore(p: Scored): number {
  const base = p.company.size_bucket ? PRESTIGE_BY_BUCKET[p.company.size_bucket] ?? 0.3 : 0.3
  return clamp(base + (p.offers_equity ? 0.1 : 0))
}

/**
 * targetability: share of these optional fields that are known: salary, yoe, experience level,
 * location type, job type, locations or remote scope, education, skills, technologies, benefits,
 * company industries, company size, application link, valid_through.
 */
export function targetability(p: Scored): number {
  const present = [
    p.salary !== null, p.yoe_min !== null || p.yoe_max !== null, p.experience_level !== null, p.location_type !== null, p.job_type !== null,
    p.locations.length > 0 || p.remote_countries.length > 0, p.education_level !== null, p.skills.length > 0, p.technologies.length > 0,
    p.benefits.length > 0, p.company.industries.length > 0, p.company.size_bucket !== null, p.application_link !== null, p.valid_through !== null,
  ]
  return clamp(present.filter(Boolean).length / present.length)
}

/**
 * All scores. coolness is the mean of compensation, flexibility, benefits, impact, prestige and growth.
 * meta_completeness: salary, a place (locations, remote scope or Remote), years of experience and a
 * non-empty description are all known.
 */
export function computeScores(p: Scored): Scores {
  const parts = {
    compensation_value_score: compensationScore(p),
    flexibility_score: flexibilityScore(p),
    benefits_score: benefitsScore(p),
    impact_autonomy_score: impactScore(p),
    prestige_score: prestigeScore(p),
    growth_score: growthScore(p),
  }
  const values = Object.values(parts)
  return {
    coolness_score: clamp(values.reduce((a, b) => a + b, 0) / values.length),
    ...parts,
    meta_completeness:
      p.salary !== null &&
      (p.locations.length > 0 || p.remote_countries.length > 0 || p.location_type === 'Remote') &&
      (p.yoe_min !== null || p.yoe_max !== null) &&
      p.description_text.length > 0,
    meta_targetability: targetability(p),
  }
}
