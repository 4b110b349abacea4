/**
 * POST /v2/jobs/contacts: whose contacts (job_id, job_ids, company_slug; at least one)
 * and how many (limit). Job ids are the digits of a job record's `_id`.
 */
import { array, number, object, string, type InferType } from 'yup'

export const MAX_CONTACT_JOB_IDS = 100
export const MAX_CONTACTS_LIMIT = 100

const jobId = () => string().matches(/^\d{1,18}$/, { message: 'Input should be a job id: the digits of a job record\'s _id', excludeEmptyString: false }).max(18)

export const contactsBody = object({
  job_id: jobId(),
  job_ids: array(jobId().required()).max(MAX_CONTACT_JOB_IDS),
  company_slug: string().trim().min(1).max(200),
  limit: number().integer().min(1).max(MAX_CONTACTS_LIMIT).default(10),
}).test('whose', function (v) {
  if (!v || v.job_id !== undefined || v.job_ids?.length || v.company_slug !== undefined) return true
  return this.createError({ path: 'job_id', message: 'Field required: job_id, job_ids (a non-empty list) or company_slug', params: { itemType: 'missing' } })
})

export type ContactsBody = InferType<typeof contactsBody>
