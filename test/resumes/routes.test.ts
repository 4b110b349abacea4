/**
 * The resume routes over HTTP with real files of every format, on both databases:
 * POST /v2/resumes/embed (every row of the upload rules), and stored resumes (upload,
 * the background parse, owner-only reads, the file, listing, deletion, matching).
 */
import anyTest, { type TestFn } from 'ava'
import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { buildOpenApi } from '../../api/openapi/document.ts'
import { ingest } from '../../ingest/pipeline.ts'
import { createAccountWithKey, rawPosting, readItems } from '../helpers/factories.ts'
import { startTestApp, testEmbedder, type TestApp } from '../helpers/app.ts'
import { docxFile, encryptedPdf, htmlFile, multipart, scannedPdf, textFile, textPdf, TYPES } from '../helpers/resume-files.ts'
import { undocumented } from '../search/vector-fixtures.ts'

type Ctx = TestApp & { dir: string; otherKey: string }
const test = anyTest as TestFn<Ctx>

const generous = { limit: 100_000, windowSeconds: 60 }

test.before(async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'resumes-'))
  // OCR on a machine busy with other tests can pass the default 20 s: the limit has a test of its own
  const app = await startTestApp({
    tasks: true,
    config: { downloadsDir: dir, rateLimits: { key: generous, search: generous, anonymous: generous }, resumes: { llm: null, readTimeoutMs: 120_000 } },
  })
  const other = await createAccountWithKey(app.db.sql)
  // jobs with vectors, for the stored resume to be matched against
  const postings = [
    rawPosting({ job_title: 'Senior Backend Engineer (Python, Go)', description: '<p>Payments platform: Python, Go, PostgreSQL, Kafka.</p>' }, 1),
    rawPosting({ job_title: 'Registered Nurse, Intensive Care', description: '<p>Night shifts on the ICU ward; patient care and medication.</p>' }, 2),
    rawPosting({ job_title: 'Pastry Chef', description: '<p>Croissants and cakes for a French bakery.</p>' }, 3),
  ]
  await ingest(app.db.sql, readItems(postings), { source: 'resumes-test', now: new Date(), embedder: testEmbedder() })
  Object.assign(t.context, app, { dir, otherKey: other.key })
})
test.after.always(async (t) => {
  await t.context?.close?.()
  if (t.context?.dir) await rm(t.context.dir, { recursive: true, force: true })
})

type Part = { name: string; bytes: Buffer; type?: string; filename?: string }

async function send(t: { context: Ctx }, url: string, parts: Part[], key = t.context.key) {
  const { body, contentType } = multipart(parts)
  const res = await fetch(t.context.base + url, { method: 'POST', headers: { 'x-api-key': key, 'content-type': contentType }, body })
  return { status: res.status, body: await res.json() }
}

const file = (bytes: Buffer, type: string | undefined, filename = 'resume') => [{ name: 'file', bytes, type, filename }]

const get = async (t: { context: Ctx }, url: string, key = t.context.key) => {
  const res = await fetch(t.context.base + url, { headers: { 'x-api-key': key } })
  return { status: res.status, body: res.headers.get('content-type')?.includes('json') ? await res.json() : Buffer.from(await res.arrayBuffer()), res }
}

