/** yup → JSON Schema (2020-12), for the parameters and bodies of the OpenAPI document. */
import { convertSchema } from '@sodaru/yup-to-json-schema'
import type { AnyObjectSchema, SchemaDescription, SchemaFieldDescription } from 'yup'
import { type JsonSchema, type JsonType } from '../schemas/responses.ts'

const jsonTypes = new Set<JsonType>(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'])

type Converter = (description: SchemaFieldDescription, converters: Record<string, Converter>) => JsonSchema

/**
 * The library's object converter, without the default it copies from yup (every yup
 * object has one, built from its fields' defaults; the README says to drop it), and
 * with noUnknown() as additionalProperties: false.
 */
const objectConverter: Converter = (description, converters) => {
  const d = description as SchemaDescription & { fields?: Record<string, SchemaFieldDescription> }
  const schema: JsonSchema = { type: d.nullable ? ['object', 'null'] : 'object' }
  if (d.label) schema.title = d.label
  const properties: Record<string, JsonSchema> = {}
  const required: string[] = []
  for (const [name, field] of Object.entries(d.fields ?? {})) {
    const convert = converters[(field as SchemaDescription).type]
    properties[name] = convert ? convert(field, converters) : {}
    if ('optional' in field && !field.optional) required.push(name)
  }
  if (Object.keys(properties).length) schema.properties = properties
  if (required.length) schema.required = required
  if (d.tests?.some((t) => t.name === 'noUnknown')) schema.additionalProperties = false
  return Object.assign(schema, (d.meta as { jsonSchema?: JsonSchema } | undefined)?.jsonSchema)
}

/** Draft-07 habits of the converter, in 2020-12 terms: tuple items → prefixItems; no empty or non-JSON types. */
function normalize(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...schema }
  if (Array.isArray(out.items)) {
    out.prefixItems = (out.items as JsonSchema[]).map(normalize)
    delete out.items
  } else if (out.items) out.items = normalize(out.items)
  if (out.properties) out.properties = Object.fromEntries(Object.entries(out.properties).map(([k, v]) => [k, normalize(v)]))
  if (out.type !== undefined) {
    const types = (Array.isArray(out.type) ? out.type : [out.type]).filter((t) => jsonTypes.has(t))
    if (types.length === 0) delete out.type
    else out.type = types.length === 1 ? types[0] : [...new Set(types)]
  }
  if (out.default === undefined) delete out.default
  return out
}

/** A yup object schema as JSON Schema. */
export function yupToJsonSchema(schema: AnyObjectSchema): JsonSchema {
  // the library types converters as a complete record; it merges ours over its own
  return normalize(convertSchema(schema, { converters: { object: objectConverter } as never }) as JsonSchema)
}
