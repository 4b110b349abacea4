/**
 * Scheduled runs execute once per scheduled instant, however many API processes serve
 * one database: first the claim itself under concurrency, then two real servers with
 * schedules that fire every few seconds.
 */
import anyTest, { type TestFn } from 'ava'
import { spawn, type ChildProcess } from 'node:child_process'
import net from 'node:net'
import PgBoss from 'pg-boss'
import { enqueueScheduled } from '../../jobs/schedule.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'

const test = anyTest as TestFn<TestDb>
test.before(async (t) => {
  t.context = await testDatabase()
})
test.after.always(async (t) => {
  await t.context?.close()
})

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo
      s.close(() => resolve(port))
    })
  })

test.serial('two bosses claiming the same instants: each is enqueued once', async (t) => {
  const { sql, url } = t.context
  const bosses = [new PgBoss({ connectionString: url, max: 2 }), new PgBoss({ connectionString: url, max: 2 })]
  for (const b of bosses) {
    b.on('error', () => {})
    await b.start()
  }
  t.teardown(() => Promise.all(bosses.map((b) => b.stop({ graceful: false, wait: true }))))
  await bosses[0].createQueue('test.scheduled')
  const instants = Array.from({ length: 20 }, (_, i) => new Date(Date.UTC(2026, 10, 24, 3, 15, i, 250)))
  const ids = await Promise.all(instants.flatMap((at) => bosses.map((b) => enqueueScheduled(b, sql, 'test.scheduled', at))))
  t.is(ids.filter((id) => id !== null).length, 20, 'one job per instant')
  const jobs = await sql<{ at: string; n: number }[]>`
    select data->>'scheduled_at' as at, count(*)::int as n from pgboss.job where name = 'test.scheduled' group by 1 order by 1`
  t.deepEqual(jobs.map((j) => j.n), Array(20).fill(1))
  t.is(jobs[0].at, '2026-11-24T03:15:00.000Z', 'the instant, to the second')
})

test.serial('two API processes on one database: every scheduled expiry and roll-over runs once', async (t) => {
  const { sql, url } = t.context
  const logs: string[][] = [[], []]
  const servers: ChildProcess[] = []
  t.teardown(() => servers.forEach((s) => s.kill('SIGKILL')))
  for (let i = 0; i < 2; i++) {
    const env = {
      ...process.env, DATABASE_URL: url, PORT: String(await freePort()), DEMO_JOBS: '0', LOG_LEVEL: 'info',
      EXPIRE_CRON: '*/2 * * * * *', PERIOD_CRON: '*/3 * * * * *',
    }
    const server = spawn('node', ['--import', 'tsx', 'api/server.ts'], { env, stdio: ['ignore', 'pipe', 'inherit'] })
    server.stdout!.on('data', (d: Buffer) => logs[i].push(...String(d).split('\n').filter(Boolean)))
    servers.push(server)
  }
  const ready = () => logs.every((lines) => lines.some((l) => l.includes('"msg":"ready"')))
  for (let i = 0; i < 240 && !ready(); i++) await new Promise((r) => setTimeout(r, 250))
  t.true(ready(), 'both servers started')
  // both run for several instants of each schedule
  await new Promise((r) => setTimeout(r, 7000))
  await Promise.all(servers.map((s) => new Promise((r) => (s.once('exit', r), s.kill('SIGTERM')))))

  const jobs = await sql<{ name: string; at: string; n: number; completed: number }[]>`
    select name, data->>'scheduled_at' as at, count(*)::int as n, count(*) filter (where state = 'completed')::int as completed
    from (select name, data, state::text from pgboss.job union all select name, data, state::text from pgboss.archive) j
    where name in ('jobs.expire', 'billing.roll-periods') and data ? 'scheduled_at'
    group by 1, 2 order by 1, 2`
  const expiries = jobs.filter((j) => j.name === 'jobs.expire')
  const rollOvers = jobs.filter((j) => j.name === 'billing.roll-periods')
  t.true(expiries.length >= 2, `${expiries.length} scheduled expiries`)
  t.true(rollOvers.length >= 1, `${rollOvers.length} scheduled roll-overs`)
  t.deepEqual(jobs.filter((j) => j.n !== 1), [], 'no instant enqueued twice')
  const [{ claims }] = await sql<{ claims: number }[]>`select count(*)::int as claims from scheduled_runs where queue in ('jobs.expire', 'billing.roll-periods')`
  t.is(claims, jobs.length, 'one claim per job')
  // and each ran once: the servers' logs name each job's run once
  const runs = logs.flat().filter((l) => l.includes('"msg":"billing periods rolled"')).map((l) => JSON.parse(l).job_id as string)
  t.is(new Set(runs).size, runs.length, 'no roll-over job ran twice')
  t.true(runs.length >= rollOvers.filter((j) => j.completed === 1).length)
})
