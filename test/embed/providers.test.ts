/**
 * The three providers behind EMBEDDING_PROVIDER, each with a real model or endpoint:
 * USE lite from its npm package, an OpenAI-compatible HTTP server started here, and a
 * tiny ONNX model written here for transformers (run when @huggingface/transformers
 * is installed; it is an optional package, docs/embeddings.md).
 */
import test from 'ava'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { createEmbedder } from '../../ingest/embed/create.ts'
import { EMBEDDING_DIM, EmbedderUnavailable } from '../../ingest/embed/embedder.ts'
import { OpenAIEmbedder } from '../../ingest/embed/openai.ts'
import { TransformersEmbedder } from '../../ingest/embed/transformers.ts'
import { MAX_CHARS, UseEmbedder } from '../../ingest/embed/use.ts'
import { loadConfig } from '../../sql/config.ts'
import { startFakeOpenAI, vectorOf, type FakeOpenAI } from './openai-server.ts'
import { writeTinyBert } from './tiny-bert.ts'

const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0)
const norm = (a: number[]) => Math.sqrt(dot(a, a))

const use = new UseEmbedder({ threads: 1, batch: 32 })
test.after.always(() => use.close())

// --- use ---------------------------------------------------------------------------

test('use: 512 numbers zero-padded to 768, unit length; a related text is nearer than an unrelated one', async (t) => {
  t.deepEqual(use.info, { provider: 'use', model_name: 'universal-sentence-encoder-lite', model_version: 'use-lite-0.2.0-512-zero-padded-768-lowercased' })
  const [query, related, unrelated] = await use.embed(['senior backend engineer python', 'software developer, python, backend', 'registered nurse night shift hospital'])
  for (const v of [query, related, unrelated]) {
    t.is(v.length, EMBEDDING_DIM)
    t.true(Math.abs(norm(v) - 1) < 1e-9)
    t.true(v.slice(512).every((x) => x === 0))
    t.true(v.slice(0, 512).some((x) => x !== 0))
  }
  t.true(Math.abs(dot(query, related) - 0.819) < 0.005, `${dot(query, related)}`)
  t.true(Math.abs(dot(query, unrelated) - 0.343) < 0.005, `${dot(query, unrelated)}`)
  t.deepEqual(await use.embed([]), [])
})

test('use: batches spread over two threads come back in order, as each text alone', async (t) => {
  const two = new UseEmbedder({ threads: 2, batch: 3 })
  t.teardown(() => two.close())
  const texts = Array.from({ length: 8 }, (_, i) => `job number ${i}: ${['nurse', 'engineer', 'driver', 'chef'][i % 4]} wanted`)
  const together = await two.embed(texts)
  t.is(together.length, texts.length)
  for (const [i, text] of texts.entries()) {
    const [alone] = await use.embed([text])
    t.true(dot(alone, together[i]) > 0.99999, `text ${i}`)
  }
})

