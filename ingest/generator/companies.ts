import industriesJson from '../../seeds/industries.json' with { type: 'json' }
import sizeBuckets from '../../seeds/size-buckets.json' with { type: 'json' }
import { agencyNouns, agencyServices, industryVocab, namePrefixes, surnames } from './company-vocab.ts'
import { type City, countries, pickCityIn, pickHqCity } from './geo.ts'
import { joinAnd, lowerWords, withArticle } from './description.ts'
import { groupDigits } from './format.ts'
import { Rng } from './prng.ts'

const industries = industriesJson as Record<string, string[]>
export const industryNames = Object.keys(industries)

export type SyntheticCompany = {
  index: number
  name: string
  slug: string
  domain: string
  industry: string
  industries: string[]
  subindustries: string[]
  sizeBucket: string
  sizeMin: number
  sizeMax: number | null
  type: string
  isAgency: boolean
  hq: City
  offices: City[]
  /** Posting weight: bigger employers post more. */
  weight: number
  /** The company object as it appears in every posting of this company. */
  raw: Record<string, unknown>
}

const bucketRange: Record<string, [number, number | null]> = {
  '1-10': [1, 10], '11-50': [11, 50], '51-200': [51, 200], '201-500': [201, 500], '501-1000': [501, 1000],
  '1001-5000': [1001, 5000], '5001-10000': [5001, 10000], '10000+': [10001, null],
}
const bucketWeight: Record<string, number> = {
  '1-10': 10, '11-50': 22, '51-200': 24, '201-500': 15, '501-1000': 10, '1001-5000': 10, '5001-10000': 5, '10000+': 4,
}
const bucketPostingWeight: Record<string, number> = {
  '1-10': 1, '11-50': 2, '51-200': 4, '201-500': 6, '501-1000': 8, '1001-5000': 12, '5001-10000': 16, '10000+': 22,
}
// How common each industry is among employers (tech and healthcare post the most jobs).
const industryWeight: Record<string, number> = {
  'Tech, Software & IT Services': 16, Healthcare: 9, Finance: 7, 'Retail & Wholesale': 6, Manufacturing: 6,
  'Corporate Services': 6, 'Transportation & Logistics': 5, Education: 5, Construction: 4, 'Consumer Goods': 4,
  'Media & Communications': 3, 'Recreation & Travel': 4, 'Real Estate': 3, 'Energy & Mining': 2.5, Legal: 2.5,
  Nonprofit: 3, 'Public Administration': 2, 'Public Safety': 1.2, Entertainment: 2, Design: 1.5, Arts: 1,
  Agriculture: 1.5, 'Wellness & Fitness': 2,
}

const AGENCY_SHARE = 0.04

export function slugify(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
}

function companyType(rng: Rng, industry: string, bucket: string, isAgency: boolean): string {
  if (isAgency) return 'Staffing Agency'
  if (industry === 'Nonprofit') return 'Nonprofit'
  if (industry === 'Public Administration' || (industry === 'Public Safety' && rng.chance(0.6))) return 'Government Agency'
  if (industry === 'Education' && rng.chance(0.4)) return 'Educational Institution'
  const small = bucket === '1-10' || bucket === '11-50' || bucket === '51-200'
  if (small) return rng.weighted([['Startup', 6], ['Private Company', 3], ['Partnership', industry === 'Legal' ? 4 : 0.3], ['Self-Employed', bucket === '1-10' ? 0.5 : 0]])
  const big = bucket === '5001-10000' || bucket === '10000+'
  return rng.weighted([['Private Company', big ? 2 : 5], ['Public Company', big ? 6 : 2], ['Startup', bucket === '201-500' ? 2 : big ? 0 : 0.2]])
}

/** Legal-form suffixes as used in the company's home country. */
function legalSuffix(rng: Rng, cc: string): string {
  if (cc === 'DE' || cc === 'AT' || cc === 'CH') return rng.pick(['GmbH', 'AG', 'Group'])
  if (cc === 'GB') return rng.pick(['Ltd', 'Ltd', 'PLC', 'Group'])
  if (cc === 'US' || cc === 'CA') return rng.pick(['Inc.', 'Inc.', 'LLC', 'Co.', 'Corporation', 'Group', 'Holdings'])
  if (['IE', 'IN', 'AU', 'NZ', 'SG', 'ZA', 'NG', 'KE', 'MY'].includes(cc)) return rng.pick(['Ltd', 'Pty Ltd', 'Group', 'Holdings']).replace('Pty Ltd', cc === 'AU' ? 'Pty Ltd' : 'Ltd')
  if (['FR', 'ES', 'BR', 'MX', 'AR', 'CO', 'CL', 'PT', 'IT'].includes(cc)) return rng.pick(['S.A.', 'Group'])
  if (cc === 'NL' || cc === 'BE') return rng.pick(['B.V.', 'Group'])
  return rng.pick(['Group', 'Holdings', 'Ltd'])
}

