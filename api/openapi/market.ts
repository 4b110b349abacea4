/**
 * The salary benchmark and the insights routes in the OpenAPI document
 * (api/routes/salary-benchmark.ts, api/routes/insights.ts): their entries and the
 * shapes of their results. document.ts lists these with the other families. The design they
 * describe is docs/market-data.md.
 */
import type { RouteDoc } from './route-doc.ts'
import { companyInsightsBody, jobInsightsBody } from '../schemas/insights.ts'
import { DEFAULT_BENCHMARK_DAYS, MAX_BENCHMARK_DAYS, salaryBenchmarkBody } from '../schemas/salary-benchmark.ts'
import type { JsonSchema } from '../schemas/responses.ts'
import { CONFIDENCE, SIMILAR } from '../../jobs/salary-benchmark.ts'
import { COMPANY_LOCATIONS, SAMPLE_POSTINGS, TOP, TREND_MONTHS, TREND_WEEKS } from '../../sql/insights.ts'
import { MATCHED_TITLES } from '../../sql/salary-benchmark.ts'
import { CURRENCIES, MIN_LOG_SPREAD, MIN_OUTLIER_SAMPLE, MIN_SALARIES, OUTLIER_MADS } from '../../sql/salary-stats.ts'

const ref = (name: keyof typeof marketSchemas): JsonSchema => ({ $ref: `#/components/schemas/${name}` })
const int = (description?: string): JsonSchema => ({ type: 'integer', ...(description ? { description } : {}) })
const intOrNull = (description?: string): JsonSchema => ({ type: ['integer', 'null'], ...(description ? { description } : {}) })
const closed = (properties: Record<string, JsonSchema>, extra: Partial<JsonSchema> = {}): JsonSchema => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
  ...extra,
})
const countList = (description: string, extra: Record<string, JsonSchema> = {}): JsonSchema => ({
  type: 'array',
  description,
  maxItems: TOP,
  items: closed({ value: { type: 'string' }, count: int(), ...extra }),
})
const countsByValue = (description: string): JsonSchema => ({ type: 'object', description, additionalProperties: { type: 'integer' } })

const SalaryStats = closed(
  {
    count: int('Salaries the statistics are computed from, after outliers are removed'),
    min: intOrNull('The lowest of them; null without salaries'),
    max: intOrNull('The highest of them; null without salaries'),
    p10: intOrNull(`Percentiles (continuous, as percentile_cont); null below ${MIN_SALARIES} salaries`),
    p25: intOrNull(),
    p50: intOrNull('The median'),
    p75: intOrNull(),
    p90: intOrNull(),
    mean: intOrNull(`null below ${MIN_SALARIES} salaries`),
    currency: { type: 'string', description: 'ISO 4217 code the amounts are in' },
    period: { type: 'string', enum: ['yearly'], description: 'Always annual amounts' },
  },
  { description: 'Annual salaries in whole units of `currency`' },
)

const statsByGroup = (description: string): JsonSchema => ({ type: 'object', description, additionalProperties: ref('SalaryStats') })

