/** Configuration from the environment; every knob is listed in the README's table. */
import path from 'node:path'

function int(name: string, fallback: number) {
  const v = process.env[name]
  if (v === undefined || v === '') return fallback
  const n = Number(v)
  if (!Number.isFinite(n)) throw new Error(`${name} must be a number, got ${JSON.stringify(v)}`)
  return n
}

export function loadConfig(env = process.env) {
  const dataDir = path.resolve(env.DATA_DIR || './data')
  return {
    port: int('PORT', 8080),
    databaseUrl: env.DATABASE_URL || null,
    dataDir,
    embeddedPort: int('EMBEDDED_PG_PORT', 54329),
    demoJobs: int('DEMO_JOBS', 2000),
    expireAfterDays: int('EXPIRE_AFTER_DAYS', 30),
    expireCron: env.EXPIRE_CRON || '15 3 * * *',
    downloadsDir: path.resolve(env.DOWNLOADS_DIR || path.join(dataDir, 'downloads')),
    logLevel: env.LOG_LEVEL || 'info',
  }
}

export type Config = ReturnType<typeof loadConfig>
