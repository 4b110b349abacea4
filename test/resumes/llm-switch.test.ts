/**
 * The resume LLM pass sends a resume's whole text, personal data, to a third party, so it
 * runs only with RESUME_LLM=1. An OPENAI_API_KEY set for embeddings must not turn it on:
 * here the key and base URL point at a fake OpenAI server that records every request,
 * and resumes go through both routes that parse them (embed, and a stored upload's
 * background parse).
 */
import test from 'ava'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createEmbedder } from '../../ingest/embed/create.ts'
import { analyzeResume } from '../../ingest/resume/analyze.ts'
import { loadConfig } from '../../sql/config.ts'
import { startTestApp, ROOMY_LIMITS } from '../helpers/app.ts'
import { multipart, SAMPLE_RESUME, textFile, TYPES } from '../helpers/resume-files.ts'
import { startFakeOpenAI } from '../embed/openai-server.ts'

const CHAT = 'POST /v1/chat/completions'
const EMBEDDINGS = 'POST /v1/embeddings'

test('with OPENAI_API_KEY set for embeddings and RESUME_LLM unset, no resume goes to the chat endpoint', async (t) => {
  const fake = await startFakeOpenAI()
  const dir = await mkdtemp(path.join(tmpdir(), 'jds-resume-llm-'))
  const config = loadConfig({ EMBEDDING_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: fake.url })
  t.is(config.resumes.llm, null)
  const app = await startTestApp({
    tasks: true,
    embedder: createEmbedder(config.embedding),
    config: { dataDir: dir, downloadsDir: path.join(dir, 'downloads'), rateLimits: ROOMY_LIMITS, embedding: config.embedding, resumes: config.resumes },
  })
  t.teardown(async () => {
    await app.close()
    await fake.close()
    await rm(dir, { recursive: true, force: true })
  })
  const upload = async (url: string) => {
    const { body, contentType } = multipart([{ name: 'file', bytes: textFile(), type: TYPES.txt, filename: 'maria.txt' }])
    const res = await fetch(app.base + url, { method: 'POST', headers: { 'x-api-key': app.key, 'content-type': contentType }, body })
    return { status: res.status, body: await res.json() }
  }

  const embedded = await upload('/v2/resumes/embed')
  t.is(embedded.status, 200, JSON.stringify(embedded.body))
  t.is(embedded.body.resume.personal_information.data.full_name, 'Maria Gonzalez')

  const stored = await upload('/v2/resumes')
  t.is(stored.status, 201, JSON.stringify(stored.body))
  const until = Date.now() + 60_000
  let status = stored.body.status
  while (status !== 'parsed' && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 100))
    status = (await (await app.get(`/v2/resumes/${stored.body._id}`)).json()).status
  }
  t.is(status, 'parsed')

  t.true(fake.calls.includes(EMBEDDINGS), 'the key is in use, for the embeddings')
  t.deepEqual(fake.calls.filter((c) => c !== EMBEDDINGS), [], 'nothing but embeddings reached the endpoint')
  const sent = fake.requests.flatMap((r) => r.input).join('\n')
  for (const personal of ['Maria', 'maria.gonzalez@example.com', '555-0134']) t.false(sent.includes(personal), personal)
})

test('RESUME_LLM=1 sends the resume to the chat endpoint (the request the test above looks for)', async (t) => {
  const fake = await startFakeOpenAI()
  t.teardown(fake.close)
  const { resumes } = loadConfig({ RESUME_LLM: '1', OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: fake.url })
  t.like(resumes.llm, { apiKey: 'sk-test', baseUrl: fake.url, model: 'gpt-4o-mini' })
  const failures: unknown[] = []
  // the fake answers only embeddings: the pass fails, and the heuristic parse stands
  const { resume } = await analyzeResume(textFile(SAMPLE_RESUME), TYPES.txt, { embedder: null, llm: resumes.llm, readTimeoutMs: 20_000, onLlmFailure: (e) => failures.push(e) })
  t.true(fake.calls.includes(CHAT))
  t.is(failures.length, 1)
  t.is(resume.personal_information?.data?.full_name, 'Maria Gonzalez')
})
