/**
 * The pacer that exports and the background embedding rest with between steps
 * (jobs/pace.ts): busy time at most `duty` of the whole, and only while the signals of
 * load (loadSignal) say requests wait on the service. The rests are timers, so node:test's mock timers stand in for
 * them: a test moves the clock of the timers itself and sees exactly when a rest ends,
 * however busy the machine is. The steps stay real busy time on performance.now, which
 * the test measures around each call, so each rest is known to lie within a window.
 */
import { syncBuiltinESMExports } from 'node:module'
import { mock } from 'node:test'
import test, { type ExecutionContext } from 'ava'
import { EventEmitter } from 'node:events'
import type { Context } from 'koa'
import { RequestQueue } from '../../api/middleware/queues.ts'
import { countSearches } from '../../api/middleware/searches.ts'
import type { Embedder } from '../../ingest/embed/embedder.ts'
import { embedTexts } from '../../ingest/embed/embed-jobs.ts'
import { combinePacing, loadSignal, pacer, runQueue, type ProcFiles } from '../../jobs/pace.ts'
import { loadConfig } from '../../sql/config.ts'

const busy = (ms: number) => {
  const end = performance.now() + ms
  while (performance.now() < end);
}

/** Mocked setTimeout until the test ends; pace.ts's `import { setTimeout as sleep } from 'node:timers/promises'` follows it. */
function mockTimers(t: ExecutionContext) {
  mock.timers.enable({ apis: ['setTimeout'] })
  syncBuiltinESMExports()
  t.teardown(() => {
    mock.timers.reset()
    syncBuiltinESMExports()
  })
}

/** A promise's state as of now: whatever its settling waits on in microtasks has run once a macrotask has. */
function track(p: Promise<unknown>) {
  let settled = false
  void p.then(() => (settled = true))
  return async () => {
    await new Promise((resolve) => setImmediate(resolve))
    return settled
  }
}

/** Moves the mocked clock to `to` ms after it was mocked. */
const advance = (clock: { at: number }, to: number) => {
  mock.timers.tick(to - clock.at)
  clock.at = to
}

test.serial('a step is followed by a rest that makes its busy time `duty` of the whole', async (t) => {
  mockTimers(t)
  const clock = { at: 0 }
  const before = performance.now()
  const pace = pacer(0.25)
  const created = performance.now()
  busy(40)
  const called = performance.now()
  const first = track(pace())
  const returned = performance.now()
  // the pacer timed its step somewhere within [called - created, returned - before]; at duty 0.25 it rests three times that
  const [shortest, longest] = [3 * (called - created), 3 * (returned - before)]
  t.true(shortest >= 120, 'the step was at least 40 ms')
  advance(clock, Math.floor(shortest) - 1)
  t.false(await first(), `resting less than 3 × ${(called - created).toFixed(1)} ms`)
  const resting = performance.now()
  advance(clock, Math.ceil(longest) + 1)
  t.true(await first(), `done resting by 3 × ${(returned - before).toFixed(1)} ms`)
  const rested = performance.now()

  // the next step is timed from the end of the rest, not from the first step: counting
  // the first step again would ask for at least 120 ms more than this window allows
  busy(20)
  const calledAgain = performance.now()
  const second = track(pace())
  const returnedAgain = performance.now()
  const start = clock.at
  advance(clock, start + Math.floor(3 * (calledAgain - rested)) - 1)
  t.false(await second(), 'the second step rests three times its own 20 ms')
  advance(clock, start + Math.ceil(3 * (returnedAgain - resting)) + 1)
  t.true(await second(), 'and no longer: the first step is not counted again')
})

test.serial('time a step waited on the disk earns no rest; the rest of the step does', async (t) => {
  mockTimers(t)
  const clock = { at: 0 }
  const before = performance.now()
  const pace = pacer(0.25)
  const created = performance.now()
  busy(40)
  const called = performance.now()
  // 25 ms of the step were a wait: it rests three times what is left of the step
  const first = track(pace(25))
  const returned = performance.now()
  const [shortest, longest] = [3 * (called - created - 25), 3 * (returned - before - 25)]
  advance(clock, Math.max(0, Math.floor(shortest) - 1))
  t.false(await first(), `resting less than 3 × ${(called - created - 25).toFixed(1)} ms`)
  advance(clock, Math.ceil(longest) + 1)
  t.true(await first(), `done resting by 3 × ${(returned - before - 25).toFixed(1)} ms, not 3 × the whole step`)

  // a step that was all waiting rests not at all: settled with the clock never moved
  busy(20)
  t.true(await track(pace(60_000))())
})

test.serial('duty 1 never rests', async (t) => {
  mockTimers(t)
  const pace = pacer(1)
  busy(100)
  // no timer: settled with the mocked clock never moved
  t.true(await track(pace())())
})

