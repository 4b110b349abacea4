/**
 * Response shapes, as JSON Schema (2020-12, the dialect of OpenAPI 3.1), for the
 * OpenAPI document. They are JSON Schema rather than yup because responses need what
 * yup's converter cannot say: nullable references, descriptions and examples, and
 * objects left open where the spec lets a record grow (locations).
 *
 * Each schema mirrors a select list: JobRecord is jobRecord() in sql/jobs.ts,
 * CompanyProfile is findCompanyBySlug() in sql/companies.ts, Task is taskRecord() in
 * sql/tasks.ts. test/api/openapi.test.ts fetches real responses and checks them
 * against these with every listed object closed, so a column added to or dropped
 * from a select list fails that test until it is described here.
 */
import { MAX_FEED_LIMIT } from './expired-jobs.ts'
import { COMPANY_TYPES } from './companies.ts'

export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null'

export type JsonSchema = {
  $ref?: string
  type?: JsonType | JsonType[]
  title?: string
  description?: string
  format?: string
  enum?: readonly unknown[]
  const?: unknown
  default?: unknown
  examples?: readonly unknown[]
  properties?: Record<string, JsonSchema>
  required?: readonly string[]
  additionalProperties?: boolean | JsonSchema
  items?: JsonSchema
  prefixItems?: JsonSchema[]
  anyOf?: JsonSchema[]
  oneOf?: JsonSchema[]
  allOf?: JsonSchema[]
  not?: JsonSchema
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number
  exclusiveMaximum?: number
  minItems?: number
  maxItems?: number
  minLength?: number
  maxLength?: number
  pattern?: string
}

export const ref = (name: SchemaName): JsonSchema => ({ $ref: `#/components/schemas/${name}` })

/**
 * The schema or null. A $ref cannot carry a type, so it is wrapped in anyOf; an enum
 * constrains independently of type, so it has to list null too.
 */
export function nullable(schema: JsonSchema, description?: string): JsonSchema {
  const withNull: JsonSchema =
    schema.$ref || !schema.type
      ? { anyOf: [schema, { type: 'null' }] }
      : {
          ...schema,
          type: [...(Array.isArray(schema.type) ? schema.type : [schema.type]), 'null'],
          ...(schema.enum ? { enum: [...schema.enum, null] } : {}),
        }
  return description ? { ...withNull, description } : withNull
}

const str = (description?: string): JsonSchema => (description ? { type: 'string', description } : { type: 'string' })
const strOrNull = (description?: string) => nullable(str(), description)
const strings = (description?: string): JsonSchema => ({ type: 'array', items: { type: 'string' }, ...(description ? { description } : {}) })
const int = (description?: string): JsonSchema => ({ type: 'integer', ...(description ? { description } : {}) })
/** Every listed property is always present (possibly null): rows map straight to responses. */
const record = (properties: Record<string, JsonSchema>, extra: Partial<JsonSchema> = {}): JsonSchema => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  ...extra,
})

const Range = record(
  { min: nullable({ type: 'number' }), max: nullable({ type: 'number' }) },
  { description: '{min, max}; either end may be null when only the other is known' },
)

const SalaryRange = record(
  {
    min: nullable({ type: 'number' }),
    max: nullable({ type: 'number' }),
    currency: strOrNull('ISO 4217 code as stated, e.g. EUR'),
    period: nullable({ type: 'string', enum: ['hourly', 'daily', 'weekly', 'monthly', 'yearly'] }),
  },
  { description: 'The salary as stated in the posting' },
)

const Location: JsonSchema = {
  type: 'object',
  description: 'A place the job is in, or (country only) a country a remote job is open to. Search output may add bbox and address.',
  properties: {
    city: strOrNull(),
    region: strOrNull(),
    country: strOrNull(),
    coordinates: record({ lat: { type: 'number' }, lng: { type: 'number' } }, { description: 'Present when the place was geocoded' }),
  },
  required: ['city', 'region', 'country'],
  additionalProperties: true,
}

const CompanyData = record(
  {
    description_summary: strOrNull(),
    linkedin_link: strOrNull(),
    services: strings(),
    size_range: nullable(ref('Range'), 'Employee count range; null when unknown'),
    industries: strings('Values from GET /v2/jobs/data/industries'),
    subindustries: strings('Values from GET /v2/jobs/data/subindustries'),
  },
  { description: 'The hiring company, as nested in a job record' },
)

