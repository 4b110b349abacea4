/**
 * Historical search and export in the OpenAPI document (api/routes/historical.ts). document.ts lists these
 * with the other families.
 */
import type { RouteDoc } from './route-doc.ts'
import { FIRST_YEAR } from '../routes/historical.ts'
import { DEFAULT_SAMPLE_SIZE, historicalExportBody, historicalSearchBody, MAX_EXPORT_RECORDS, MAX_SAMPLE_SIZE } from '../schemas/historical.ts'
import type { JsonSchema } from '../schemas/responses.ts'
import { EXPORT_TIERS_TEXT, HISTORICAL_EXPORT_FIELDS } from '../../sql/historical.ts'

const closed = (properties: Record<string, JsonSchema>, description?: string): JsonSchema => ({
  type: 'object',
  ...(description ? { description } : {}),
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
})

const count = (description: string): JsonSchema => ({ type: 'integer', minimum: 0, description })

export const ExportQuote = closed(
  {
    record_count: count('Archived postings the export holds (for the search: every match)'),
    price_usd: { type: 'number', minimum: 0, description: 'Exact, in steps of 0.001; 0 for no records' },
    tiers: { type: 'string', description: 'The price steps, as text', examples: [EXPORT_TIERS_TEXT] },
  },
  'What exporting these records would cost. Quoted only: no meter is charged',
)

const HistoricalSearchResult = closed({
  total_count: count('Archived postings matching: the number an export without max_records holds'),
  by_year_posted: {
    type: 'array',
    description: `Matches by year posted, from ${FIRST_YEAR} (or date_posted_from's year) to the current year, every year listed (0 when none). Earlier postings count in total_count only`,
    items: closed({ year: { type: 'integer' }, count: count('Matches posted that year') }),
  },
  top_companies: {
    type: 'array',
    maxItems: 10,
    description: 'The companies with the most matches, most first (ties by name)',
    items: closed({ company_name: { type: 'string' }, count: count('Its matches') }),
  },
  sample_titles: {
    type: 'array',
    maxItems: MAX_SAMPLE_SIZE,
    description: 'The titles of the most recently posted matches (sample_size of them), newest first',
    items: closed({ job_title: { type: 'string' }, year_posted: { type: 'integer' } }),
  },
  coverage: closed({
    description_text_sample_pct: { type: 'number', minimum: 0, maximum: 100, description: 'Of the matches, the share (one decimal) whose description text the archive kept' },
    note: { type: 'string', description: 'What the share means for an export' },
  }),
  export_quote: ExportQuote,
})

const example = {
  total_count: 1843,
  by_year_posted: [
    { year: 2021, count: 0 }, { year: 2022, count: 12 }, { year: 2023, count: 40 }, { year: 2024, count: 131 }, { year: 2025, count: 902 }, { year: 2026, count: 758 },
  ],
  top_companies: [{ company_name: 'Acme Health', count: 96 }, { company_name: 'Northwind Logistics', count: 41 }],
  sample_titles: [{ job_title: 'Senior Data Engineer', year_posted: 2026 }, { job_title: 'Data Engineer', year_posted: 2026 }],
  coverage: {
    description_text_sample_pct: 38.2,
    note: 'The archive keeps the description text of 38.2% of the matching postings (those whose source gave one); every match has its title, company, places, dates, skills, technologies and benefits. An export carries the description where it is kept.',
  },
  export_quote: { record_count: 1843, price_usd: 145.29, tiers: EXPORT_TIERS_TEXT },
}

const filtersDoc = [
  '**Filters** (at least one; all given combine with AND):\n\n',
  '| Field | Matches |\n|---|---|\n',
  '| `job_titles` | the job-search syntax (quoted phrases, `AND`, a leading `-` to exclude; the elements that include something are OR-ed) over the title |\n',
  '| `keywords` | the same syntax over the posting\'s skills, technologies and benefits only, never the description: a word matches when one of them holds it, and a quoted phrase must stand within one of them |\n',
  '| `geo_locations` | places as in job search (`{city, region, country}`, resolved with the gazetteer; a city is 25 miles around it, a region or country exact; a remote posting open to a country is in it): any of them |\n',
  '| `location_group` | a named region (US census regions and divisions, metros such as `Bay_Area`, and `Europe`, `EU`, `DACH`, `Nordics`, `UK_Ireland`, `LATAM`, `APAC`, `MENA`, `North_America`); AND-ed with `geo_locations` |\n',
  '| `company_names` | exact company names, case aside: any of them |\n',
  '| `company_slugs` | company slugs: any of them |\n',
  '| `date_posted_from`, `date_posted_to`, `date_expired_from`, `date_expired_to` | inclusive days as YYYY-MM-DD; a `_to` before its `_from` is a 422 |\n\n',
  '**422** (items `{type, loc, msg, input}`): a key that is not a field of the body (`extra_forbidden`, one item per key, naming the field meant for ',
  '`company_name`, `locations`, `date_posted` and the like); a filter on what the archive does not keep — salary (`salary`, `salary_range`, `currency` …), ',
  'job type (`job_types`, `job_type`), seniority (`experience`, `experience_levels`, `seniority`, `yoe` …), industry (`industry`, `sub_industry` …), ',
  'work arrangement (`location_types`, `work_arrangement`, `remote` …) or description text (`description`) — as a `value_error` at that key whose message names the field; ',
  'no filter at all, or only empty ones (a `value_error` at `["body"]`); and the usual wrong types, unknown `location_group` names and impossible dates.\n\n',
].join('')

