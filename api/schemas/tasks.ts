import { number, object, string } from 'yup'

export const TASK_TYPES = ['export_job_data', 'export_expired_jobs', 'salary_benchmark', 'export_historical_jobs'] as const

/** GET /v2/tasks: newest first, page × limit within 10,000, optionally one type. */
export const taskListQuery = object({
  page: number().integer().min(1).max(10_000).default(1),
  limit: number().integer().min(1).max(100).default(20),
  type: string().oneOf([...TASK_TYPES]).optional(),
}).test('depth', function (v) {
  return !v || v.page * v.limit <= 10_000 ? true : this.createError({ path: 'page', message: 'page × limit may reach at most 10000 tasks' })
})
