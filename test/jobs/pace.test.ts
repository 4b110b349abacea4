/**
 * The pacer an export rests with between batches (jobs/pace.ts): busy time at most
 * `duty` of the whole. Only lower bounds on the rests are asserted, which timers keep
 * however busy the machine is; the duty-1 case asserts no rest beyond a generous bound.
 */
import test from 'ava'
import { pacer } from '../../jobs/pace.ts'
import { loadConfig } from '../../sql/config.ts'

const busy = (ms: number) => {
  const end = performance.now() + ms
  while (performance.now() < end);
}

test('a step is followed by a rest that makes its busy time `duty` of the whole', async (t) => {
  const pace = pacer(0.25)
  busy(40)
  let start = performance.now()
  await pace()
  t.true(performance.now() - start >= 115, `rested ${(performance.now() - start).toFixed(0)} ms after 40 ms busy at duty 0.25`)
  // the next step is timed from the end of the rest, not from the first step
  busy(20)
  start = performance.now()
  await pace()
  const rest = performance.now() - start
  t.true(rest >= 55, `rested ${rest.toFixed(0)} ms after 20 ms busy`)
  t.true(rest < 400, `rested ${rest.toFixed(0)} ms: the first step's time counted again`)
})

test('duty 1 never rests', async (t) => {
  const pace = pacer(1)
  busy(100)
  const start = performance.now()
  await pace()
  t.true(performance.now() - start < 50)
})

test('EXPORT_DUTY_CYCLE: 0.4 by default, from 0.05 to 1', (t) => {
  t.is(loadConfig({}).tasks.exportDutyCycle, 0.4)
  t.is(loadConfig({ EXPORT_DUTY_CYCLE: '1' }).tasks.exportDutyCycle, 1)
  t.throws(() => loadConfig({ EXPORT_DUTY_CYCLE: '0' }), { message: /EXPORT_DUTY_CYCLE must be between 0.05 and 1/ })
})