const searchDescription = [
  'Free discovery over the archive of expired postings: how many match, by year posted, which companies posted most, sample titles, how many kept their ',
  'description text, and what an export of every match would cost. The archive holds every posting this service saw expire, and every posting that arrived already ',
  'past its `valid_through` (ingested history).\n\n',
  filtersDoc,
  `\`sample_size\` (0–${MAX_SAMPLE_SIZE}, default ${DEFAULT_SAMPLE_SIZE}) is the number of sample titles.\n\n`,
  `**Export quote**: ${EXPORT_TIERS_TEXT}. An export of no records costs nothing. The quote is informational: POST /v2/jobs/historical/export charges no meter.\n\n`,
  '**Billing**: 0 on m_jobs_api_calls. The usage headers are sent, and it keeps answering at the meter\'s cap.',
].join('')

const exportDescription = [
  'Creates an `export_historical_jobs` task and returns it at once (state `queued`); poll `GET /v2/tasks/{task_id}`. The file holds the archived postings ',
  'a historical search with the same filters matches, most recently posted first, at most `max_records` of them.\n\n',
  filtersDoc,
  `\`format\` (required): \`json\` writes newline-delimited JSON, one posting a line; \`csv\` a header and one row per posting, lists and places as JSON text. `,
  `Each record holds exactly ${HISTORICAL_EXPORT_FIELDS.map((f) => `\`${f}\``).join(', ')}; \`description\` is null where the archive kept no text. `,
  `\`max_records\` (1–${MAX_EXPORT_RECORDS.toLocaleString('en-US')}) caps the file; without it every match is written. \`notify: true\` emails the link when the file is ready. `,
  `The task's \`input\` records \`filters\` (as given), \`format\`, \`max_records\` (null when absent) and \`notify\`.\n\n`,
  '**Result** (`finished`): `download_url` (a signed link that works without a key until `expiry_time`, 30 days after completion), `file_size`, `record_count`, ',
  '`expiry_time`, and `quote`: `{record_count, price_usd, tiers}` for the records written.\n\n',
  '**Billing**: none. There is no payment provider: the quote is recorded on the task, and operators see every quote of an account\'s historical exports this period ',
  'in `npm run admin -- usage:show --account ID` (`historical_exports`). The route costs 0 on m_jobs_api_calls and sends the usage headers.',
].join('')

const bodyExamples = {
  examples: [
    { job_titles: ['"data engineer"', '-intern'], geo_locations: [{ country: 'United States' }], date_posted_from: '2024-01-01', sample_size: 10 },
    { company_names: ['Acme Health'], date_expired_from: '2026-01-01' },
  ],
}

export const historicalRouteDocs: RouteDoc[] = [
  {
    method: 'post',
    path: '/v2/jobs/historical/search',
    summary: 'Search the archive of expired jobs (free)',
    description: searchDescription,
    tags: ['Jobs'],
    auth: 'signin',
    metered: true,
    body: historicalSearchBody.meta({ jsonSchema: { additionalProperties: false, ...bodyExamples } }),
    response: { content: { 'application/json': { schema: HistoricalSearchResult, example } } },
    errors: { 415: 'The body has content but is not JSON (e.g. form-encoded or text/plain)' },
  },
  {
    method: 'post',
    path: '/v2/jobs/historical/export',
    summary: 'Export archived jobs (a task; quoted, not charged)',
    description: exportDescription,
    tags: ['Tasks'],
    auth: 'signin',
    metered: true,
    body: historicalExportBody.meta({
      jsonSchema: { additionalProperties: false, examples: [{ job_titles: ['registered nurse'], location_group: 'UK_Ireland', format: 'csv', max_records: 5000, notify: true }] },
    }),
    response: 'Task',
    errors: { 415: 'The body has content but is not JSON (e.g. form-encoded or text/plain)', 503: 'Background tasks are not available on this server' },
  },
]
