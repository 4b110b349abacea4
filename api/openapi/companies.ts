/**
 * Company profiles, their jobs (api/routes/companies.ts) and company search
 * (api/routes/company-search.ts) in the OpenAPI document.
 */
import { PROFILE_JOBS } from '../routes/companies.ts'
import { MAX_DEPTH, pageQuery } from '../schemas/common.ts'
import { jobQuery } from '../schemas/jobs.ts'
import { COMPANY_TYPES, LINKEDIN_PREFIXES, MAX_COMPANY_LIMIT, MAX_QUERY_LENGTH, MAX_STRING_LENGTH, companySearchBody } from '../schemas/companies.ts'
import { responseSchemas, type JsonSchema } from '../schemas/responses.ts'
import { WORD_SIMILARITY } from '../../sql/company-search.ts'
import { controlInPath, json, rawDescriptionDoc, type RouteDoc } from './route-doc.ts'

const profile = responseSchemas.CompanyProfile

/** A company profile with its live_jobs and score: the profile's fields, closed like it. */
const CompanySearchHit: JsonSchema = {
  type: 'object',
  description: 'A company profile, with how many live postings it has and how well it matched',
  properties: {
    ...profile.properties,
    live_jobs: { type: 'integer', minimum: 0, description: 'The company\'s live postings' },
    score: { type: 'number', description: 'Relevance, higher is better: ts_rank of `query` plus the name\'s score; 1 when the search has neither' },
  },
  required: [...(profile.required ?? []), 'live_jobs', 'score'],
}

const CompanySearchPage: JsonSchema = {
  type: 'object',
  properties: {
    companies: { type: 'array', items: CompanySearchHit, maxItems: MAX_COMPANY_LIMIT },
    total_count: { type: 'integer', description: 'Matching companies (exact)' },
    page: { type: 'integer' },
    limit: { type: 'integer' },
    total_pages: { type: 'integer', description: 'total_count / limit, rounded up' },
  },
  required: ['companies', 'total_count', 'page', 'limit', 'total_pages'],
}

const exampleBody = {
  query: 'rust -crypto',
  company_types: ['Remote-first'],
  hiring: true,
  locations: [{ country: 'Germany' }],
  limit: 5,
}

const exampleHit = {
  company_slug: 'ferrous-systems', company_name: 'Ferrous Systems', company_logo: null, job_board: null,
  linkedin_link: 'https://www.linkedin.com/company/ferrous-systems', company_link: 'https://ferrous-systems.com/',
  description_summary: 'Rust consultancy and training; we build the Ferrocene compiler.', size_range: { min: 11, max: 50 }, size_bucket: '11-50',
  industries: ['Tech, Software & IT Services'], subindustries: ['Software Development & Engineering'], careers_url: null,
  technologies: ['Rust', 'Embedded'], remote_policy: 'remote-first', hiring_region: 'europe', company_types: ['Agency', 'Remote-first'],
  live_jobs: 3, score: 0.2432,
}

const description = [
  'Company profiles matching every field given (all optional; the values of a list combine with OR), ranked and paged. ',
  'Accepts the key as `Authorization: Bearer <api key>` as well as `x-api-key`.\n\n',
  '| Field | Matches |\n|---|---|\n',
  '| `query` | the job-search syntax (quoted phrases, `-` exclusion, implicit AND) over the name, description, services and products, technologies, ',
  'and the technologies and benefits (tech-stack and culture words) of the company\'s live postings, plus its remote policy and hiring region |\n',
  `| \`company_name\` | the name in any case, exactly or a part of it; or a typo of it: within 1 letter (4–5 letters typed) or 2 (6 or more) of the whole name or its beginning, among the names pg_trgm finds similar (word similarity ≥ ${WORD_SIMILARITY}) |\n`,
  '| `industries`, `subindustries` | a string or a list, from `GET /v2/jobs/data/industries` and `/subindustries`; an unknown value is a 422 naming it |\n',
  `| \`company_types\` | any of ${COMPANY_TYPES.join(', ')} (derived at ingest; docs/companies.md) |\n`,
  '| `job_board` | a string or a list: the board of a live posting, or the profile\'s `job_board` |\n',
  '| `hiring` | `true`: companies with at least one live posting; `false`: those with none (a boolean, or the string `"true"` or `"false"`) |\n',
  '| `locations` | geo objects as in job search\'s `geo_locations` (a city is 25 miles around it, a region or country exact): companies with a live posting there |\n',
  `| \`linkedin_url\` | the company with this LinkedIn page; it must start with ${LINKEDIN_PREFIXES.map((p) => `\`${p}\``).join(' or ')}; a trailing slash or a query string does not matter |\n`,
  `| \`page\`, \`limit\` | \`page\` from 1, \`limit\` 1–${MAX_COMPANY_LIMIT} (default 10), \`page\` × \`limit\` ≤ 10,000 |\n\n`,
  '**Ranking:** text relevance first (ts_rank of `query`: name > description, services, technologies > the postings\' words; plus the name\'s match: ',
  'exact 1, beginning 0.9, part 0.8, typo up to 0.6); among equal scores, more live postings first. Without `query` or `company_name` every company scores 1 and ',
  'the order is by live postings.\n\n',
  `**Billing:** 1 unit of m_company_api_calls per company returned; min(limit, remaining) is reserved first, so a block-mode meter refuses with the quota 429 when it cannot cover \`limit\`. `,
  'Independent of the jobs meter. Search endpoints are limited to 4 requests per second per key.\n\n',
  `**400** (the detail is a string): \`limit\` above ${MAX_COMPANY_LIMIT}; a \`linkedin_url\` that is not a LinkedIn company URL; an unsafe string anywhere in the body: `,
  `a control character (NUL included), a lone UTF-16 surrogate, or more than ${MAX_STRING_LENGTH} characters (${MAX_QUERY_LENGTH} for \`query\`). Other invalid input is a 422.`,
].join('')

