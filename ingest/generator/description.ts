import type { CategoryProfile } from './category-profiles.ts'
import type { Rng } from './prng.ts'

/** A benefit: the tag that goes in the benefits field, and ways a description phrases it. */
type Benefit = [tag: string, phrasings: string[]]

const benefitsCommon: Benefit[] = [
  ['Paid time off', ['Generous paid time off', 'Flexible PTO', '20 days of paid vacation plus public holidays', 'Paid time off that increases with tenure']],
  ['Parental leave', ['16 weeks of fully paid parental leave', 'Paid parental leave for all parents', 'Generous parental leave']],
  ['Learning budget', ['Annual learning and development budget', '$1,500 yearly learning stipend', 'Paid certifications and conference attendance']],
  ['Wellness stipend', ['Monthly wellness stipend', 'Gym membership reimbursement', 'Access to mental health support through our wellbeing platform']],
  ['Flexible hours', ['Flexible working hours', 'Core hours with flexibility around them', 'A schedule that respects life outside work']],
  ['Remote work stipend', ['Home office setup budget', 'Remote work stipend', 'Co-working space allowance']],
  ['Life insurance', ['Life and disability insurance', 'Company-paid life insurance']],
  ['Annual bonus', ['Annual performance bonus', 'Quarterly bonus program']],
  ['Tuition reimbursement', ['Tuition reimbursement', 'Education assistance program']],
  ['Commuter benefits', ['Commuter benefits', 'Public transport pass', 'Free parking']],
  ['Employee discount', ['Employee discounts', 'Generous staff discount on all products']],
  ['Relocation assistance', ['Relocation assistance', 'Relocation package for the right candidate']],
  ['Free meals', ['Catered lunches', 'Free snacks and drinks in the office', 'Free meals on shift']],
]
const benefitsUS: Benefit[] = [
  ['Health insurance', ['Medical, dental and vision insurance', 'Comprehensive health insurance with 100% of premiums covered for employees', 'Health, dental and vision coverage from day one']],
  ['401(k)', ['401(k) with company match', '401(k) plan with 4% employer match', 'Retirement savings plan with matching']],
  ['Dental insurance', ['Dental insurance']],
  ['Vision insurance', ['Vision insurance']],
  ['HSA', ['Health savings account with employer contribution']],
]
const benefitsUK: Benefit[] = [
  ['Pension', ['Company pension scheme', 'Pension with 5% employer contribution', 'Salary sacrifice pension']],
  ['Private medical insurance', ['Private medical insurance', 'Private healthcare through Bupa-style cover']],
  ['Paid time off', ['25 days holiday plus bank holidays', '28 days annual leave']],
  ['Cycle to work scheme', ['Cycle to work scheme']],
]
const benefitsEU: Benefit[] = [
  ['Pension', ['Company pension plan', 'Retirement plan contributions']],
  ['Paid time off', ['30 days of paid vacation', '28 vacation days per year']],
  ['Commuter benefits', ['Public transport ticket', 'Subsidised Deutschlandticket or local transit pass']],
  ['Health insurance', ['Supplementary health insurance']],
]
const benefitsIN: Benefit[] = [
  ['Health insurance', ['Group medical insurance for you and your family', 'Comprehensive health cover for employees and dependents']],
  ['Provident fund', ['Provident Fund and gratuity']],
  ['Meal allowance', ['Meal vouchers', 'Food allowance']],
]
const benefitsHourly: Benefit[] = [
  ['Weekly pay', ['Weekly pay', 'Daily pay available']],
  ['Overtime pay', ['Overtime opportunities', 'Time-and-a-half for overtime']],
  ['Flexible scheduling', ['Flexible scheduling', 'Choose shifts that fit your life']],
  ['Employee discount', ['Employee discount', 'Discounts on products and services']],
  ['Tips', ['Tips on top of hourly pay', 'Shared tip pool']],
  ['Uniform provided', ['Uniform and equipment provided', 'Safety gear provided']],
  ['Sign-on bonus', ['$1,000 sign-on bonus', 'Sign-on bonus for qualified candidates']],
]

export function benefitPool(cc: string, hourly: boolean): Benefit[] {
  const local = cc === 'US' ? benefitsUS : cc === 'GB' || cc === 'IE' ? benefitsUK : cc === 'IN' ? benefitsIN : ['DE', 'FR', 'NL', 'ES', 'IT', 'PT', 'AT', 'BE', 'FI', 'SE', 'DK', 'NO', 'CH', 'PL', 'CZ', 'RO'].includes(cc) ? benefitsEU : []
  return [...local, ...local, ...(hourly ? benefitsHourly : []), ...benefitsCommon]
}

