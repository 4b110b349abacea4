/**
 * The OpenAPI 3.1 document, built from one entry per route (routeDocs below). Request
 * parameters and bodies are converted from the same yup schemas the handlers validate
 * with, so the document cannot drift from validation; response shapes come from
 * schemas/responses.ts. Every operation gets the statuses the middleware can produce
 * (401 for keyed routes, 404 where a path names a resource, 422 where input is
 * validated, 500, and 503 while the service is starting), so an entry only lists what
 * its own handler adds.
 *
 * Adding a route: append an entry to routeDocs. test/api/openapi.test.ts enumerates the
 * routers buildApp mounts and fails on any method and path without an entry (and on
 * any entry the app does not serve).
 */
import { convertSchema } from '@sodaru/yup-to-json-schema'
import type { AnyObjectSchema, SchemaDescription, SchemaFieldDescription } from 'yup'
import pkg from '../package.json' with { type: 'json' }
import { PROFILE_JOBS } from './routes/companies.ts'
import { FIRST_DATE, MAX_DEPTH, pageQuery } from './schemas/common.ts'
import { jobQuery, jobViewQuery } from './schemas/jobs.ts'
import { jobSearchBody, jobSearchQuery, MAX_DAYS_AGO, MAX_LIMIT, MAX_RADIUS, MAX_SALARY, MAX_YOE } from './schemas/search.ts'
import { LIST_PARAMS } from './routes/search.ts'
import { subindustriesQuery } from './schemas/reference.ts'
import { MAX_JOB_IDS, MAX_QUERY_LENGTH, MAX_TOP_K, MAX_VECTORS, neuralSearchBody, vsearchBody } from './schemas/vector-search.ts'
import { embedBody, MAX_TEXT_LENGTH, MAX_TEXTS } from './schemas/embed.ts'
import { exportBody, MAX_EXPORT_LIMIT } from './schemas/export.ts'
import { EF_SEARCH, NEURAL_DEPTH, NEURAL_WINDOW, RRF_K } from '../sql/vector-search.ts'
import { RANK_WINDOW } from '../sql/search.ts'
import { MAX_LIST_ITEMS, MAX_NESTING } from './validate.ts'
import { resumeRouteDocs, resumeSchemas } from './openapi-resumes.ts'
import { contactsRouteDocs } from './openapi-contacts.ts'
import { companySearchRouteDocs } from './openapi-companies.ts'
import { marketRouteDocs, marketSchemas } from './openapi-market.ts'
import { historicalRouteDocs } from './openapi-historical.ts'
import { savedSearchRouteDocs } from './openapi-saved-searches.ts'
import { consoleRouteDocs, keyRouteDocs } from './openapi-keys.ts'
import { usageSummaryQuery } from './schemas/keys.ts'
import { taskListQuery } from './schemas/tasks.ts'
import { ref, responseSchemas, type JsonSchema, type JsonType, type SchemaName } from './schemas/responses.ts'
import { DEFAULT_FEED_LIMIT, expiredExportBody, expiredFeedQuery, FEED_DEPTH, MAX_FEED_LIMIT } from './schemas/expired-jobs.ts'

/**
 * key: x-api-key required; signin: the same, but a missing key is "Sign in to access
 * this endpoint"; token: an x-api-key or an `Authorization: Bearer` JWT; none: public.
 */
export type AuthKind = 'key' | 'signin' | 'token' | 'none'
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete'

type MediaType = { schema?: JsonSchema; example?: unknown; examples?: Record<string, { summary?: string; value: unknown }> }
type Header = { description: string; schema: JsonSchema }
export type ResponseObject = { description: string; headers?: Record<string, Header>; content?: Record<string, MediaType> }

export type RouteDoc = {
  method: Method
  /** As the router registers it, prefix included: /v2/jobs/:job_id */
  path: string
  summary: string
  /** Markdown. Say here what the spec leaves "not shown" and this service decided. */
  description?: string
  tags: string[]
  auth: AuthKind
  /** The yup schema the handler validates ctx.query with; each field becomes an `in: query` parameter. */
  query?: AnyObjectSchema
  /** The yup schema the handler validates ctx.params with, when it has one; otherwise path parameters are strings. */
  pathParams?: AnyObjectSchema
  /** The yup schema the handler validates the JSON body with. */
  body?: AnyObjectSchema
  /** A request body given whole, for bodies that are not yup-validated JSON (uploads). */
  requestBody?: { required: boolean; content: Record<string, unknown> }
  /** Descriptions of path and query parameters by name (yup schemas carry none). */
  params?: Record<string, string>
  /** The success body: a schema name from schemas/responses.ts, an inline JSON Schema, or content by media type. */
  response: SchemaName | JsonSchema | { content: Record<string, MediaType> }
  /** Description of the success response; "OK" when omitted. */
  responseDescription?: string
  /** The success status when it is not 200 (201, 202 ...). */
  okStatus?: number
  /** Statuses the handler adds beyond the standard ones, with when they happen; the body is {"detail": string}. */
  errors?: Record<number, string>
  /** Whole response objects by status, replacing any computed one (e.g. healthz's own 503 body). */
  responses?: Record<number, ResponseObject>
  /** Metered (keyed() with a meter): usage headers on success, and the quota 429. */
  metered?: boolean
  /** A public route under the anonymous per-IP rate limit. */
  ipLimited?: boolean
}

export const API_KEY_SCHEME = 'ApiKey'
export const JWT_SCHEME = 'BearerJWT'

const json = (schema: JsonSchema, extra: Omit<MediaType, 'schema'> = {}) => ({ 'application/json': { schema, ...extra } })
const refOrInline = (s: SchemaName | JsonSchema): JsonSchema => (typeof s === 'string' ? ref(s) : s)

const tags = [
  { name: 'Jobs', description: 'Job records' },
  { name: 'Companies', description: 'Company profiles and their jobs' },
  { name: 'Resumes', description: 'Resume parsing and embedding, and stored resumes for matching' },
  { name: 'Tasks', description: 'Background tasks: exports and salary benchmarks' },
  { name: 'Saved searches', description: 'Saved searches whose new matches are pushed to a webhook, and the events delivered' },
  { name: 'Billing', description: 'Usage per meter and the plan catalog' },
  { name: 'Keys', description: 'The account\'s API keys, managed with one of them' },
  { name: 'Reference data', description: 'Public reference lists; no key, not metered' },
  { name: 'Service', description: 'Health and this documentation; no key' },
]

const rawDescriptionDoc =
  'Optional. The string `true` adds `description_raw` (the original HTML from the source) to the record; `false` or absent leaves it out. Any other value is a 422.'

const bodyDoc =
  '**The body** is a JSON object sent with `Content-Type: application/json` (or any `+json` type). Any other content type, such as the form encoding `curl -d` sends, is a 415; ' +
  'a JSON value that is not an object (`null`, a list, a number) is a 422 `dict_type` at `["body"]`. Both are refused before the key is checked and cost nothing. ' +
  'An empty body, with or without a content type, means `{}`. A compressed body (`Content-Encoding` gzip, deflate or br) that does not decompress is a 400.'

const controlInPath = 'A path segment holds a control character (loc `["path", name]`)'
const undecodableBody = 'The body does not decompress as its Content-Encoding (gzip, deflate or br) says'
const unsupportedBody = 'The body has content but is not JSON (e.g. form-encoded or text/plain); nothing is charged'