function makeName(rng: Rng, industry: string, isAgency: boolean, cc: string): string {
  if (isAgency) {
    return rng.weighted([
      [`${rng.pick(namePrefixes)} ${rng.pick(agencyNouns)}`, 6],
      [`${rng.pick(surnames)} ${rng.pick(agencyNouns)}`, 3],
      [`${rng.pick(namePrefixes)} ${rng.pick(agencyNouns)} ${legalSuffix(rng, cc)}`, 1],
    ])
  }
  const nouns = industryVocab[industry].nouns
  if (industry === 'Legal' || (rng.chance(0.12) && (industry === 'Finance' || industry === 'Corporate Services' || industry === 'Construction'))) {
    const a = rng.pick(surnames)
    let b = rng.pick(surnames)
    if (b === a) b = surnames[(surnames.indexOf(a) + 7) % surnames.length]
    return rng.weighted([
      [`${a} & ${b}${industry === 'Legal' ? ' LLP' : ''}`, 4],
      [`${a} ${b}${industry === 'Legal' ? ' LLP' : ' Partners'}`, 2],
      [`${a} ${rng.pick(nouns)}`, 2],
    ])
  }
  const prefix = rng.pick(namePrefixes)
  return rng.weighted([
    [`${prefix} ${rng.pick(nouns)}`, 10],
    [`${prefix}${rng.pick(['ly', 'io', 'ify', 'hub', 'stack', 'wise', 'works'])}`.replace(/\s+/g, ''), industry === 'Tech, Software & IT Services' ? 4 : 0.5],
    [`${prefix} ${rng.pick(nouns.filter((n) => !/\b(Co|Group|Partners|LLP|Holdings)$/.test(n)))} ${legalSuffix(rng, cc)}`, 2],
    [`${rng.pick(surnames)} ${rng.pick(nouns)}`, 1.5],
  ])
}

/**
 * Build the company pool. The first companies take each industry and each size bucket in
 * turn so that even a small pool covers every value of both lists; after that both are
 * drawn by weight. Subindustries rotate within each industry for an even spread.
 */