const cultureLines = [
  'We are a team of curious, kind people who care about doing great work together.',
  'Our customers range from small businesses to some of the largest organizations in the world.',
  'We value ownership, candor and a bias for action.',
  'We have grown steadily every year and are profitable.',
  'Backed by leading investors, we are scaling quickly and hiring across every team.',
  'We believe diverse teams build better products and serve customers better.',
  'Our work has been recognized by industry awards and, more importantly, by the people we serve.',
  'We invest in our people: most of our leaders were promoted from within.',
  'Sustainability and community are part of how we operate, not an afterthought.',
  'We are a family-owned business with deep roots in the communities we serve.',
  'Safety, respect and teamwork guide everything we do.',
  'We move fast, we measure what matters, and we celebrate wins together.',
]

const eeoLines = [
  '{company} is an equal opportunity employer. We celebrate diversity and are committed to creating an inclusive environment for all employees.',
  'We are an Equal Opportunity Employer. All qualified applicants will receive consideration for employment without regard to race, color, religion, sex, sexual orientation, gender identity, national origin, disability or veteran status.',
  'We welcome applications from people of all backgrounds. If you need a reasonable accommodation during the hiring process, please let us know.',
  'Even if you do not meet every requirement, we encourage you to apply. We are building a team with a wide range of experiences.',
  '{company} is committed to providing equal employment opportunities and a workplace free of discrimination and harassment.',
  'Applicants must be able to pass a background check. We participate in E-Verify where required by law.',
]

const headings = {
  about: ['About {company}', 'About us', 'Who we are', 'The company', 'Our story'],
  role: ['About the role', 'The role', 'The opportunity', 'Overview', 'Position summary', 'Job description'],
  duties: ["What you'll do", 'Responsibilities', 'Key responsibilities', 'Your impact', 'Day to day', 'In this role you will', 'Duties'],
  reqs: ["What we're looking for", 'Requirements', 'Qualifications', 'About you', 'Must-haves', 'Who you are', 'Minimum qualifications'],
  nice: ['Nice to have', 'Bonus points', 'Preferred qualifications', 'It would be great if you have'],
  benefits: ['Benefits', 'What we offer', 'Perks and benefits', 'Why join us', 'What you get'],
}

const rolePara = [
  "We're looking for a {title} to join our {team} team{where}. You'll {duty}.",
  'As a {title} at {company}, you will {duty}. This is a great opportunity for someone who enjoys {skill} and wants to grow with us.',
  '{company} is hiring a {title}{where}. Reporting to the {team} lead, you will {duty}.',
  'Our {team} team is growing and we need a {title} who can {duty}. You will work with {tech} and collaborate closely with colleagues across the business.',
  'Join {company} as a {title}. In this {jobType} position you will {duty} and help shape how our {team} team works.',
  'We are seeking an experienced, motivated {title}{where}. The ideal candidate brings strong {skill} skills and a passion for getting things right.',
  'This {title} role sits within our {team} team. Day to day, you will {duty}, using tools like {tech}.',
  "Are you a {title} who loves {skill}? We'd love to hear from you. You'll {duty} while learning from an experienced team.",
]

const teamLines = [
  'The {team} team is small, senior and close-knit, and it works closely with product, operations and customers.',
  'We plan in short cycles, write things down, and keep meetings to a minimum.',
  'You will have a dedicated onboarding buddy and a clear plan for your first weeks.',
  'We care about quality and give people the time to do things properly.',
  'Our managers hold regular one-on-ones and support you with a personal development plan.',
  'We share knowledge openly: internal talks, documentation and pairing are part of the job.',
  'Feedback flows in every direction, and good ideas win regardless of where they come from.',
  'We measure success by the outcomes we deliver for customers, not by hours worked.',
  'Most of the team has been here for years, and we are proud of our low turnover.',
  'Every quarter we take time to review what went well, what did not, and what to change.',
]

const shiftLines = [
  'Monday to Friday, 7:00am to 3:30pm', 'Rotating 12-hour shifts (days and nights)', 'Evenings and weekends required',
  'Four 10-hour shifts per week', 'Early mornings, starting at 5:00am', 'Weekend availability required', 'Day shift with occasional overtime',
]

