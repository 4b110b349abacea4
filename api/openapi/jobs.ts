/** Job search, vector search, embeddings, a job by id and the expired-jobs feed in the OpenAPI document. */
import { FIRST_DATE, MAX_DEPTH } from '../schemas/common.ts'
import { jobViewQuery } from '../schemas/jobs.ts'
import { jobSearchBody, jobSearchQuery, MAX_DAYS_AGO, MAX_LIMIT, MAX_RADIUS, MAX_SALARY, MAX_YOE } from '../schemas/search.ts'
import { LIST_PARAMS } from '../routes/search.ts'
import { MAX_JOB_IDS, MAX_QUERY_LENGTH, MAX_TOP_K, MAX_VECTORS, neuralSearchBody, vsearchBody } from '../schemas/vector-search.ts'
import { embedBody, MAX_TEXT_LENGTH, MAX_TEXTS } from '../schemas/embed.ts'
import { exportBody, MAX_EXPORT_LIMIT } from '../schemas/export.ts'
import { EF_SEARCH, NEURAL_DEPTH, NEURAL_WINDOW, RRF_K } from '../../sql/vector-search.ts'
import { RANK_WINDOW } from '../../sql/search.ts'
import { ref, responseSchemas, type JsonSchema } from '../schemas/responses.ts'
import { DEFAULT_FEED_LIMIT, expiredExportBody, expiredFeedQuery, FEED_DEPTH, MAX_FEED_LIMIT } from '../schemas/expired-jobs.ts'
import { bodyDoc, json, rawDescriptionDoc, undecodableBody, unsupportedBody, type ResponseObject, type RouteDoc } from './route-doc.ts'

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
export const jobRouteDocs: RouteDoc[] = [
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