test('use: the threads beyond the first end once idle, and start again for the next burst', async (t) => {
  const two = new UseEmbedder({ threads: 2, batch: 2, retireMs: 200 })
  t.teardown(() => two.close())
  const texts = Array.from({ length: 6 }, (_, i) => `warehouse picker ${i}`)
  const untilThreads = async (n: number) => {
    const deadline = Date.now() + 20_000
    while (two.threads !== n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
    return two.threads
  }
  const burst = two.embed(texts)
  t.is(two.threads, 2, 'three batches start both threads')
  const first = await burst
  t.is(await untilThreads(1), 1, 'the second thread ended')
  const next = two.embed(texts)
  t.is(two.threads, 2, 'the next burst starts a second thread again')
  const again = await next
  first.forEach((v, i) => t.true(dot(v, again[i]) > 0.99999, `text ${i}`))
  t.is(await untilThreads(1), 1, 'and it ended again; the first stays')
})

test('use: texts are cut at MAX_CHARS, past the model\'s 128-token window, which changes no vector', async (t) => {
  const long = Array.from({ length: 300 }, (_, i) => `word${i}`).join(' ')
  t.true(long.length > 2 * MAX_CHARS)
  const [cut, whole, window] = await use.embed([long.slice(0, MAX_CHARS), long, long.slice(0, 700)])
  t.deepEqual(cut, whole)
  t.true(dot(cut, window) > 0.99999, 'the model reads no further than 700 characters of this text')
})

test('use: a closed embedder refuses work', async (t) => {
  const e = new UseEmbedder({ threads: 1, batch: 4 })
  await e.close()
  await t.throwsAsync(e.embed(['x']), { message: /closed/ })
})

// --- openai ------------------------------------------------------------------------

async function withServer(t: { teardown: (f: () => Promise<void>) => void }): Promise<FakeOpenAI> {
  const fake = await startFakeOpenAI()
  t.teardown(() => fake.close())
  return fake
}

test('openai: asks the endpoint for 768 numbers with the model and key, in batches, in order', async (t) => {
  const fake = await withServer(t)
  const config = loadConfig({ EMBEDDING_PROVIDER: 'openai', OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-test', EMBEDDING_MODEL: 'text-embedding-3-small', EMBEDDING_BATCH: '2' })
  const e = createEmbedder(config.embedding)!
  t.true(e instanceof OpenAIEmbedder)
  t.deepEqual(e.info, { provider: 'openai', model_name: 'text-embedding-3-small', model_version: 'dimensions-768' })
  const texts = ['alpha', 'beta', 'gamma', 'delta', 'epsilon']
  const vectors = await e.embed(texts)
  t.is(fake.requests.length, 3)
  t.deepEqual(fake.requests.map((r) => r.input).flat().sort(), [...texts].sort())
  for (const r of fake.requests) {
    t.is(r.model, 'text-embedding-3-small')
    t.is(r.dimensions, 768)
    t.is(r.encoding_format, 'float')
    t.is(r.authorization, 'Bearer sk-test')
  }
  texts.forEach((text, i) => {
    t.is(vectors[i].length, EMBEDDING_DIM)
    t.true(dot(vectors[i], vectorOf(text, 768)) > 0.999999, text)
  })
})

test('openai: fewer numbers than asked are zero-padded; more are an error', async (t) => {
  const fake = await withServer(t)
  const e = new OpenAIEmbedder({ baseUrl: fake.url, apiKey: null, model: 'local-minilm', batch: 8, modelVersion: 'v1' })
  t.is(e.info.model_version, 'v1')
  fake.fixedDims = 384
  const [v] = await e.embed(['short model'])
  t.true(v.slice(384).every((x) => x === 0))
  t.true(dot(v.slice(0, 384), vectorOf('short model', 384)) > 0.999999)
  t.is(fake.requests[0].authorization, 'Bearer unset')
  fake.fixedDims = 1536
  await t.throwsAsync(e.embed(['too wide']), { message: /1536 numbers per vector/ })
})

test('openai: an unreachable endpoint or a refused key is EmbedderUnavailable; a refused input is not', async (t) => {
  const fake = await withServer(t)
  const e = new OpenAIEmbedder({ baseUrl: fake.url, apiKey: 'sk-wrong', model: 'm', batch: 8, modelVersion: null })
  fake.failWith = 401
  const refused = await t.throwsAsync(e.embed(['x']))
  t.true(refused instanceof EmbedderUnavailable)
  t.regex(refused!.message, /answered 401/)
  fake.failWith = 400
  const bad = await t.throwsAsync(e.embed(['x']))
  t.false(bad instanceof EmbedderUnavailable)
  await fake.close()
  const gone = await t.throwsAsync(e.embed(['x']))
  t.true(gone instanceof EmbedderUnavailable)
  t.regex(gone!.message, /unreachable/)
})

// --- transformers ------------------------------------------------------------------

function resolvable(name: string) {
  try {
    createRequire(import.meta.url).resolve(name)
    return true
  } catch {
    return false
  }
}
const installed = resolvable('@huggingface/transformers')
// serial: the package's model directory is a process-wide setting
const withTransformers = installed ? test.serial : test.skip

const words = 'senior backend engineer python software developer registered nurse night shift hospital'.split(' ')

function modelDir(t: { teardown: (f: () => void) => void }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tiny-bert-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

withTransformers('transformers: a BERT-shaped ONNX model from EMBEDDING_MODEL_DIR, CLS- or mean-pooled, 768 numbers', async (t) => {
  const dir = modelDir(t)
  writeTinyBert(dir, 'test/tiny-bert', { words })
  const config = loadConfig({ EMBEDDING_PROVIDER: 'transformers', EMBEDDING_MODEL: 'test/tiny-bert', EMBEDDING_MODEL_DIR: dir, EMBEDDING_BATCH: '2' })
  const cls = createEmbedder(config.embedding)!
  t.teardown(() => cls.close())
  t.deepEqual(cls.info, { provider: 'transformers', model_name: 'test/tiny-bert', model_version: 'onnx-fp32-cls-pooling' })
  const texts = ['senior backend engineer', 'registered nurse night shift', 'senior backend engineer']
  const [a, b, again] = await cls.embed(texts)
  for (const v of [a, b]) {
    t.is(v.length, EMBEDDING_DIM)
    t.true(Math.abs(norm(v) - 1) < 1e-6)
  }
  t.true(dot(a, b) < 0.999, 'different texts, different vectors')
  t.true(dot(a, again) > 0.99999, 'batched with a shorter text (padding) or not, the same vector')
  const [alone] = await cls.embed(['senior backend engineer'])
  t.true(dot(a, alone) > 0.99999)

  const mean = new TransformersEmbedder({ model: 'test/tiny-bert', modelDir: dir, pooling: 'mean', batch: 8, modelVersion: null })
  t.teardown(() => mean.close())
  t.is(mean.info.model_version, 'onnx-fp32-mean-pooling')
  const [m] = await mean.embed(['senior backend engineer'])
  t.true(dot(m, a) < 0.999, 'mean pooling is not CLS pooling')
})

withTransformers('transformers: a narrower model is zero-padded; a missing one is EmbedderUnavailable naming where it looked', async (t) => {
  const dir = modelDir(t)
  writeTinyBert(dir, 'test/tiny-384', { words, hidden: 384 })
  const narrow = new TransformersEmbedder({ model: 'test/tiny-384', modelDir: dir, pooling: 'cls', batch: 8, modelVersion: null })
  t.teardown(() => narrow.close())
  const [v] = await narrow.embed(['python developer'])
  t.is(v.length, EMBEDDING_DIM)
  t.true(v.slice(384).every((x) => x === 0))
  t.true(Math.abs(norm(v) - 1) < 1e-6)

  const missing = new TransformersEmbedder({ model: 'nobody/no-such-model', modelDir: dir, pooling: 'cls', batch: 8, modelVersion: null })
  const e = await t.throwsAsync(missing.embed(['x']))
  t.true(e instanceof EmbedderUnavailable)
  t.true(e!.message.includes(path.join(dir, 'nobody/no-such-model')), e!.message)
})

;(installed ? test.skip : test)('transformers: without the optional package, EmbedderUnavailable says how to add it', async (t) => {
  const e = new TransformersEmbedder({ model: 'Xenova/bge-base-en-v1.5', modelDir: os.tmpdir(), pooling: 'cls', batch: 8, modelVersion: null })
  const err = await t.throwsAsync(e.embed(['x']))
  t.true(err instanceof EmbedderUnavailable)
  t.regex(err!.message, /npm install --no-save @huggingface\/transformers/)
})

test('config: EMBEDDING_PROVIDER and its neighbours', (t) => {
  const c = loadConfig({}).embedding
  t.is(c.provider, 'use')
  t.is(c.batch, 16)
  t.is(c.threads, 1, 'one model thread on the embedded database')
  t.is(loadConfig({ DATABASE_URL: 'postgres://db/x' }).embedding.threads, Math.min(2, os.availableParallelism()))
  t.is(loadConfig({ EMBEDDING_THREADS: '3' }).embedding.threads, 3)
  t.true(createEmbedder(c) instanceof UseEmbedder)
  t.is(createEmbedder(loadConfig({ EMBEDDING_PROVIDER: 'none' }).embedding), null)
  t.throws(() => loadConfig({ EMBEDDING_PROVIDER: 'word2vec' }), { message: /EMBEDDING_PROVIDER must be one of use, transformers, openai, none/ })
  t.throws(() => loadConfig({ EMBEDDING_POOLING: 'max' }), { message: /EMBEDDING_POOLING must be cls or mean/ })
  t.throws(() => loadConfig({ EMBEDDING_BATCH: '0' }), { message: /EMBEDDING_BATCH must be between 1 and 512/ })
  t.is(loadConfig({ EMBEDDING_PROVIDER: 'openai' }).embedding.model, 'text-embedding-3-small')
})