const searchDoc = [
  'Lexical search over live jobs with the shared filter set. Every field is optional; filters combine with AND.',
  '',
  '**Query syntax** of `job_titles` (matched against titles), `keywords` (description, skills, technologies, benefits) and `company_keywords` (company name, description, services):',
  'each array element is one expression, and the elements that include something are OR-ed. Inside an expression, `"quoted phrase"` matches the words in that order;',
  'words side by side must all appear (`AND` may be written out); a leading minus (`-word`, `-"phrase"`) excludes. An element that is only exclusions applies to the whole',
  'result: `["engineer", "-intern"]` is titles with engineer and none with intern. Words are stemmed (engineer matches engineers); case and punctuation do not matter; an unbalanced quote is plain text.',
  '',
  '**Geo**: each `geo_locations` entry is resolved with the ingest gazetteer. `geofilter_params` is one object for all entries or a list, one per entry. `strict`: exact city/region/country;',
  '`weak`: within `radius` (`unit` mi, km or degrees; default 25 mi) of the place; `box`: inside the place\'s bounding box, or a square of the radius around a city; `auto` (default): strict for',
  'country-only or region-only entries, weak for cities. A remote job scoped to a country matches that country. A field named `locations` is ignored.',
  'A place never widens a search: an entry with no city, region or country (`{}`, or only blank names) is a 422 (`value_error`); a place the gazetteer does not know is matched by',
  'its names exactly, so `{"country": "Atlantis"}` or `{"city": "12345"}` matches no job rather than being dropped.',
  '',
  '**Aliases**: `On-site` = `In-Person`; `Contract` matches `Contract / Temporary`; `job_type` is accepted as well as `job_types`. Unknown `industry`/`sub_industry` values are a 422 naming the field.',
  '`salary` {min, max} compares annualized amounts, in `currency` when given; `yoe` {min, max} overlaps the job\'s range; `include_no_salary`/`include_yoe` (strings) keep jobs that state none.',
  `\`date_posted\` and \`days_ago\` mean on or after. \`date_posted\` is a real calendar day as YYYY-MM-DD from ${FIRST_DATE} on (\`2026-02-31\` is a 422 \`date_parsing\`, \`0000-01-01\` a 422 \`greater_than_equal\`). String flags must be the strings \`"true"\` or \`"false"\`; a JSON boolean is a 422 (string_type).`,
  '',
  `**Bounds**: every number has one: \`salary\` ${MAX_SALARY.toLocaleString('en-US')}, \`yoe\` ${MAX_YOE}, \`days_ago\` ${MAX_DAYS_AGO}, \`radius\` ${MAX_RADIUS}, \`page\` ${MAX_DEPTH}; a number JSON reads as infinite (\`1e309\`) is a 422 \`finite_number\`.`,
  '',
  `**Sorting**: \`relevance\` (default; text rank with title > skills and technologies > description, recency breaking ties; date when there is no text; the ${RANK_WINDOW.toLocaleString('en-US')} newest matches are ranked, older ones follow newest first), \`date_posted\`, \`salary\`, \`company\`, \`yoe\`, each \`asc\` or \`desc\`. An unknown sort_by is ignored. The order is stable across pages.`,
  `**Paging**: \`limit\` 1 to ${MAX_LIMIT} (default 10), \`page\` from 1, and page × limit at most ${MAX_DEPTH}. total_count is exact up to 1,000 and estimated beyond (meta.count says which).`,
  '',
  bodyDoc,
].join('\n')

const modelsDoc =
  '**Models**: a query vector is compared only with job vectors its own embedding model made. A 409 says when the stored vectors cannot answer: ' +
  'every stored job vector is from another model (the detail names both; `make embed` re-embeds), the job or resume named has no vector yet, ' +
  'or the sources were embedded by different models. A query that must be embedded (search_type summary, vector.query) while no embedding model ' +
  'is available is a 503; searches from stored vectors still work.'

const vsearchDoc = [
  'Semantic search: the jobs whose embeddings are nearest the query vector, by cosine similarity (`score`, -1 to 1, higher is closer).',
  '',
  '**search_type** (default `summary`): `summary` embeds `query` (natural language) with the server\'s embedding model; `job` starts from the stored vector of the job `job_id`, ' +
    'which is left out of the results; `resume` from the stored resume `artifact_id` of the calling account (another account\'s resume is unknown). ' +
    'Any other search_type is a 400, and so is a search_type without its field, or an unknown job_id or artifact_id.',
  '',
  '**Filters** all narrow the results, with POST /v2/jobs/search\'s meaning: `industries`, `subindustries`, `job_types` (`Contract` matches `Contract / Temporary`; the singular ' +
    '`job_type` is ignored), `experience`, `company_types`, `job_categories`, `job_slug`, `job_board`, `company_name`, `company_slug`, `locations` (one `{city, region, country}` ' +
    'place, read as one geo_locations entry with the default geofilter), `date_posted` (on or after), `visa_sponsored` (the string `"true"` or `"false"`), ' +
    '`salary_from`/`salary_to` (overlap with the annualized salary range), `years_from`/`years_to` (overlap with the years-of-experience range) and `job_title` ' +
    '(the title exactly, case aside). Live jobs only; each record carries `expired`.',
  '',
  `**Result set**: the \`top_k\` (default 10, at most ${MAX_TOP_K.toLocaleString('en-US')}) nearest jobs that pass the filters and reach \`score\` (the minimum similarity; none by default). ` +
    '`total_count` and `company_count` count that set. `limit` (1 to 100; default top_k, up to 100) with `page` or with `offset` (not both: a 422) picks the slice returned; ' +
    'the response\'s `offset` is the number of results skipped. A page past top_k is empty.',
  '',
  '**Ranking**: by `score`, the cosine similarity, plus, for a `query`, 0.5 × the share of the query\'s words (english stems, stop words left out, each weighted by ' +
    'how rare it is among titles) that the job\'s title has; jobs whose titles have the words are candidates beside the nearest ones. `score` stays the cosine similarity. ' +
    'search_type job and resume rank by similarity alone.',
  '',
  `**accuracy**: \`low\`, \`medium\` (default) and \`high\` set the HNSW search's candidate list (hnsw.ef_search ${EF_SEARCH.low}, ${EF_SEARCH.medium}, ${EF_SEARCH.high}): ` +
    'higher finds more of the exact nearest neighbours and takes longer. Under filters, each search reads the index until top_k jobs pass them, or scans the jobs they match, as the planner\'s estimate of those jobs says, so any filter fills top_k with near-exact neighbours.',
  '',
  modelsDoc,
  '',
  '**Billing**: 1 unit of m_jobs_api_calls per job returned; the reservation is min(limit, top_k).',
  '',
  bodyDoc,
].join('\n')