const genericDuties = [
  'Collaborate with colleagues across teams to deliver great results',
  'Keep accurate documentation and share knowledge with the team',
  'Identify opportunities to improve processes and tools',
  'Follow company policies and safety procedures',
  'Communicate progress and risks clearly and early',
  'Contribute to a positive, inclusive team culture',
]

export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/** Fill {name} slots; "a {title}" becomes "an Accountant" where the title starts with a vowel sound. */
function fill(t: string, v: Record<string, string>): string {
  return t
    .replace(/\b([Aa]) \{(\w+)\}/g, (_, a: string, k: string) => `${/^[AEIOU]|^(?:HR|SEO|SDR|MRI|RN|LPN|ESL|UX|UI)\b/.test(v[k] ?? '') ? (a === 'A' ? 'An' : 'an') : a} {${k}}`)
    .replace(/\{(\w+)\}/g, (_, k: string) => v[k] ?? '')
}

/** "United States" -> "the United States" where English needs the article. */
/** ["a", "b", "c"] -> "a, b and c". */
export function joinAnd(items: string[]): string {
  return items.length < 2 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`
}

export function withArticle(country: string): string {
  return /^(United|Netherlands|Philippines|Czech Republic)/.test(country) ? `the ${country}` : country
}

/** Lowercase ordinary capitalized words but keep acronyms and product names: "DOT Compliance" -> "DOT compliance". */
export function lowerWords(s: string): string {
  return s.replace(/\b[A-Z][a-z]+\b/g, (w) => w.toLowerCase())
}

function lowerFirst(s: string): string {
  return /^[A-Z][a-z]/.test(s) ? s[0].toLowerCase() + s.slice(1) : s
}

export type DescriptionInput = {
  company: { name: string; summary: string; subindustry: string }
  title: string
  baseTitle: string
  profile: CategoryProfile
  team: string
  jobType: string
  locationType: 'Remote' | 'Hybrid' | 'In-Person'
  cityName: string | null
  countryName: string
  yoe: { min: number; max: number | null }
  level: string
  education: string | null
  skills: string[]
  tech: string[]
  benefits: string[] // phrasings, already chosen
  visa: boolean | null
  equity: boolean | null
  salarySentence: string | null
  sourceId: string
}

/**
 * Build the posting's HTML. Sections, headings, sentence templates and bullets are all
 * sampled, so descriptions of the same title differ, and each one names the skills and
 * tools that the structured fields list (ingest extracts them from here when the fields
 * are missing). About 10% carry inline styles and about 1.5% a <script> tag, for the
 * sanitizer to strip.
 */
export function buildDescription(rng: Rng, d: DescriptionInput): string {
  const styled = rng.chance(0.1)
  const headingTag = rng.weighted([['h3', 4], ['h2', 2], ['strong', 3], ['h4', 1]] as const)
  const listTag = rng.chance(0.9) ? 'ul' : 'ol'
  const v: Record<string, string> = {
    company: d.company.name,
    title: d.title,
    team: d.team,
    where: d.locationType === 'Remote' ? ' (remote)' : d.cityName ? ` in ${d.cityName}` : '',
    duty: lowerFirst(rng.pick(d.profile.duties)),
    skill: lowerWords(d.skills[0] ?? rng.pick(d.profile.skills)),
    tech: d.tech.length ? d.tech.slice(0, 3).join(', ') : rng.pick(d.profile.tech),
    jobType: d.jobType.toLowerCase(),
  }
  const p = (text: string) => (styled && rng.chance(0.5) ? `<p style="margin:0 0 12px;font-family:Arial,Helvetica,sans-serif;font-size:14px">${escapeHtml(text)}</p>` : `<p>${escapeHtml(text)}</p>`)
  const h = (text: string) => {
    const t = escapeHtml(fill(text, v))
    if (headingTag === 'strong') return `<p><strong>${t}</strong></p>`
    return styled && rng.chance(0.3) ? `<${headingTag} style="color:#1a1a1a">${t}</${headingTag}>` : `<${headingTag}>${t}</${headingTag}>`
  }
  const list = (items: string[]) => `<${listTag}>${items.map((i) => `<li>${escapeHtml(i)}</li>`).join('')}</${listTag}>`
  const parts: string[] = []

  if (rng.chance(0.25)) parts.push(`<h2>${escapeHtml(d.title)}</h2>`)
  if (rng.chance(0.2)) {
    const where = d.locationType === 'Remote' ? `Remote (${d.countryName})` : d.cityName ?? d.countryName
    parts.push(`<p><strong>Location:</strong> ${escapeHtml(where)}${rng.chance(0.5) ? '&nbsp;|&nbsp;' : '<br>'}<strong>Employment type:</strong> ${escapeHtml(d.jobType)}</p>`)
  }

  const aboutFirst = rng.chance(0.6)
  const about = [h(rng.pick(headings.about)), p(`${d.company.summary} ${rng.sample(cultureLines, rng.int(1, 3)).join(' ')}`)]
  if (aboutFirst) parts.push(...about)

  const [r1, r2] = rng.sample(rolePara, 2)
  parts.push(h(rng.pick(headings.role)), p(fill(r1, v) + (rng.chance(0.35) ? ' ' + fill(r2, { ...v, duty: lowerFirst(rng.pick(d.profile.duties)) }).replace(/^(We're looking|We are seeking|Join|Are you|As a)[^.?]*[.?] /, '') : '')))
  if (d.locationType === 'Hybrid') parts.push(p(rng.pick([`This is a hybrid role: you'll spend ${rng.int(2, 4)} days a week in our ${d.cityName ?? ''} office.`.replace(' our  office', ' our office'), 'We work in a hybrid model, with regular in-office collaboration days.', `Hybrid: ${rng.int(2, 3)} days per week on-site.`])))
  else if (d.locationType === 'Remote') parts.push(p(rng.pick([`This role is fully remote within ${withArticle(d.countryName)}.`, `You can work from anywhere in ${withArticle(d.countryName)}; we meet in person a few times a year.`, 'This is a remote position. We are a distributed team working across time zones.'])))

  if (rng.chance(0.4)) parts.push(h(rng.pick(['How we work', 'The team', 'Life on the team', 'Our culture'])), p(fill(rng.sample(teamLines, rng.int(2, 3)).join(' '), v)))

  const duties = rng.sample(d.profile.duties, rng.int(4, 6))
  if (rng.chance(0.5)) duties.push(rng.pick(genericDuties))
  if (d.tech.length >= 2 && rng.chance(0.6)) duties.push(`Work daily with ${d.tech.slice(0, -1).join(', ')} and ${d.tech[d.tech.length - 1]}`)
  parts.push(h(rng.pick(headings.duties)), list(duties))

  if (!d.profile.hourly && rng.chance(0.3)) {
    const [a, b] = rng.sample(d.profile.duties, 2)
    parts.push(h(rng.pick(['What success looks like', 'Your first 90 days', 'Goals for your first six months'])), list([
      `In your first month, you will learn our ${d.team} processes${d.tech.length ? ` and tools such as ${d.tech[0]}` : ''}`,
      `By month three, you will ${lowerFirst(a)}`,
      `By month six, you will ${lowerFirst(b)}`,
    ]))
  }
  if (d.profile.hourly && rng.chance(0.6)) {
    const hours = d.jobType === 'Part Time' ? `${rng.pick([16, 20, 24])}-${rng.pick([25, 28, 30])} hours per week` : rng.pick(['40 hours per week', '36-40 hours per week', '40+ hours per week with overtime available'])
    parts.push(h(rng.pick(['Schedule', 'Hours', 'Shift details'])), list([`Hours: ${hours}`, `Shifts: ${rng.pick(shiftLines)}`, `Start date: ${rng.pick(['As soon as possible', 'Immediate start', 'Within two weeks', 'Flexible'])}`]))
  }

  const reqs: string[] = []
  const area = rng.pick(['in a similar role', fill('as a {t}', { t: d.baseTitle }), `in ${lowerWords(d.skills[0] ?? d.profile.skills[0])}`, 'in a related field'])
  const { min, max } = d.yoe
  if (min === 0) reqs.push(rng.pick(['No prior experience required; we provide full training', '0-1 years of experience; recent graduates are welcome', 'Some relevant experience through internships, coursework or projects']))
  else if (max === null) reqs.push(rng.pick([`${min}+ years of experience ${area}`, `At least ${min} years of experience ${area}`, `Minimum of ${min} years' experience ${area}`]))
  else reqs.push(rng.pick([`${min}-${max} years of experience ${area}`, `${min} to ${max} years of professional experience ${area}`, `${min}+ years of experience ${area}`]))
  if (d.education) {
    const degree = /degree|PhD|Master of|JD/.test(d.education)
    reqs.push(degree ? rng.pick([`${d.education} or equivalent practical experience`, `${d.education} required`, `${d.education} in a relevant field preferred`]) : rng.pick([d.education, `${d.education} required`]))
  }
  reqs.push(...rng.sample(d.profile.reqs, rng.int(3, 4)))
  if (d.skills.length) reqs.push(`Demonstrated skills in ${joinAnd(d.skills.slice(0, 3).map(lowerWords))}`)
  if (d.tech.length) reqs.push(rng.pick([`Proficiency with ${d.tech.slice(0, 3).join(', ')}`, `Hands-on experience with ${d.tech[0]}`, `Familiarity with tools such as ${d.tech.slice(0, 2).join(' and ')}`]))
  if (d.visa === false && rng.chance(0.5)) reqs.push(`Must be authorized to work in ${withArticle(d.countryName)} without sponsorship`)
  parts.push(h(rng.pick(headings.reqs)), list(reqs))

  if (rng.chance(0.45)) {
    const nice = [`Experience in the ${lowerWords(d.company.subindustry)} space`]
    const extraTech = d.profile.tech.filter((t) => !d.tech.includes(t))
    if (extraTech.length) nice.push(`Exposure to ${rng.sample(extraTech, 2).join(' or ')}`)
    nice.push(rng.pick(['A portfolio or examples of past work', 'Fluency in a second language', 'Experience in a fast-growing company', 'Relevant professional certifications']))
    parts.push(h(rng.pick(headings.nice)), list(nice))
  }

  if (d.benefits.length || d.equity) {
    const items = d.benefits.slice()
    if (d.equity) items.push(rng.pick(['Meaningful equity in a growing company', 'Stock options', 'Competitive equity package', 'Restricted stock units (RSUs)']))
    parts.push(h(rng.pick(headings.benefits)), list(items))
  }
  if (d.salarySentence) parts.push(p(d.salarySentence))
  if (d.visa === true) parts.push(p(rng.pick(['Visa sponsorship is available for this position.', 'We sponsor work visas and support relocation for qualified candidates.', 'We are able to sponsor H-1B and other work visas for this role.'])))
  else if (d.visa === false && rng.chance(0.4)) parts.push(p(rng.pick(['Unfortunately, we are unable to sponsor visas for this role.', 'This position is not eligible for visa sponsorship.'])))

  if (!d.profile.hourly && rng.chance(0.25)) {
    parts.push(h(rng.pick(['Our hiring process', 'Interview process', 'What to expect'])), p(`Our process usually takes ${rng.int(2, 5)} weeks: ${rng.pick(['a 30-minute intro call with our recruiter', 'a short call with the hiring manager'])}, ${rng.pick([`a practical ${lowerWords(d.skills[0] ?? 'skills')} exercise`, 'a take-home exercise (no more than three hours)', 'a case study discussion', 'a portfolio review'])}, ${rng.pick(['a panel interview with the team', 'conversations with two or three future colleagues'])}, and a final chat with ${rng.pick(['a member of the leadership team', 'our CEO', 'the department head'])}.`))
  }
  if (!aboutFirst && rng.chance(0.7)) parts.push(...about)
  if (rng.chance(0.65)) parts.push(p(fill(rng.pick(eeoLines), v)))
  if (rng.chance(0.3)) {
    const t = escapeHtml(`Ready to apply? Send us ${rng.pick(['a short note about why you are interested', 'your resume', 'a link to your portfolio or LinkedIn profile'])}.`)
    parts.push(rng.chance(0.5) ? `<p><em>${t}</em></p>` : `<p>${t}</p>`)
  }
  if (rng.chance(0.015)) {
    parts.push(rng.chance(0.5)
      ? `<script>window.dataLayer=window.dataLayer||[];dataLayer.push({event:"job_view",job_id:"${d.sourceId}"});</script>`
      : `<script src="https://tracking.jobs-widgets.net/pixel.js?id=${d.sourceId}" async></script>`)
  }

  const body = parts.join(rng.chance(0.3) ? '\n' : '')
  return rng.weighted([
    [`<div>${body}</div>`, 5],
    [`<div class="job-description">${body}</div>`, 2],
    [`<section>${body}</section>`, 1],
    [body, 2],
  ])
}
