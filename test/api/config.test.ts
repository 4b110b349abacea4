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