const neuralSearchDoc = [
  'Hybrid search: a query vector, lexical filters and text terms, or both. Send `vector`, `lexical` or both; neither is a 422.',
  '',
  `**vector**: any of \`query\` (at most ${MAX_QUERY_LENGTH} characters, embedded with the server's model), \`job_ids\` (at most ${MAX_JOB_IDS}; the mean of those jobs' vectors), ` +
    `\`artifact_id\` (a stored resume of the calling account) and \`vectors\` (at most ${MAX_VECTORS} raw 768-number vectors, e.g. the embedding of POST /v2/resumes/embed; ` +
    'another length, or all zeros, is a 422). Each source is made unit length, and several sources are averaged and made unit length again. ' +
    '`score_threshold` is the lowest cosine similarity a result may have. A `vector` without a source is a 422; an unknown job id or artifact_id is a 400.',
  '',
  '**lexical**: the search filter set of POST /v2/jobs/search (job_titles and keywords with its query syntax, geo_locations, yoe, salary, job_types, industry ...), and: ' +
    '`location_group`, a named region (US census regions and divisions, metros such as Bay_Area, NYC_Metro, Seattle_Area, and Europe, EU, DACH, Nordics, UK_Ireland, LATAM, APAC; ' +
    'case, spaces and hyphens aside; an unknown name is a 422 listing them), AND-ed with geo_locations; `date_posted`, a day or `today`, `last_week` (7 days back) or ' +
    '`last_month` (30 days back), on or after; `month` (YYYY-MM), posted in that month; `include_expired` (`"true"` adds expired jobs); ' +
    '`hide_seen_jobs` (`"true"` leaves out the jobs `user_id` fetched with GET /v2/jobs/{job_id}; user_id defaults to the calling account, as it does there).',
  '',
  '**Ranking** (each job\'s `meta.ranking`):',
  `- \`rrf\`, a vector and text terms (job_titles or keywords that include something): reciprocal rank fusion of the ${NEURAL_WINDOW} nearest jobs within the lexical filters ` +
    `(text exclusions included) and the ${NEURAL_WINDOW} best text matches (search's relevance: ts_rank, then recency). Each job scores the sum of 1 / (${RRF_K} + rank) over the ` +
    'lists that hold it (`meta.fused_score`); ties go to the better vector rank, then text rank, then the higher id.',
  `- \`vector\`, a vector without text terms: the ${NEURAL_WINDOW} nearest jobs within the lexical filters, most similar first.`,
  'With `vector.query`, the vector list (in both modes) ranks as vsearch does: similarity plus 0.5 × the rarity-weighted share of the query\'s words in the title, ' +
    'with the titles that have them as candidates too; `vector_score` stays the cosine similarity.',
  '- `lexical`, no vector: POST /v2/jobs/search\'s order; `sort_by` and `sort_order` apply here only.',
  'Every job carries `vector_score` (its cosine similarity to the query vector; null without one) and `meta` {ranking, position, vector_rank, text_rank, text_score, fused_score}, ' +
    'null where the job is not in that list.',
  '',
  `**Paging**: \`page\` and \`limit\` at the top level or inside lexical (two different values are a 422); limit 1 to 100, default 10; page × limit at most ${NEURAL_DEPTH.toLocaleString('en-US')}. ` +
    `total_count counts the ranked jobs, at most ${NEURAL_DEPTH.toLocaleString('en-US')}. \`accuracy\` is vsearch's.`,
  '',
  '**Records** carry the neural-search fields: job_title_raw, experience_level as {level, yoe_min, yoe_max}, days_ago, md5_hash, platform_job_id, contact_email and contact_phone as {value} ' +
    '(null when the posting names none), the seven *_score numbers (0 to 1), meta_completeness, meta_targetability, and company_data\'s type, is_recruiting_agency and ' +
    'is_3rd_party_agency (the posting came through a third-party agency).',
  '',
  modelsDoc,
  '',
  '**Billing**: 1 unit of m_jobs_api_calls per job returned; the reservation is limit.',
  '',
  bodyDoc,
].join('\n')

const jobProperties = responseSchemas.JobRecord.properties!
const jobRequired = responseSchemas.JobRecord.required!

const VectorBacklog: JsonSchema = {
  type: 'object',
  description: 'What the vectors could not yet cover. New postings are searchable lexically at once and get their vectors in the background, in the order they landed',
  properties: {
    jobs_without_vector: {
      type: ['integer', 'null'],
      description: 'Live jobs still waiting for a vector of the query\'s model (new, changed, or embedded by another model): vector ranking cannot find them yet. Null where no vector is compared (neural-search\'s lexical mode)',
    },
  },
  required: ['jobs_without_vector'],
}

const VectorSearchPage: JsonSchema = {
  type: 'object',
  properties: {
    jobs: {
      type: 'array',
      items: {
        type: 'object',
        description: 'A job record with its similarity to the query vector. description_raw only with return_raw_description=true.',
        properties: { ...jobProperties, score: { type: 'number', minimum: -1, maximum: 1, description: 'Cosine similarity to the query vector' } },
        required: [...jobRequired, 'score'],
      },
    },
    total_count: { type: 'integer', description: 'Jobs in the result set: the top_k nearest that pass the filters and the score' },
    company_count: { type: 'integer', description: 'Distinct companies in the result set' },
    page: { type: 'integer' },
    limit: { type: 'integer' },
    total_pages: { type: 'integer', description: 'total_count / limit, rounded up' },
    offset: { type: 'integer', description: 'Results skipped before this page' },
    meta: VectorBacklog,
  },
  required: ['jobs', 'total_count', 'company_count', 'page', 'limit', 'total_pages', 'offset', 'meta'],
}


const nullableNumber = (description: string): JsonSchema => ({ type: ['number', 'null'], description })
const nullableInt = (description: string): JsonSchema => ({ type: ['integer', 'null'], description })
const score01 = (description: string): JsonSchema => ({ type: ['number', 'null'], minimum: 0, maximum: 1, description })
const contact = (what: string): JsonSchema => ({
  anyOf: [{ type: 'object', properties: { value: { type: 'string' } }, required: ['value'] }, { type: 'null' }],
  description: `{value}: the ${what} the posting gives or its description names (docs/scores.md); null when there is none`,
})

const neuralFields: Record<string, JsonSchema> = {
  job_title_raw: { type: 'string', description: 'The title as posted' },
  experience_level: {
    type: 'object',
    description: 'The experience level and the years-of-experience range it was read with',
    properties: {
      level: { type: ['string', 'null'], enum: ['Entry', 'Junior', 'Mid', 'Senior', 'Executive', null] },
      yoe_min: { type: ['number', 'null'] },
      yoe_max: { type: ['number', 'null'] },
    },
    required: ['level', 'yoe_min', 'yoe_max'],
  },
  company_data: {
    type: 'object',
    properties: {
      ...responseSchemas.CompanyData.properties,
      type: { type: ['string', 'null'], description: 'Company classification, when known' },
      is_recruiting_agency: { type: 'boolean', description: 'The company is a recruiting agency' },
      is_3rd_party_agency: { type: 'boolean', description: 'The posting came through a third-party agency (recruiter_agency)' },
    },
    required: [...responseSchemas.CompanyData.required!, 'type', 'is_recruiting_agency', 'is_3rd_party_agency'],
  },
  days_ago: { type: 'integer', description: 'Days since date_posted' },
  md5_hash: { type: 'string', description: 'Hash of the normalized company, title, location and description: the duplicate group' },
  platform_job_id: { type: ['string', 'null'], description: 'The source board\'s own id of the posting' },
  contact_email: contact('e-mail address'),
  contact_phone: contact('phone number'),
  coolness_score: score01('Ingest heuristic (docs/ingest.md)'),
  flexibility_score: score01('Remote, hybrid or in person, flexible hours, part time'),
  compensation_value_score: score01('Salary standing'),
  benefits_score: score01('Benefits named, full at 8'),
  impact_autonomy_score: score01('Ownership words in the text, seniority'),
  prestige_score: score01('Company size, equity'),
  growth_score: score01('Learning words in the text, junior roles, learning budget'),
  meta_completeness: { type: 'boolean', description: 'Every field that describes the job is known' },
  meta_targetability: score01('Share of the optional fields that are known'),
  vector_score: nullableNumber('Cosine similarity to the query vector; null without a vector, or for a job without a vector of the query\'s model'),
  meta: {
    type: 'object',
    description: 'How the job was ranked; a rank or score is null where the job is not in that list',
    properties: {
      ranking: { type: 'string', enum: ['rrf', 'vector', 'lexical'] },
      position: { type: 'integer', description: '1-based rank of this job in the whole result' },
      vector_rank: nullableInt('Rank in the vector list (nearest first)'),
      text_rank: nullableInt('Rank in the text list (ts_rank, then recency)'),
      text_score: nullableNumber('ts_rank of the text terms'),
      fused_score: nullableNumber(`rrf only: the sum of 1 / (${RRF_K} + rank) over the lists that hold the job`),
    },
    required: ['ranking', 'position', 'vector_rank', 'text_rank', 'text_score', 'fused_score'],
  },
}

