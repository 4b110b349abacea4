/**
 * The board a posting came from, named after its link when the feed does not say: a known
 * board or ATS by its host, otherwise the site's own name.
 * e.g. https://www.jobs.nhs.uk/xi/vacancy/915390428 -> "NHS Jobs"
 *      https://boards.greenhouse.io/acme/jobs/123 -> "Greenhouse"
 *      https://acme.wd5.myworkdayjobs.com/en-US/External/job/123 -> "Workday"
 *      https://careers.acme-robotics.com/jobs/123 -> "Acme Robotics Careers"
 *      https://acme.example/careers/123 -> "Acme Careers"; https://acme.example/x -> "Acme"
 */

/** Hosts of boards and ATSs, matched on the host or any of its parents (uk.indeed.com is indeed.com). */
const KNOWN_HOSTS: Record<string, string> = {
  'jobs.nhs.uk': 'NHS Jobs',
  'greenhouse.io': 'Greenhouse',
  'lever.co': 'Lever',
  'ashbyhq.com': 'Ashby',
  'myworkdayjobs.com': 'Workday',
  'myworkdaysite.com': 'Workday',
  'smartrecruiters.com': 'SmartRecruiters',
  'workable.com': 'Workable',
  'bamboohr.com': 'BambooHR',
  'recruitee.com': 'Recruitee',
  'teamtailor.com': 'Teamtailor',
  'jobvite.com': 'Jobvite',
  'icims.com': 'iCIMS',
  'breezy.hr': 'Breezy HR',
  'applytojob.com': 'JazzHR',
  'personio.de': 'Personio',
  'personio.com': 'Personio',
  'linkedin.com': 'LinkedIn',
  'indeed.com': 'Indeed',
  'indeed.co.uk': 'Indeed',
  'glassdoor.com': 'Glassdoor',
  'glassdoor.co.uk': 'Glassdoor',
  'ziprecruiter.com': 'ZipRecruiter',
  'monster.com': 'Monster',
  'dice.com': 'Dice',
  'builtin.com': 'Built In',
  'wellfound.com': 'Wellfound',
  'angel.co': 'Wellfound',
  'simplify.jobs': 'Simplify',
  'reed.co.uk': 'Reed',
  'totaljobs.com': 'Totaljobs',
  'stepstone.de': 'StepStone',
  'seek.com.au': 'SEEK',
  'news.ycombinator.com': 'Hacker News',
  'arbeitnow.com': 'Arbeitnow',
  'remoteok.com': 'RemoteOK',
  'remoteok.io': 'RemoteOK',
  'jobicy.com': 'Jobicy',
  'weworkremotely.com': 'We Work Remotely',
  'remotive.com': 'Remotive',
  'remotive.io': 'Remotive',
  'workingnomads.com': 'Working Nomads',
  'himalayas.app': 'Himalayas',
}

/** Subdomains and first path segments that say "this is the site's careers section". */
const CAREERS_WORDS: Record<string, string> = { careers: 'Careers', career: 'Careers', jobs: 'Jobs', job: 'Jobs', talent: 'Careers', join: 'Careers', work: 'Careers', apply: 'Careers', hiring: 'Careers' }

// "co.uk", "com.au", "nhs.uk": a two-level public suffix, so the site's name is one label further left.
const SECOND_LEVEL = /^(?:co|com|org|net|ac|gov|edu|nhs|ltd|plc)$/

const titleCase = (label: string) =>
  label
    .split(/[-_]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join(' ')

/** The board named by a posting's link, or null when the link is not an http(s) URL. */
export function boardFromUrl(link: string | null | undefined): string | null {
  if (!link) return null
  let url: URL
  try {
    url = new URL(link.trim())
  } catch {
    return null
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null
  const host = url.hostname.toLowerCase().replace(/^www\d?\./, '').replace(/\.$/, '')
  const labels = host.split('.')
  for (let i = 0; i < labels.length - 1; i++) {
    const known = KNOWN_HOSTS[labels.slice(i).join('.')]
    if (known) return known
  }
  if (labels.length < 2 || /^\d+$/.test(labels.at(-1)!)) return null // a bare or numeric host names nothing
  let site = labels.length - 2
  if (labels.length >= 3 && labels.at(-1)!.length === 2 && SECOND_LEVEL.test(labels[site])) site--
  const name = titleCase(labels[site])
  const section = labels.slice(0, site).map((l) => CAREERS_WORDS[l]).find(Boolean) ?? CAREERS_WORDS[url.pathname.split('/')[1]?.toLowerCase() ?? '']
  return section ? `${name} ${section}` : name
}
