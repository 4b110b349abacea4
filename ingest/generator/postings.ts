import type { RawPosting } from '../types.ts'
import categoriesJson from '../../seeds/categories.json' with { type: 'json' }
import { BASELINE_CATEGORY_WEIGHT, type CategoryProfile, categoryProfiles, industryCategoryWeights } from './category-profiles.ts'
import { type SyntheticCompany, buildCompanies, industryNames, slugify } from './companies.ts'
import { benefitPool, buildDescription } from './description.ts'
import { DAY_MS, isoDate } from './format.ts'
import { type City, countries, formatCity, formatRemote, pickCityIn, structuredLocation } from './geo.ts'
import { Rng, WeightedIndex } from './prng.ts'
import { type Level, makeSalary } from './salary.ts'

export const categories = categoriesJson as string[]

for (const c of categories) if (!categoryProfiles[c]) throw new Error(`generator: no category profile for "${c}"`)
for (const i of industryNames) if (!industryCategoryWeights[i]) throw new Error(`generator: no category weights for industry "${i}"`)

export type GenerateOptions = {
  /** Number of postings to produce (reposts included). */
  jobs: number
  seed?: number
  /** Reference day; dates fall in the 120 days up to it. Default: today (UTC). */
  now?: Date | string
  /** Size of the company pool. Default: max(40, jobs / 20). */
  companies?: number
}

/** Share of postings that re-post an earlier posting on another board. */
export const REPOST_RATE = 0.03
export const DATE_WINDOW_DAYS = 120

type BoardName = 'Greenhouse' | 'Lever' | 'Ashby' | 'Workday' | 'SmartRecruiters' | 'Workable' | 'BambooHR' | 'JazzHR' | 'iCIMS' | 'LinkedIn' | 'Indeed' | 'Glassdoor' | 'ZipRecruiter' | 'Wellfound' | 'Company Website'
const atsBoards: BoardName[] = ['Greenhouse', 'Lever', 'Ashby', 'Workday', 'SmartRecruiters', 'Workable', 'BambooHR', 'JazzHR', 'iCIMS']
const aggregatorBoards: [BoardName, number][] = [['LinkedIn', 5], ['Indeed', 5], ['Glassdoor', 2], ['ZipRecruiter', 2], ['Company Website', 3], ['Wellfound', 1]]

type BoardCtx = { company: SyntheticCompany; title: string; city: City | null; serial: number }

