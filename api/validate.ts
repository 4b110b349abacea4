/**
 * Runs a yup schema over one part of the request and raises the spec's 422 on
 * failure. Bodies are validated strictly: JSON already carries types, and the spec
 * wants a boolean where a string is required to fail (string_type), not be coerced.
 * Query and path values arrive as text, so they are cast.
 */
import { ValidationError, type AnySchema, type InferType } from 'yup'
import { errors, toItems } from './errors.ts'

export type Where = 'body' | 'query' | 'path'

export async function validate<S extends AnySchema>(schema: S, input: unknown, where: Where = 'body'): Promise<InferType<S>> {
  try {
    if (where !== 'body') return await schema.validate(input, { abortEarly: false, stripUnknown: true })
    const valid = await schema.validate(input, { abortEarly: false, strict: true })
    return schema.cast(valid, { stripUnknown: true }) // now the defaults

  } catch (e) {
    if (e instanceof ValidationError) throw errors.validation(toItems(e, where))
    throw e
  }
}
