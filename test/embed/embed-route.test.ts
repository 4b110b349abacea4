/** POST /v2/embed: the embedding result per text, its bounds as 422s, 401 without a key, 503 without a model. */
import anyTest, { type TestFn } from 'ava'
import { MAX_TEXT_LENGTH, MAX_TEXTS } from '../../api/schemas/embed.ts'
import { startTestApp, testEmbedder, type TestApp } from '../helpers/app.ts'

const test = anyTest as TestFn<TestApp>

test.before(async (t) => {
  Object.assign(t.context, await startTestApp())
})
test.after.always(async (t) => {
  await t.context.close?.()
})

const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0)
type Item = { type: string; loc: (string | number)[]; msg: string; input: unknown; ctx?: Record<string, unknown> }

test('texts: one embedding result per text, in order, with the model that made them; not metered', async (t) => {
  const texts = ['senior backend engineer python', 'registered nurse night shift hospital', 'software developer, python, backend']
  const res = await t.context.post('/v2/embed', { texts })
  t.is(res.status, 200)
  t.is(res.headers.get('platform-usage-meter'), null)
  const body = await res.json()
  const { model_name, model_version } = testEmbedder().info
  t.deepEqual(Object.keys(body).sort(), ['dim', 'embeddings', 'model_name', 'model_version'])
  t.like(body, { dim: 768, model_name, model_version })
  t.is(body.embeddings.length, 3)
  const expected = await testEmbedder().embed(texts)
  body.embeddings.forEach((e: { embedding: number[] }, i: number) => {
    t.deepEqual(Object.keys(e).sort(), ['dim', 'dtype', 'embedding', 'model_name', 'model_version'])
    t.like(e, { dtype: 'text', dim: 768, model_name, model_version })
    t.is(e.embedding.length, 768)
    t.true(Math.abs(dot(e.embedding, e.embedding) - 1) < 1e-9)
    t.true(dot(e.embedding, expected[i]) > 0.999999, texts[i])
  })
  t.true(dot(body.embeddings[0].embedding, body.embeddings[2].embedding) > dot(body.embeddings[0].embedding, body.embeddings[1].embedding))
})

test('text: one string gives the same envelope with one embedding', async (t) => {
  const res = await t.context.post('/v2/embed', { text: 'forklift driver, night shifts' })
  t.is(res.status, 200)
  const body = await res.json()
  t.is(body.embeddings.length, 1)
  const [expected] = await testEmbedder().embed(['forklift driver, night shifts'])
  t.true(dot(body.embeddings[0].embedding, expected) > 0.999999)
})

test('401 without a key or with a bad one', async (t) => {
  const missing = await t.context.post('/v2/embed', { text: 'x' }, {})
  t.is(missing.status, 401)
  t.deepEqual(await missing.json(), { detail: 'Missing authorization header' })
  const bad = await t.context.post('/v2/embed', { text: 'x' }, { 'x-api-key': 'jds_not-a-real-key' })
  t.is(bad.status, 401)
})

test('422 for a body without texts, with both, or with a list or text out of bounds', async (t) => {
  const items = async (body: unknown): Promise<Item[]> => {
    const res = await t.context.post('/v2/embed', body)
    t.is(res.status, 422, JSON.stringify(body).slice(0, 80))
    return (await res.json()).detail
  }
  const [missing] = await items({})
  t.like(missing, { type: 'missing', loc: ['body', 'texts'] })
  t.regex(missing.msg, /texts .* or text/)
  t.like((await items({ texts: [] }))[0], { type: 'too_short', loc: ['body', 'texts'], ctx: { min_length: 1 } })
  t.like((await items({ texts: Array(MAX_TEXTS + 1).fill('a') }))[0], { type: 'too_long', loc: ['body', 'texts'], ctx: { max_length: MAX_TEXTS } })
  t.like((await items({ texts: ['ok', 'x'.repeat(MAX_TEXT_LENGTH + 1)] }))[0], { type: 'string_too_long', loc: ['body', 'texts', 1], ctx: { max_length: MAX_TEXT_LENGTH } })
  t.like((await items({ text: 'x'.repeat(MAX_TEXT_LENGTH + 1) }))[0], { type: 'string_too_long', loc: ['body', 'text'] })
  t.like((await items({ texts: ['fine', '   '] }))[0], { type: 'string_too_short', loc: ['body', 'texts', 1] })
  t.like((await items({ text: '' }))[0], { type: 'string_too_short', loc: ['body', 'text'] })
  t.like((await items({ texts: 'one string' }))[0], { type: 'list_type', loc: ['body', 'texts'] })
  t.like((await items({ texts: ['a', 7] }))[0], { type: 'string_type', loc: ['body', 'texts', 1] })
  t.like((await items({ text: 5 }))[0], { type: 'string_type', loc: ['body', 'text'] })
  t.like((await items({ texts: ['a'], text: 'b' }))[0], { type: 'value_error', loc: ['body', 'text'], msg: 'Send texts or text, not both' })
  t.like((await items({ texts: ['bad\u0000byte'] }))[0], { type: 'value_error', loc: ['body', 'texts', 0] })
})

test('415 for a body that is not JSON', async (t) => {
  const res = await fetch(`${t.context.base}/v2/embed`, { method: 'POST', headers: { 'x-api-key': t.context.key, 'content-type': 'text/plain' }, body: 'hello' })
  t.is(res.status, 415)
  t.deepEqual(await res.json(), { detail: 'Unsupported Media Type: send the body as JSON with Content-Type: application/json (got text/plain)' })
})

test('503 when no embedding model is configured', async (t) => {
  const app = await startTestApp({ embedder: null })
  t.teardown(() => app.close())
  const res = await app.post('/v2/embed', { text: 'x' })
  t.is(res.status, 503)
  t.regex((await res.json()).detail, /embedding model is unavailable \(none is configured/)
  t.is((await app.post('/v2/embed', {})).status, 422, 'the body is checked first')
})

test('the OpenAPI document describes the route, its body bounds and every status above', async (t) => {
  const doc = await (await t.context.get('/v2/openapi.json', {})).json()
  const op = doc.paths['/v2/embed'].post
  t.deepEqual(op.security, [{ ApiKey: [] }])
  for (const status of ['200', '401', '415', '422', '503']) t.truthy(op.responses[status], status)
  const body = op.requestBody.content['application/json'].schema
  t.deepEqual(body.properties.texts.maxItems, MAX_TEXTS)
  t.deepEqual(body.properties.texts.items.maxLength, MAX_TEXT_LENGTH)
  const ok = op.responses['200'].content['application/json'].schema
  t.deepEqual(ok.required, ['embeddings', 'dim', 'model_name', 'model_version'])
  t.deepEqual(ok.properties.embeddings.items.required, ['embedding', 'dtype', 'dim', 'model_name', 'model_version'])
})
