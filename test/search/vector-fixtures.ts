/**
 * Vectors with known similarities, for vsearch and neural-search tests: jobs get
 * their embedding set directly, so orders, filters and paging are exact.
 *
 * planar(s, a, b) is the unit vector at cosine s to axis a, in the plane of axes a
 * and b: every vector of one plane has similarity 0 to the axes of another, so a test
 * that adds jobs on axes of its own never shows up in another's results above score 0.
 */
import { randomUUID } from 'node:crypto'
import { toSql } from 'pgvector'
import { EMBEDDING_DIM } from '../../ingest/embed/embedder.ts'
import { ingest } from '../../ingest/pipeline.ts'
import type { JsonSchema } from '../../api/schemas/responses.ts'
import type { Sql } from '../../sql/db.ts'
import { modelId } from '../../sql/embeddings.ts'
import { testEmbedder } from '../helpers/app.ts'
import { rawPosting } from '../helpers/factories.ts'

export const axis = (a: number): number[] => Array.from({ length: EMBEDDING_DIM }, (_, i) => (i === a ? 1 : 0))

export function planar(similarity: number, a = 0, b = 1) {
  const v = axis(a)
  v[a] = similarity
  v[b] = Math.sqrt(1 - similarity ** 2)
  return v
}

export const cosine = (x: number[], y: number[]) => {
  const dot = x.reduce((acc, v, i) => acc + v * y[i], 0)
  return dot / (Math.hypot(...x) * Math.hypot(...y))
}

/** Ingests postings (each with a unique job_title) and returns their ids by title. */
export async function seedPostings(sql: Sql, postings: Record<string, unknown>[], source: string, now = new Date('2026-11-20T00:00:00Z')) {
  const summary = await ingest(
    sql,
    postings.map((p, i) => ({ line: i + 1, raw: rawPosting({ source_id: `${source}-${i}`, ...p }, i) as never })),
    { source, now },
  )
  if (summary.inserted !== postings.length) throw new Error(`seedPostings: ${JSON.stringify(summary)}`)
  // by the source's own ids: another test may ingest the same titles
  const keys = postings.map((_, i) => `${source}-${i}`)
  const rows = await sql<{ id: string; job_title: string }[]>`
    select j.id::text, j.job_title from jobs j join job_sources s on s.job_id = j.id where s.source_key = any(${keys})`
  return new Map(rows.map((r) => [r.job_title, r.id]))
}

/**
 * The model the fixtures' vectors are recorded as made by: the test apps' embedder's,
 * which raw query vectors are taken to be from.
 */
export const fixtureModel = (sql: Sql) => modelId(sql, testEmbedder().info)

/** Sets jobs' vectors, as made by `model` (the fixtures' by default). */
export async function setJobVectors(sql: Sql, vectors: [id: string, vector: number[]][], model?: number) {
  const made = model ?? (await fixtureModel(sql))
  for (const [id, v] of vectors) await sql`update jobs set embedding = ${toSql(v)}::vector, embedding_model = ${made} where id = ${id}`
}

/** A resume of the account with this vector (none: not embedded yet), as made by the fixtures' model. */
export async function insertResume(sql: Sql, accountId: string, vector: number[] | null) {
  const model = vector ? await fixtureModel(sql) : null
  const [row] = await sql<{ id: string }[]>`
    insert into resumes (account_id, resume_url, file_key, status, embedding, embedding_model)
    values (${accountId}, 'https://files.example.test/r.pdf', ${`r-${randomUUID()}`}, 'parsed', ${vector ? toSql(vector) : null}::vector, ${model})
    returning id::text`
  return row.id
}

/**
 * What in a response body the OpenAPI document does not describe, or requires and the
 * body lacks: keys, recursively through objects, lists, anyOf and $ref (objects with
 * listed properties are closed unless they say additionalProperties: true). Types are
 * test/api/openapi.test.ts's business; this keeps the document's field lists honest.
 */
export function undocumented(doc: unknown, schema: JsonSchema, value: unknown, at = '$'): string[] {
  if (schema.$ref) {
    const target = schema.$ref.slice(2).split('/').reduce<any>((o, k) => o?.[k], doc)
    return undocumented(doc, target, value, at)
  }
  if (schema.anyOf) {
    const tries = schema.anyOf.map((s) => undocumented(doc, s, value, at))
    return tries.some((p) => p.length === 0) ? [] : tries.flat()
  }
  if (Array.isArray(value)) return schema.items ? value.flatMap((v, i) => undocumented(doc, schema.items!, v, `${at}[${i}]`)) : []
  if (value === null || typeof value !== 'object' || !schema.properties) return []
  const obj = value as Record<string, unknown>
  return [
    ...(schema.required ?? []).filter((k) => !(k in obj)).map((k) => `${at}.${k} is missing`),
    ...Object.entries(obj).flatMap(([k, v]) =>
      schema.properties![k] ? undocumented(doc, schema.properties![k], v, `${at}.${k}`) : schema.additionalProperties === true ? [] : [`${at}.${k} is not documented`],
    ),
  ]
}

/** The documented schema of a route's 200 body. */
export function okSchema(doc: { paths: Record<string, Record<string, unknown>> }, path: string): JsonSchema {
  const op = doc.paths[path].post as { responses: Record<string, { content: { 'application/json': { schema: JsonSchema } } }> }
  return op.responses[200].content['application/json'].schema
}
