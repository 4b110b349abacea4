/**
 * vsearch saved searches: a job matches when its vector is written (here by an ingest
 * that embeds in process, as `make embed` and the background embedding do), at
 * min_similarity or above and within the search's filters; a vector written again
 * produces no second event.
 */
import test from 'ava'
import { ingest } from '../../ingest/pipeline.ts'
import { embedJobs } from '../../ingest/embed/embed-jobs.ts'
import { listJobsToEmbed, modelId } from '../../sql/embeddings.ts'
import { loadConfig } from '../../sql/config.ts'
import { startTestApp, testEmbedder } from '../helpers/app.ts'
import { eventually } from '../helpers/eventually.ts'
import { rawPosting, readItems } from '../helpers/factories.ts'
import { startReceiver } from '../helpers/receiver.ts'

test('a vsearch search gets the jobs whose vectors are near its query, once', async (t) => {
  const base = loadConfig()
  const app = await startTestApp({ tasks: true, config: { webhooks: { ...base.webhooks, allowPrivate: true, allowHttp: true, pollMs: 50 } } })
  t.teardown(app.close)
  const rx = await startReceiver()
  t.teardown(rx.close)
  const res = await app.post('/v2/saved-searches', {
    name: 'nurses', kind: 'vsearch', events: ['job.new'], webhook: { url: rx.url },
    filters: { query: 'registered nurse caring for patients in a hospital ward', min_similarity: 0.45, locations: { country: 'Germany' } },
  })
  t.is(res.status, 201)
  const s = await res.json()
  rx.verifyWith([s.webhook.secret])
  const postings = [
    rawPosting({ job_title: 'Registered Nurse', description: '<p>Care for patients on our hospital ward; nursing shifts.</p>', source_id: 'v-nurse' }, 1),
    rawPosting({ job_title: 'Registered Nurse', description: '<p>Care for patients on our hospital ward; nursing shifts.</p>', source_id: 'v-nurse-us', location_raw: 'Austin, TX' }, 2),
    rawPosting({ job_title: 'Senior Backend Engineer', description: '<p>Build payment APIs in Go and PostgreSQL.</p>', source_id: 'v-eng' }, 3),
  ]
  await ingest(app.db.sql, readItems(postings), { source: 'vsearch', embedder: testEmbedder() })
  const r = await eventually('a delivery', () => rx.received[0], { ms: 60_000 })
  t.deepEqual(r.body.data.jobs.map((j) => j.job_title), ['Registered Nurse'], 'near the query and in Germany')
  t.deepEqual(r.verifiedBy, [s.webhook.secret])

  // the vectors written again: no job is new
  const model = await modelId(app.db.sql, testEmbedder().info)
  await app.db.sql`update jobs set embedding = null, embedding_model = null`
  const rows = await listJobsToEmbed(app.db.sql, model, { after: '0', limit: 100 })
  await embedJobs(app.db.sql, testEmbedder(), model, rows, { batch: 16 })
  await eventually('the inbox to drain', async () => (await app.db.sql`select 1 from saved_search_inbox`).length === 0)
  const body = await (await app.get(`/v2/events?saved_search_id=${s.id}`)).json()
  t.is(body.events.length, 1)
})
