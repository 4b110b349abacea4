/**
 * Read replicas (sql/replicas.ts) against a real streaming replica of the machine's
 * Postgres (test/helpers/replica.ts: pg_basebackup of the whole cluster, so starting it
 * takes as long as copying the machine's databases). Every statement the app sends to
 * the replica is recorded (postgres.js's debug hook on the replica's pools), and the
 * replica's own pg_stat_activity shows the sessions.
 *
 * The embedded database has no replicas: there the file is one skipped test that says so.
 */
import anyTest, { type TestFn } from 'ava'
import parse from 'parse-prometheus-text-format'
import postgres from 'postgres'
import { ingest } from '../../ingest/pipeline.ts'
import { errors } from '../../api/errors.ts'
import { REPLICA_APPLICATION, type Sql } from '../../sql/db.ts'
import { Replicas } from '../../sql/replicas.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { eventually } from '../helpers/eventually.ts'
import { rawPosting } from '../helpers/factories.ts'
import { startReplica, type TestReplica } from '../helpers/replica.ts'

type Ctx = { app: TestApp; replica: TestReplica; direct: Sql; statements: string[]; slug: string; jobId: string }
const test = anyTest as TestFn<Ctx>

const serverUrl = process.env.TEST_DATABASE_URL

/** The replica is skipped past this lag; the checks run every CHECK_MS. */
const MAX_LAG_SECONDS = 2
const CHECK_MS = 200

/** A statement that writes, at its start or in a CTE. */
const WRITES = /^\s*(insert|update|delete|merge|copy|create|drop|alter|truncate|lock|grant|vacuum)\b|\b(insert\s+into|update\s+\w+\s+set|delete\s+from)\b/i
/** The replica checks' own statement (sql/replicas.ts), which is no request's. */
const isCheck = (q: string) => q.includes('pg_is_in_recovery()')

