import pino from 'pino'

/** JSON lines on stdout. Nothing logs request headers, so an API key never lands here. */
export const createLogger = (level = 'info') => pino({ level, base: { service: 'job-data-service' } })