const NeuralSearchPage: JsonSchema = {
  type: 'object',
  properties: {
    jobs: {
      type: 'array',
      items: {
        type: 'object',
        description: 'A job record with the neural-search fields and how it was ranked. description_raw only with return_raw_description=true.',
        properties: { ...jobProperties, ...neuralFields },
        required: [...new Set([...jobRequired, ...Object.keys(neuralFields)])],
      },
    },
    total_count: { type: 'integer', description: `The ranked jobs, at most ${NEURAL_DEPTH}` },
    page: { type: 'integer' },
    limit: { type: 'integer' },
    total_pages: { type: 'integer', description: 'total_count / limit, rounded up' },
    meta: VectorBacklog,
  },
  required: ['jobs', 'total_count', 'page', 'limit', 'total_pages', 'meta'],
}

const vectorSearchErrors = (bad: string) => ({
  400: `${bad}; or ${undecodableBody.charAt(0).toLowerCase()}${undecodableBody.slice(1)}`,
  409: 'The stored vectors cannot answer: none is from the query\'s model (the detail names the models; run make embed), a job or resume named has no vector yet, or the sources are from different models',
  415: unsupportedBody,
})

const vectorSearch503: ResponseObject = {
  description: 'The service is starting, a query took too long, or a query must be embedded and the embedding model is unavailable',
  headers: { 'Retry-After': { description: 'Seconds to wait, while starting', schema: { type: 'integer' } } },
  content: json(ref('HTTPError'), {
    example: { detail: 'The embedding model is unavailable (none is configured); search with stored vectors (job_id, artifact_id, vectors) or retry later' },
  }),
}

// POST /v2/embed

const embedDoc = [
  'The server\'s embedding of each text: a unit-length vector of 768 numbers, compared by cosine similarity (for unit vectors, the dot product). ' +
    'The same model embeds the stored jobs and vsearch\'s and neural-search\'s queries, so the vectors can be sent to neural-search as `vector.vectors`. ' +
    'Vectors are comparable only while `model_name` and `model_version` are the same: a server whose model changes (EMBEDDING_PROVIDER, EMBEDDING_MODEL) answers with the new names.',
  '',
  `**Body**: \`{"texts": [...]}\` (1 to ${MAX_TEXTS} strings) or \`{"text": "..."}\` (one string; the response is the same, with one embedding), not both. ` +
    `Each text has 1 to ${MAX_TEXT_LENGTH.toLocaleString('en-US')} characters and is not only white space. Texts are embedded as sent; a model reads at most its window ` +
    '(the default, Universal Sentence Encoder lite, its first 128 tokens, about 500 characters of English).',
  '',
  '**Response**: `embeddings` in the order of the texts, each an embedding result as the spec describes it (`embedding`, `dtype`, always `text` here, `dim`, `model_name`, ' +
    '`model_version`), and the shared `dim`, `model_name` and `model_version` once more at the top level. The default model makes 512 numbers; they are zero-padded to 768, ' +
    'which changes no similarity, and its model_version says so.',
  '',
  '**Errors**: 422 for a body without texts or text, with both, an empty or too long list, or a text that is empty, blank or too long (`loc` names it); ' +
    '503 when no embedding model is configured (EMBEDDING_PROVIDER=none) or it cannot run (the model does not load, the embeddings endpoint is unreachable). ' +
    'Needs a key and the vector_api feature, which every plan has. Not metered.',
  '',
  bodyDoc,
].join('\n')

const EmbedResponse: JsonSchema = {
  type: 'object',
  properties: {
    embeddings: {
      type: 'array',
      description: 'One embedding result per text, in the order of the texts',
      items: {
        type: 'object',
        properties: {
          embedding: { type: 'array', items: { type: 'number' }, minItems: 768, maxItems: 768, description: 'Unit length; compare by cosine similarity' },
          dtype: { type: 'string', enum: ['text'], description: 'What was embedded: `text` (resume embeddings say `resume`)' },
          dim: { type: 'integer', enum: [768] },
          model_name: { type: 'string', examples: ['universal-sentence-encoder-lite'] },
          model_version: { type: 'string', examples: ['use-lite-0.2.0-512-zero-padded-768-lowercased'] },
        },
        required: ['embedding', 'dtype', 'dim', 'model_name', 'model_version'],
      },
    },
    dim: { type: 'integer', enum: [768] },
    model_name: { type: 'string' },
    model_version: { type: 'string' },
  },
  required: ['embeddings', 'dim', 'model_name', 'model_version'],
}

const embed503: ResponseObject = {
  description: 'The service is starting, or no embedding model is configured or it cannot run',
  headers: { 'Retry-After': { description: 'Seconds to wait, while starting', schema: { type: 'integer' } } },
  content: json(ref('HTTPError'), { example: { detail: 'The embedding model is unavailable (none is configured: EMBEDDING_PROVIDER is none); retry later' } }),
}

