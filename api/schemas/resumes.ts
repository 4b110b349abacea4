/** GET /v2/resumes: pages of the account's resumes, newest first. */
import { number, object } from 'yup'

export const MAX_RESUME_PAGE = 100

export const resumeListQuery = object({
  page: number().integer().min(1).default(1),
  limit: number().integer().min(1).max(MAX_RESUME_PAGE).default(10),
})
