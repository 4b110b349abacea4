/** Configuration from the environment; every knob is listed in the README's table. */
import os from 'node:os'
import path from 'node:path'

function int(env: NodeJS.ProcessEnv, name: string, fallback: number) {
  const v = env[name]
  if (v === undefined || v === '') return fallback
  const n = Number(v)
  if (!Number.isFinite(n)) throw new Error(`${name} must be a number, got ${JSON.stringify(v)}`)
  return n
}

function inRange(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number) {
  const n = int(env, name, fallback)
  if (n < min || n > max) throw new Error(`${name} must be between ${min} and ${max}, got ${n}`)
  return n
}

export function loadConfig(env = process.env) {
  const dataDir = path.resolve(env.DATA_DIR || './data')
  return {
    port: int(env, 'PORT', 8080),
    databaseUrl: env.DATABASE_URL || null,
    dataDir,
    embeddedPort: int(env, 'EMBEDDED_PG_PORT', 54329),
    demoJobs: int(env, 'DEMO_JOBS', 2000),
    expireAfterDays: int(env, 'EXPIRE_AFTER_DAYS', 30),
    expireCron: env.EXPIRE_CRON || '15 3 * * *',
    downloadsDir: path.resolve(env.DOWNLOADS_DIR || path.join(dataDir, 'downloads')),
    logLevel: env.LOG_LEVEL || 'info',
    // fixed windows; the spec's limits are the defaults
    rateLimits: {
      key: { limit: int(env, 'RATE_LIMIT_PER_MINUTE', 100), windowSeconds: int(env, 'RATE_LIMIT_WINDOW_SECONDS', 60) },
      search: { limit: int(env, 'SEARCH_RATE_LIMIT_PER_SECOND', 4), windowSeconds: 1 },
      anonymous: { limit: int(env, 'ANON_RATE_LIMIT_PER_MINUTE', 25), windowSeconds: int(env, 'RATE_LIMIT_WINDOW_SECONDS', 60) },
    },
    // HS256 secret for the usage summary's Bearer tokens; the fallback is for development only
    jwtSecret: env.JWT_SECRET || DEV_JWT_SECRET,
    jwtSecretIsDefault: !env.JWT_SECRET,
    periodCron: env.PERIOD_CRON || '0 0 1 * *',
    // how often each API process records what it charged (meter-leases.ts); at least a
    // tick (50 ms), at most the lease renewal interval (5 s), which flushes also do
    meterFlushMs: inRange(env, 'METER_FLUSH_MS', 1000, 50, 5000),
    embedding: embeddingConfig(env, dataDir),
  }
}

export const EMBEDDING_PROVIDERS = ['use', 'transformers', 'openai', 'none'] as const

/** The embedding model (ingest/embed, docs/embeddings.md); `none` lands postings without vectors. */
function embeddingConfig(env: NodeJS.ProcessEnv, dataDir: string) {
  const provider = (env.EMBEDDING_PROVIDER || 'use') as (typeof EMBEDDING_PROVIDERS)[number]
  if (!EMBEDDING_PROVIDERS.includes(provider)) {
    throw new Error(`EMBEDDING_PROVIDER must be one of ${EMBEDDING_PROVIDERS.join(', ')}, got ${JSON.stringify(env.EMBEDDING_PROVIDER)}`)
  }
  const pooling = env.EMBEDDING_POOLING || 'cls'
  if (pooling !== 'cls' && pooling !== 'mean') throw new Error(`EMBEDDING_POOLING must be cls or mean, got ${JSON.stringify(pooling)}`)
  return {
    provider,
    /** transformers and openai: the model's name (a Hugging Face id, or the endpoint's model); use has one model */
    model: env.EMBEDDING_MODEL || (provider === 'openai' ? 'text-embedding-3-small' : 'Xenova/bge-base-en-v1.5'),
    /** overrides the version the provider reports, e.g. after replacing a local model's weights under the same name */
    modelVersion: env.EMBEDDING_MODEL_VERSION || null,
    /** transformers: models are read from <dir>/<model>/ and downloaded there from the hub when missing */
    modelDir: path.resolve(env.EMBEDDING_MODEL_DIR || path.join(dataDir, 'models')),
    pooling: pooling as 'cls' | 'mean',
    openaiBaseUrl: env.OPENAI_BASE_URL || 'https://api.openai.com/v1',
    openaiApiKey: env.OPENAI_API_KEY || null,
    /** texts per model call */
    batch: inRange(env, 'EMBEDDING_BATCH', 32, 1, 512),
    /** use: worker threads running the model (each about 300 MB), started as work queues up */
    threads: inRange(env, 'EMBEDDING_THREADS', Math.min(2, os.availableParallelism()), 1, 64),
  }
}

export type EmbeddingConfig = ReturnType<typeof embeddingConfig>

/** Used only when JWT_SECRET is unset; the server logs a warning when it is. */
export const DEV_JWT_SECRET = 'dev-only-jwt-secret-set-JWT_SECRET-in-production'

export type RateLimitRule = { limit: number; windowSeconds: number }

export type Config = ReturnType<typeof loadConfig>