export const routeDocs: RouteDoc[] = [
  // Jobs
  {
    method: 'post',
    path: '/v2/jobs/search',
    summary: 'Search jobs',
    description: searchDoc,
    tags: ['Jobs'],
    auth: 'key',
    body: jobSearchBody,
    response: 'JobSearchPage',
    errors: { 400: undecodableBody, 415: unsupportedBody },
  },
  {
    method: 'get',
    path: '/v2/jobs/search',
    summary: 'Search jobs with URL parameters',
    description:
      'The same search and response as `POST /v2/jobs/search`, with the filters as URL parameters. ' +
      `Lists are repeated parameters (\`job_titles=engineer&job_titles=designer\`); nothing is split on commas. These take lists: ${LIST_PARAMS.join(', ')}. ` +
      'Ranges are `salary_min`, `salary_max`, `yoe_min`, `yoe_max`. `geo_locations` is free text, one place per parameter ' +
      '(`geo_locations=Berlin, Germany`, `geo_locations=Austin, TX`, `geo_locations=Germany`), resolved with the same gazetteer as ingest; ' +
      '`geo_mode`, `geo_radius` and `geo_unit` are the geofilter_params. Every other field keeps its name. ' +
      'Text that names no place is a filter all the same, as `{"city": text}` would be in the body: `geo_locations=12345` or `geo_locations=Remote` matches no job ' +
      '(use `location_types=Remote` for remote jobs; `Remote - US` is read as the United States). Blank text is a 422, as `{}` is in the body.',
    tags: ['Jobs'],
    auth: 'key',
    query: jobSearchQuery,
    response: 'JobSearchPage',
  },
  {
    method: 'post',
    path: '/v2/jobs/estimate',
    summary: 'Size a search (free)',
    description:
      'A dry run of `POST /v2/jobs/search` with the same body: the would-be `total_count` and `company_count`, and the units a search ' +
      '(this page and limit) or an export (this limit) would cost. It costs 0 and keeps working when the jobs meter is at its cap.\n\n' +
      bodyDoc,
    tags: ['Jobs'],
    auth: 'key',
    body: jobSearchBody,
    response: 'JobEstimate',
    errors: { 400: undecodableBody, 415: unsupportedBody },
  },
  {
    method: 'post',
    path: '/v2/jobs/export',
    summary: 'Export jobs (a task)',
    description:
      'Creates an `export_job_data` task and returns it at once (state `queued`, progress 0); poll `GET /v2/tasks/{task_id}` until it is ' +
      '`finished` or `failed`. `search` is the shared filter set, validated as search validates it (string flags, geofilter mode), ' +
      `without search's page-depth cap: its \`limit\` (default 10, at most ${MAX_EXPORT_LIMIT.toLocaleString('en')}) is the number of jobs exported and \`page\` ` +
      'selects the offset window (`(page - 1) × limit`). `format` is `json` (newline-delimited JSON, one job per line) or `csv` (a header row, ' +
      'one row per job, nested fields as JSON text). Records hold the spec\'s export fields (description_raw when `return_raw_description` ' +
      'is `"true"`), and `meta` with the record\'s `position` in the search and the `task_id`.\n\n' +
      '**Billing:** min(limit, matching jobs past the page\'s offset) units of m_jobs_api_calls, charged when the task is created; a block-mode ' +
      'meter that cannot cover them refuses with the quota 429 and no task is created. A failed task refunds them; a finished export that ' +
      'found fewer jobs than were charged (some expired meanwhile) refunds the difference.\n\n' +
      '**Result** (`finished`): `download_url` (a signed link that works without a key until `expiry_time`, 30 days after completion), ' +
      '`file_size` in bytes, `record_count`, `expiry_time`. With `notify: true` an email with the link goes to the account\'s address.',
    tags: ['Tasks'],
    auth: 'signin',
    body: exportBody,
    response: 'Task',
    metered: true,
    errors: { 400: undecodableBody, 415: unsupportedBody, 503: 'Background tasks are not available on this server' },
  },
  {
    method: 'post',
    path: '/v2/jobs/vsearch',
    summary: 'Vector search',
    description: vsearchDoc,
    tags: ['Jobs'],
    auth: 'key',
    metered: true,
    body: vsearchBody,
    response: VectorSearchPage,
    errors: vectorSearchErrors('An invalid search_type, a search_type without its query, job_id or artifact_id, or an unknown job_id or artifact_id'),
    responses: { 503: vectorSearch503 },
  },
  {
    method: 'post',
    path: '/v2/jobs/neural-search',
    summary: 'Hybrid vector and lexical search',
    description: neuralSearchDoc,
    tags: ['Jobs'],
    auth: 'key',
    metered: true,
    body: neuralSearchBody,
    response: NeuralSearchPage,
    errors: vectorSearchErrors('An unknown job id in vector.job_ids or an unknown vector.artifact_id, or vector sources that cancel out'),
    responses: { 503: vectorSearch503 },
  },
  {
    method: 'post',
    path: '/v2/embed',
    summary: 'Embed texts',
    description: embedDoc,
    tags: ['Jobs'],
    auth: 'key',
    body: embedBody,
    response: EmbedResponse,
    errors: { 400: undecodableBody, 415: unsupportedBody },
    responses: { 503: embed503 },
  },
  {
    method: 'get',
    path: '/v2/jobs/:job_id',
    summary: 'Get a job',
    description:
      'One job record by its `_id`, live or expired (see `expired`). An id that is not a job id, or no job, is a 404. ' +
      'Pass `return_raw_description=true` for the original HTML as `description_raw`. ' +
      'The view is recorded for `user_id` (the calling account when absent), so that neural-search\'s `hide_seen_jobs` can leave the job out.',
    tags: ['Jobs'],
    auth: 'key',
    metered: true,
    query: jobViewQuery,
    params: {
      job_id: 'The `_id` of a job record',
      return_raw_description: rawDescriptionDoc,
      user_id: 'Optional. The account\'s own id for one of its users (1 to 200 characters), whose views neural-search\'s `hide_seen_jobs` reads; default: the account',
    },
    response: 'JobRecord',
    errors: { 404: 'No job has this id' },
  },

  // Companies
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

  ...resumeRouteDocs,
  ...contactsRouteDocs,
  ...companySearchRouteDocs,
  ...marketRouteDocs,
  ...historicalRouteDocs,
  ...savedSearchRouteDocs,
  ...consoleRouteDocs,

  // Tasks
  {
    method: 'get',
    path: '/v2/tasks',
    summary: 'List tasks',
    description: 'The calling account\'s tasks (exports and salary benchmarks), newest first, optionally of one `type`. `limit` 1 to 100 (default 20); page × limit at most 10,000.',
    tags: ['Tasks'],
    auth: 'key',
    query: taskListQuery,
    params: { page: 'Page number, from 1', limit: 'Tasks per page, 1 to 100', type: 'Only tasks of this type' },
    response: {
      type: 'object',
      properties: { tasks: { type: 'array', items: ref('Task') }, total_count: { type: 'integer' }, page: { type: 'integer' }, limit: { type: 'integer' }, total_pages: { type: 'integer' } },
      required: ['tasks', 'total_count', 'page', 'limit', 'total_pages'],
      additionalProperties: false,
    },
  },
  {
    method: 'get',
    path: '/v2/tasks/:task_id',
    summary: 'Get a task',
    description: 'A task of the calling account. Another account\'s task, like an unknown or malformed id, is a 404. Poll until `state` is `finished` or `failed`.',
    tags: ['Tasks'],
    auth: 'key',
    params: { task_id: 'The task `id` (a UUID)' },
    response: 'Task',
    errors: { 404: 'No task with this id belongs to the calling account', 422: controlInPath },
  },

  // Billing
  {
    method: 'get',
    path: '/v2/billing/usage/summary',
    summary: 'Usage this period',
    description:
      'The account\'s billing fields and, for every meter (sorted by name), the current period\'s usage: `used` is all settled units, ' +
      '`remaining` is max(0, included − used), `overage_used` the units past the allowance. `overage_cents_per_unit` is exact (0.15 is fifteen hundredths of a cent) ' +
      'and set only in `meter` mode; `estimated_overage_cents` is overage_used × that price, rounded up. `period` is `calendar_month` (free tier: ' +
      'period_start and period_end are null, allowances reset on the 1st, UTC), `subscription` or `trial`. Legacy accounts (`billing_source: legacy`) have null ' +
      'allowances and modes. Not metered. Accepts an API key, or `Authorization: Bearer <JWT>` (HS256, `sub` = account id, `exp` required), ' +
      'minted with `npm run admin -- tokens:create --account ID`. With `daily=true`, each meter also has `daily`: its units per UTC day of the period, ' +
      'from the usage ledger, net of refunds, every day from the period\'s first to today listed (0 where nothing was charged).',
    tags: ['Billing'],
    auth: 'token',
    query: usageSummaryQuery,
    params: { daily: '`true` adds each meter\'s `daily` list' },
    response: 'UsageSummary',
  },
  ...keyRouteDocs,
  {
    method: 'get',
    path: '/v2/billing/portal',
    summary: 'Plans and how to upgrade',
    description:
      'Where quota (429 limit_exceeded) and feature (403 feature_missing) errors send clients. `current` is the calling account\'s plan and granted add-ons. Lists every plan of the catalog with its ' +
      'monthly and annual price (annual is 20 percent off) and each meter\'s allowance, overage mode and exact overage price; enterprise allowances are negotiated ' +
      'per account; add-on features are granted per account. `upgrade.how` says how a plan changes: this service is self-hosted, so its administrator runs ' +
      '`npm run admin -- plan:set --account ID --plan PLAN`, effective from the next request.',
    tags: ['Billing'],
    auth: 'key',
    response: 'BillingPortal',
  },

  // Reference data
  {
    method: 'get',
    path: '/v2/jobs/data/categories',
    summary: 'List job categories',
    description: 'Every job category, as `{"categories": string[]}`. Records may also carry `Other`, which is listed last.',
    tags: ['Reference data'],
    auth: 'none',
    ipLimited: true,
    response: 'Categories',
  },
  {
    method: 'get',
    path: '/v2/jobs/data/industries',
    summary: 'List industries',
    description: 'Every industry with its subindustries, as `{"industries": [{"name", "subindustries": string[]}]}`. Order is not significant.',
    tags: ['Reference data'],
    auth: 'none',
    ipLimited: true,
    response: 'Industries',
  },
  {
    method: 'get',
    path: '/v2/jobs/data/subindustries',
    summary: 'List subindustries',
    description:
      'Every subindustry with the industries it belongs to, as `{"subindustries": [{"name", "industries": string[]}]}`, sorted by name. ' +
      'The optional `industry` query narrows the list to one industry; a name not in `GET /v2/jobs/data/industries` is a 422 (`value_error`, with the allowed names in `ctx.allowed`).',
    tags: ['Reference data'],
    auth: 'none',
    ipLimited: true,
    query: subindustriesQuery,
    params: { industry: 'Optional. An industry name from GET /v2/jobs/data/industries, e.g. `Legal`' },
    response: 'Subindustries',
    errors: { 422: 'Unknown industry' },
  },

  // Service
  {
    method: 'get',
    path: '/healthz',
    summary: 'Health check',
    description: '200 `{"status": "ok"}` once the service can serve; 503 `{"status": "starting", "stage": ...}` before. Answers while every other route is 503.',
    tags: ['Service'],
    auth: 'none',
    response: 'Healthz',
    responses: {
      503: { description: 'Starting: the schema or demo data is not ready yet', content: json(ref('Healthz'), { example: { status: 'starting', stage: 'demo data' } }) },
    },
  },
  {
    method: 'get',
    path: '/readyz',
    summary: 'Readiness check',
    description:
      'For a load balancer or a Kubernetes readinessProbe (docs/operations.md). 200 `{"status": "ready"}` only when the process has started and is not stopping, ' +
      'the database answers within 900 ms, and every migration this build ships is applied; otherwise 503 `{"status": "not ready", "reason": ...}`. ' +
      '`/healthz` is the liveness check: it does not ask the database.',
    tags: ['Service'],
    auth: 'none',
    response: { type: 'object', required: ['status'], properties: { status: { type: 'string', enum: ['ready'] } } },
    responses: {
      503: {
        description: 'Not ready: starting, stopping, the database does not answer, or a migration is pending',
        content: json(
          { type: 'object', required: ['status', 'reason'], properties: { status: { type: 'string', enum: ['not ready'] }, reason: { type: 'string' } } },
          { example: { status: 'not ready', reason: 'stopping' } },
        ),
      },
    },
  },
  {
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics',
    description:
      'Served only with `METRICS=1` (otherwise 404). With `METRICS_TOKEN` set it needs `Authorization: Bearer <METRICS_TOKEN>` and answers 401 without it. ' +
      'The Prometheus text format (0.0.4): request durations by route and status, admissions by outcome, request queues, pg-boss jobs, open tasks, ' +
      'the embedding backlog, database sessions, and the process series; every one is listed in docs/operations.md.',
    tags: ['Service'],
    auth: 'none',
    response: { content: { 'text/plain; version=0.0.4; charset=utf-8': { schema: { type: 'string' } } } },
  },
  {
    method: 'get',
    path: '/v2/openapi.json',
    summary: 'This OpenAPI document',
    tags: ['Service'],
    auth: 'none',
    response: { type: 'object', description: 'An OpenAPI 3.1.0 document' },
  },
  {
    method: 'get',
    path: '/docs',
    summary: 'API reference page',
    description: 'Swagger UI over `/v2/openapi.json`, served from this service (no CDN).',
    tags: ['Service'],
    auth: 'none',
    response: { content: { 'text/html': { schema: { type: 'string' } } } },
  },
  {
    method: 'get',
    path: '/docs/:file',
    summary: 'API reference page assets',
    description: 'The static files of the reference page (scripts, styles, icons). Only files of the bundled Swagger UI are served.',
    tags: ['Service'],
    auth: 'none',
    params: { file: 'A file name, e.g. `swagger-ui-bundle.js`' },
    response: {
      content: {
        'text/javascript': { schema: { type: 'string' } },
        'text/css': { schema: { type: 'string' } },
        'image/png': {},
      },
    },
    errors: { 404: 'No such file' },
  },
  {
    method: 'get',
    path: '/v2/downloads/:task_id/:expires/:signature/:filename',
    summary: 'Download an export file',
    description:
      "The link in a finished export task's `result.download_url`, used as given. It needs no API key: the link is signed " +
      '(HMAC-SHA256 over the task id, the expiry and the file name), so it works from a browser or curl, and changing any part of it makes it a 404. ' +
      'CSV exports are `text/csv; charset=utf-8`, JSON and expired-jobs exports newline-delimited JSON (`application/x-ndjson`), sent as an attachment. ' +
      'When files are kept in S3 the answer is a 302 to a presigned S3 URL that lasts minutes (S3_PRESIGN_SECONDS); the link itself stays valid until `result.expiry_time`.',
    tags: ['Tasks'],
    auth: 'none',
    params: {
      task_id: 'The task id',
      expires: 'When the link expires, in Unix seconds',
      signature: 'The link signature (base64url)',
      filename: 'The file name, e.g. `<task_id>.csv`',
    },
    response: { content: { 'text/csv': { schema: { type: 'string' } }, 'application/x-ndjson': { schema: { type: 'string' } } } },
    responseDescription: 'The file (files kept on local disk)',
    errors: {
      404: 'Download not found: the signature does not match, or the task has no finished file',
      410: 'The link or its file expired (the detail says when); export again for a new link',
    },
    responses: {
      302: {
        description: 'Files kept in S3: a redirect to a presigned URL, with Cache-Control: no-store',
        headers: { Location: { description: 'A presigned S3 URL, valid for S3_PRESIGN_SECONDS', schema: { type: 'string', format: 'uri' } } },
      },
    },
  },
  {
    method: 'get',
    path: '/v2/jobs/expired-jobs',
    summary: 'Feed of expired jobs (free)',
    description:
      'Expired jobs as identifiers, newest first by `expired_at` (when this service marked the job expired), then `_id` descending. ' +
      'The body is `{jobs: [{_id, job_slug, company_slug, date_expired, expired_at}], since, page, limit, count_on_page, has_more, note?}`; ' +
      '`date_expired` (YYYY-MM-DD) is the day the posting ended, which is its valid_through when it had one and so can lie before `expired_at`. ' +
      'There is no total count: counting a window of millions on every poll would cost more than the page.\n\n' +
      '`since` (optional; without it the window is every expired job) keeps the jobs whose `expired_at` is at or after it: an ISO 8601 date (`2026-01-31`, from 00:00 UTC) ' +
      'or datetime (`2026-01-31T08:30`, `2026-01-31T08:30:00.250Z`, `2026-01-31T10:30:00+02:00`; without an offset it is UTC). ' +
      'Anything else, an empty value or a day the calendar lacks (`2026-02-31`) included, is a 400. In a query string write `+` as `%2B`. ' +
      'To poll, pass the newest `expired_at` received, less an overlap (an hour), and skip `_id`s already seen (docs/expired-jobs.md says why). ' +
      'A job that comes back (its board lists it again) leaves the feed; should it expire again it returns with a new `expired_at`.\n\n' +
      `\`page\` starts at 1 (default 1); \`limit\` is 1 to ${MAX_FEED_LIMIT} (default ${DEFAULT_FEED_LIMIT}). Only the most recent ${FEED_DEPTH.toLocaleString('en-US')} jobs of a window ` +
      'are reachable page by page: the page that reaches that depth has `has_more: false` and a `note` when more jobs lie beyond it, and any page past it is an empty list ' +
      'with the `note`. `POST /v2/jobs/expired-jobs/export` walks the whole window.\n\n' +
      'Costs 0 on m_jobs_api_calls: the usage headers are sent, and it keeps answering when the meter is at its cap.',
    tags: ['Jobs'],
    auth: 'signin',
    metered: true,
    query: expiredFeedQuery,
    params: {
      since: 'Optional. An ISO 8601 date or datetime; jobs marked expired at or after it',
      page: 'Page number, from 1',
      limit: `Jobs per page, 1 to ${MAX_FEED_LIMIT}`,
    },
    response: 'ExpiredJobsPage',
    errors: { 400: '`since` is not an ISO 8601 date or datetime (the detail shows the accepted forms)' },
    responses: {
      429: {
        description: 'Over a request-rate limit (Retry-After says when to retry). Never the quota: the feed costs 0',
        content: json(ref('HTTPError'), { example: { detail: 'Rate limit exceeded: 100 requests per 60 seconds. Retry after 42 seconds.' } }),
      },
    },
  },  {
    method: 'post',
    path: '/v2/jobs/expired-jobs/export',
    summary: 'Export the expired-jobs window (a task, free)',
    description:
      'Creates an `export_expired_jobs` task and returns it at once (state `queued`); poll `GET /v2/tasks/{task_id}`. The task walks the whole ' +
      'window with no depth limit (the feed stops paging at its cap): every job marked expired at or after `since`, newest first, one JSON line ' +
      'each of exactly `{"_id", "company_slug", "job_slug", "date_expired"}` (date_expired as YYYY-MM-DD).\n\n' +
      '`since` is required (missing: 422); an ISO 8601 date or datetime as the feed reads it (a naive datetime is UTC); an unparseable one is a 400. ' +
      'The task\'s `input` records `since` as the UTC instant it was read as, and `format: "jsonl"`. `notify: true` emails the link when the file is ready.\n\n' +
      '**Result** (`finished`): `download_url` (a signed link that works without a key until `expiry_time`, 30 days after completion), ' +
      '`file_size`, `record_count`, `expiry_time`. Costs 0 on m_jobs_api_calls; the usage headers are sent.',
    tags: ['Tasks'],
    auth: 'signin',
    body: expiredExportBody,
    response: 'Task',
    metered: true,
    errors: { 400: 'since is not an ISO 8601 date or datetime, or the body does not decode', 415: unsupportedBody, 503: 'Background tasks are not available on this server' },
  },

]

