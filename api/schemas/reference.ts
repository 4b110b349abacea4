import { object, string } from 'yup'

export const subindustriesQuery = object({
  industry: string().optional(),
})