if (!serverUrl) {
  test.skip('read replicas need a Postgres server (TEST_DATABASE_URL): the embedded database has no streaming replicas', () => {})
} else {
  test.before(async (t) => {
    const replica = await startReplica(serverUrl)
    const statements: string[] = []
    const generous = { limit: 100_000, windowSeconds: 60 }
    let app: TestApp
    try {
      app = await startTestApp({
        embedder: null,
        tasks: true,
        config: { rateLimits: { key: generous, search: generous, anonymous: generous }, metrics: { enabled: true, token: null, refreshSeconds: 60 } },
        replicas: {
          urlsOf: (url) => [replica.urlOf(url)],
          maxLagSeconds: MAX_LAG_SECONDS,
          checkMs: CHECK_MS,
          max: 4,
          connect: (url, max) =>
            postgres(url, {
              max,
              onnotice: () => {},
              connect_timeout: 5,
              connection: { application_name: REPLICA_APPLICATION },
              debug: (_conn, query) => void statements.push(query),
            }),
        },
      })
    } catch (e) {
      await replica.remove()
      throw e
    }
    await app.db.sql`update accounts set plan = 'scale' where id = ${app.accountId}`
    await ingest(
      app.db.sql,
      [
        { job_title: 'Replica Search Engineer', location_raw: 'Berlin, Germany', company: { name: 'Replica Works', industries: ['Tech, Software & IT Services'] } },
        { job_title: 'Replica Data Analyst', location_raw: 'Austin, TX', company: { name: 'Replica Works' } },
      ].map((p, i) => ({ line: i + 1, raw: rawPosting({ job_board: 'Greenhouse', source_id: `replica-${i}`, ...p }) as never })),
      { source: 'replica-test' },
    )
    const [{ slug, job_id }] = await app.db.sql<{ slug: string; job_id: string }[]>`
      select c.slug, j.id::text as job_id from jobs j join companies c on c.id = j.company_id
      where j.job_title = 'Replica Search Engineer'`
    const direct = postgres(replica.urlOf(app.db.url), { max: 1, onnotice: () => {} })
    t.context = { app, replica, direct, statements, slug, jobId: job_id }
    // the test's database and its jobs have reached the replica, and the app uses it
    await eventually('the jobs on the replica', async () => (await direct`select 1 from jobs where id = ${job_id}`.catch(() => [])).length > 0)
    await eventually('the replica in use', () => app.replicas!.status()[0].state === 'up', { ms: 30_000 })
  })

  test.after.always(async (t) => {
    await t.context.direct?.end({ timeout: 5 })
    await t.context.app?.close()
    await t.context.replica?.remove()
  })

  /** Reads the replica ran for the app so far. */
  const replicaReads = (t: { context: Ctx }) => t.context.app.replicas!.status()[0].reads

  /** The app's statements on the replica while `f` ran (the checks left out). */
  async function onReplica<T>(t: { context: Ctx }, f: () => Promise<T>) {
    const from = t.context.statements.length
    const result = await f()
    return { result, statements: t.context.statements.slice(from).filter((q) => !isCheck(q)) }
  }

  test.serial('searches, lookups, company search, insights and historical search read from the replica', async (t) => {
    const { app, slug, jobId } = t.context
    const requests: [string, () => Promise<Response>][] = [
      ['job search', () => app.post('/v2/jobs/search', { job_titles: ['replica search'], limit: 5 })],
      ['GET job search', () => app.get('/v2/jobs/search?job_titles=replica')],
      ['estimate', () => app.post('/v2/jobs/estimate', { job_titles: ['replica'] })],
      ['job lookup', () => app.get(`/v2/jobs/${jobId}`)],
      ['company', () => app.get(`/v2/platform/companies/${slug}`)],
      ['company jobs', () => app.get(`/v2/platform/companies/${slug}/jobs`)],
      ['company search', () => app.post('/v2/platform/companies/search', { company_name: 'Replica Works' })],
      ['job insights', () => app.post('/v2/jobs/insights', { job_titles: ['replica'] })],
      ['company insights', () => app.post(`/v2/platform/companies/${slug}/insights`, {})],
      ['historical search', () => app.post('/v2/jobs/historical/search', { job_titles: ['replica'] })],
      ['neural-search, lexical only', () => app.post('/v2/jobs/neural-search', { lexical: { job_titles: ['replica'] } })],
    ]
    for (const [what, request] of requests) {
      // a replica under another process's load may lag past the limit for a moment: then the primary answers, and the request is tried again
      const { statements } = await eventually(`${what} on the replica`, async () => {
        const before = replicaReads(t)
        const run = await onReplica(t, async () => {
          const res = await request()
          t.true(res.ok, `${what}: ${res.status} ${await res.clone().text()}`)
          return res.json()
        })
        return replicaReads(t) > before && run
      }, { ms: 20_000 })
      t.true(statements.length > 0, `${what} ran statements on the replica`)
    }
    const found = await onReplica(t, async () => (await app.post('/v2/jobs/search', { job_titles: ['replica search'], limit: 5 })).json())
    t.deepEqual(found.result.jobs.map((j: { job_title: string }) => j.job_title), ['Replica Search Engineer'])

    // the replica's server has the app's sessions, on the test's database
    const sessions = await t.context.direct<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity where application_name = ${REPLICA_APPLICATION} and datname = current_database()`
    t.true(sessions[0].n > 0)

    // /metrics says where the reads ran and how the replica is
    const families = parse(await (await fetch(`${app.base}/metrics`)).text())
    const family = (name: string) => families.find((f) => f.name === name)?.metrics ?? []
    const [name] = app.replicas!.status().map((r) => r.name)
    t.like(family('jds_db_replica_usable')[0], { labels: { replica: name, state: 'up' }, value: '1' })
    t.true(Number(family('jds_db_replica_lag_seconds')[0].value) <= MAX_LAG_SECONDS)
    const reads = family('jds_db_reads_total').find((m) => m.labels?.target === name)
    t.true(Number(reads?.value) >= requests.length)
  })

  test.serial('writes never reach the replica: charges, job views and tasks are on the primary, and what was just written is read there', async (t) => {
    const { app, jobId, direct } = t.context
    const { statements } = await onReplica(t, async () => {
      const before = await app.db.sql<{ used: number }[]>`select coalesce(sum(used), 0)::int as used from usage_meters where account_id = ${app.accountId}`
      t.is((await app.get(`/v2/jobs/${jobId}?user_id=replica-viewer`)).status, 200)
      t.is((await app.post('/v2/jobs/search', { job_titles: ['replica'], limit: 5 })).status, 200)
      // a task just created is read back at once (tasks stay on the primary)
      const created = await app.post('/v2/jobs/export', { search: { job_titles: ['replica'], limit: 2 }, format: 'json' })
      t.is(created.status, 200, await created.clone().text())
      const task = await created.json()
      const read = await app.get(`/v2/tasks/${task.id}`)
      t.is(read.status, 200)
      t.is((await read.json()).id, task.id)
      await app.sync()
      const after = await app.db.sql<{ used: number }[]>`select coalesce(sum(used), 0)::int as used from usage_meters where account_id = ${app.accountId}`
      t.true(after[0].used > before[0].used, 'the requests were charged on the primary')
      const views = await app.db.sql`select 1 from job_views where account_id = ${app.accountId} and user_id = 'replica-viewer' and job_id = ${jobId}`
      t.is(views.length, 1, 'the lookup read on the replica recorded its view on the primary')
    })
    t.true(statements.length > 0, 'the reads among them ran on the replica')
    const writes = t.context.statements.filter((q) => !isCheck(q) && WRITES.test(q))
    t.deepEqual(writes, [], 'no statement the app sent to the replica writes')
    // and the replica could not have taken one: it is read-only
    const refused = await t.throwsAsync(direct`insert into job_views (account_id, user_id, job_id) values (${app.accountId}, 'x', ${jobId})`)
    t.is((refused as { code?: string }).code, '25006')
  })

  test.serial('between checks, a read the replica does not find yet, or fails as it goes away, is run again on the primary', async (t) => {
    const { app, replica, direct } = t.context
    // checked once, at start: the replica stays "up" whatever happens to it after
    const replicas = new Replicas(app.db.sql, [replica.urlOf(app.db.url)], { maxLagSeconds: 3600, checkMs: 3_600_000, max: 1 })
    await replicas.start()
    const findJob = (title: string) => async (db: Sql) => {
      const [job] = await db<{ id: string }[]>`select id::text from jobs where job_title = ${title}`
      if (!job) throw errors.notFound('Job')
      return { job, onReplica: db !== app.db.sql }
    }
    try {
      t.is(replicas.status()[0].state, 'up')
      t.like(await replicas.run(findJob('Replica Search Engineer')), { onReplica: true })

      await direct`select pg_wal_replay_pause()`
      try {
        await ingest(app.db.sql, [{ line: 1, raw: rawPosting({ job_board: 'Greenhouse', source_id: 'replica-new', job_title: 'Replica Newcomer Welder', company: { name: 'Replica Works' } }) as never }], { source: 'replica-test' })
        const before = replicas.primaryReads
        t.like(await replicas.run(findJob('Replica Newcomer Welder')), { onReplica: false }, 'not on the replica yet: found on the primary')
        t.is(replicas.primaryReads, before + 1)
        t.is(replicas.status()[0].state, 'up', 'a miss does not make the replica unusable')
      } finally {
        await direct`select pg_wal_replay_resume()`
      }

      await replica.stop()
      try {
        t.like(await replicas.run(findJob('Replica Search Engineer')), { onReplica: false }, 'the replica went away: answered by the primary')
        t.is(replicas.status()[0].state, 'down', 'and skipped until a check finds it well')
      } finally {
        await replica.start()
      }
    } finally {
      await replicas.close()
    }
    await eventually('the app\'s replica up again', () => app.replicas!.status()[0].state === 'up', { ms: 30_000 })
  })

  test.serial('a stopped replica is skipped: every request is answered, from the primary, and the replica is used again once it is back', async (t) => {
    const { app, replica } = t.context
    await replica.stop()
    try {
      // at once: the read the replica fails is run again on the primary
      for (let i = 0; i < 5; i++) {
        const res = await app.post('/v2/jobs/search', { job_titles: ['replica search'], limit: 5 })
        t.is(res.status, 200)
        t.is((await res.json()).jobs.length, 1)
      }
      await eventually('the replica marked down', () => app.replicas!.status()[0].state === 'down')
      const before = replicaReads(t)
      t.is((await app.get(`/v2/jobs/${t.context.jobId}`)).status, 200)
      t.is(replicaReads(t), before, 'nothing is sent to a replica that is down')
    } finally {
      await replica.start()
    }
    await eventually('the replica up again', () => app.replicas!.status()[0].state === 'up', { ms: 30_000 })
    await eventually('a search on the replica again', async () => {
      const before = replicaReads(t)
      t.is((await app.post('/v2/jobs/search', { job_titles: ['replica'], limit: 5 })).status, 200)
      return replicaReads(t) > before
    })
  })

  test.serial('a replica whose replay is paused is skipped once it lags past REPLICA_MAX_LAG_SECONDS, and what the primary has since written is found', async (t) => {
    const { app, direct } = t.context
    await direct`select pg_wal_replay_pause()`
    try {
      await ingest(app.db.sql, [{ line: 1, raw: rawPosting({ job_board: 'Greenhouse', source_id: 'replica-late', job_title: 'Replica Latecomer Pilot', company: { name: 'Replica Works' } }) as never }], { source: 'replica-test' })
      const status = await eventually('the replica marked lagging', () => {
        const [s] = app.replicas!.status()
        return s.state === 'lagging' && s
      })
      t.true(status.lagSeconds! > MAX_LAG_SECONDS)
      t.is((await direct`select 1 from jobs where job_title = 'Replica Latecomer Pilot'`).length, 0, 'the replica has not replayed the new posting')
      const before = replicaReads(t)
      const res = await app.post('/v2/jobs/search', { job_titles: ['latecomer'], limit: 5 })
      t.is(res.status, 200)
      t.deepEqual((await res.json()).jobs.map((j: { job_title: string }) => j.job_title), ['Replica Latecomer Pilot'], 'read from the primary')
      t.is(replicaReads(t), before, 'nothing is sent to a lagging replica')
    } finally {
      await direct`select pg_wal_replay_resume()`
    }
    await eventually('the replica caught up and in use', () => app.replicas!.status()[0].state === 'up')
    await eventually('the new posting found on the replica', async () => {
      const before = replicaReads(t)
      const res = await app.post('/v2/jobs/search', { job_titles: ['latecomer'], limit: 5 })
      return replicaReads(t) > before && (await res.json()).jobs.length === 1
    })
    t.pass()
  })
}