test('EXPORT_DUTY_CYCLE: 0.4 by default, from 0.05 to 1', (t) => {
  t.is(loadConfig({}).tasks.exportDutyCycle, 0.4)
  t.is(loadConfig({ EXPORT_DUTY_CYCLE: '1' }).tasks.exportDutyCycle, 1)
  t.throws(() => loadConfig({ EXPORT_DUTY_CYCLE: '0' }), { message: /EXPORT_DUTY_CYCLE must be between 0.05 and 1/ })
})

test.serial('with underLoad, a step rests only while the API is under load, and says what for', async (t) => {
  mockTimers(t)
  let load: string | null = null
  const pace = pacer(0.25, async () => load)
  busy(30)
  // nothing waits: settled with the mocked clock never moved
  t.true(await track(pace())())
  t.like(pace.summary(), { resting: false, load: null, steps: 1, steps_rested: 0, rested_ms: 0 })
  load = 'searches in flight'
  busy(30)
  const resting = track(pace())
  t.false(await resting(), 'under load: the step rests')
  mock.timers.tick(3 * 30 - 1)
  t.false(await resting(), 'three times the step at least')
  mock.timers.tick(10_000)
  t.true(await resting())
  t.like(pace.summary(), { resting: true, load: 'searches in flight', steps: 2, steps_rested: 1 })
  t.true(pace.summary().rested_ms >= 90)
  load = null
  busy(30)
  t.true(await track(pace())())
  t.like(pace.summary(), { resting: false, load: 'searches in flight', steps: 3, steps_rested: 1 }, 'the last rest stays named')
})

test.serial('a failing underLoad counts as load', async (t) => {
  mockTimers(t)
  const pace = pacer(0.25, async () => {
    throw new Error('pg_stat_activity unreadable')
  })
  busy(30)
  const resting = track(pace())
  t.false(await resting(), 'the step rests')
  mock.timers.tick(10_000)
  t.true(await resting())
  t.like(pace.summary(), { steps_rested: 1, load: 'the load could not be read' })
})

/** A request's context as RequestQueue reads it: a response that is open. */
const openRequest = () => ({ res: Object.assign(new EventEmitter(), { destroyed: false, writableFinished: false }) }) as unknown as Context

test('loadSignal: requests waiting for a database slot, CPU-heavy steps and searches in flight are load; a lookup holding a slot and an idle API are not', async (t) => {
  const db = new RequestQueue('a database connection', { concurrency: 1, max: 10, waitMs: 60_000 })
  const cpu = new RequestQueue('the CPU', { concurrency: 1, max: 10, waitMs: 60_000 })
  const searches = { inFlight: 0 }
  const underLoad = loadSignal({ api: { db, cpu, searches } })
  t.is(await underLoad(), null, 'nothing queued or running')

  let release!: () => void
  const first = db.run(openRequest(), () => new Promise<void>((resolve) => (release = resolve)))
  t.is(await underLoad(), null, 'one request (a lookup, a poll) holds the only slot, and nothing waits for it')
  const second = db.run(openRequest(), async () => {})
  t.is(await underLoad(), 'requests waiting for a database slot', 'another waits for it')
  release()
  await Promise.all([first, second])
  t.is(await underLoad(), null, 'both answered: nothing left to give way to')

  let releaseCpu!: () => void
  const onCpu = cpu.run(openRequest(), () => new Promise<void>((resolve) => (releaseCpu = resolve)))
  t.is(await underLoad(), 'requests on the CPU', 'reading a resume or embedding a query')
  releaseCpu()
  await onCpu
  t.is(await underLoad(), null)

  searches.inFlight = 1
  t.is(await underLoad(), 'searches in flight')
})

test('countSearches counts the searches being answered, not lookups or task polls', async (t) => {
  const count = { inFlight: 0 }
  const middleware = countSearches(count)
  const seen: [string, number][] = []
  for (const path of ['/v2/jobs/search', '/v2/jobs/vsearch', '/v2/jobs/neural-search', '/v2/platform/companies/search', '/v2/jobs/insights', '/v2/jobs/42', '/v2/tasks/0b7c', '/v2/jobs/export']) {
    await middleware({ path } as Context, async () => void seen.push([path, count.inFlight]))
  }
  t.deepEqual(Object.fromEntries(seen), {
    '/v2/jobs/search': 1, '/v2/jobs/vsearch': 1, '/v2/jobs/neural-search': 1, '/v2/platform/companies/search': 1, '/v2/jobs/insights': 1,
    '/v2/jobs/42': 0, '/v2/tasks/0b7c': 0, '/v2/jobs/export': 0,
  })
  await t.throwsAsync(middleware({ path: '/v2/jobs/search' } as Context, async () => Promise.reject(new Error('422'))))
  t.is(count.inFlight, 0, 'a search that failed is no longer counted')
})

