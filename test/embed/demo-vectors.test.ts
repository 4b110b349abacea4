/**
 * The demo postings' shipped vectors (ingest/embed/demo-vectors.bin): the file holds a
 * vector for every demo text, so the first `make run` embeds its demo data without
 * running the model; its float16 numbers read back as the model's vectors.
 */
import anyTest, { type TestFn } from 'ava'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fromSql } from 'pgvector'
import { loadDemoData } from '../../ingest/demo-data.ts'
import { DEMO_VECTORS, readDemoVectors, writeDemoVectors } from '../../ingest/embed/demo-vectors.ts'
import { loadConfig } from '../../sql/config.ts'
import { listCachedEmbeddings, modelId } from '../../sql/embeddings.ts'
import { CATEGORY_GRAPHS } from '../../sql/vector-search.ts'
import { testEmbedder } from '../helpers/app.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'
import { Counting } from './counting.ts'

const test = anyTest as TestFn<{ db: TestDb }>

test.before(async (t) => {
  t.context = { db: await testDatabase() }
})
test.after.always(async (t) => {
  await t.context.db?.close()
})

const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0)

test.serial('the first start embeds the demo postings from the shipped vectors, without running the model', async (t) => {
  const { sql } = t.context.db
  const embedder = new Counting(testEmbedder())
  const jobs = loadConfig().demoJobs
  const summary = await loadDemoData(sql, jobs, { embedder })
  t.truthy(summary)
  t.is(summary!.read, jobs)
  t.is(summary!.not_embedded, 0)
  t.is(summary!.embedded, summary!.inserted)
  t.is(
    embedder.texts,
    0,
    `${embedder.texts} demo texts are not in ${DEMO_VECTORS}: the generator or the text recipe changed; write it again with npm run embed -- --write-demo-vectors`,
  )
  t.is(await loadDemoData(sql, jobs, { embedder }), null, 'only into an empty database')
  // the HNSW index was built after the load, not lost
  const [index] = await sql<{ indexdef: string }[]>`select indexdef from pg_indexes where indexname = 'jobs_embedding_idx'`
  t.regex(index?.indexdef ?? '', /USING hnsw \(embedding vector_cosine_ops\) WITH \(m='?16'?, ef_construction='?128'?\)/)
  // and so were the categories' graphs (migration 0031), one per category of the list and Other
  const [{ graphs }] = await sql<{ graphs: number }[]>`
    select count(*)::int as graphs from pg_indexes where tablename = 'jobs' and indexname like 'jobs\_embedding\_%\_idx' and indexdef like '%USING hnsw%WHERE%'`
  t.is(graphs, CATEGORY_GRAPHS.size)
  t.deepEqual([...(await sql`select name from deferred_indexes`)], [])
})

test.serial('the file\'s float16 numbers read back within 0.00001 of the model\'s vectors', async (t) => {
  const { sql } = t.context.db
  const { header, vectors } = readDemoVectors()
  t.like(header, { ...testEmbedder().info, dims: 512 })
  t.is(vectors.size, header.count)
  // the demo load above put these in the cache; the model's own vector for a few of them:
  const model = await modelId(sql, testEmbedder().info)
  const cached = await listCachedEmbeddings(sql, model)
  t.true(cached.length >= header.count)
  for (const v of vectors.values()) {
    t.is(v.length, 768)
    t.true(Math.abs(dot(v, v) - 1) < 1e-9)
  }

  // written and read back: every vector within float16's rounding of what was written
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'demo-vectors-')), 'v.bin')
  t.teardown(() => fs.rmSync(path.dirname(file), { recursive: true, force: true }))
  t.is(await writeDemoVectors(sql, testEmbedder().info, file), cached.length)
  const back = readDemoVectors(file).vectors
  for (const { sha, vector } of cached.slice(0, 200)) t.true(dot(back.get(sha)!, fromSql(vector) as number[]) > 0.99999, sha)
})