const SalaryBenchmarkResult = closed(
  {
    market: closed({
      salary: ref('SalaryStats'),
      by_experience_level: statsByGroup(`The same per experience level (Entry, Junior, Mid, Senior, Executive), for levels with at least ${MIN_SALARIES} salaries`),
      by_location_type: statsByGroup(`The same per location type (Remote, Hybrid, In-Person), for types with at least ${MIN_SALARIES} salaries`),
    }),
    confidence: closed({
      grade: { type: 'string', enum: ['A', 'B', 'C', 'D', 'F'] },
      score: { type: 'number', minimum: 0, maximum: 1 },
      reasons: { type: 'array', items: { type: 'string' }, description: 'What the grade rests on, in words' },
    }),
    proposed: {
      anyOf: [
        closed({
          min: intOrNull('salary_range.min as an annual amount in the report\'s currency'),
          max: intOrNull('salary_range.max likewise'),
          percentile: { type: ['number', 'null'], minimum: 0, maximum: 100, description: `Where the range's midpoint (its one bound, when open) stands among the salaries: the share below it plus half the share equal to it, in percent; null below ${MIN_SALARIES} salaries` },
        }),
        { type: 'null' },
      ],
      description: 'null without salary_range (or, with public_url, when the posting states no pay)',
    },
    matched_titles: {
      type: 'array',
      maxItems: MATCHED_TITLES,
      description: 'The most common titles in the sample (case aside, the most common spelling shown), with their postings',
      items: closed({
        title: { type: 'string' },
        count: int(),
        match: { type: 'string', enum: ['exact', 'words', 'similar'], description: 'exact: a requested title; words: has the title query\'s words; similar: near it by meaning' },
      }),
    },
    sample: closed(
      {
        posting_id: { type: 'string', description: 'Only with public_url: the posting it named, left out of its own sample' },
        postings: int('Postings that matched, live and expired'),
        salaries: int('Of them, those with an annual pay in a currency of the rate table'),
        outliers_removed: int(),
        exact_title_salaries: int('Salaries of postings with exactly a requested title'),
        similar_titles_searched: { type: 'boolean', description: 'false without an embedding model (or vectors of it)' },
        similar_titles: { type: 'array', items: closed({ title: { type: 'string' }, similarity: { type: 'number' } }) },
        date_posted_from: { type: 'string', format: 'date' },
        date_posted_to: { type: 'string', format: 'date' },
        currency: { type: 'string' },
      },
      { required: ['postings', 'salaries', 'outliers_removed', 'exact_title_salaries', 'similar_titles_searched', 'similar_titles', 'date_posted_from', 'date_posted_to', 'currency'] },
    ),
  },
  { description: 'The result of a finished salary_benchmark task' },
)

const weeks: JsonSchema = {
  type: 'array',
  minItems: TREND_WEEKS,
  maxItems: TREND_WEEKS,
  description: `Postings per week (Monday to Sunday, UTC), the last ${TREND_WEEKS} weeks with the current one last, zero-filled; live and expired postings, with the same filters`,
  items: closed({ week_start: { type: 'string', format: 'date', description: 'The Monday' }, count: int() }),
}

const JobInsights = closed(
  {
    total_count: int('Live postings matching the filters (exact)'),
    currency: { type: 'string' },
    postings_by_week: weeks,
    top_job_categories: countList('Categories of the matches, most first (exact)'),
    top_skills: countList(`Skills, most first; over a sample when more than ${SAMPLE_POSTINGS.toLocaleString('en')} match, counts scaled to total_count`),
    top_technologies: countList('Technologies, likewise'),
    top_companies: countList('Companies with the most matches (exact)', { company_slug: { type: 'string' } }),
    top_countries: countList('Countries of the postings\' places, and the countries remote postings hire in; a posting counts once per country (sampled like skills)'),
    top_cities: countList('Cities of the postings\' places (sampled like skills)', { country: { type: ['string', 'null'] } }),
    location_types: countsByValue('{Remote, Hybrid, In-Person: count}; postings that state none are left out'),
    job_types: countsByValue('{Full Time, Part Time, Contract / Temporary, Internship: count}'),
    experience_levels: countsByValue('{Entry, Junior, Mid, Senior, Executive: count}'),
    salary: closed(
      { ...SalaryStats.properties, by_experience_level: statsByGroup(`Per experience level, for levels with at least ${MIN_SALARIES} salaries`) },
      { description: 'Annual salaries of the matches in `currency`, after the outlier rule: SalaryStats, and the same per experience level' },
    ),
    remote_share: { type: ['number', 'null'], minimum: 0, maximum: 1, description: 'Remote postings / total_count; null when nothing matches' },
    sample: closed({ postings: int('Postings the sampled lists were computed over'), of: int('= total_count') }),
  },
  { description: 'Aggregates over the live postings a job search matches' },
)