/** Board-specific id and links, shaped like the real boards' URLs. */
function boardLinks(rng: Rng, board: BoardName, x: BoardCtx): { source_id: string; job_board_link: string; application_link: string | undefined } {
  const num = String(1_000_000 + x.serial * 37 + rng.int(0, 36))
  const c = x.company
  const titleSlug = slugify(x.title)
  const careers = `https://${rng.chance(0.5) ? 'www.' : ''}${c.domain}/careers/${num}`
  let id = num
  let link: string
  let apply: string | undefined
  switch (board) {
    case 'Greenhouse': link = `https://boards.greenhouse.io/${c.slug}/jobs/${num}`; apply = rng.chance(0.5) ? `${link}#app` : `${careers}/apply`; id = `gh-${num}`; break
    case 'Lever': { const u = rng.uuid(); link = `https://jobs.lever.co/${c.slug}/${u}`; apply = `${link}/apply`; id = `lever-${u}`; break }
    case 'Ashby': { const u = rng.uuid(); link = `https://jobs.ashbyhq.com/${c.slug}/${u}`; apply = `${link}/application`; id = `ashby-${u}`; break }
    case 'Workday': {
      const tenant = c.slug.replace(/-/g, '').slice(0, 20)
      link = `https://${tenant}.wd${rng.pick([1, 3, 5, 12])}.myworkdayjobs.com/en-US/External/job/${(x.city?.city ?? 'Remote').replace(/\s+/g, '-')}/${titleSlug}_R${num}`
      apply = `${link}/apply`; id = `wd-R${num}`; break
    }
    case 'SmartRecruiters': link = `https://jobs.smartrecruiters.com/${c.name.replace(/[^A-Za-z0-9]/g, '')}/${num}${num.slice(0, 3)}-${titleSlug}`; apply = `${link}?oga=true`; id = `sr-${num}${num.slice(0, 3)}`; break
    case 'Workable': { const h = rng.hex(10).toUpperCase(); link = `https://apply.workable.com/${c.slug}/j/${h}/`; apply = `${link}apply/`; id = `wk-${h}`; break }
    case 'BambooHR': link = `https://${c.slug.replace(/-/g, '')}.bamboohr.com/careers/${num}`; apply = link; id = `bhr-${num}`; break
    case 'JazzHR': { const h = rng.hex(10); link = `https://${c.slug.replace(/-/g, '')}.applytojob.com/apply/${h}/${titleSlug}`; apply = link; id = `jazz-${h}`; break }
    case 'iCIMS': link = `https://careers-${c.slug.replace(/-/g, '')}.icims.com/jobs/${num}/${titleSlug}/job`; apply = `${link}?mode=apply`; id = `icims-${num}`; break
    case 'LinkedIn': { const n = String(3_700_000_000 + x.serial * 53 + rng.int(0, 52)); link = `https://www.linkedin.com/jobs/view/${n}`; apply = rng.chance(0.6) ? careers : undefined; id = `li-${n}`; break }
    case 'Indeed': { const h = rng.hex(16); link = `https://www.indeed.com/viewjob?jk=${h}`; apply = rng.chance(0.7) ? careers : `https://www.indeed.com/applystart?jk=${h}`; id = `indeed-${h}`; break }
    case 'Glassdoor': { const n = String(1_009_000_000 + x.serial * 41 + rng.int(0, 40)); link = `https://www.glassdoor.com/job-listing/${titleSlug}-${c.slug}-JV_KO0,${titleSlug.length}_KE${titleSlug.length + 1},${titleSlug.length + 1 + c.slug.length}.htm?jl=${n}`; apply = careers; id = `gd-${n}`; break }
    case 'ZipRecruiter': { const h = rng.hex(8); link = `https://www.ziprecruiter.com/c/${c.name.replace(/[^A-Za-z0-9]+/g, '-')}/Job/${x.title.replace(/[^A-Za-z0-9]+/g, '-')}/-in-${(x.city?.city ?? 'Remote').replace(/\s+/g, '-')}?jid=${h}`; apply = careers; id = `zr-${h}`; break }
    case 'Wellfound': link = `https://wellfound.com/jobs/${num}-${titleSlug}`; apply = link; id = `wf-${num}`; break
    default: link = careers; apply = `${careers}/apply`; id = `cw-${num}`; break
  }
  return { source_id: id, job_board_link: link, application_link: rng.chance(0.92) ? apply : undefined }
}

function primaryAts(company: SyntheticCompany, seed: number): BoardName {
  const rng = new Rng(seed ^ Math.imul(company.index + 1, 0x9e3779b1))
  const big = company.sizeMin > 1000
  const small = company.sizeMin <= 50
  return rng.weighted<BoardName>([
    ['Greenhouse', big ? 2 : 6], ['Lever', small ? 4 : 3], ['Ashby', small ? 4 : 1], ['Workday', big ? 12 : 0.5], ['SmartRecruiters', big ? 3 : 2],
    ['Workable', small ? 3 : 1], ['BambooHR', small ? 4 : 0.5], ['JazzHR', small ? 2 : 0.3], ['iCIMS', big ? 4 : 1],
  ])
}

const levelPairs: [Level, number][] = [['Entry', 10], ['Junior', 15], ['Mid', 35], ['Senior', 30], ['Executive', 5]]
const frontlineLevelPairs: [Level, number][] = [['Entry', 22], ['Junior', 8], ['Mid', 55], ['Senior', 12], ['Executive', 3]]

function makeTitle(rng: Rng, p: CategoryProfile, level: Level, team: string): { title: string; base: string } {
  const base = rng.pick(p.titles)
  if (level === 'Entry') {
    if (p.entry && rng.chance(0.6)) return { title: rng.pick(p.entry), base }
    if (p.ladder) return { title: `${rng.pick(['Junior', 'Associate', 'Entry-Level', 'Graduate'])} ${base}`, base }
    return { title: base, base }
  }
  if (level === 'Junior') return { title: p.ladder ? (rng.chance(0.7) ? `Junior ${base}` : `${base} I`) : base, base }
  if (level === 'Mid') return { title: p.ladder && rng.chance(0.15) ? `${base} II` : base, base }
  if (level === 'Senior') {
    if (p.senior && rng.chance(p.ladder ? 0.2 : 0.45)) return { title: rng.pick(p.senior.slice(0, Math.max(1, p.senior.length - 1))), base }
    if (p.ladder) return { title: `${rng.weighted([['Senior', 10], ['Sr.', 2], ['Lead', 2], ['Principal', 1]])} ${base}`, base }
    return { title: rng.chance(0.5) ? `Senior ${base}` : `Lead ${base}`, base }
  }
  if (p.senior && rng.chance(0.8)) return { title: rng.pick(p.senior), base }
  return { title: `Head of ${team}`, base }
}

