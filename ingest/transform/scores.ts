/**
 * The neural-search scores of one posting, each 0..1 rounded to 3 decimals, from the posting
 * alone. They rank and filter postings for a job seeker; they judge no employer: each is a count
 * of what the posting states, and a posting that states less scores lower. docs/scores.md has
 * every formula with its range and an example.
 *
 * compensation_value_score is the one score a posting cannot compute alone (its pay's percentile
 * among comparable postings): computeScores writes 0 for it, and sql/scores.ts's
 * refreshCompensationPercentiles replaces it, and the coolness computed with it, after each ingest run.
 */
import type { Posting, Scores } from '../types.ts'

type Scored = Omit<Posting, 'scores' | 'md5_hash' | 'content_hash'>

const clamp = (n: number) => Math.max(0, Math.min(1, Math.round(n * 1000) / 1000))

/**
 * flexibility: how the work is arranged. Remote 1, Hybrid 0.7, In-Person 0.2, not stated 0.4;
 * plus 0.15 with the Flexible Hours benefit and 0.1 for a Part Time job; at most 1.
 * e.g. Hybrid, Full Time, benefits [Flexible Hours] -> 0.7 + 0.15 = 0.85;
 *      In-Person, Part Time -> 0.2 + 0.1 = 0.3; Remote with Flexible Hours -> 1
 */
export function flexibilityScore(p: Scored): number {
  const base = p.location_type === 'Remote' ? 1 : p.location_type === 'Hybrid' ? 0.7 : p.location_type === 'In-Person' ? 0.2 : 0.4
  return clamp(base + (p.benefits.includes('Flexible Hours') ? 0.15 : 0) + (p.job_type === 'Part Time' ? 0.1 : 0))
}

// Eight distinct benefits (of the 25 in seeds/benefits.json) is a generous package.
const FULL_BENEFITS = 8

/**
 * benefits: distinct benefits named (seeds/benefits.json's names), one eighth each, full at 8.
 * e.g. [Health Insurance, Dental Insurance, 401(k)] -> 3 / 8 = 0.375; none -> 0
 */
export function benefitsScore(p: Scored): number {
  return clamp(p.benefits.length / FULL_BENEFITS)
}

const AUTONOMY_RE = /\b(?:ownership|autonomy|autonomous|end[- ]to[- ]end|greenfield|from scratch|founding|high[- ]impact|impact|self[- ]directed|decision[- ]making|lead the|shape the)\b/gi
const GROWTH_RE = /\b(?:mentor(?:ship|ing)?|career (?:growth|development|path|progression)|learning budget|professional development|training|conferences?|promotion|growth opportunities|upskill(?:ing)?|coaching)\b/gi
// Four mentions make the most of what wording can say; the rest of the score needs the level.
const FULL_MENTIONS = 4

/** Matches of `re` in the first 20,000 characters, counting no further than `cap`. */
function hits(re: RegExp, text: string, cap: number): number {
  let n = 0
  for (const _ of text.slice(0, 20_000).matchAll(re)) if (++n >= cap) break
  return n
}

/**
 * impact_autonomy: ownership words in the description (ownership, autonomy, end-to-end, greenfield,
 * from scratch, founding, (high-)impact, self-directed, decision-making, "lead the", "shape the"),
 * 0.2 per mention up to 4 (0.8); plus 0.2 for a Senior or Executive role.
 * e.g. "You will have ownership of the platform end-to-end and shape the roadmap", Senior
 *      -> 3 mentions: 3 / 4 x 0.8 + 0.2 = 0.8; the same text at Mid level -> 0.6
 */
export function impactScore(p: Scored): number {
  const level = p.experience_level === 'Senior' || p.experience_level === 'Executive' ? 0.2 : 0
  return clamp((hits(AUTONOMY_RE, p.description_text, FULL_MENTIONS) / FULL_MENTIONS) * 0.8 + level)
}