const CompanyInsights = closed(
  {
    company_slug: { type: 'string' },
    company_name: { type: 'string' },
    currency: { type: 'string' },
    open_roles: closed({ total: int('Live postings'), by_category: { type: 'array', items: closed({ value: { type: 'string' }, count: int() }), description: 'Live postings per category, most first' } }),
    hiring_trend: {
      type: 'array',
      minItems: TREND_MONTHS,
      maxItems: TREND_MONTHS,
      description: `Postings per month of date_posted, live and expired, the last ${TREND_MONTHS} months with the current one last, zero-filled`,
      items: closed({ month: { type: 'string', description: 'YYYY-MM' }, count: int() }),
    },
    locations: {
      type: 'array',
      maxItems: COMPANY_LOCATIONS,
      description: 'Places of the live postings, most postings first',
      items: closed({ city: { type: ['string', 'null'] }, region: { type: ['string', 'null'] }, country: { type: ['string', 'null'] }, count: int() }),
    },
    location_types: countsByValue('Live postings per location type'),
    salary: ref('SalaryStats'),
    salary_by_category: statsByGroup(`Per first category of each posting, every category with a salary (percentiles from ${MIN_SALARIES} salaries)`),
    posting_lifetime: closed({
      median_days: { type: ['number', 'null'], description: 'Median of date_expired − date_posted over the expired postings' },
      expired_postings: int(),
    }),
  },
  { description: 'One company\'s hiring: open roles, trend, places, salaries and how long its postings stay live' },
)

export const marketSchemas = { SalaryStats, SalaryBenchmarkResult, JobInsights, CompanyInsights }

const benchmarkDoc = [
  'Queues a `salary_benchmark` task and returns it at once (state `queued`); poll `GET /v2/tasks/{task_id}` until `finished` or `failed`. ',
  'Its `result` is a **SalaryBenchmarkResult**.\n\n',
  '**Fields.** Exactly these; any other field is a 422 (`extra_forbidden`), as is a value out of range. ',
  '`public_url` names a posting by its application or board link (a trailing slash or a #fragment does not matter; no posting: 422) and takes precedence: ',
  'its title replaces `job_title`, its country `geo_locations`, its experience level `experience_levels`, and its stated pay stands in for an absent `salary_range`; it is left out of its own sample. ',
  '`job_title` is required without `public_url`; `job_titles` adds titles (the search syntax of job search\'s job_titles applies to all). ',
  '`yoe_range` (or its alias `yoe`, not both) keeps postings whose years-of-experience range overlaps it. `description` is embedded with the title to find similar titles. ',
  `\`salary_range\` {min, max, currency, period}: \`currency\` (one of ${CURRENCIES.length} in the rate table) is the report's currency; \`period\` hourly, daily, weekly, monthly or yearly (default yearly); `,
  'with min or max it is placed in the distribution (`proposed`). `geo_locations` take country-only entries; `industry`, `location_types`, `experience_levels` narrow. ',
  `\`days_ago\` ${1}–${MAX_BENCHMARK_DAYS} (default ${DEFAULT_BENCHMARK_DAYS}).\n\n`,
  '**Extension: a date window.** `date_posted_from` and `date_posted_to` (YYYY-MM-DD, both included) set the window instead of `days_ago` (sending both is a 422), ',
  `so postings older than ${MAX_BENCHMARK_DAYS} days (an archive of 2020) can be benchmarked. A missing start is a year before the end; a missing end is today.\n\n`,
  '**Sample.** Postings live **and expired** posted in the window whose title has the query\'s words (job search\'s title syntax), ',
  `plus, with an embedding model and vectors, postings whose title is among the ${SIMILAR.limit} titles nearest the requested one (cosine ≥ ${SIMILAR.minSimilarity} among the ${SIMILAR.depth} nearest postings), `,
  'with the other filters applied. A posting\'s pay is its annual midpoint (or its one stated bound), converted with a static rate table; ',
  `the report's currency is salary_range.currency, else the currency of the location's country, else USD. Outliers: with ${MIN_OUTLIER_SAMPLE} salaries or more, one whose log differs from the median log by more than ${OUTLIER_MADS} × max(1.4826 × MAD, ${MIN_LOG_SPREAD}) is removed.\n\n`,
  `**Confidence** score = 0.5 × size + 0.25 × spread + 0.25 × exact: size ln(n)/ln(${CONFIDENCE.sizeFull}) capped at 1; spread 1 when (p75 − p25)/p50 ≤ ${CONFIDENCE.spreadTight}, 0 at ≥ ${CONFIDENCE.spreadWide}; `,
  `exact the share of salaries from postings with exactly a requested title. Grades: ${CONFIDENCE.grades.map(([g, s]) => `${g} ≥ ${s}`).join(', ')}, else F. `,
  `Fewer than ${MIN_SALARIES} salaries: the task still finishes, with null percentiles and grade F.\n\n`,
  '**Billing:** 1 unit of m_salary_benchmarks, charged when the task is created (a block-mode meter without a unit left refuses with the quota 429 and no task is created), ',
  'refunded if the task fails. With `notify: true` an email goes to the account\'s address when it finishes or fails.',
].join('')