export function buildCompanies(count: number, seed: number): SyntheticCompany[] {
  const rng = new Rng(seed ^ 0x5eed0c0)
  const usedNames = new Set<string>()
  const usedSlugs = new Set<string>()
  const subCursor = new Map<string, number>()
  const industryPairs = industryNames.map((n) => [n, industryWeight[n] ?? 1] as const)
  const bucketPairs = (sizeBuckets as string[]).map((b) => [b, bucketWeight[b] ?? 1] as const)
  const out: SyntheticCompany[] = []
  let agencies = 0

  for (let i = 0; i < count; i++) {
    const forcedIndustry = i < industryNames.length ? industryNames[i] : null
    // One agency right after the forced industries, then about AGENCY_SHARE of the rest.
    const isAgency = !forcedIndustry && (agencies === 0 || rng.chance(AGENCY_SHARE))
    if (isAgency) agencies++
    const industry = isAgency ? 'Corporate Services' : forcedIndustry ?? rng.weighted(industryPairs)
    const bucket = i < sizeBuckets.length ? (sizeBuckets as string[])[i] : isAgency ? rng.weighted(bucketPairs.slice(0, 5)) : rng.weighted(bucketPairs)

    const hq = pickHqCity(rng)
    let name = makeName(rng, industry, isAgency, hq.country_code)
    for (let tries = 0; usedNames.has(name) && tries < 20; tries++) name = makeName(rng, industry, isAgency, hq.country_code)
    if (usedNames.has(name)) name = `${name} ${rng.pick(['Group', 'Labs', 'Collective', 'International', 'Partners', 'Holdings'])}`
    for (let n = 2; usedNames.has(name); n++) name = `${name.replace(/ \d+$/, '')} ${n}`
    usedNames.add(name)
    let slug = slugify(name)
    for (let n = 2; usedSlugs.has(slug); n++) slug = `${slugify(name)}-${n}`
    usedSlugs.add(slug)

    const subs = industries[industry]
    let subindustries: string[]
    if (isAgency) subindustries = ['Staffing & Recruiting']
    else {
      const k = subCursor.get(industry) ?? 0
      subCursor.set(industry, k + 1)
      subindustries = [subs[k % subs.length]]
      if (rng.chance(0.35)) {
        const extra = rng.pick(subs)
        if (extra !== subindustries[0]) subindustries.push(extra)
      }
    }
    const industryList = [industry]
    if (!isAgency && rng.chance(0.12)) {
      const second = rng.weighted(industryPairs)
      if (second !== industry) {
        industryList.push(second)
        subindustries.push(rng.pick(industries[second]))
      }
    }

    const [sizeLo, sizeHi] = bucketRange[bucket] ?? [1, 10]
    const officeCount = { '1-10': 1, '11-50': rng.int(1, 2), '51-200': rng.int(1, 3), '201-500': rng.int(2, 4), '501-1000': rng.int(2, 5) }[bucket] ?? rng.int(3, 8)
    const offices: City[] = [hq]
    for (let k = 1; k < officeCount * 3 && offices.length < officeCount; k++) {
      // Most offices stay in the home country; large employers also open abroad.
      const abroad = sizeLo > 1000 ? rng.chance(0.45) : rng.chance(0.12)
      const c = abroad ? pickHqCity(rng) : pickCityIn(rng, hq.country_code)
      if (!offices.includes(c)) offices.push(c)
    }

    const info = countries[hq.country_code]
    const tld = rng.chance(0.7) ? info.tld : rng.weighted([['com', 6], ['io', industry === 'Tech, Software & IT Services' ? 4 : 0.3], ['co', 1], ['ai', industry === 'Tech, Software & IT Services' ? 2 : 0], ['org', industry === 'Nonprofit' ? 20 : 0], ['net', 0.5]])
    const domain = `${slug.replace(/-(llp|inc|llc|pty-ltd|ltd|co|gmbh|ag|plc|group|holdings|corporation|s-a|b-v)$/, '').replace(/-and-/g, '').replace(/-/g, rng.chance(0.3) ? '-' : '')}.${industry === 'Nonprofit' && rng.chance(0.7) ? 'org' : tld}`

    const vocab = isAgency ? { services: agencyServices, does: ['connects skilled candidates with employers', 'places contract and permanent talent across industries', 'runs executive search for growing companies'] } : industryVocab[industry]
    const services = rng.sample(vocab.services, rng.int(2, 5))
    if (!isAgency && rng.chance(0.5)) services.push(subindustries[0])
    const founded = 1890 + Math.floor(Math.pow(rng.next(), 0.5) * 134)
    const employees = sizeHi === null ? sizeLo + rng.int(0, 150000) : rng.int(sizeLo, sizeHi)
    const size = sizeHi === null ? groupDigits(employees) : null
    const description_summary = [
      `${name} ${rng.pick(vocab.does)}.`,
      rng.pick([
        `Founded in ${sizeLo < 50 ? Math.max(founded, 2012) : founded}, the company is headquartered in ${hq.city}, ${hq.country}`,
        `Headquartered in ${hq.city}, ${hq.country_code === 'US' ? hq.region : hq.country}, it employs ${size ?? `${groupDigits(sizeLo)}-${groupDigits(sizeHi ?? sizeLo)}`} people`,
        `Based in ${hq.city}, ${name} serves customers in ${new Set(offices.map((o) => o.country_code)).size > 1 ? 'several countries' : withArticle(hq.country)}`,
      ]) + (offices.length > 1 ? ` with offices in ${joinAnd(offices.slice(1, 4).map((o) => o.city))}.` : '.'),
      rng.pick(['', `Core offerings include ${joinAnd(services.slice(0, 3).map(lowerWords))}.`, `It specializes in ${lowerWords(subindustries[0])}.`]),
    ].filter(Boolean).join(' ')

    const type = companyType(rng, industry, bucket, isAgency)
    // size_range arrives in every shape boards and enrichment vendors use.
    const sizeRange = rng.weighted<unknown>([
      [{ min: sizeLo, max: sizeHi }, 50],
      [sizeHi === null ? `${sizeLo - 1}+` : `${sizeLo}-${sizeHi}`, 25],
      [employees, 12],
      [sizeHi === null ? '10,001+ employees' : `${sizeLo}-${sizeHi} employees`, 8],
      [undefined, 5],
    ])

    const raw: Record<string, unknown> = {
      name,
      slug: rng.chance(0.9) ? slug : undefined,
      logo: rng.chance(0.88) ? rng.pick([`https://logo.${domain}/square-256.png`, `https://${domain}/assets/logo.png`, `https://cdn.${domain}/brand/logo.svg`]) : undefined,
      link: `https://${rng.chance(0.8) ? 'www.' : ''}${domain}`,
      linkedin_link: rng.chance(0.9) ? `https://www.linkedin.com/company/${slug}` : undefined,
      description_summary,
      services,
      size_range: sizeRange,
      industries: industryList,
      subindustries,
      type,
      is_recruiting_agency: isAgency,
    }

    out.push({
      index: i, name, slug, domain, industry, industries: industryList, subindustries, sizeBucket: bucket,
      sizeMin: sizeLo, sizeMax: sizeHi, type, isAgency, hq, offices, weight: bucketPostingWeight[bucket] ?? 1, raw,
    })
  }
  return out
}