/**
 * growth: learning words in the description (mentorship, career growth/development/path,
 * learning budget, professional development, training, conferences, promotion, growth
 * opportunities, upskilling, coaching), 0.175 per mention up to 4 (0.7); plus 0.2 for an Entry or
 * Junior role and 0.1 with the Learning Budget benefit.
 * e.g. "Mentorship from senior staff and a clear career path", Junior, benefits [Learning Budget]
 *      -> 2 mentions: 2 / 4 x 0.7 + 0.2 + 0.1 = 0.65
 */
export function growthScore(p: Scored): number {
  const level = p.experience_level === 'Entry' || p.experience_level === 'Junior' ? 0.2 : 0
  const budget = p.benefits.includes('Learning Budget') ? 0.1 : 0
  return clamp((hits(GROWTH_RE, p.description_text, FULL_MENTIONS) / FULL_MENTIONS) * 0.7 + level + budget)
}

// Company size (seeds/size-buckets.json) as a stand-in for how widely known the employer is:
// a proxy for reach, not a verdict on the company. Unknown size sits with the small ones.
const PRESTIGE_BY_BUCKET: Record<string, number> = {
  '1-10': 0.2, '11-50': 0.3, '51-200': 0.4, '201-500': 0.5, '501-1000': 0.6, '1001-5000': 0.7, '5001-10000': 0.8, '10000+': 0.9,
}
const PRESTIGE_UNKNOWN = 0.3

/**
 * prestige: the company's size bucket, 0.2 (1-10 people) rising by 0.1 a bucket to 0.9 (10000+),
 * 0.3 when the size is unknown; plus 0.1 when the posting offers equity.
 * e.g. a 1001-5000 company offering equity -> 0.7 + 0.1 = 0.8; size unknown, no equity -> 0.3
 */
export function prestigeScore(p: Scored): number {
  const base = p.company.size_bucket ? PRESTIGE_BY_BUCKET[p.company.size_bucket] ?? PRESTIGE_UNKNOWN : PRESTIGE_UNKNOWN
  return clamp(base + (p.offers_equity ? 0.1 : 0))
}

/**
 * meta_targetability: the share of 14 optional facts the posting states, so a search can target it
 * by them: salary, years of experience, experience level, location type, job type, a place
 * (locations or a remote country scope), education level, skills, technologies, benefits, the
 * company's industries, the company's size, an application link, a closing date (valid_through).
 * e.g. a posting stating salary, experience level, location type, job type, a city, skills and an
 *      application link, and nothing else -> 7 / 14 = 0.5
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
 * meta_completeness: true when the four facts a job seeker decides on are all stated: a salary,
 * a place (a location, a remote country scope, or Remote), years of experience, and a description.
 * e.g. "Backend Engineer, Berlin, 70-90k EUR, 5+ years" with a description -> true; the same
 *      without the salary -> false
 */
export function completeness(p: Scored): boolean {
  return (
    p.salary !== null &&
    (p.locations.length > 0 || p.remote_countries.length > 0 || p.location_type === 'Remote') &&
    (p.yoe_min !== null || p.yoe_max !== null) &&
    p.description_text.length > 0
  )
}

/**
 * coolness: the mean of the six part scores (compensation, flexibility, benefits, impact/autonomy,
 * prestige, growth). refreshCompensationPercentiles (sql/scores.ts) computes it again, the same
 * way, once compensation is known.
 * e.g. compensation 0.5, flexibility 0.85, benefits 0.375, impact 0.8, prestige 0.4, growth 0.175
 *      -> 3.1 / 6 = 0.517
 */
export function coolness(parts: Omit<Scores, 'coolness_score' | 'meta_completeness' | 'meta_targetability'>): number {
  const values = Object.values(parts)
  return clamp(values.reduce((a, b) => a + b, 0) / values.length)
}

/** All scores of one posting; compensation_value_score is 0 until the percentile refresh (see the top of this file). */
export function computeScores(p: Scored): Scores {
  const parts = {
    compensation_value_score: 0,
    flexibility_score: flexibilityScore(p),
    benefits_score: benefitsScore(p),
    impact_autonomy_score: impactScore(p),
    prestige_score: prestigeScore(p),
    growth_score: growthScore(p),
  }
  return {
    coolness_score: coolness(parts),
    ...parts,
    meta_completeness: completeness(p),
    meta_targetability: targetability(p),
  }
}