const jobFields: Record<string, JsonSchema> = {
  _id: str('Job identifier; the job_id of GET /v2/jobs/{job_id}'),
  company_name: str(),
  job_title: { type: 'string', maxLength: 200, description: 'The title, cleaned (decoration and trailing places removed); one longer than 200 characters is cut at a word boundary and ends in …' },
  description: str('Cleaned HTML'),
  application_link: strOrNull(),
  location_raw: strOrNull('Free-text location as posted'),
  job_categories: strings('Values from GET /v2/jobs/data/categories, plus Other'),
  job_type: nullable({ type: 'string', enum: ['Full Time', 'Part Time', 'Contract / Temporary', 'Internship'] }),
  location_type: nullable({ type: 'string', enum: ['Remote', 'Hybrid', 'In-Person'] }),
  locations: {
    type: 'array',
    items: ref('Location'),
    description:
      'The places the job is in, then, for a remote job scoped to countries (remote_countries), a country-only entry ({city: null, region: null, country}) ' +
      'for each of those countries that no place is in: a job at "Remote - US" has [{city: null, region: null, country: "United States"}] and location_type Remote.',
  },
  remote_countries: strings(
    'The countries a remote job is open to, as English country names ("Remote - US" gives ["United States"]); empty when the job is not remote or is open anywhere. ' +
      'A country filter matches a remote job through this scope, so a job may match a country that none of its locations is in.',
  ),
  salary_range: nullable(ref('SalaryRange'), 'null when the posting states no salary'),
  yoe_range: nullable(ref('Range'), 'Years of experience; null when unknown'),
  experience_level: nullable({ type: 'string', enum: ['Entry', 'Junior', 'Mid', 'Senior', 'Executive'] }),
  education_level: strOrNull(),
  skills: strings(),
  technologies: strings(),
  benefits: strings(),
  requirements_summary: strOrNull(),
  team: strOrNull(),
  language: strOrNull(),
  visa_sponsored: nullable({ type: 'boolean' }),
  recruiter_agency: { type: 'boolean' },
  offers_equity: nullable({ type: 'boolean' }),
  date_posted: { type: 'string', format: 'date', description: 'YYYY-MM-DD' },
  job_board: str('Name of the source job board'),
  job_board_link: strOrNull(),
  job_slug: str('Unique slug of the job'),
  company_slug: str(),
  company_link: strOrNull(),
  company_logo: strOrNull(),
  company_data: ref('CompanyData'),
  expired: { type: 'boolean', description: 'true once the posting is gone from its board or past its closing date' },
  date_expired: nullable({ type: 'string', format: 'date' }, 'YYYY-MM-DD the job expired; null while live'),
  currency: strOrNull('The salary currency, repeated at the top level'),
}

const JobRecord: JsonSchema = {
  type: 'object',
  description: 'A job posting. description_raw is present only when the request asked for it with return_raw_description=true.',
  properties: {
    ...jobFields,
    description_raw: str('Original HTML from the source; only with return_raw_description=true'),
  },
  required: Object.keys(jobFields),
}

const CompanyProfile = record(
  {
    company_slug: str(),
    company_name: str(),
    company_logo: strOrNull(),
    job_board: strOrNull('The board the company was first seen on'),
    linkedin_link: strOrNull(),
    company_link: strOrNull(),
    description_summary: strOrNull(),
    size_range: nullable(ref('Range'), 'Employee count range; null when unknown'),
    size_bucket: strOrNull('The spec\'s size bucket of size_range (1-10 … 10000+); null when unknown'),
    industries: strings(),
    subindustries: strings(),
    careers_url: strOrNull('The company\'s careers page, from an ingested company profile'),
    technologies: strings('Technologies the company works with, from an ingested company profile'),
    remote_policy: strOrNull('As the profile words it: fully-remote, remote-first, remote-friendly, hybrid, …'),
    hiring_region: strOrNull('Where the company hires, as the profile words it: worldwide, americas, europe, …'),
    company_types: {
      type: 'array',
      items: { type: 'string', enum: [...COMPANY_TYPES] },
      description: 'Tags derived at ingest from the profile and the postings (size, description, remote policy, the recruiting-agency flag); docs/companies.md gives each rule',
    },
  },
  { description: 'A hiring company' },
)

