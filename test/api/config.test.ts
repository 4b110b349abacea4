/** Configuration from the environment: defaults, values, and refusals at start-up. */
import test from 'ava'
import { loadConfig } from '../../sql/config.ts'

test('TASK_RETRY_DELAY_SECONDS: 5 s by default, 0 to an hour; anything else is refused at start-up', (t) => {
  t.is(loadConfig({}).tasks.retryDelay, 5)
  t.is(loadConfig({ TASK_RETRY_DELAY_SECONDS: '0' }).tasks.retryDelay, 0)
  t.is(loadConfig({ TASK_RETRY_DELAY_SECONDS: '3600' }).tasks.retryDelay, 3600)
  t.throws(() => loadConfig({ TASK_RETRY_DELAY_SECONDS: '3601' }), { message: 'TASK_RETRY_DELAY_SECONDS must be between 0 and 3600, got 3601' })
  t.throws(() => loadConfig({ TASK_RETRY_DELAY_SECONDS: 'soon' }), { message: 'TASK_RETRY_DELAY_SECONDS must be a number, got "soon"' })
})

test('numbers come from the environment passed in, not only from process.env', (t) => {
  const config = loadConfig({ PORT: '9123', RATE_LIMIT_PER_MINUTE: '7' })
  t.is(config.port, 9123)
  t.is(config.rateLimits.key.limit, 7)
})

test('RESUME_LLM: off unless 1, whatever OPENAI_API_KEY says; 1 without a key, or any other value, is refused at start-up', (t) => {
  t.is(loadConfig({ OPENAI_API_KEY: 'sk-test' }).resumes.llm, null)
  t.is(loadConfig({ OPENAI_API_KEY: 'sk-test', RESUME_LLM: '0' }).resumes.llm, null)
  t.like(loadConfig({ OPENAI_API_KEY: 'sk-test', RESUME_LLM: '1', RESUME_LLM_MODEL: 'm' }).resumes.llm, { apiKey: 'sk-test', model: 'm' })
  t.throws(() => loadConfig({ RESUME_LLM: '1' }), { message: /RESUME_LLM=1 .* needs OPENAI_API_KEY/ })
  t.throws(() => loadConfig({ OPENAI_API_KEY: 'sk-test', RESUME_LLM: 'yes' }), { message: 'RESUME_LLM must be 1 or 0, got "yes"' })
})

test('DATABASE_REPLICA_URLS: comma-separated postgres URLs of DATABASE_URL\'s replicas; without DATABASE_URL, or not a URL, refused at start-up', (t) => {
  t.deepEqual(loadConfig({}).replicas, { urls: [], maxLagSeconds: 5 })
  const primary = 'postgres://app@db:5432/jobs'
  t.deepEqual(loadConfig({ DATABASE_URL: primary, DATABASE_REPLICA_URLS: ' postgres://app@r1/jobs, postgresql://app@r2/jobs ,', REPLICA_MAX_LAG_SECONDS: '1.5' }).replicas, {
    urls: ['postgres://app@r1/jobs', 'postgresql://app@r2/jobs'],
    maxLagSeconds: 1.5,
  })
  t.throws(() => loadConfig({ DATABASE_REPLICA_URLS: 'postgres://app@r1/jobs' }), { message: /needs DATABASE_URL: the embedded database has no replicas/ })
  t.throws(() => loadConfig({ DATABASE_URL: primary, DATABASE_REPLICA_URLS: 'r1:5432' }), { message: /not a postgres:\/\/ URL/ })
  t.throws(() => loadConfig({ DATABASE_URL: primary, REPLICA_MAX_LAG_SECONDS: '0' }), { message: /REPLICA_MAX_LAG_SECONDS must be between/ })
})
