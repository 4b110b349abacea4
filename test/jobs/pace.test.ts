/**
 * The pacer an export rests with between batches (jobs/pace.ts): busy time at most
 * `duty` of the whole. The rests are timers, so node:test's mock timers stand in for
 * them: a test moves the clock of the timers itself and sees exactly when a rest ends,
 * however busy the machine is. The steps stay real busy time on performance.now, which
 * the test measures around each call, so each rest is known to lie within a window.
 */
import { syncBuiltinESMExports } from 'node:module'
import { mock } from 'node:test'
import test, { type ExecutionContext } from 'ava'
import { pacer } from '../../jobs/pace.ts'
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

test.serial('with othersActive, a step rests only if others were at work during it', async (t) => {
  mockTimers(t)
  const windows: number[] = []
  let active = false
  const pace = pacer(0.25, async (ms) => (windows.push(ms), active))
  busy(30)
  // nobody else at work: settled with the mocked clock never moved
  t.true(await track(pace())())
  t.true(windows[0] >= 30, `the window asked about covers the step (${windows[0].toFixed(1)} ms)`)
  active = true
  busy(30)
  const resting = track(pace())
  t.false(await resting(), 'others at work: the step rests')
  mock.timers.tick(3 * 30 - 1)
  t.false(await resting(), 'three times the step at least')
  mock.timers.tick(10_000)
  t.true(await resting())
  t.deepEqual({ ...pace.summary(), rested_ms: pace.summary().rested_ms >= 90 }, { steps: 2, steps_rested: 1, rested_ms: true })
})

test.serial('a failing othersActive counts as others at work', async (t) => {
  mockTimers(t)
  const pace = pacer(0.25, async () => {
    throw new Error('pg_stat_activity unreadable')
  })
  busy(30)
  const resting = track(pace())
  t.false(await resting(), 'the step rests')
  mock.timers.tick(10_000)
  t.true(await resting())
  t.is(pace.summary().steps_rested, 1)
})
