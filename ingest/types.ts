/**
 * Shapes that flow through ingest: a RawPosting is one line of the input file
 * (JSONL object, or a CSV row mapped onto the same names); a Posting is what the
 * pure transforms produce and the loader writes. See README "Ingest input format".
 */

export type Range = { min: number | null; max: number | null }

export type SalaryPeriod = 'hourly' | 'daily' | 'weekly' | 'monthly' | 'yearly'

export type RawCompany = {
  name?: unknown
  slug?: unknown
  logo?: unknown
  link?: unknown
  linkedin_link?: unknown
  description_summary?: unknown
  services?: unknown
  size_range?: unknown // {min,max} | "51-200" | "10000+" | number of employees
  industries?: unknown
  subindustries?: unknown
  type?: unknown
  is_recruiting_agency?: unknown
}

/** Input posting: every field is unknown until validated. */
export type RawPosting = {
  source_id?: unknown
  job_board?: unknown
  job_board_link?: unknown
  application_link?: unknown
  job_title?: unknown
  description?: unknown
  location_raw?: unknown
  locations?: unknown // string[] | {city, region, country, lat?, lng?}[]
  location_type?: unknown
  job_type?: unknown
  salary_range?: unknown // {min, max, currency, period}
  salary?: unknown // free text, e.g. "$120-150k", "£30,000 - £35,000 a year", "25 EUR/hour"
  yoe_range?: unknown
  experience_level?: unknown
  education_level?: unknown
  language?: unknown
  team?: unknown
  requirements_summary?: unknown
  job_categories?: unknown
  industry?: unknown // the posting's industry as the source words it ("Healthcare"); read by categorization
  skills?: unknown
  technologies?: unknown
  benefits?: unknown
  visa_sponsored?: unknown
  recruiter_agency?: unknown
  offers_equity?: unknown
  date_posted?: unknown
  valid_through?: unknown
  contact_email?: unknown
  contact_phone?: unknown
  company?: RawCompany
  [k: string]: unknown
}

export type { Location } from '../seeds/places/geocode.ts'
import type { Location } from '../seeds/places/geocode.ts'

export type Salary = {
  min: number | null
  max: number | null
  currency: string | null // ISO 4217
  period: SalaryPeriod | null // null = unknown: not stated, and the amount's size does not tell (salary.ts inferPeriod)
  annual_min: number | null // null when period is unknown
  annual_max: number | null
}

export type ExperienceLevel = 'Entry' | 'Junior' | 'Mid' | 'Senior' | 'Executive'
export type JobType = 'Full Time' | 'Part Time' | 'Contract / Temporary' | 'Internship'
export type LocationType = 'Remote' | 'Hybrid' | 'In-Person'

export type Company = {
  name: string
  slug: string
  logo: string | null
  link: string | null
  linkedin_link: string | null
  description_summary: string | null
  services: string[]
  size_min: number | null
  size_max: number | null
  size_bucket: string | null // one of seeds/size-buckets.json
  industries: string[] // only values from seeds/industries.json
  subindustries: string[]
  type: string | null
  is_recruiting_agency: boolean
}

export type Scores = {
  coolness_score: number
  flexibility_score: number
  compensation_value_score: number
  benefits_score: number
  impact_autonomy_score: number
  prestige_score: number
  growth_score: number
  meta_completeness: boolean
  meta_targetability: number
}

export type Posting = {
  source_id: string | null
  job_board: string
  job_board_link: string | null
  application_link: string | null
  job_title: string // normalized
  job_title_raw: string
  description: string // sanitized HTML
  description_raw: string
  description_text: string // plain text, for search and hashing
  location_raw: string | null
  locations: Location[]
  location_type: LocationType | null
  remote_countries: string[] // country scope of a remote posting, e.g. ["United States"]
  job_type: JobType | null
  salary: Salary | null
  yoe_min: number | null
  yoe_max: number | null
  experience_level: ExperienceLevel | null
  education_level: string | null
  language: string | null
  team: string | null
  requirements_summary: string | null
  job_categories: string[]
  skills: string[]
  technologies: string[]
  benefits: string[]
  visa_sponsored: boolean | null
  recruiter_agency: boolean
  offers_equity: boolean | null
  date_posted: string // YYYY-MM-DD
  valid_through: string | null // ISO timestamp
  contact_email: string | null
  contact_phone: string | null
  md5_hash: string
  /** over every field above: a re-ingest that changes nothing is recognised by it */
  content_hash: string
  scores: Scores
  company: Company
}