const CompanyWithJobs = record({
  company: ref('CompanyProfile'),
  jobs: {
    type: 'array',
    items: ref('JobRecord'),
    maxItems: 100,
    description: "The company's 100 most recent jobs by date_posted, newest first, expired ones included (see each job's expired flag)",
  },
})

const CompanyJobsPage = record({
  jobs: { type: 'array', items: ref('JobRecord'), description: 'Live jobs only, newest first' },
  job_categories: {
    type: 'array',
    items: record({ category: str() }),
    description: "The distinct categories of the company's live jobs, sorted",
  },
  total_count: int('Live jobs of the company'),
  page: int(),
  limit: int(),
  total_pages: int('total_count / limit, rounded up'),
})

const SearchMeta = record(
  {
    count: record(
      { value: int('total_count'), lowerBound: { type: 'boolean' }, exact: { type: 'boolean' } },
      { description: `Counting stops at 1,000 matches: past that, total_count is the planner's estimate, exact is false and lowerBound true` },
    ),
    score: { type: 'number' },
    page: int(),
    limit: int(),
    position: int('1-based rank of this job in the whole result'),
  },
  { description: 'Per-job search metadata' },
)

const SearchJob: JsonSchema = {
  type: 'object',
  description: 'A job record with its relevance score and search metadata. recruiter_ageny repeats recruiter_agency under the spelling of the spec\'s search schema.',
  properties: {
    ...jobFields,
    description_raw: str('Original HTML from the source; only with return_raw_description=true'),
    score: { type: 'number', description: 'ts_rank of the text query (title > skills and technologies > benefits > description); 1 without a text query' },
    recruiter_ageny: { type: 'boolean', description: 'Same as recruiter_agency' },
    meta: ref('SearchMeta'),
  },
  required: [...Object.keys(jobFields), 'score', 'recruiter_ageny', 'meta'],
}

const JobSearchPage = record({
  jobs: { type: 'array', items: ref('SearchJob') },
  total_count: int('Matching live jobs; exact up to 1,000, estimated past it (see meta.count)'),
  company_count: int('Distinct companies among the matches (counted over the first 1,001 matches)'),
  page: int(),
  limit: int(),
  total_pages: int('total_count / limit, rounded up'),
})

const JobEstimate = record({
  total_count: int('Matching live jobs; exact up to 1,000, estimated past it'),
  company_count: int('Distinct companies among the matches (counted over the first 1,001)'),
  count: record({ value: int(), exact: { type: 'boolean' }, lowerBound: { type: 'boolean' } }),
  page: int(),
  limit: int(),
  total_pages: int(),
  cost: record(
    {
      meter: { type: 'string', enum: ['m_jobs_api_calls'] },
      search_units: int('What POST /v2/jobs/search with this page and limit would bill: the jobs that page holds'),
      export_units: int('What POST /v2/jobs/export with this limit would bill: min(limit, total_count)'),
    },
    { description: 'Units the real requests would cost; the estimate itself costs 0' },
  ),
})

const Task = record(
  {
    id: { type: 'string', format: 'uuid' },
    type: { type: 'string', enum: ['export_job_data', 'export_expired_jobs', 'salary_benchmark', 'export_historical_jobs'] },
    state: { type: 'string', enum: ['queued', 'processing', 'finished', 'failed'], description: 'Pollers stop at finished or failed' },
    progress: { type: 'number', minimum: 0, maximum: 1 },
    pacing: nullable(
      { type: 'object' },
      'Exports: how the export gives way to the API (docs/tasks.md, "Yielding to the API"), as of its last progress: {resting, load, steps, steps_rested, rested_ms}. resting is true while it rests between batches because requests are waiting on the service, load says for what. null for other tasks and before the first batch.',
    ),
    priority: int('Higher is more urgent'),
    input: { type: 'object', description: 'The query and, for exports, format; the expired export records since and format jsonl' },
    result: nullable(
      { type: 'object' },
      'null until finished. Exports: {download_url, file_size, record_count, expiry_time}; the historical export adds quote {record_count, price_usd, tiers}. Salary benchmark: a SalaryBenchmarkResult {market, confidence, proposed, matched_titles, sample}.',
    ),
    error: strOrNull('When failed: a plain message with a reference, under which the server\'s log keeps the cause'),
    worker_id: strOrNull(),
    notify: { type: 'boolean', description: 'Whether an email is sent when the task completes' },
    user_id: str('The owning account'),
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    started_at: nullable({ type: 'string', format: 'date-time' }),
    completed_at: nullable({ type: 'string', format: 'date-time' }),
  },
  { description: 'A background task (export, expired-jobs export, salary benchmark)' },
)