/** Polls the record until `done` holds, to a deadline. */
async function waitForRecord(t: { context: Ctx }, id: string, done: (r: Record<string, unknown>) => boolean, deadlineMs = 60_000) {
  const until = Date.now() + deadlineMs
  for (;;) {
    const { body } = await get(t, `/v2/resumes/${id}`)
    if (done(body)) return body
    if (Date.now() > until) throw new Error(`resume ${id} did not get there: ${JSON.stringify(body).slice(0, 300)}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

// --- POST /v2/resumes/embed ---------------------------------------------------------------

test('embed: a two-page PDF gives the parsed resume and a 768-number resume embedding, as documented', async (t) => {
  const { status, body } = await send(t, '/v2/resumes/embed', file(await textPdf(undefined, { pages: 2 }), TYPES.pdf, 'maria.pdf'))
  t.is(status, 200, JSON.stringify(body).slice(0, 300))
  t.is(body.resume.version, 'v1')
  t.like(body.resume.personal_information.data, { full_name: 'Maria Gonzalez', email: 'maria.gonzalez@example.com', phone_number: '+14155550134' })
  t.like(body.resume.work_experience[0], { title: 'Senior Software Engineer', company: 'Stripe', start_date: '2020-01', end_date: 'Present' })
  const r = body.result
  t.like(r, { dtype: 'resume', dim: 768 })
  t.is(r.embedding.length, 768)
  t.true(Math.abs(Math.hypot(...r.embedding) - 1) < 1e-4, 'unit length')
  t.is(typeof r.model_name, 'string')
  t.is(r.additional_info.job_categories.length, 3)
  t.true(r.additional_info.job_categories[0].score >= r.additional_info.job_categories[2].score)
  t.true(r.additional_info.total_years_experience > 8, String(r.additional_info.total_years_experience))
  t.is(typeof r.additional_info.experience_level.confidence, 'number')
  t.deepEqual(r.additional_info.warnings, [])
  t.is(r.additional_info.pages, 2)
  const doc = buildOpenApi()
  const schema = (doc.paths['/v2/resumes/embed'].post as { responses: Record<string, { content: Record<string, { schema: object }> }> }).responses[200].content['application/json'].schema
  t.deepEqual(undocumented(doc, schema as never, body), [], 'the body is the documented one')
  t.false(t.context.logs.some((l) => l.includes('maria.gonzalez') || l.includes('Gonzalez')), 'no personal data in the logs')
  // the embedding goes to neural-search as vector.vectors, and finds the backend job first
  const neural = await t.context.post('/v2/jobs/neural-search', { vector: { vectors: [r.embedding] }, limit: 3 })
  t.is(neural.status, 200, await neural.clone().text())
  t.is(((await neural.json()) as { jobs: { job_title: string }[] }).jobs[0]?.job_title, 'Senior Backend Engineer (Python, Go)')
})

test('embed: DOCX, HTML and plain text parse alike', async (t) => {
  for (const [bytes, type] of [[await docxFile(), TYPES.docx], [htmlFile(), TYPES.html], [textFile(), `${TYPES.txt}; charset=utf-8`]] as const) {
    const { status, body } = await send(t, '/v2/resumes/embed', file(bytes, type))
    t.is(status, 200, `${type}: ${JSON.stringify(body).slice(0, 200)}`)
    t.like(body.resume.personal_information.data, { full_name: 'Maria Gonzalez', email: 'maria.gonzalez@example.com' }, type)
    t.is(body.resume.work_experience?.[1]?.company, 'Square', type)
    t.is(body.result.embedding.length, 768)
  }
})

test('embed: a Word 97-2003 document (DOC)', async (t) => {
  const doc = readFileSync(new URL('../fixtures/resumes/sample.doc', import.meta.url))
  const { status, body } = await send(t, '/v2/resumes/embed', file(doc, TYPES.doc, 'cv.doc'))
  t.is(status, 200, JSON.stringify(body).slice(0, 300))
  t.like(body.resume.personal_information.data, { full_name: 'Riley Wordsmith', email: 'riley@example.com' })
  t.is(body.resume.work_experience?.[0]?.company, 'Initech')
  const misdeclared = await send(t, '/v2/resumes/embed', file(doc, TYPES.docx))
  t.is(misdeclared.status, 400)
})

test('embed: a scanned PDF is read by OCR, and says so', async (t) => {
  const { status, body } = await send(t, '/v2/resumes/embed', file(await scannedPdf(), TYPES.pdf))
  t.is(status, 200, JSON.stringify(body).slice(0, 300))
  t.true(body.result.additional_info.warnings.includes('OCR used'))
  t.true(body.result.additional_info.ocr)
  t.is(body.resume.personal_information?.data?.email, 'maria.gonzalez@example.com')
})

test('embed: no part named file is the spec\'s 422, with a body or without', async (t) => {
  const missing = { detail: [{ type: 'missing', loc: ['body', 'file'], msg: 'Field required', input: null }] }
  const named = await send(t, '/v2/resumes/embed', [{ name: 'resume', bytes: textFile(), type: TYPES.txt, filename: 'r.txt' }])
  t.is(named.status, 422)
  t.deepEqual(named.body, missing)
  const none = await t.context.post('/v2/resumes/embed', {})
  t.is(none.status, 422)
  t.deepEqual(await none.json(), missing)
})

test('embed: the upload rules are 400s that say what is wrong', async (t) => {
  const pdf = await textPdf()
  const cases: [string, Part[], RegExp][] = [
    ['two file parts', [...file(pdf, TYPES.pdf), { name: 'file2', bytes: pdf, type: TYPES.pdf, filename: 'b.pdf' }], /exactly one/i],
    ['a second part that is a field', [...file(pdf, TYPES.pdf), { name: 'note', bytes: Buffer.from('hi') }], /exactly one/i],
    ['no content type', file(pdf, undefined), /Content-Type/],
    ['application/octet-stream', file(pdf, 'application/octet-stream'), /content type/i],
    ['an image', file(pdf, 'image/png'), /must be a PDF or Word document/],
    ['a spreadsheet', file(pdf, 'application/vnd.ms-excel'), /plain text.*HTML|HTML.*plain text/i],
    ['text declared as PDF', file(textFile(), TYPES.pdf), /not a PDF|does not match|is not/i],
    ['a PDF declared as text', file(pdf, TYPES.txt), /PDF|binary|not.*text/i],
    ['a PDF declared as DOCX', file(pdf, TYPES.docx), /not a|does not match|is not/i],
    ['a corrupt PDF', file(pdf.subarray(0, 400), TYPES.pdf), /corrupt|damaged|could not be read|cannot be read/i],
    ['an empty file', file(Buffer.alloc(0), TYPES.pdf), /empty/i],
    ['an encrypted PDF', file(await encryptedPdf(), TYPES.pdf), /password|encrypted/i],
  ]
  for (const [what, parts, message] of cases) {
    const { status, body } = await send(t, '/v2/resumes/embed', parts)
    t.is(status, 400, `${what}: ${JSON.stringify(body)}`)
    t.is(typeof body.detail, 'string', what)
    t.regex(body.detail, message, what)
  }
})

test('embed: more than 5 MB is a 400 while the body streams: the server stops before reading it all', async (t) => {
  const total = 64 * 1024 * 1024
  let sent = 0
  const head = Buffer.from('--b\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4\n')
  const chunk = Buffer.alloc(64 * 1024, 0x20)
  const body = new ReadableStream<Uint8Array>({
    start: (c) => c.enqueue(head),
    pull: (c) => {
      if (sent >= total) return c.close()
      sent += chunk.length
      c.enqueue(chunk)
    },
  })
  const res = await fetch(t.context.base + '/v2/resumes/embed', {
    method: 'POST', headers: { 'x-api-key': t.context.key, 'content-type': 'multipart/form-data; boundary=b' }, body, duplex: 'half',
  } as RequestInit & { duplex: 'half' }).catch((e: Error) => e)
  // the server answers and closes once the limit is passed; a client still sending may see the connection end instead
  if (res instanceof Error) t.pass(`connection closed: ${res.message}`)
  else {
    t.is(res.status, 400)
    t.regex((await res.json()).detail, /larger than 5 MB/)
  }
  t.true(sent < total / 2, `the client got to send ${sent} bytes of ${total}`)
})

test('embed: a file that takes longer to read than the limit is a 400, and the next file reads', async (t) => {
  const app = await startTestApp({ config: { resumes: { llm: null, readTimeoutMs: 30 } } })
  try {
    const { body, contentType } = multipart(file(await scannedPdf(), TYPES.pdf))
    const res = await fetch(app.base + '/v2/resumes/embed', { method: 'POST', headers: { 'x-api-key': app.key, 'content-type': contentType }, body })
    t.is(res.status, 400)
    t.deepEqual(await res.json(), { detail: 'The file took too long to read.' })
  } finally {
    await app.close()
  }
  const after = await send(t, '/v2/resumes/embed', file(textFile(), TYPES.txt))
  t.is(after.status, 200, 'the reader threads still work')
})

test('embed: no key is a 401; no embedding model is a 503', async (t) => {
  const { body, contentType } = multipart(file(textFile(), TYPES.txt))
  const anon = await fetch(t.context.base + '/v2/resumes/embed', { method: 'POST', headers: { 'content-type': contentType }, body })
  t.is(anon.status, 401)
  const app = await startTestApp({ embedder: null })
  try {
    const res = await fetch(app.base + '/v2/resumes/embed', { method: 'POST', headers: { 'x-api-key': app.key, 'content-type': contentType }, body })
    t.is(res.status, 503)
    t.regex((await res.json()).detail, /embedding model is unavailable/)
  } finally {
    await app.close()
  }
})

// --- stored resumes -----------------------------------------------------------------------

test('upload: 201 with the record, parsed and embedded in the background, then usable as artifact_id', async (t) => {
  const pdf = await textPdf()
  const { status, body } = await send(t, '/v2/resumes', file(pdf, TYPES.pdf, 'maria.pdf'))
  t.is(status, 201, JSON.stringify(body))
  t.like(body, { artifact_id: body._id, status: 'uploaded', parsed_data: null, user_id: t.context.accountId, file_name: 'maria.pdf', file_size: pdf.length })
  t.is(body.resume_url, `${new URL(body.resume_url).origin}/v2/resumes/${body._id}/file`)
  t.regex(body.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/)

  const parsed = await waitForRecord(t, body._id, (r) => r.status === 'parsed')
  t.like((parsed.parsed_data as { personal_information: { data: object } }).personal_information.data, { full_name: 'Maria Gonzalez' })
  t.is(parsed.parse_error, null)
  const [row] = await t.context.db.sql<{ has_vector: boolean }[]>`select embedding is not null as has_vector from resumes where id = ${body._id}`
  t.true(row.has_vector)

  const search = await t.context.post('/v2/jobs/vsearch', { search_type: 'resume', artifact_id: body._id })
  t.is(search.status, 200, await search.clone().text())
  const matched = (await search.json()) as { jobs: { job_title: string }[] }
  t.is(matched.jobs[0]?.job_title, 'Senior Backend Engineer (Python, Go)', 'the backend engineer\'s resume matches the backend job first')
  const neural = await t.context.post('/v2/jobs/neural-search', { vector: { artifact_id: body._id } })
  t.is(neural.status, 200, await neural.clone().text())
  t.is(((await neural.json()) as { jobs: { job_title: string }[] }).jobs[0]?.job_title, matched.jobs[0].job_title, 'neural-search takes it too, and finds the same job first')

  const downloaded = await get(t, new URL(body.resume_url).pathname)
  t.is(downloaded.status, 200)
  t.is(downloaded.res.headers.get('content-type'), 'application/pdf')
  t.deepEqual(downloaded.body, pdf)
  t.false(t.context.logs.some((l) => l.includes('Gonzalez') || l.includes('maria.gonzalez')), 'no personal data in the logs')
})

test.serial('upload: the same file rules as embed', async (t) => {
  const count = async () => (await t.context.db.sql<{ n: number }[]>`select count(*)::int as n from resumes`)[0].n
  const before = await count()
  const missing = await send(t, '/v2/resumes', [{ name: 'doc', bytes: textFile(), type: TYPES.txt }])
  t.is(missing.status, 422)
  const octet = await send(t, '/v2/resumes', file(await textPdf(), 'application/octet-stream'))
  t.is(octet.status, 400)
  const mismatch = await send(t, '/v2/resumes', file(textFile(), TYPES.pdf))
  t.is(mismatch.status, 400)
  t.is(await count(), before, 'nothing stored')
})

test.serial('a resume not parsed yet, or whose file cannot be parsed, is a 400 in vsearch that says so', async (t) => {
  const { db, accountId } = t.context
  const [pending] = await db.sql<{ id: string }[]>`
    insert into resumes (account_id, resume_url, file_key, status) values (${accountId}, 'http://x/file', 'resumes/none.pdf', 'uploaded') returning id::text`
  const res = await t.context.post('/v2/jobs/vsearch', { search_type: 'resume', artifact_id: pending.id })
  // what the app logged, should this ever answer otherwise
  if (res.status !== 400) t.log(t.context.logs.filter((l) => l.includes('"level":50')).join('\n'))
  t.is(res.status, 400)
  t.deepEqual(await res.json(), { detail: `Resume ${pending.id} is not parsed yet; retry in a few seconds` })

  // a PDF header over garbage passes the upload's check and fails in the parse job
  const broken = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2000, 0x41)])
  const { status, body } = await send(t, '/v2/resumes', file(broken, TYPES.pdf))
  t.is(status, 201)
  const record = await waitForRecord(t, body._id, (r) => r.parse_error !== null)
  t.is(record.status, 'uploaded')
  const search = await t.context.post('/v2/jobs/vsearch', { search_type: 'resume', artifact_id: body._id })
  t.is(search.status, 400)
  t.regex((await search.json()).detail, new RegExp(`^Resume ${body._id} could not be parsed: `))
})

test('another account\'s resume is a 404 everywhere: record, file, delete; and unknown in vsearch', async (t) => {
  const { body } = await send(t, '/v2/resumes', file(textFile(), TYPES.txt))
  const other = t.context.otherKey
  for (const url of [`/v2/resumes/${body._id}`, `/v2/resumes/${body._id}/file`]) {
    const res = await get(t, url, other)
    t.is(res.status, 404, url)
    t.regex((res.body as { detail: string }).detail, /^Resume (file )?not found$/)
  }
  const del = await fetch(`${t.context.base}/v2/resumes/${body._id}`, { method: 'DELETE', headers: { 'x-api-key': other } })
  t.is(del.status, 404)
  const search = await fetch(`${t.context.base}/v2/jobs/vsearch`, {
    method: 'POST', headers: { 'x-api-key': other, 'content-type': 'application/json' }, body: JSON.stringify({ search_type: 'resume', artifact_id: body._id }),
  })
  t.is(search.status, 400)
  t.deepEqual(await search.json(), { detail: `Unknown artifact_id: ${body._id}` })
  t.is((await get(t, `/v2/resumes/${body._id}`)).status, 200, 'still there for its owner')
  t.is((await get(t, '/v2/resumes/not-a-uuid')).status, 404)
})

test('list: the owner\'s resumes, newest first, paged; limit above 100 is a 422', async (t) => {
  const { key, accountId } = await createAccountWithKey(t.context.db.sql)
  const ids: string[] = []
  for (let i = 0; i < 3; i++) ids.push((await send(t, '/v2/resumes', file(textFile([`Person ${i}`, `person${i}@example.com`]), TYPES.txt), key)).body._id)
  const first = await get(t, '/v2/resumes?limit=2', key)
  t.is(first.status, 200)
  const page1 = first.body as { resumes: { _id: string; user_id: string }[]; total_count: number; total_pages: number }
  t.deepEqual(page1.resumes.map((r) => r._id), [ids[2], ids[1]])
  t.like(page1, { total_count: 3, total_pages: 2, page: 1, limit: 2 })
  t.true(page1.resumes.every((r) => r.user_id === accountId))
  const page2 = (await get(t, '/v2/resumes?limit=2&page=2', key)).body as { resumes: { _id: string }[] }
  t.deepEqual(page2.resumes.map((r) => r._id), [ids[0]])
  const tooMany = await get(t, '/v2/resumes?limit=101', key)
  t.is(tooMany.status, 422)
  t.like((tooMany.body as { detail: object[] }).detail[0], { type: 'less_than_equal', loc: ['query', 'limit'] })
})

test('delete: the record, its vector and its file are gone; 204, then 404', async (t) => {
  const { body } = await send(t, '/v2/resumes', file(await docxFile(), TYPES.docx, 'cv.docx'))
  await waitForRecord(t, body._id, (r) => r.status === 'parsed')
  const stored = path.join(t.context.dir, 'resumes', t.context.accountId)
  t.true((await readdir(stored)).includes(`${body._id}.docx`))
  const del = await fetch(`${t.context.base}/v2/resumes/${body._id}`, { method: 'DELETE', headers: { 'x-api-key': t.context.key } })
  t.is(del.status, 204)
  t.false(existsSync(path.join(stored, `${body._id}.docx`)))
  const [{ count }] = await t.context.db.sql<{ count: number }[]>`select count(*)::int as count from resumes where id = ${body._id}`
  t.is(count, 0)
  t.is((await get(t, `/v2/resumes/${body._id}`)).status, 404)
  const again = await fetch(`${t.context.base}/v2/resumes/${body._id}`, { method: 'DELETE', headers: { 'x-api-key': t.context.key } })
  t.is(again.status, 404)
})

test('fuzz: random bytes under random content types and random multipart bodies are 4xx (or 200), never a 500', async (t) => {
  const fc = (await import('fast-check')).default
  const types = [TYPES.pdf, TYPES.docx, TYPES.doc, TYPES.txt, TYPES.html, 'image/png', 'application/octet-stream', 'text/plain; charset=latin1', '']
  const pdf = await textPdf()
  const heads = [Buffer.alloc(0), Buffer.from('%PDF-1.4\n'), Buffer.from('PK\u0003\u0004'), Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), pdf.subarray(0, 1200)]
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...heads), fc.uint8Array({ maxLength: 3000 }), fc.constantFrom(...types), fc.constantFrom('file', 'files', ''),
      async (head, tail, type, name) => {
        const { status, body } = await send(t, '/v2/resumes/embed', [{ name, bytes: Buffer.concat([head, Buffer.from(tail)]), type: type || undefined, filename: 'x' }])
        t.true([200, 400, 422].includes(status), `${status} ${JSON.stringify(body).slice(0, 200)}`)
        if (status !== 200) t.true(typeof body.detail === 'string' || Array.isArray(body.detail))
      },
    ),
    { numRuns: 60 },
  )
  // a body that is not multipart at all, or cut short
  for (const [contentType, raw] of [['multipart/form-data', 'x'], ['multipart/form-data; boundary=q', '--q\r\nContent-Disposition: form-data; name="file"; filename="a"\r\nContent-Type: application/pdf\r\n\r\n%PDF'], ['text/plain', 'hello']]) {
    const res = await fetch(t.context.base + '/v2/resumes/embed', { method: 'POST', headers: { 'x-api-key': t.context.key, 'content-type': contentType }, body: raw })
    t.true([400, 422].includes(res.status), `${contentType}: ${res.status}`)
  }
})
