/**
 * `make embed` as an operator runs it, in a process of its own against a real
 * database: it back-fills jobs that have no vector, re-embeds jobs whose vector another
 * model made after the model changes (a text it has embedded before comes from the
 * cache), and says what is left when the model cannot run.
 */
import anyTest, { type TestFn } from 'ava'
import { ingest } from '../../ingest/pipeline.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'
import { makeEmbed } from '../helpers/processes.ts'
import { rawPosting } from '../helpers/factories.ts'
import { startFakeOpenAI } from './openai-server.ts'

const test = anyTest as TestFn<{ db: TestDb }>

test.before(async (t) => {
  t.context = { db: await testDatabase() }
})
test.after.always(async (t) => {
  await t.context.db?.close()
})

const modelsOfJobs = async (t: { context: { db: TestDb } }) => [
  ...(await t.context.db.sql<{ provider: string | null; n: number }[]>`
    select m.provider, count(*)::int as n from jobs j left join embedding_models m on m.id = j.embedding_model
    group by m.provider order by m.provider nulls first`),
]

test.serial('make embed back-fills missing vectors, re-embeds after a model change, and reports what it cannot do', async (t) => {
  const { sql } = t.context.db
  const postings = Array.from({ length: 5 }, (_, i) => rawPosting({ source_id: `cli-${i}`, job_title: ['Nurse', 'Welder', 'Data Analyst', 'Barista', 'Pilot'][i] }, 500 + i))
  const landed = await ingest(sql, postings.map((raw, i) => ({ line: i + 1, raw: raw as never })), { source: 'cli' })
  t.like(landed, { inserted: 5, not_embedded: 5 })

  const backfill = await makeEmbed(t.context.db.url)
  t.is(backfill.code, 0, backfill.stderr)
  t.regex(backfill.stdout, /embedding 5 jobs with use universal-sentence-encoder-lite use-lite-[\d.]+-512-zero-padded-768-lowercased: 5 without a vector, 0 with another model's/)
  t.regex(backfill.stdout, /embedded 5 jobs \(10 texts by the model, the others from the cache\) in [\d.]+ s \(\d+ jobs\/s\); 0 jobs left/)
  t.deepEqual(await modelsOfJobs(t), [{ provider: 'use', n: 5 }])

  // another model: every vector is re-made by it
  const fake = await startFakeOpenAI()
  t.teardown(() => fake.close())
  const openai = { EMBEDDING_PROVIDER: 'openai', OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-test', EMBEDDING_MODEL: 'text-embedding-3-small' }
  const switched = await makeEmbed(t.context.db.url, openai)
  t.is(switched.code, 0, switched.stderr)
  t.regex(switched.stdout, /embedding 5 jobs with openai text-embedding-3-small dimensions-768: 0 without a vector, 5 with another model's/)
  t.regex(switched.stdout, /embedded 5 jobs \(10 texts by the model/)
  t.is(fake.requests.flatMap((r) => r.input).length, 10, 'a title and a body per job')
  t.deepEqual(await modelsOfJobs(t), [{ provider: 'openai', n: 5 }])

  // and back: use has embedded these texts before, so its cache answers
  const back = await makeEmbed(t.context.db.url)
  t.is(back.code, 0, back.stderr)
  t.regex(back.stdout, /embedded 5 jobs \(0 texts by the model, the others from the cache\)/)
  t.deepEqual(await modelsOfJobs(t), [{ provider: 'use', n: 5 }])

  const nothing = await makeEmbed(t.context.db.url)
  t.regex(nothing.stdout, /embedding 0 jobs with use/)

  // a model that cannot run: what its cache holds is still given, the rest is left and said
  await ingest(sql, [{ line: 1, raw: rawPosting({ source_id: 'cli-new', job_title: 'Farrier' }, 510) as never }], { source: 'cli' })
  await fake.close()
  const down = await makeEmbed(t.context.db.url, openai)
  t.is(down.code, 1, down.stdout + down.stderr)
  t.regex(down.stderr, /unreachable/)
  t.regex(down.stdout, /embedded 5 jobs \(0 texts by the model, the others from the cache\).*; 1 jobs left without a vector of this model/)
  t.deepEqual(await modelsOfJobs(t), [{ provider: null, n: 1 }, { provider: 'openai', n: 5 }])

  const none = await makeEmbed(t.context.db.url, { EMBEDDING_PROVIDER: 'none' })
  t.is(none.code, 2)
  t.regex(none.stderr, /EMBEDDING_PROVIDER is none/)
})