const badRequest = (summary: string, detail: string) => ({ summary, value: { detail } })

export const companySearchRouteDocs: RouteDoc[] = [
  {
    method: 'post',
    path: '/v2/platform/companies/search',
    summary: 'Search companies',
    description,
    tags: ['Companies'],
    auth: 'key',
    metered: true,
    body: companySearchBody.meta({ jsonSchema: { examples: [exampleBody, { company_name: 'Gitlba' }, { linkedin_url: 'https://www.linkedin.com/company/gitlab-com/' }] } }),
    response: { content: { 'application/json': { schema: CompanySearchPage, example: { companies: [exampleHit], total_count: 1, page: 1, limit: 5, total_pages: 1 } } } },
    errors: { 415: 'The body has content but is not JSON (e.g. form-encoded or text/plain); nothing is charged' },
    responses: {
      400: {
        description: 'limit above 100, a malformed LinkedIn URL, an unsafe string, or a body that does not decode',
        content: {
          'application/json': {
            schema: { $ref: '#/components/schemas/HTTPError' },
            examples: {
              limit: badRequest('limit above 100', `limit must be at most ${MAX_COMPANY_LIMIT} (got 500)`),
              linkedin: badRequest('Not a LinkedIn company URL', `linkedin_url must be a LinkedIn company URL starting with ${LINKEDIN_PREFIXES.join(' or ')} followed by the company's name`),
              control: badRequest('A control character', 'Unsafe string: the string at body.company_name holds a control character (U+0000 at position 4)'),
              surrogate: badRequest('A lone surrogate', 'Unsafe string: the string at body.query holds a lone UTF-16 surrogate (U+D800 at position 0); send well-formed Unicode'),
            },
          },
        },
      },
    },
  },
]

export const companyRouteDocs: RouteDoc[] = [
  {
    method: 'get',
    path: '/v2/platform/companies/:company_slug',
    summary: 'Get a company and its recent jobs',
    description:
      `The company profile and its ${PROFILE_JOBS} most recent jobs by \`date_posted\`, newest first. ` +
      'Expired jobs are included: check each job\'s `expired` flag. Use `GET /v2/platform/companies/{company_slug}/jobs` to page through live jobs.',
    tags: ['Companies'],
    auth: 'key',
    metered: true,
    params: { company_slug: 'The company\'s `company_slug`' },
    response: 'CompanyWithJobs',
    errors: { 404: 'No company has this slug', 422: controlInPath },
  },
  {
    method: 'get',
    path: '/v2/platform/companies/:company_slug/jobs',
    summary: 'List a company\'s live jobs',
    description:
      'A page of the company\'s live jobs (expired ones are left out), newest first, with the distinct categories of its live jobs. ' +
      `\`limit\` is 1 to 100, default 10; \`page\` starts at 1, and page × limit is at most ${MAX_DEPTH}.`,
    tags: ['Companies'],
    auth: 'key',
    metered: true,
    query: pageQuery,
    params: { company_slug: 'The company\'s `company_slug`', page: 'Page number, from 1', limit: 'Jobs per page, 1 to 100' },
    response: 'CompanyJobsPage',
    errors: { 404: 'No company has this slug' },
  },
  {
    method: 'get',
    path: '/v2/platform/companies/:company_slug/jobs/:job_slug',
    summary: 'Get one of a company\'s jobs',
    description:
      'A job record by the company\'s slug and the job\'s `job_slug`, live or expired (see `expired`). ' +
      'Pass `return_raw_description=true` for the original HTML as `description_raw`.',
    tags: ['Companies'],
    auth: 'key',
    metered: true,
    query: jobQuery,
    params: {
      company_slug: 'The company\'s `company_slug`',
      job_slug: 'The job\'s `job_slug`',
      return_raw_description: rawDescriptionDoc,
    },
    response: 'JobRecord',
    errors: { 404: 'No company has this slug, or it has no job with this slug' },
  },
]