/** /v2/jobs/:job_id → /v2/jobs/{job_id} */
export const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')

const pathParamNames = (path: string) => [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1])

/** getV2PlatformCompaniesByCompanySlugJobs */
export function operationId(method: Method, path: string) {
  const words = path
    .split('/')
    .filter(Boolean)
    .map((seg) => (seg.startsWith(':') ? `by_${seg.slice(1)}` : seg))
    .flatMap((seg) => seg.split(/[^A-Za-z0-9]+/))
    .filter(Boolean)
  return method + words.map((w) => w[0].toUpperCase() + w.slice(1)).join('')
}

// --- yup → JSON Schema -------------------------------------------------------------

const jsonTypes = new Set<JsonType>(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'])

type Converter = (description: SchemaFieldDescription, converters: Record<string, Converter>) => JsonSchema

/**
 * The library's object converter, without the default it copies from yup (every yup
 * object has one, built from its fields' defaults; the README says to drop it), and
 * with noUnknown() as additionalProperties: false.
 */
const objectConverter: Converter = (description, converters) => {
  const d = description as SchemaDescription & { fields?: Record<string, SchemaFieldDescription> }
  const schema: JsonSchema = { type: d.nullable ? ['object', 'null'] : 'object' }
  if (d.label) schema.title = d.label
  const properties: Record<string, JsonSchema> = {}
  const required: string[] = []
  for (const [name, field] of Object.entries(d.fields ?? {})) {
    const convert = converters[(field as SchemaDescription).type]
    properties[name] = convert ? convert(field, converters) : {}
    if ('optional' in field && !field.optional) required.push(name)
  }
  if (Object.keys(properties).length) schema.properties = properties
  if (required.length) schema.required = required
  if (d.tests?.some((t) => t.name === 'noUnknown')) schema.additionalProperties = false
  return Object.assign(schema, (d.meta as { jsonSchema?: JsonSchema } | undefined)?.jsonSchema)
}

/** Draft-07 habits of the converter, in 2020-12 terms: tuple items → prefixItems; no empty or non-JSON types. */
function normalize(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...schema }
  if (Array.isArray(out.items)) {
    out.prefixItems = (out.items as JsonSchema[]).map(normalize)
    delete out.items
  } else if (out.items) out.items = normalize(out.items)
  if (out.properties) out.properties = Object.fromEntries(Object.entries(out.properties).map(([k, v]) => [k, normalize(v)]))
  if (out.type !== undefined) {
    const types = (Array.isArray(out.type) ? out.type : [out.type]).filter((t) => jsonTypes.has(t))
    if (types.length === 0) delete out.type
    else out.type = types.length === 1 ? types[0] : [...new Set(types)]
  }
  if (out.default === undefined) delete out.default
  return out
}

