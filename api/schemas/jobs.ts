import { object, string } from 'yup'

export const jobQuery = object({
  return_raw_description: string().oneOf(['true', 'false']).optional(),
})

/**
 * A user of the account, as the account names it: GET /v2/jobs/{job_id} records the
 * view for it, and neural-search's hide_seen_jobs leaves out what it viewed. Absent,
 * it is the account itself.
 */
export const userId = () => string().min(1).max(200)

/** GET /v2/jobs/{job_id}: jobQuery, and the user the view is recorded for. */
export const jobViewQuery = jobQuery.shape({ user_id: userId() })
