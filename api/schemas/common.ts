import { number, object } from 'yup'

/** page/limit in a query string; limit tops out at 100 on listing endpoints. */
export const pageQuery = object({
  page: number().integer().min(1).default(1),
  limit: number().integer().min(1).max(100).default(10),
})

export const pageEnvelope = (total: number, page: number, limit: number) => ({
  total_count: total,
  page,
  limit,
  total_pages: Math.ceil(total / limit),
})