test('loadSignal: API statements running on a server are load; none running, or none to read, is not', async (t) => {
  let running = 0
  const underLoad = loadSignal({ statements: async () => running })
  t.is(await underLoad(), null)
  running = 2
  t.is(await underLoad(), 'API statements running')
  const unreadable = loadSignal({ statements: async () => Promise.reject(new Error('connection refused')) })
  t.is(await unreadable(), 'the load could not be read', 'a signal that cannot be read counts as load')
  t.is(await loadSignal({})(), null, 'no signal (a worker beside the embedded database): never under load')
})

/** A machine as /proc shows it: `runnable` threads in all, this process's threads by id with their command and state. */
const proc = (runnable: number, own: Record<string, [string, string]>): ProcFiles => ({
  loadavg: () => `3.10 2.40 1.90 ${runnable}/412 81234\n`,
  ownTasks: () => Object.keys(own),
  taskStat: (tid) => {
    if (own[tid][1] === 'gone') throw new Error('ENOENT: the thread ended')
    return `${tid} (${own[tid][0]}) ${own[tid][1]} 1 1 0`
  },
})

test("runQueue: other processes' runnable threads beyond the cores; this process's own never count", (t) => {
  // the asking thread and a model thread of this process run, one sleeps; a command may hold ') '
  const own: Record<string, [string, string]> = { '100': ['node', 'R'], '101': ['use) worker', 'R'], '102': ['libuv', 'S'] }
  const read = (runnable: number, cores: number) => runQueue(cores, proc(runnable, own))!()
  t.is(read(2, 2), -1, 'only this process runs: nobody waits')
  t.is(read(3, 2), 0, 'one other thread: a core is left for it')
  t.is(read(4, 2), 1, 'two others fill both cores: a step of this process makes one of them wait')
  t.is(read(5, 4), 0)
  t.is(runQueue(2, proc(5, { '100': ['node', 'R'], '101': ['node', 'gone'] }))!(), 5 - 1 + 1 - 2, 'a thread that ended meanwhile is not taken out')
  t.is(runQueue(2, { ...proc(1, {}), loadavg: () => { throw new Error('ENOENT') } }), null, 'no /proc: no signal')
})

test("loadSignal: the machine's run queue, in a process without the API", async (t) => {
  let waiting = 0
  const underLoad = loadSignal({ runQueue: () => waiting })
  t.is(await underLoad(), null, 'a core is free for every other thread')
  waiting = 1
  t.is(await underLoad(), "threads waiting for the machine's cores")
  t.is(await loadSignal({ runQueue: () => { throw new Error('EACCES') } })(), 'the load could not be read')
  t.is(await loadSignal({ runQueue: null })(), null, 'not read where it does not exist')
  t.true(Number.isFinite(runQueue()?.() ?? 0), "this machine's /proc reads")
})

test('combinePacing: the lanes of one batch of the embedding as one pacing', (t) => {
  t.is(combinePacing([]), null)
  t.deepEqual(
    combinePacing([
      { resting: false, load: 'searches in flight', steps: 4, steps_rested: 1, rested_ms: 30 },
      { resting: true, load: 'requests on the CPU', steps: 3, steps_rested: 2, rested_ms: 45 },
      { resting: false, load: null, steps: 4, steps_rested: 0, rested_ms: 0 },
    ]),
    { resting: true, load: 'requests on the CPU', steps: 11, steps_rested: 3, rested_ms: 75 },
  )
})

test('the background embedding: each lane of model calls waits for its pacer after every call', async (t) => {
  const calls: string[][] = []
  const embedder: Embedder = {
    info: { provider: 'use', model_name: 'fake', model_version: 'fake' },
    parallelism: 2,
    embed: async (texts) => (calls.push(texts), texts.map(() => [1])),
    close: async () => {},
  }
  const gates: (() => void)[] = []
  const lanes: number[] = []
  const pace = () => {
    const lane = lanes.push(0) - 1
    return () => (lanes[lane]++, new Promise<void>((resolve) => gates.push(resolve)))
  }
  const items = Array.from({ length: 10 }, (_, i): [string, string] => [`k${i}`, `text ${i}`])
  const stored: string[] = []
  const done = embedTexts(embedder, items, { batch: 2, pace }, async (b) => void stored.push(...b.map(([k]) => k)))
  const until = async (f: () => boolean) => {
    for (let i = 0; i < 1000 && !f(); i++) await new Promise((resolve) => setImmediate(resolve))
    t.true(f())
  }
  await until(() => gates.length === 2)
  t.is(calls.length, 2, 'one call per lane, then each lane waits for its pacer')
  t.deepEqual(lanes, [1, 1])
  gates.shift()!()
  await until(() => gates.length === 2)
  t.is(calls.length, 3, 'the lane whose rest ended made its next call; the other still rests')
  while (stored.length < 10 || gates.length) {
    gates.shift()?.()
    await new Promise((resolve) => setImmediate(resolve))
  }
  await done
  t.is(calls.length, 5)
  t.is(lanes[0] + lanes[1], 5, 'a pace after every call')
})
