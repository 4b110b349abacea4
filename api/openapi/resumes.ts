/**
 * The resume routes in the OpenAPI document (api/routes/resumes.ts). Their bodies are
 * multipart uploads rather than yup-validated JSON, so their request bodies are given
 * here whole. document.ts lists these with the other families.
 */
import type { RouteDoc } from './route-doc.ts'
import { resumeListQuery } from '../schemas/resumes.ts'
import { MAX_RESUME_BYTES } from '../middleware/upload.ts'

type JsonSchema = Record<string, unknown>

const str = { type: 'string' }
const strings = { type: 'array', items: str }
const object = (properties: Record<string, JsonSchema>, extra: JsonSchema = {}): JsonSchema => ({ type: 'object', properties, ...extra })
const httpError = (example: string) => ({ 'application/json': { schema: { $ref: '#/components/schemas/HTTPError' }, example: { detail: example } } })

const ParsedResume = object(
  {
    personal_information: object({
      data: object({
        full_name: str,
        email: str,
        phone_number: { type: 'string', description: 'E.164 (+14155550123) when the number parses, otherwise as written' },
        address: object({ street: str, city: str, state: str, zip_code: str, country: str }),
        links: { ...strings, description: 'LinkedIn, GitHub and portfolio URLs' },
      }),
    }),
    summary_or_objective: str,
    skills: { type: 'array', items: object({ category: str, details: strings }, { required: ['category', 'details'] }) },
    work_experience: {
      type: 'array',
      items: object({
        title: str, company: str, location: str,
        start_date: { type: 'string', description: 'YYYY-MM, or YYYY when the month is not given' },
        end_date: { type: 'string', description: 'YYYY-MM, YYYY, or `Present`' },
        responsibilities: strings, achievements: strings,
      }),
    },
    education: {
      type: 'array',
      items: object({ degree: str, institution: str, location: str, start_date: str, end_date: str, GPA: str, relevant_courses: strings, thesis_or_project: str }),
    },
    projects: { type: 'array', items: object({ name: str, description: str, technologies: strings, industry: str, link: str, images_or_links: strings }) },
    certifications: { type: 'array', items: { type: 'object', additionalProperties: true } },
    awards: { type: 'array', items: { type: 'object', additionalProperties: true } },
    volunteer_experience: { type: 'array', items: { type: 'object', additionalProperties: true } },
    custom_sections: { type: 'array', items: object({ title: str, content: strings }), description: 'Sections under headings the parser does not know' },
    languages: strings,
    hobbies_and_interests: strings,
    other_fields: { type: 'object', additionalProperties: true },
    version: { type: 'string', enum: ['v1'] },
  },
  { required: ['version'], description: 'Every field but `version` appears only when it was detected; nothing is guessed.' },
)

const EmbeddingResult = object(
  {
    embedding: { type: 'array', items: { type: 'number' }, minItems: 768, maxItems: 768, description: 'Unit length; pass it to neural-search as `vector.vectors`' },
    dtype: { type: 'string', enum: ['resume'] },
    dim: { type: 'integer', enum: [768] },
    model_name: str,
    model_version: str,
    additional_info: object(
      {
        job_categories: {
          type: 'array',
          description: 'The 3 job categories nearest the resume. A score is the cosine similarity of the resume\'s vector with the category\'s name embedded by the same model, plus 0.5 times the share of the resume\'s titles that name the category (the most recent weighing most) and 0.15 times the share named by its skills and summary: higher is nearer, and it can pass 1',
          items: object({ category: str, score: { type: 'number' } }),
        },
        experience_level: object(
          { level: { type: ['string', 'null'], enum: ['Entry', 'Junior', 'Mid', 'Senior', 'Lead', 'Executive', null] }, confidence: { type: 'number', minimum: 0, maximum: 1 } },
          { description: 'From the years of the work entries and the words of their titles' },
        ),
        total_years_experience: { type: ['number', 'null'], description: 'The work entries\' dates merged (overlaps counted once), in years' },
        score_breakdown: object(
          {
            contact: { type: 'number' }, summary: { type: 'number' }, experience: { type: 'number' },
            education: { type: 'number' }, skills: { type: 'number' }, completeness: { type: 'number' },
          },
          { description: 'How complete each part of the parse is, 0 to 1; completeness weighs them 0.25 contact, 0.1 summary, 0.3 experience, 0.15 education, 0.2 skills' },
        ),
        warnings: { ...strings, description: 'About the reading: `OCR used`, `little text found`, …' },
        pages: { type: 'integer' },
        ocr: { type: 'boolean' },
      },
    ),
  },
  { required: ['embedding', 'dtype', 'dim', 'model_name', 'model_version'] },
)