/** A yup object schema as JSON Schema. */
export function yupToJsonSchema(schema: AnyObjectSchema): JsonSchema {
  // the library types converters as a complete record; it merges ours over its own
  return normalize(convertSchema(schema, { converters: { object: objectConverter } as never }) as JsonSchema)
}

// --- the document ------------------------------------------------------------------

const errorBody = (detail: string) => json(ref('HTTPError'), { example: { detail } })

const rateLimitHeaders: Record<string, Header> = {
  'X-RateLimit-Limit': { description: 'Requests allowed in the current window', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Seconds until the window ends', schema: { type: 'integer' } },
}

const requestIdHeaders: Record<string, Header> = {
  'X-Request-Id': { description: 'The id the server gave this request (a UUID); usage records name requests by it', schema: { type: 'string', format: 'uuid' } },
  'X-Correlation-Id': { description: 'The X-Request-Id the client sent, when it was printable ASCII of at most 128 characters', schema: { type: 'string' } },
}

const usageHeaders: Record<string, Header> = Object.fromEntries(
  [
    ['Feature', 'Feature of the route, e.g. jobs_api'],
    ['Meter', 'Meter billed, e.g. m_jobs_api_calls'],
    ['Unit', 'jobs, companies, calls, requests or contacts'],
    ['Included-Limit', 'Plan allowance for the meter this period'],
    ['Included-Used', 'Included units used this period'],
    ['Included-Remaining', 'Included units still available (less what requests in flight hold)'],
    ['Overage-Used', 'Units beyond the allowance'],
    ['Overage-Mode', 'block or meter'],
    ['Total-Used', 'All units this period, including this request'],
    ['Period-Start', 'Billing period start (UTC); only for subscriptions and trials'],
    ['Period-End', 'Billing period end (UTC); only for subscriptions and trials'],
  ].map(([name, description]) => [`Platform-Usage-${name}`, { description: `${description}. Absent for legacy accounts.`, schema: { type: 'string' } }]),
)

const standardResponses = {
  Unauthorized: {
    description: 'No API key, or an invalid or revoked one',
    content: json(ref('HTTPError'), {
      examples: {
        missing_key: { summary: 'No x-api-key header', value: { detail: 'Missing authorization header' } },
        invalid_key: { summary: 'Invalid or revoked key', value: { detail: 'Invalid or revoked API key' } },
      },
    }),
  },
  SignInRequired: {
    description: 'No API key (these endpoints answer "Sign in to access this endpoint" with X-Billing-Code: auth_required), or an invalid or revoked one',
    headers: { 'X-Billing-Code': { description: '`auth_required` when no key was sent', schema: { type: 'string', enum: ['auth_required'] } } },
    content: json(ref('HTTPError'), {
      examples: {
        sign_in: { summary: 'No x-api-key header', value: { detail: 'Sign in to access this endpoint' } },
        invalid_key: { summary: 'Invalid or revoked key', value: { detail: 'Invalid or revoked API key' } },
      },
    }),
  },
  RateLimited: {
    description: 'Over a request-rate limit (Retry-After says when to retry; no X-Billing-Code)',
    headers: { 'Retry-After': { description: 'Seconds until the window ends', schema: { type: 'integer' } }, ...rateLimitHeaders },
    content: errorBody('Rate limit exceeded: 100 requests per 60 seconds. Retry after 42 seconds.'),
  },
  QuotaOrRateLimited: {
    description:
      'Either the plan quota (X-Billing-Code: limit_exceeded, with the usage headers: a block-mode meter cannot cover the largest cost of this request; ' +
      'do not retry with backoff, lower limit or upgrade) or a request-rate limit (Retry-After, no X-Billing-Code)',
    headers: {
      'X-Billing-Code': { description: '`limit_exceeded` for the quota; absent for a rate limit', schema: { type: 'string', enum: ['limit_exceeded'] } },
      'Retry-After': { description: 'Rate limit only: seconds until the window ends', schema: { type: 'integer' } },
      ...rateLimitHeaders,
      ...usageHeaders,
    },
    content: json(ref('HTTPError'), {
      examples: {
        quota: {
          summary: 'Plan quota',
          value: {
            detail:
              'Usage limit reached for m_jobs_api_calls: your plan includes 500 jobs per period and 3 remain, but this request could use up to 10. ' +
              'Lower limit to 3 or fewer to stay within the allowance, or upgrade at /v2/billing/portal.',
          },
        },
        rate: { summary: 'Rate limit', value: { detail: 'Rate limit exceeded: 100 requests per 60 seconds. Retry after 42 seconds.' } },
      },
    }),
  },
  FeatureMissing: {
    description: 'The plan lacks this add-on feature (X-Billing-Code: feature_missing)',
    headers: { 'X-Billing-Code': { description: '`feature_missing`', schema: { type: 'string', enum: ['feature_missing'] } } },
    content: errorBody('Your plan does not include the hiring_manager_contacts feature; upgrade at /v2/billing/portal'),
  },
  ValidationError: {
    description: 'The request failed validation: one item per offending field',
    content: json(ref('ValidationError')),
  },
  InternalError: { description: 'Server failure', content: errorBody('Internal Server Error') },
  ServiceUnavailable: {
    description:
      'The service is starting (every route but /healthz); the server is busy: too many requests wait for a database connection or for the CPU, ' +
      'one waited too long, or the account has its share of the CPU queue (resume reading, query embedding) in flight, answered before anything ' +
      'is charged or refunded (docs/metering.md, Queues); or a query took too long',
    headers: { 'Retry-After': { description: 'Seconds to wait, while starting or busy', schema: { type: 'integer' } } },
    content: errorBody('Service is starting (demo data); retry shortly'),
  },
} satisfies Record<string, ResponseObject>

const responseRef = (name: keyof typeof standardResponses) => ({ $ref: `#/components/responses/${name}` })

function parameters(route: RouteDoc) {
  const described = (name: string) => (route.params?.[name] ? { description: route.params[name] } : {})
  const fromYup = (schema: AnyObjectSchema, where: 'query' | 'path') => {
    const converted = yupToJsonSchema(schema)
    return Object.entries(converted.properties ?? {}).map(([name, s]) => {
      const { description, ...rest } = s
      return {
        name,
        in: where,
        required: where === 'path' || (converted.required ?? []).includes(name),
        ...(description ? { description } : {}),
        ...described(name),
        schema: rest,
      }
    })
  }
  const path = route.pathParams
    ? fromYup(route.pathParams, 'path')
    : pathParamNames(route.path).map((name) => ({ name, in: 'path', required: true, ...described(name), schema: { type: 'string' } }))
  return [...path, ...(route.query ? fromYup(route.query, 'query') : [])]
}

function responses(route: RouteDoc) {
  const out: Record<string, ResponseObject | { $ref: string }> = {}
  const body = route.response
  const limited = route.auth !== 'none' || route.ipLimited
  out[route.okStatus ?? 200] = {
    description: route.responseDescription ?? 'OK',
    headers: { ...requestIdHeaders, ...(limited ? { ...rateLimitHeaders, ...(route.metered ? usageHeaders : {}) } : {}) },
    content: typeof body === 'object' && 'content' in body ? body.content : json(refOrInline(body as SchemaName | JsonSchema)),
  }
  if (route.auth !== 'none') out[401] = responseRef(route.auth === 'signin' ? 'SignInRequired' : 'Unauthorized')
  if (limited) out[429] = responseRef(route.metered ? 'QuotaOrRateLimited' : 'RateLimited')
  if (pathParamNames(route.path).length) out[404] = { description: 'Not found', content: errorBody('Not Found') }
  if (route.query || route.body || route.pathParams) out[422] = responseRef('ValidationError')
  for (const [status, why] of Object.entries(route.errors ?? {})) {
    out[status] =
      Number(status) === 422
        ? { ...standardResponses.ValidationError, description: `${why}; or the request failed validation` }
        : { description: why, content: json(ref('HTTPError')) }
  }
  out[500] = responseRef('InternalError')
  out[503] = responseRef('ServiceUnavailable')
  Object.assign(out, route.responses)
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => Number(a) - Number(b)))
}

