/**
 * POST /v2/embed: {"texts": [...]} or {"text": "..."}, exactly one of them. The bounds
 * keep a request's work and body small: at most MAX_TEXTS texts of at most
 * MAX_TEXT_LENGTH characters, which fit the 1 MB body limit in any script (a
 * character is at most 3 bytes of UTF-8 per UTF-16 unit). The models read less than
 * that anyway: USE lite the first 128 tokens (about 500 characters), bge 512 tokens.
 */
import { array, object, string, type InferType } from 'yup'

export const MAX_TEXTS = 64
export const MAX_TEXT_LENGTH = 4_000

const text = () =>
  string()
    .max(MAX_TEXT_LENGTH)
    .test('not-blank', 'String should have at least 1 character that is not white space', function (v) {
      return v === undefined || v.trim() !== '' || this.createError({ params: { itemType: 'string_too_short', ctx: { min_length: 1 } } })
    })

export const embedBody = object({
  texts: array(text().required()).min(1).max(MAX_TEXTS),
  text: text(),
}).test('one-of', function (v) {
  if (v.texts !== undefined && v.text !== undefined) return this.createError({ path: 'text', message: 'Send texts or text, not both' })
  if (v.texts === undefined && v.text === undefined) {
    return this.createError({ path: 'texts', message: 'Field required: texts (a list of strings) or text (one string)', params: { itemType: 'missing' } })
  }
  return true
})

export type EmbedBody = InferType<typeof embedBody>
