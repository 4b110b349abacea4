import { object, string } from 'yup'

export const jobQuery = object({
  return_raw_description: string().oneOf(['true', 'false']).optional(),
})
