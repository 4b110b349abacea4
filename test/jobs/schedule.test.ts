/**
 * Scheduled runs execute once per scheduled instant, however many API processes serve
 * one database: first the sending itself under concurrency, then two real servers with
 * schedules that fire every few seconds.
 */
import anyTest, { type TestFn } from 'ava'
import { spawn, type ChildProcess } from 'node:child_process'
import PgBoss from 'pg-boss'
import { enqueueScheduled, scheduledJobId } from '../../jobs/schedule.ts'
import { testDatabase, type TestDb } from '../helpers/db.ts'
import { freePort } from '../helpers/free-port.ts'

const test = anyTest as TestFn<TestDb>
test.before(async (t) => {
  t.context = await testDatabase()
})
test.after.always(async (t) => {
  await t.context?.close()
})


test.serial('two bosses sending the same instants: each is enqueued once', async (t) => {
  const { sql, url } = t.context
  const bosses = [new PgBoss({ connectionString: url, max: 2 }), new PgBoss({ connectionString: url, max: 2 })]
  for (const b of bosses) {
    b.on('error', () => {})
    await b.start()
  }
  t.teardown(() => Promise.all(bosses.map((b) => b.stop({ graceful: false, wait: true }))))
  await bosses[0].createQueue('test.scheduled')
  const instants = Array.from({ length: 20 }, (_, i) => new Date(Date.UTC(2026, 10, 24, 3, 15, i, 250)))
  const ids = await Promise.all(instants.flatMap((at) => bosses.map((b) => enqueueScheduled(b, 'test.scheduled', at))))
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
    const server = spawn('node', ['--import', 'tsx', 'bin/server.ts'], { env, stdio: ['ignore', 'pipe', 'inherit'] })
    // whole lines only: a chunk can end inside one
    let rest = ''
    server.stdout!.on('data', (d: Buffer) => {
      const lines = (rest + String(d)).split('\n')
      rest = lines.pop()!
      logs[i].push(...lines.filter(Boolean))
    })
    servers.push(server)
  }
  const ready = () => logs.every((lines) => lines.some((l) => l.includes('"msg":"ready"')))
  for (let i = 0; i < 240 && !ready(); i++) await new Promise((r) => setTimeout(r, 250))
  t.true(ready(), 'both servers started')
  const bothUp = new Date()

  // both run until several instants of each schedule, all scheduled since both were up, have run to completion
  const scheduled = () => sql<{ id: string; name: string; at: string; state: string }[]>`
    select id::text, name, data->>'scheduled_at' as at, state
    from (select id, name, data, state::text from pgboss.job union all select id, name, data, state::text from pgboss.archive) j
    where name in ('jobs.expire', 'billing.roll-periods') and data ? 'scheduled_at'`
  const completedSince = (jobs: { name: string; at: string; state: string }[], name: string) =>
    jobs.filter((j) => j.name === name && j.state === 'completed' && new Date(j.at) >= bothUp).length
  const until = Date.now() + 90_000
  for (;;) {
    const jobs = await scheduled()
    if (completedSince(jobs, 'jobs.expire') >= 3 && completedSince(jobs, 'billing.roll-periods') >= 2) break
    if (Date.now() > until) return t.fail(`not enough scheduled runs completed in 90 s: ${JSON.stringify(jobs)}`)
    await new Promise((r) => setTimeout(r, 250))
  }
  // 'close', not 'exit': every line a server wrote has been read
  await Promise.all(servers.map((s) => new Promise((r) => (s.once('close', r), s.kill('SIGTERM')))))

  const jobs = await scheduled()
  const instants = jobs.map((j) => `${j.name} ${j.at}`)
  t.is(new Set(instants).size, instants.length, 'no instant enqueued twice')
  t.deepEqual(jobs.filter((j) => j.id !== scheduledJobId(j.name, new Date(j.at))).map((j) => j.id), [], 'every job under its instant\'s id')
  // and each ran once: of both servers' logs, one line names each completed job, and none names a job twice
  const runs = logs.flat().filter((l) => /"msg":"(expiry run|billing periods rolled)"/.test(l)).map((l) => JSON.parse(l).job_id as string)
  const completed = jobs.filter((j) => j.state === 'completed').map((j) => j.id)
  t.deepEqual(completed.filter((id) => runs.filter((r) => r === id).length !== 1), [], 'a completed job logged other than once')
  t.is(new Set(runs).size, runs.length, 'no job ran twice')
})
