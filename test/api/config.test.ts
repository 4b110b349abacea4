/** Configuration from the environment: defaults, values, and refusals at start-up. */
import test from 'ava'
import { loadConfig } from '../../sql/config.ts'

test('METER_FLUSH_MS: 1 s by default, any value from a tick to the lease renewal interval', (t) => {
  t.is(loadConfig({}).meterFlushMs, 1000)
  t.is(loadConfig({ METER_FLUSH_MS: '250' }).meterFlushMs, 250)
  t.is(loadConfig({ METER_FLUSH_MS: '5000' }).meterFlushMs, 5000)
  t.throws(() => loadConfig({ METER_FLUSH_MS: '10' }), { message: 'METER_FLUSH_MS must be between 50 and 5000, got 10' })
  t.throws(() => loadConfig({ METER_FLUSH_MS: '6000' }), { message: /between 50 and 5000/ })
  t.throws(() => loadConfig({ METER_FLUSH_MS: 'soon' }), { message: 'METER_FLUSH_MS must be a number, got "soon"' })
})

test('numbers come from the environment passed in, not only from process.env', (t) => {
  const config = loadConfig({ PORT: '9123', RATE_LIMIT_PER_MINUTE: '7' })
  t.is(config.port, 9123)
  t.is(config.rateLimits.key.limit, 7)
})
