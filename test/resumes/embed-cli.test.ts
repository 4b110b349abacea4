/**
 * `make embed` gives stored resumes a vector too, on both databases: those parsed while no
 * model was configured and those another model embedded get the configured model's, made
 * from the parsed data as the parse job makes it; resumes not parsed are left to the parse job.
 */
import anyTest, { type TestFn } from 'ava'
import { randomUUID } from 'node:crypto'
import { embedResume } from '../../ingest/resume/embed-resume.ts'
import { parseResume } from '../../ingest/resume/parse.ts'
import { modelId } from '../../sql/embeddings.ts'
import { insertResume, markResumeParsed } from '../../sql/resumes.ts'
import { testEmbedder } from '../helpers/app.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'
import { makeEmbed } from '../helpers/processes.ts'
import { createAccountWithKey } from '../helpers/factories.ts'
import { SAMPLE_RESUME } from '../helpers/resume-files.ts'

const test = anyTest as TestFn<{ db: TestDb }>

test.before(async (t) => {
  t.context = { db: await testDatabase() }
})
test.after.always(async (t) => {
  await t.context.db?.close()
})

const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0)

test.serial('make embed gives parsed resumes without a vector, or with another model\'s, one of the configured model', async (t) => {
  const { sql } = t.context.db
  const { accountId } = await createAccountWithKey(sql)
  const parsed = parseResume(SAMPLE_RESUME.join('\n'))
  const stored = async (status: 'parsed' | 'uploaded', vector: { embedding: number[]; model: number } | null) => {
    const id = randomUUID()
    await insertResume(sql, { id, account_id: accountId, resume_url: `http://x/${id}`, file_key: `resumes/${accountId}/${id}.txt`, file_name: null, file_size: 1, content_type: 'text/plain' })
    if (status === 'parsed') await markResumeParsed(sql, id, parsed, vector)
    return id
  }
  const other = await modelId(sql, { provider: 'openai', model_name: 'text-embedding-3-small', model_version: 'dimensions-768' })
  const withoutVector = await stored('parsed', null)
  const otherModel = await stored('parsed', { embedding: Array.from({ length: 768 }, (_, i) => (i === 0 ? 1 : 0)), model: other })
  const notParsed = await stored('uploaded', null)

  const first = await makeEmbed(t.context.db.url)
  t.is(first.code, 0, first.stderr)
  t.regex(first.stdout, /embedding 0 jobs with use/)
  t.regex(first.stdout, /embedding 2 resumes with use universal-sentence-encoder-lite \S+: 1 without a vector, 1 with another model's/)
  t.regex(first.stdout, /embedded 2 resumes in [\d.]+ s; 0 resumes left without a vector of this model/)

  const use = await modelId(sql, testEmbedder().info)
  const rows = await sql<{ id: string; model: number | null; embedding: string | null }[]>`select id::text, embedding_model as model, embedding::text from resumes`
  const byId = new Map(rows.map((r) => [r.id, r]))
  t.is(byId.get(withoutVector)?.model, use)
  t.is(byId.get(otherModel)?.model, use)
  t.is(byId.get(notParsed)?.model, null)
  t.is(byId.get(notParsed)?.embedding, null)
  // the vector the parse job would have written
  const expected = (await embedResume(parsed, { warnings: [], pages: 1, ocr: false }, testEmbedder())).embedding
  for (const id of [withoutVector, otherModel]) t.true(cosine(JSON.parse(byId.get(id)!.embedding!), expected) > 0.999, id)

  const again = await makeEmbed(t.context.db.url)
  t.is(again.code, 0, again.stderr)
  t.regex(again.stdout, /embedding 0 resumes with use/)
})

test.serial('a model that cannot run leaves the resumes as they were and says so', async (t) => {
  const { sql } = t.context.db
  const { accountId } = await createAccountWithKey(sql)
  const id = randomUUID()
  await insertResume(sql, { id, account_id: accountId, resume_url: `http://x/${id}`, file_key: `resumes/${accountId}/${id}.txt`, file_name: null, file_size: 1, content_type: 'text/plain' })
  await markResumeParsed(sql, id, parseResume(SAMPLE_RESUME.join('\n')), null)
  // nothing listens on this port
  const down = await makeEmbed(t.context.db.url, { EMBEDDING_PROVIDER: 'openai', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: 'sk-test', EMBEDDING_MODEL: 'text-embedding-3-small' })
  t.is(down.code, 1, down.stdout + down.stderr)
  t.regex(down.stdout, /embedded 0 resumes in [\d.]+ s; \d+ resumes left without a vector of this model/)
  const [row] = await sql`select embedding_model from resumes where id = ${id}`
  t.is(row.embedding_model, null)
})
