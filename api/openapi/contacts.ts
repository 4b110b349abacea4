/**
 * POST /v2/jobs/contacts in the OpenAPI document (api/routes/contacts.ts). document.ts
 * lists these with the other families.
 */
import type { RouteDoc } from './route-doc.ts'
import { contactsBody, MAX_CONTACT_JOB_IDS, MAX_CONTACTS_LIMIT } from '../schemas/contacts.ts'

type JsonSchema = Record<string, unknown>

const strOrNull = (description: string): JsonSchema => ({ type: ['string', 'null'], description })

const Contact: JsonSchema = {
  type: 'object',
  properties: {
    name: strOrNull('As the posting gives it beside the address, or as the company profile lists it; null when neither does'),
    role: strOrNull('A hiring title ("Head of Talent", "hiring manager"), found the same way; null when none is given'),
    email: strOrNull('Lower case; each e-mail appears once in a response'),
    phone: strOrNull('As written'),
    source: { type: 'string', description: 'The `_id` of the job the contact came from, or `company` for a contact the company profile lists' },
    job_id: strOrNull('The job\'s `_id` when the contact came from a posting; null for `company`'),
  },
  required: ['name', 'role', 'email', 'phone', 'source', 'job_id'],
}

const example = {
  contacts: [
    { name: 'Jane Doe', role: 'Head of Talent', email: 'jane@acme.example', phone: null, source: '48213', job_id: '48213' },
    { name: null, role: null, email: 'careers@acme.example', phone: '+1 415 555 0100', source: 'company', job_id: null },
  ],
}

export const contactsRouteDocs: RouteDoc[] = [
  {
    method: 'post',
    path: '/v2/jobs/contacts',
    summary: 'Hiring contacts of jobs or a company',
    description:
      'The contacts of the jobs given (`job_id`, or `job_ids`: up to ' + MAX_CONTACT_JOB_IDS + ') and/or of a company (`company_slug`); ' +
      `at least one of them, else 422. \`limit\` is 1 to ${MAX_CONTACTS_LIMIT}, default 10.\n\n` +
      '**Where they come from:** the contact e-mail and phone of the postings (found at ingest), with the name and role the posting text ' +
      'gives beside them when it does; and the `contacts` list of the company profile (`make ingest-companies`). Each e-mail (else phone) appears ' +
      'once. Order: the jobs asked for, in their order; then the profile contacts of their companies and of `company_slug`; then the contacts ' +
      'of the company\'s live postings, newest first.\n\n' +
      '**Not found:** an unknown `company_slug` is a 404 (costs nothing); unknown job ids, or jobs without contacts, give no contacts: ' +
      '`{"contacts": []}`, which costs nothing.\n\n' +
      '**Add-on:** needs the `hiring_manager_contacts` feature (granted per account by the administrator; without it, 403 with ' +
      '`X-Billing-Code: feature_missing`). **Billing:** 1 unit of m_hiring_manager_contacts per contact returned; `limit` is reserved ' +
      'first (the quota 429 when a block-mode meter cannot cover it).\n\n' +
      'Contacts are personal data: the service never logs them, and the administrator deletes a company\'s with `admin contacts:delete --company SLUG`.',
    tags: ['Companies'],
    auth: 'key',
    body: contactsBody,
    metered: true,
    response: { content: { 'application/json': { schema: { type: 'object', properties: { contacts: { type: 'array', items: Contact } }, required: ['contacts'] }, example } } },
    errors: { 404: 'No company has this `company_slug`' },
    responses: {
      403: {
        description: 'The account lacks the hiring_manager_contacts add-on (X-Billing-Code: feature_missing)',
        headers: { 'X-Billing-Code': { description: '`feature_missing`', schema: { type: 'string', enum: ['feature_missing'] } } },
        content: {
          'application/json': {
            schema: { $ref: '#/components/schemas/HTTPError' },
            example: { detail: 'Your plan does not include the hiring_manager_contacts feature; upgrade at /v2/billing/portal' },
          },
        },
      },
      422: {
        description: 'Neither job_id, job_ids nor company_slug; more than 100 job_ids; limit outside 1 to 100; or another field failed validation',
        content: {
          'application/json': {
            schema: { $ref: '#/components/schemas/ValidationError' },
            example: { detail: [{ type: 'missing', loc: ['body', 'job_id'], msg: 'Field required: job_id, job_ids (a non-empty list) or company_slug', input: null }] },
          },
        },
      },
    },
  },
]