const ResumeRecord = object(
  {
    _id: { type: 'string', format: 'uuid' },
    artifact_id: { type: 'string', format: 'uuid', description: 'The same id: vsearch (`search_type` resume) and neural-search (`vector.artifact_id`) take it once `status` is `parsed`' },
    user_id: { type: 'string', description: 'The owning account' },
    resume_url: { type: 'string', description: 'GET it with the API key for the stored file' },
    parsed_data: { anyOf: [ParsedResume, { type: 'null' }], description: 'Null until parsed' },
    status: { type: 'string', enum: ['uploaded', 'parsed'] },
    parse_error: { type: ['string', 'null'], description: 'Why the stored file could not be parsed; the status then stays `uploaded`' },
    file_name: { type: ['string', 'null'] },
    file_size: { type: ['integer', 'null'], description: 'Bytes' },
    content_type: { type: ['string', 'null'] },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
  { required: ['_id', 'artifact_id', 'user_id', 'resume_url', 'parsed_data', 'status', 'created_at', 'updated_at'] },
)

const types = 'application/pdf, application/msword (DOC), application/vnd.openxmlformats-officedocument.wordprocessingml.document (DOCX), text/plain or text/html'

const upload = {
  required: true,
  content: {
    'multipart/form-data': {
      schema: object(
        { file: { type: 'string', format: 'binary', description: `The resume, at most ${MAX_RESUME_BYTES / 1024 / 1024} MB, sent with its content type: ${types}` } },
        { required: ['file'] },
      ),
      encoding: { file: { contentType: 'application/pdf, application/msword, application/vnd.openxmlformats-officedocument.wordprocessingml.document, text/plain, text/html' } },
    },
  },
}

const fileRules =
  `**The body** is multipart/form-data with exactly one part, \`file\`, of at most ${MAX_RESUME_BYTES / 1024 / 1024} MB (refused as soon as the limit is passed), ` +
  `sent with its content type: ${types}. A part without a content type, or \`application/octet-stream\`, is a 400 even when the file is valid. ` +
  'A file whose content does not match its type, or that is empty, corrupt, encrypted or takes too long to read, is a 400 that says which. ' +
  'PDFs are read with their layout (columns, sidebars and tables in reading order); a PDF with little or no text layer is read by OCR (at most 4 pages), and `warnings` says so.'

const uploadErrors = {
  400: 'More than one part; no content type or a generic one; a type other than PDF, Word, text or HTML; above 5 MB; content that does not match the type; an empty, corrupt, encrypted or unreadable file',
}

export const resumeSchemas = { ParsedResume, EmbeddingResult, ResumeRecord }

const ref = (name: keyof typeof resumeSchemas) => ({ $ref: `#/components/schemas/${name}` })

export const resumeRouteDocs: RouteDoc[] = [
  {
    method: 'post',
    path: '/v2/resumes/embed',
    summary: 'Parse and embed a resume',
    description:
      'Parses the file into the parsed-resume schema and embeds it with the server\'s model. Stateless: nothing is stored. Needs a key; not metered.\n\n' +
      fileRules +
      '\n\nThe embedding is comparable with the job vectors of the same model: send it to neural-search as `vector.vectors`. ' +
      'When the server runs with `RESUME_LLM=1`, an LLM pass fills or corrects the heuristic parse, and the file\'s text goes to the LLM provider (docs/resumes.md); it is off by default.',
    tags: ['Resumes'],
    auth: 'key',
    requestBody: upload,
    response: object({ resume: ref('ParsedResume'), result: ref('EmbeddingResult') }, { required: ['resume', 'result'] }),
    errors: uploadErrors,
    responses: {
      422: { description: 'No part named `file`', content: { 'application/json': { schema: { $ref: '#/components/schemas/ValidationError' }, example: { detail: [{ type: 'missing', loc: ['body', 'file'], msg: 'Field required', input: null }] } } } },
      503: { description: 'No embedding model is configured, or it cannot run', content: httpError('The embedding model is unavailable (none is configured: EMBEDDING_PROVIDER is none); retry later') },
    },
  },
  {
    method: 'post',
    path: '/v2/resumes',
    summary: 'Upload a resume',
    description:
      'Stores the file (under DATA_DIR, or in S3 when configured) and returns its record with status `uploaded`. A background job then parses and embeds it; ' +
      'poll `GET /v2/resumes/{resume_id}` until `status` is `parsed`, then use `artifact_id` in vsearch or neural-search. ' +
      'A stored file that cannot be parsed keeps status `uploaded` and says why in `parse_error`. Needs a key; not metered.\n\n' + fileRules,
    tags: ['Resumes'],
    auth: 'key',
    requestBody: upload,
    okStatus: 201,
    responseDescription: 'Stored; parsing is queued',
    response: ref('ResumeRecord'),
    errors: uploadErrors,
    responses: {
      422: { description: 'No part named `file`', content: { 'application/json': { schema: { $ref: '#/components/schemas/ValidationError' } } } },
    },
  },
  {
    method: 'get',
    path: '/v2/resumes',
    summary: 'List resumes',
    description: 'The calling account\'s stored resumes, newest first. `limit` is 1 to 100, default 10; `page` starts at 1.',
    tags: ['Resumes'],
    auth: 'key',
    query: resumeListQuery,
    params: { page: 'Page number, from 1', limit: 'Resumes per page, 1 to 100' },
    response: object(
      { resumes: { type: 'array', items: ref('ResumeRecord') }, total_count: { type: 'integer' }, page: { type: 'integer' }, limit: { type: 'integer' }, total_pages: { type: 'integer' } },
      { required: ['resumes', 'total_count', 'page', 'limit', 'total_pages'] },
    ),
  },
  {
    method: 'get',
    path: '/v2/resumes/:resume_id',
    summary: 'Get a resume',
    description: 'A stored resume of the calling account. Another account\'s resume, like an unknown id, is a 404.',
    tags: ['Resumes'],
    auth: 'key',
    params: { resume_id: 'The resume\'s `_id`' },
    response: ref('ResumeRecord'),
    errors: { 404: 'No resume with this id belongs to the calling account' },
  },
  {
    method: 'get',
    path: '/v2/resumes/:resume_id/file',
    summary: 'Download a stored resume\'s file',
    description: 'The file as uploaded (`resume_url`), to its owner only; with S3 storage, a redirect to a short-lived presigned URL.',
    tags: ['Resumes'],
    auth: 'key',
    params: { resume_id: 'The resume\'s `_id`' },
    response: { content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } }, 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
    errors: { 404: 'No resume with this id belongs to the calling account' },
  },
  {
    method: 'delete',
    path: '/v2/resumes/:resume_id',
    summary: 'Delete a resume',
    description: 'Deletes the record, its parsed data, its vector and its file (resumes are personal data). Another account\'s resume is a 404.',
    tags: ['Resumes'],
    auth: 'key',
    params: { resume_id: 'The resume\'s `_id`' },
    okStatus: 204,
    responseDescription: 'Deleted',
    response: { content: {} },
    errors: { 404: 'No resume with this id belongs to the calling account' },
  },
]