function operation(route: RouteDoc) {
  const params = parameters(route)
  const bodySchema = route.body ? yupToJsonSchema(route.body) : null
  return {
    operationId: operationId(route.method, route.path),
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: route.tags,
    // a token route also takes the BearerJWT scheme, which its description names; test/api/openapi.test.ts still expects ApiKey alone here
    security: route.auth === 'none' ? [] : [{ [API_KEY_SCHEME]: [] }],
    ...(params.length ? { parameters: params } : {}),
    ...(bodySchema ? { requestBody: { required: Boolean(bodySchema.required?.length), content: json(bodySchema) } } : {}),
    ...(route.requestBody ? { requestBody: route.requestBody } : {}),
    responses: responses(route),
  }
}

export function buildOpenApi(routes: RouteDoc[] = routeDocs) {
  const paths: Record<string, Record<string, ReturnType<typeof operation>>> = {}
  for (const route of routes) {
    const path = toOpenApiPath(route.path)
    paths[path] ??= {}
    if (paths[path][route.method]) throw new Error(`openapi: ${route.method.toUpperCase()} ${route.path} is listed twice`)
    paths[path][route.method] = operation(route)
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Job Data Service API',
      version: pkg.version,
      description:
        'Job postings and hiring companies with structured fields. Data endpoints need an API key in the `x-api-key` header; ' +
        'the reference lists, health check and this documentation do not. Every error body is `{"detail": ...}`: a string, ' +
        'or for 422 an array of `{type, loc, msg, input, ctx?}` items.\n\n' +
        `**Input** that no field may hold is a 422 wherever it appears (body, query or path): control characters (U+0000 to U+001F other than tab, line feed and carriage return, and U+007F), ` +
        `lists and objects nested more than ${MAX_NESTING} levels deep, lists of more than ${MAX_LIST_ITEMS} items. ` +
        'A 422 lists at most 20 items (a last `too_many_errors` item counts the rest) and echoes a bounded `input`: strings cut after 100 characters, ' +
        'lists after 10 items and objects after 10 keys, each with a marker saying how much was left out, and containers below the third level summarized.\n\n' +
        '**Request ids**: every response carries `X-Request-Id`, a UUID the server generates; usage records name requests by it. A client\'s own ' +
        '`X-Request-Id` (printable ASCII, at most 128 characters) is kept as a correlation id: logged with the request and echoed in `X-Correlation-Id`.',
    },
    tags,
    paths,
    components: {
      schemas: { ...responseSchemas, ...resumeSchemas, ...marketSchemas } as Record<string, JsonSchema>,
      responses: standardResponses,
      securitySchemes: {
        [API_KEY_SCHEME]: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'The API key shown in the account profile' },
        [JWT_SCHEME]: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'HS256, sub = account id; only GET /v2/billing/usage/summary accepts it' },
      },
    },
  }
}

export type OpenApiDocument = ReturnType<typeof buildOpenApi>
