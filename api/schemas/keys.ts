import { object, string } from 'yup'

/** POST /v2/keys: a name to tell the key apart by, at most 100 characters, not blank; stored trimmed. */
export const keyCreateBody = object({
  name: string()
    .required()
    .max(100)
    .test('not-blank', 'name must not be blank', (v) => v === undefined || v.trim().length > 0),
})

/** GET /v2/billing/usage/summary: `daily=true` adds each meter's units per day. */
export const usageSummaryQuery = object({
  daily: string().oneOf(['true', 'false']).optional(),
})
