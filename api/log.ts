import pino from 'pino'

/**
 * JSON lines on stdout. Nothing logs request headers or query strings, so an API key or a
 * token never lands here, and download links are logged without their signature
 * (middleware/request-log.ts, jobs/tasks.ts).
 */
export const createLogger = (level = 'info') => pino({ level, base: { service: 'job-data-service' } })