const insightsDoc = [
  'Market aggregates over the **live** postings that the shared job search filter set matches, answered at once. The body is validated exactly as `POST /v2/jobs/search` validates it ',
  '(unknown fields are ignored); `page`, `limit`, `sort_by`, `sort_order` and `return_raw_description` are accepted and change nothing, so a search\'s body can be sent as it is. ',
  `\`currency\` (default USD, one of the rate table's ${CURRENCIES.length}) is the currency salaries are **reported** in, not a filter on the currency postings state.\n\n`,
  `Exact: total_count, postings_by_week (expired postings included, so older weeks do not fade as postings expire), location_types, job_types, experience_levels, top_job_categories, top_companies, salary, remote_share. `,
  `top_skills, top_technologies, top_countries and top_cities are computed over a sample of at most ${SAMPLE_POSTINGS.toLocaleString('en')} of the matches (the same ones on every call over the same data), their counts scaled to total_count; \`sample\` says how many. `,
  'Salaries are annual midpoints converted with the static rate table, outliers removed as the salary benchmark removes them.\n\n',
  '**Billing:** 1 unit of m_insights_calls.',
].join('')

const companyInsightsDoc = [
  'One company\'s hiring, answered at once: `open_roles` (live postings by category), `hiring_trend` (postings per month, live and expired, zero-filled), ',
  '`locations` and `location_types` of the live postings, `salary` and `salary_by_category` (postings of the trend\'s months, live and expired, by each posting\'s first category, ',
  'in `currency`, default USD), and `posting_lifetime` (median days from date_posted to date_expired over its expired postings). The body is optional: `{"currency": "EUR"}` at most; ',
  'any other field is a 422.\n\n**Billing:** 1 unit of m_insights_calls; an unknown slug is a 404 and costs nothing.',
].join('')

export const marketRouteDocs: RouteDoc[] = [
  {
    method: 'post',
    path: '/v2/jobs/salary-benchmark',
    summary: 'Benchmark a salary (a task)',
    description: benchmarkDoc,
    tags: ['Tasks'],
    auth: 'key',
    body: salaryBenchmarkBody,
    response: {
      content: {
        'application/json': {
          schema: {
            allOf: [
              { $ref: '#/components/schemas/Task' },
              { type: 'object', properties: { type: { const: 'salary_benchmark' }, result: { anyOf: [ref('SalaryBenchmarkResult'), { type: 'null' }] } }, additionalProperties: true },
            ],
          },
          example: { id: '5f0c1e9a-3d7b-4c61-9a55-2f1f8f7f2d10', type: 'salary_benchmark', state: 'queued', progress: 0, result: null },
        },
      },
    },
    metered: true,
    errors: { 415: 'The body has content but is not JSON; nothing is charged', 503: 'Background tasks are not available on this server' },
  },
  {
    method: 'post',
    path: '/v2/jobs/insights',
    summary: 'Job market insights',
    description: insightsDoc,
    tags: ['Jobs'],
    auth: 'signin',
    body: jobInsightsBody,
    response: ref('JobInsights'),
    metered: true,
    errors: { 415: 'The body has content but is not JSON; nothing is charged' },
  },
  {
    method: 'post',
    path: '/v2/platform/companies/:company_slug/insights',
    summary: 'A company\'s hiring insights',
    description: companyInsightsDoc,
    tags: ['Companies'],
    auth: 'signin',
    body: companyInsightsBody,
    params: { company_slug: 'The company\'s `company_slug`' },
    response: ref('CompanyInsights'),
    metered: true,
    errors: { 404: 'No company has this slug', 415: 'The body has content but is not JSON; nothing is charged' },
  },
]