const meterNames = ['m_company_api_calls', 'm_hiring_manager_contacts', 'm_insights_calls', 'm_jobs_api_calls', 'm_salary_benchmarks']
const overageMode = { type: 'string', enum: ['block', 'meter'] } satisfies JsonSchema

const UsageMeter = record(
  {
    event_name: { type: 'string', enum: meterNames },
    display_name: str(),
    used: int('All units settled this period (included and overage)'),
    included: nullable(int(), 'Plan allowance; null for legacy accounts'),
    remaining: nullable(int(), 'max(0, included - used); null for legacy accounts'),
    overage_used: int('Units beyond the allowance'),
    period: { type: 'string', enum: ['calendar_month', 'subscription', 'trial'], description: 'What bounds the period' },
    overage_mode: nullable(overageMode, 'null for legacy accounts'),
    overage_cents_per_unit: nullable({ type: 'number' }, 'Exact price of one overage unit in cents (0.15 = 1.50 per 1,000); meter mode only'),
    estimated_overage_cents: int('overage_used x overage_cents_per_unit, rounded up; 0 in block mode'),
    overage_currency: str('ISO 4217, lower case: usd'),
    daily: {
      type: 'array',
      description: 'With `daily=true` only: units per UTC day of the period, oldest first, net of refunds',
      items: record({ date: { type: 'string', format: 'date' }, used: int('Units charged that day') }),
    },
  },
  { description: 'One meter in the current period' },
)
// daily is there only when asked for
UsageMeter.required = (UsageMeter.required as string[]).filter((k) => k !== 'daily')

const UsageSummary = record(
  {
    billing_source: { type: 'string', enum: ['payments_v2', 'legacy'] },
    payments_customer_id: strOrNull('Customer id at the payment provider'),
    plan_lookup_keys: strings('Active plan identifiers (plan_free, plan_starter, ...) and granted add-ons (addon_hiring_manager_contacts); empty for legacy'),
    subscription_status: strOrNull('e.g. active or trialing; null on the free tier'),
    period_start: nullable({ type: 'string', format: 'date-time' }, 'null on the free tier (calendar month, UTC)'),
    period_end: nullable({ type: 'string', format: 'date-time' }, 'null on the free tier (calendar month, UTC)'),
    meters: { type: 'array', items: ref('UsageMeter'), description: 'Every meter, sorted by event_name' },
  },
  { description: 'Usage per meter for the current billing period' },
)

const PortalMeter = record({
  event_name: { type: 'string', enum: meterNames },
  display_name: str(),
  unit: { type: 'string', enum: ['jobs', 'companies', 'calls', 'requests', 'contacts'] },
  included: int('Units included per period'),
  overage_mode: overageMode,
  overage_cents_per_unit: nullable({ type: 'number' }, 'Exact cents per overage unit; null in block mode'),
})

const BillingPortal = record(
  {
    current: record(
      {
        account_id: str(),
        plan: { type: 'string', enum: ['free', 'starter', 'growth', 'scale', 'pro', 'enterprise', 'legacy'] },
        billing_source: { type: 'string', enum: ['payments_v2', 'legacy'] },
        features: strings('Add-on features granted to the account'),
      },
      { description: 'The calling account' },
    ),
    plans: {
      type: 'array',
      items: record({
        plan: str('free, starter, growth, scale or pro'),
        lookup_key: str('e.g. plan_starter'),
        display_name: str(),
        monthly_price_cents: int(),
        annual_price_cents: int('Twelve months at 20 percent off'),
        currency: str(),
        meters: { type: 'array', items: PortalMeter },
      }),
    },
    enterprise: record({ description: str() }),
    add_ons: { type: 'array', items: record({ feature: str(), description: str() }) },
    upgrade: record({ how: str('How to change plan'), usage: str('Where to see usage') }),
  },
  { description: 'The plan catalog and how to upgrade' },
)

const Categories = record(
  { categories: strings('Every job category, then Other') },
  { examples: [{ categories: ['Software Engineer Jobs', 'Sales Jobs', 'Other'] }] },
)

const Industries = record(
  { industries: { type: 'array', items: record({ name: str(), subindustries: strings() }) } },
  { examples: [{ industries: [{ name: 'Legal', subindustries: ['Administrative Law', 'Antitrust Law'] }] }] },
)