const yoeByLevel: Record<Level, [number, number | null][]> = {
  Entry: [[0, 1], [0, 2], [0, 1]],
  Junior: [[1, 3], [1, 2], [2, 4]],
  Mid: [[3, 5], [2, 5], [3, null], [4, 6]],
  Senior: [[5, 8], [5, null], [6, 10], [7, null]],
  Executive: [[10, null], [8, 15], [12, null]],
}

const levelSpellings: Record<Level, string[]> = {
  Entry: ['Entry level', 'Graduate', 'Entry-level'], Junior: ['Associate', 'Junior level'], Mid: ['Mid level', 'Mid-Senior level', 'Intermediate'],
  Senior: ['Senior level', 'Mid-Senior level', 'Lead'], Executive: ['Director', 'VP', 'C-Level'],
}
const jobTypeSpellings: Record<string, string[]> = {
  'Full Time': ['Full-time', 'FULL_TIME', 'full-time', 'Permanent', 'Full time'],
  'Part Time': ['Part-time', 'PART_TIME', 'part-time', 'Part time'],
  Contract: ['CONTRACTOR', 'Contractor', 'Contract / Temporary', 'Fixed-term contract'],
  Temporary: ['TEMPORARY', 'Temp', 'Seasonal'],
  Internship: ['INTERN', 'Intern', 'internship'],
}
const locationTypeSpellings: Record<string, string[]> = {
  Remote: ['remote', 'REMOTE', 'Fully Remote', 'Remote OK', 'TELECOMMUTE'],
  Hybrid: ['hybrid', 'HYBRID', 'Hybrid Remote', 'Flexible / Hybrid'],
  'In-Person': ['On-site', 'onsite', 'Onsite', 'In-person', 'In Office', 'ON_SITE'],
}

/** canonical (share), board spelling, or missing. */
function spell(rng: Rng, canonical: string, variants: string[], pCanonical: number, pMissing: number): string | undefined {
  const r = rng.next()
  if (r < pMissing) return undefined
  if (r < pMissing + pCanonical) return canonical
  return rng.pick(variants)
}

function parseNow(now: Date | string | undefined): Date {
  if (now === undefined) {
    const d = new Date()
    return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()))
  }
  const d = typeof now === 'string' ? new Date(/^\d{4}-\d{2}-\d{2}$/.test(now) ? `${now}T00:00:00Z` : now) : now
  if (Number.isNaN(d.getTime())) throw new Error(`generator: invalid now: ${String(now)}`)
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()))
}

type Original = { serial: number; category: string; posting: RawPosting; company: SyntheticCompany; title: string; city: City | null; boards: Set<BoardName>; daysAgo: number }

/** A posting with what the generator knows about it (for tests and diagnostics). */
export type DetailedPosting = {
  posting: RawPosting
  serial: number
  category: string
  company: SyntheticCompany
  /** serial of the posting this one re-posts on another board, or null for an original. */
  repostOf: number | null
}
const RING = 4000

/**
 * Stream synthetic postings in the ingest input format (see ingest/types.ts RawPosting).
 * Deterministic: the same jobs, seed, companies and now give the same sequence. Only the
 * company pool and a bounded ring of recent postings (for cross-board reposts) are kept
 * in memory, so any number of postings can be streamed.
 *
 * Coverage: the first postings take each category in turn and then each company in turn,
 * so every category, industry and size bucket appears once jobs exceeds about
 * 40 + companies.
 */
export function* generatePostings(opts: GenerateOptions): Generator<RawPosting> {
  for (const d of generateDetailed(opts)) yield d.posting
}