const Subindustries = record(
  {
    subindustries: {
      type: 'array',
      description: 'Sorted by name; a subindustry lists every industry it belongs to (a few belong to several)',
      items: record({ name: str(), industries: strings() }),
    },
  },
  { examples: [{ subindustries: [{ name: 'Real Estate Technology', industries: ['Real Estate', 'Tech, Software & IT Services'] }] }] },
)

const Healthz: JsonSchema = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['ok', 'starting'] },
    stage: strOrNull('While starting: what the service is doing (e.g. demo data)'),
  },
  required: ['status'],
  examples: [{ status: 'ok' }, { status: 'starting', stage: 'demo data' }],
}

const HTTPError = record({ detail: str() }, { examples: [{ detail: 'Job not found' }] })

const ValidationErrorItem: JsonSchema = {
  type: 'object',
  properties: {
    type: str(
      'e.g. missing, string_type, int_type, list_type, dict_type, enum, greater_than_equal, less_than_equal, too_long, string_too_long, ' +
        'finite_number, date_parsing, value_error, json_invalid; too_many_errors for the last item when more than 20 were found',
    ),
    loc: {
      type: 'array',
      items: { type: ['string', 'integer'] },
      description: 'Where: body, query or path, then the field path, e.g. ["body", "job_titles", 0]',
    },
    msg: str(),
    input: {
      description:
        'The rejected value; null when missing. Bounded: strings cut after 100 characters, lists after 10 items and objects after 10 keys ' +
        '(each with a marker such as "… 9990 more items"), containers below the third level summarized ("[list of 3 items]"), at most 50 values in all; ' +
        'Infinity and NaN as text',
    },
    ctx: { type: 'object', description: 'Details for some types, e.g. {ge: 1} or {expected: "..."}' },
  },
  required: ['type', 'loc', 'msg', 'input'],
}

const ValidationError = record(
  { detail: { type: 'array', items: ref('ValidationErrorItem') } },
  {
    examples: [
      {
        detail: [
          { type: 'less_than_equal', loc: ['query', 'limit'], msg: 'Input should be less than or equal to 100', input: '101', ctx: { le: 100 } },
        ],
      },
    ],
  },
)

const ExpiredJob = record(
  {
    _id: str("The job record's _id (GET /v2/jobs/{job_id})"),
    job_slug: str(),
    company_slug: str(),
    date_expired: { type: 'string', format: 'date', description: 'The day the posting ended: its valid_through when it had one, so it can lie before expired_at' },
    expired_at: { type: 'string', format: 'date-time', description: 'When this service marked the job expired (UTC): the order of the feed, and what since bounds' },
  },
  { description: 'An expired job, as identifiers' },
)

const ExpiredJobsPage: JsonSchema = {
  type: 'object',
  properties: {
    jobs: { type: 'array', items: ref('ExpiredJob'), maxItems: MAX_FEED_LIMIT, description: 'Newest first: expired_at descending, then _id descending' },
    since: nullable({ type: 'string', format: 'date-time' }, 'The since the page was read with, in UTC; null without one'),
    page: int(),
    limit: int(),
    count_on_page: int('How many jobs this page holds'),
    has_more: { type: 'boolean', description: 'Whether the next page holds jobs; false on the page that reaches the depth cap (see note)' },
    note: str('Only on a page at or past the depth cap when more jobs lie beyond it (always past it): use POST /v2/jobs/expired-jobs/export for the whole window'),
  },
  required: ['jobs', 'since', 'page', 'limit', 'count_on_page', 'has_more'],
}

/** Every named schema; the document puts them under components.schemas. */
export const responseSchemas = {
  Range,
  SalaryRange,
  Location,
  CompanyData,
  JobRecord,
  CompanyProfile,
  CompanyWithJobs,
  CompanyJobsPage,
  SearchMeta,
  SearchJob,
  JobSearchPage,
  JobEstimate,
  ExpiredJob,
  ExpiredJobsPage,
  Task,
  UsageMeter,
  UsageSummary,
  BillingPortal,
  Categories,
  Industries,
  Subindustries,
  Healthz,
  HTTPError,
  ValidationErrorItem,
  ValidationError,
} satisfies Record<string, JsonSchema>

export type SchemaName = keyof typeof responseSchemas