/** generatePostings with each posting's category, company and repost origin alongside. */
export function* generateDetailed(opts: GenerateOptions): Generator<DetailedPosting> {
  const jobs = Math.max(0, Math.floor(opts.jobs))
  const seed = (opts.seed ?? 42) >>> 0
  const nowDay = parseNow(opts.now)
  const nCompanies = Math.max(1, Math.floor(opts.companies ?? Math.max(40, Math.round(jobs / 20))))
  const companies = buildCompanies(nCompanies, seed)
  const ats = companies.map((c) => primaryAts(c, seed))
  const companyIndex = new WeightedIndex(companies.map((c) => c.weight))
  const rng = new Rng(seed)

  // Category draw per industry: core categories by weight plus a small baseline for all.
  const catIndex = new Map<string, WeightedIndex>()
  for (const ind of industryNames) {
    const core = new Map(industryCategoryWeights[ind])
    catIndex.set(ind, new WeightedIndex(categories.map((c) => core.get(c) ?? BASELINE_CATEGORY_WEIGHT)))
  }
  // Staffing agencies recruit for every category, frontline and professional alike.
  const agencyCatIndex = new WeightedIndex(categories.map((c) => (categoryProfiles[c].hourly ? 2 : 1)))
  // Companies whose industry hires for a category, to place the forced first postings plausibly.
  const hirers = new Map<string, SyntheticCompany[]>()
  for (const c of categories) {
    const list = companies.filter((co) => !co.isAgency && (industryCategoryWeights[co.industry].find(([k]) => k === c)?.[1] ?? 0) >= 2)
    hirers.set(c, list.length ? list : companies)
  }

  const ring: Original[] = []
  let originals = 0
  for (let serial = 0; serial < jobs; serial++) {
    if (ring.length >= 20 && rng.chance(REPOST_RATE)) {
      const o = rng.pick(ring)
      yield { posting: repost(rng, o, serial, nowDay), serial, category: o.category, company: o.company, repostOf: o.serial }
      continue
    }

    let company: SyntheticCompany
    let category: string
    if (originals < categories.length) {
      category = categories[originals]
      company = rng.pick(hirers.get(category) ?? companies)
    } else {
      company = originals < categories.length + companies.length ? companies[originals - categories.length] : companies[companyIndex.pick(rng)]
      category = categories[(company.isAgency ? agencyCatIndex : catIndex.get(company.industry)!).pick(rng)]
    }
    originals++
    const p = categoryProfiles[category]
    const frontline = p.hourly === true || !p.ladder

    const level = rng.weighted(frontline ? frontlineLevelPairs : levelPairs)
    const team = rng.pick(p.teams)
    const { title: cleanTitle, base } = makeTitle(rng, p, level, team)

    let jobType = rng.weighted<string>([['Full Time', frontline ? 58 : 84], ['Part Time', frontline ? 24 : 3], ['Contract', frontline ? 6 : 8], ['Temporary', frontline ? 8 : 1], ['Internship', 0]])
    if (level === 'Entry' && rng.chance(frontline ? 0.05 : 0.3)) jobType = 'Internship'
    if (/Intern\b|Internship|Summer Analyst/.test(cleanTitle)) jobType = 'Internship'

    const lt = rng.weighted<'Remote' | 'Hybrid' | 'In-Person'>([['Remote', p.remote], ['Hybrid', p.hybrid], ['In-Person', Math.max(0, 1 - p.remote - p.hybrid)]])

    // Where: an office of the company (HQ most often), a field location in its home country, or remote.
    let city: City | null = null
    let extraCities: City[] = []
    let remoteCc: string | null = null
    if (lt === 'Remote') {
      remoteCc = rng.chance(0.12) ? null : rng.chance(0.8) ? company.hq.country_code : rng.pick(company.offices).country_code
    } else {
      city = rng.chance(0.45) ? company.hq : rng.chance(frontline ? 0.35 : 0.1) ? pickCityIn(rng, company.hq.country_code) : rng.pick(company.offices)
      if (company.offices.length > 1 && rng.chance(0.08)) extraCities = rng.sample(company.offices.filter((o) => o !== city), rng.int(1, 2))
    }
    const cc = city?.country_code ?? remoteCc ?? company.hq.country_code
    const countryName = city?.country ?? (company.offices.find((o) => o.country_code === remoteCc) ?? company.hq).country

    let location_raw: string | undefined
    let locations: unknown
    if (lt === 'Remote') {
      location_raw = formatRemote(rng, remoteCc)
      if (rng.chance(0.03)) { locations = [location_raw]; location_raw = undefined }
    } else if (city) {
      const all = [city, ...extraCities]
      const shape = rng.next()
      if (extraCities.length) {
        // Multi-location: "New York, NY; Boston, MA", a list of strings, or structured entries.
        if (shape < 0.5) location_raw = all.map((c) => formatCity(rng, c)).join(rng.pick(['; ', '; ', ' | ', ' or ']))
        else if (shape < 0.75) locations = all.map((c) => formatCity(rng, c))
        else locations = all.map(structuredLocation)
      } else if (shape < 0.75) {
        const text = formatCity(rng, city)
        location_raw = lt === 'Hybrid' ? rng.weighted([[`Hybrid - ${text}`, 25], [`${text} (Hybrid)`, 15], [text, 60]]) : text
      } else if (shape < 0.87) {
        locations = [formatCity(rng, city)]
      } else {
        locations = [structuredLocation(city)]
        if (rng.chance(0.4)) location_raw = formatCity(rng, city)
      }
    }

    const yoePick = rng.pick(yoeByLevel[level])
    const yoe = { min: yoePick[0], max: yoePick[1] }
    const skills = rng.sample(p.skills, rng.int(2, frontline ? 4 : 6))
    const tech = rng.sample(p.tech, frontline ? rng.int(1, 3) : rng.int(2, 6))
    const benefitsChosen = new Map<string, string>()
    for (const [tag, phr] of rng.sample(benefitPool(cc, p.hourly === true), rng.int(3, 8))) if (!benefitsChosen.has(tag) && (tag !== 'Remote work stipend' || lt !== 'In-Person')) benefitsChosen.set(tag, rng.pick(phr))
    const professional = !frontline
    const visa = rng.chance(professional ? 0.65 : 0.35) ? rng.chance(category === 'Software Engineer Jobs' || category === 'Research Jobs' ? 0.4 : professional ? 0.15 : 0.03) : null
    const equityLikely = company.type === 'Startup' ? 0.65 : company.type === 'Public Company' ? 0.3 : 0.05
    const equity = rng.chance(0.6) ? rng.chance(professional ? equityLikely : equityLikely / 4) : null
    const education = rng.chance(0.7) ? rng.pick(p.edu) : null

    // Managers and licensed professionals in frontline categories are salaried, and paid more.
    const salaried = p.hourly === true && /\b(Manager|Director|Head|Chief|Superintendent|Principal|Dean|Pharmacist|Practitioner|Physician|Therapist|Counselor)\b/.test(cleanTitle)
    const pay = (salaried ? p.pay * 2080 * 1.6 : p.pay) * (jobType === 'Internship' ? 0.6 : 1)
    const salary = makeSalary(rng, { pay, hourly: p.hourly === true && !salaried, level, cc, jobType })

    // Titles as boards write them: sometimes decorated with location, type or shift.
    let title = cleanTitle
    const deco = rng.next()
    if (deco < 0.04 && lt === 'Remote') title = `${title} - Remote`
    else if (deco < 0.06 && lt === 'Hybrid') title = `${title} (Hybrid)`
    else if (deco < 0.08 && city) title = `${title} - ${city.city}`
    else if (deco < 0.09 && jobType === 'Contract') title = `${title} (Contract)`
    else if (deco < 0.11 && p.hourly) title = `${title} - ${rng.pick(['Night Shift', 'Weekends', 'Full-Time', 'Part-Time', '$2,000 Sign-On Bonus'])}`
    else if (deco < 0.12) title = `${title}, ${team}`

    const daysAgo = Math.min(DATE_WINDOW_DAYS - 1, Math.floor(DATE_WINDOW_DAYS * Math.pow(rng.next(), 1.25)))
    const board: BoardName = rng.chance(0.55) ? ats[company.index] : rng.weighted(aggregatorBoards.map(([b, w]) => [b, b === 'Indeed' && frontline ? w * 3 : b === 'Wellfound' && company.type !== 'Startup' ? 0 : w] as const))
    const links = boardLinks(rng, board, { company, title, city, serial })

    const description = buildDescription(rng, {
      company: { name: company.name, summary: String(company.raw.description_summary), subindustry: company.subindustries[0] },
      title: cleanTitle, baseTitle: base, profile: p, team, jobType: jobType === 'Contract' ? 'contract' : jobType, locationType: lt,
      cityName: city?.city ?? null, countryName, yoe, level, education, skills, tech,
      benefits: [...benefitsChosen.values()], visa, equity, salarySentence: salary?.sentence ?? null, sourceId: links.source_id,
    })

    const posting: RawPosting = {
      source_id: links.source_id,
      job_board: board,
      job_board_link: links.job_board_link,
      application_link: links.application_link,
      job_title: title,
      description,
      location_raw,
      locations,
      location_type: spell(rng, lt, locationTypeSpellings[lt], 0.55, 0.15),
      job_type: spell(rng, jobType === 'Contract' && rng.chance(0.3) ? 'Contract' : jobType, jobTypeSpellings[jobType], 0.65, 0.1),
      salary_range: salary?.range,
      salary: salary?.text,
      yoe_range: rng.chance(0.7) ? (yoe.max === null && rng.chance(0.5) ? { min: yoe.min } : yoe) : undefined,
      experience_level: spell(rng, level, levelSpellings[level], 0.55, 0.25),
      education_level: education && rng.chance(0.8) ? education : undefined,
      language: rng.chance(0.9) ? 'en' : undefined,
      team: rng.chance(0.7) ? team : undefined,
      requirements_summary: rng.chance(0.25) ? `${yoe.min === 0 ? 'No experience required' : `${yoe.min}${yoe.max === null ? '+' : `-${yoe.max}`} years of experience`}${tech.length ? `; ${tech.slice(0, 3).join(', ')}` : ''}${education ? `; ${education}` : ''}` : undefined,
      job_categories: rng.chance(0.15) ? [category] : undefined,
      skills: rng.chance(0.6) ? skills : undefined,
      technologies: rng.chance(0.6) && tech.length ? tech : undefined,
      benefits: rng.chance(0.55) && benefitsChosen.size ? [...benefitsChosen.keys()] : undefined,
      visa_sponsored: visa ?? undefined,
      recruiter_agency: company.isAgency ? (rng.chance(0.9) ? true : undefined) : rng.chance(0.7) ? false : undefined,
      offers_equity: equity ?? undefined,
      date_posted: formatPosted(rng, nowDay, daysAgo),
      valid_through: rng.chance(0.35) ? formatValidThrough(rng, nowDay, daysAgo - rng.pick([14, 30, 30, 45, 60, 60, 90])) : undefined,
      contact_email: rng.chance(0.04) ? (company.isAgency ? `${rng.pick(['jobs', 'talent', 'recruitment', 'hello'])}@${company.domain}` : `careers@${company.domain}`) : undefined,
      contact_phone: rng.chance(0.02) ? `+1-${rng.int(201, 989)}-555-${String(rng.int(100, 199)).padStart(4, '0')}` : undefined,
      company: { ...company.raw, services: (company.raw.services as string[]).slice(), industries: company.industries.slice(), subindustries: company.subindustries.slice() },
    }
    if (ring.length < RING) ring.push({ serial, category, posting, company, title, city, boards: new Set([board]), daysAgo })
    else ring[serial % RING] = { serial, category, posting, company, title, city, boards: new Set([board]), daysAgo }
    yield { posting, serial, category, company, repostOf: null }
  }

  /** The same posting (company, title, location, description) re-posted later on another board. */
  function repost(r: Rng, o: Original, serial: number, now: Date): RawPosting {
    // Never the board (or boards) it is already on, so every repeat is a cross-board duplicate.
    const options = [...atsBoards, ...aggregatorBoards.map(([b]) => b)].filter((b) => !o.boards.has(b) && (b !== 'Workday' || o.company.sizeMin > 500))
    const board = r.pick(options)
    o.boards.add(board)
    const links = boardLinks(r, board, { company: o.company, title: o.title, city: o.city, serial })
    const daysAgo = Math.max(0, o.daysAgo - r.int(0, 7))
    return {
      ...o.posting,
      source_id: links.source_id,
      job_board: board,
      job_board_link: links.job_board_link,
      application_link: links.application_link,
      date_posted: formatPosted(r, now, daysAgo),
      company: { ...o.posting.company },
    }
  }
}

/** Mostly "YYYY-MM-DD"; some boards send an ISO datetime (never later than now's day). */
function formatPosted(rng: Rng, now: Date, daysAgo: number): string {
  const d = new Date(now.getTime() - daysAgo * DAY_MS)
  if (daysAgo === 0 || rng.chance(0.8)) return isoDate(d)
  const t = new Date(d.getTime() + rng.int(0, 86_399) * 1000)
  return rng.chance(0.5) ? t.toISOString() : t.toISOString().replace(/\.\d{3}Z$/, 'Z')
}

/** daysFromNow < 0 means the posting has already expired. */
function formatValidThrough(rng: Rng, now: Date, daysAgoEnd: number): string {
  const d = new Date(now.getTime() - daysAgoEnd * DAY_MS)
  const day = isoDate(d)
  return rng.weighted([[`${day}T00:00:00Z`, 6], [day, 2.5], [`${day}T23:59:59.000Z`, 1.5]])
}
