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
    replicas: replicaConfig(env),
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
    /** HS256 secret of the usage summary's Bearer tokens; unset: one generated once and kept in the database (sql/secrets.ts) */
    jwtSecret: env.JWT_SECRET || null,
    periodCron: env.PERIOD_CRON || '0 0 1 * *',
    queues: queueConfig(env),
    embedding: embeddingConfig(env, dataDir),
    tasks: taskConfig(env),
    files: fileConfig(env),
    resumes: resumeConfig(env),
    webhooks: webhookConfig(env),
    mail: {
      /** smtp://user:pass@host:port (smtps:// for TLS); unset: messages are written to DATA_DIR/outbox as .eml files */
      smtpUrl: env.SMTP_URL || null,
      from: env.MAIL_FROM || 'Job Data Service <no-reply@localhost>',
    },
    /** GET /metrics (api/metrics.ts, docs/operations.md): off unless METRICS=1; with METRICS_TOKEN set, only for `Authorization: Bearer <token>` */
    metrics: metricsConfig(env),
    /** how long a stopping process gives its requests in flight and its tasks before it cuts them off (bin/server.ts, docs/operations.md) */
    shutdownGraceSeconds: inRange(env, 'SHUTDOWN_GRACE_SECONDS', 25, 1, 3600),
    /** the base of links the service hands out (download_url); http://localhost:PORT when unset */
    publicUrl: (env.PUBLIC_URL || `http://localhost:${int(env, 'PORT', 8080)}`).replace(/\/+$/, ''),
  }
}

/**
 * Read replicas of DATABASE_URL's server (sql/replicas.ts, docs/scaling.md): the API's
 * read-only work goes to them while they are no further behind than maxLagSeconds.
 */
function replicaConfig(env: NodeJS.ProcessEnv) {
  const urls = (env.DATABASE_REPLICA_URLS ?? '').split(',').map((u) => u.trim()).filter(Boolean)
  if (urls.length && !env.DATABASE_URL) throw new Error('DATABASE_REPLICA_URLS needs DATABASE_URL: the embedded database has no replicas')
  for (const url of urls) {
    if (!/^postgres(ql)?:\/\//.test(url)) throw new Error(`DATABASE_REPLICA_URLS: not a postgres:// URL: ${JSON.stringify(url.replace(/:[^:@/]*@/, ':***@'))}`)
  }
  // lag is measured to within a check's interval (a second, sql/replicas.ts): a limit below that would skip a replica that keeps up
  return { urls, maxLagSeconds: inRange(env, 'REPLICA_MAX_LAG_SECONDS', 5, 1, 86_400) }
}

/**
 * What a request waits in (api/middleware/queues.ts): database slots (as many as the
 * pool's connections) and the CPU-heavy steps, each with a cap on what waits and a
 * limit on how long; past either, 503 with Retry-After.
 */
function queueConfig(env: NodeJS.ProcessEnv) {
  return {
    db: { max: inRange(env, 'DB_QUEUE_MAX', 1000, 1, 1_000_000), waitMs: inRange(env, 'DB_QUEUE_WAIT_SECONDS', 30, 1, 3600) * 1000 },
    cpu: {
      concurrency: inRange(env, 'CPU_QUEUE_CONCURRENCY', 2, 1, 64),
      max: inRange(env, 'CPU_QUEUE_MAX', 64, 1, 100_000),
      waitMs: inRange(env, 'CPU_QUEUE_WAIT_SECONDS', 60, 1, 3600) * 1000,
      perKey: inRange(env, 'CPU_QUEUE_PER_KEY', 8, 1, 100_000),
    },
  }
}

function metricsConfig(env: NodeJS.ProcessEnv) {
  const on = env.METRICS || '0'
  if (on !== '0' && on !== '1') throw new Error(`METRICS must be 1 or 0, got ${JSON.stringify(env.METRICS)}`)
  return {
    enabled: on === '1',
    token: env.METRICS_TOKEN || null,
    /** how often the series read from the database (task and pg-boss queues, the embedding backlog, connections) are refreshed; a scrape reads memory only */
    refreshSeconds: inRange(env, 'METRICS_REFRESH_SECONDS', 15, 1, 3600),
  }
}

/** Tasks on pg-boss (jobs/tasks.ts, docs/tasks.md). */
function taskConfig(env: NodeJS.ProcessEnv) {
  return {
    /** run task workers inside the API process (npm start); 0 leaves them to `npm run worker` */
    inProcess: env.TASK_WORKERS_IN_API !== '0',
    /** tasks one process works on at once */
    concurrency: inRange(env, 'TASK_CONCURRENCY', 2, 1, 64),
    /** an attempt not finished after this long is taken for dead (its worker died) and retried */
    expireSeconds: inRange(env, 'TASK_EXPIRE_SECONDS', 1800, 1, 86_400),
    /** attempts after the first one; after the last the task fails and its charge is refunded */
    retryLimit: inRange(env, 'TASK_RETRY_LIMIT', 2, 0, 20),
    /** seconds between retries */
    retryDelay: inRange(env, 'TASK_RETRY_DELAY_SECONDS', 5, 0, 3600),
    /** how often pg-boss looks for attempts past their expiry (its maintenance interval) */
    maintenanceSeconds: inRange(env, 'TASK_MAINTENANCE_SECONDS', 60, 1, 3600),
    /** the share of the time an export keeps busy, resting between batches so that searches keep their speed (jobs/pace.ts) */
    exportDutyCycle: inRange(env, 'EXPORT_DUTY_CYCLE', 0.4, 0.05, 1),
  }
}

/** Where finished exports are kept: DOWNLOADS_DIR, or S3 when S3_BUCKET is set. */
function fileConfig(env: NodeJS.ProcessEnv) {
  return {
    /** days a download stays available after its task finishes */
    ttlDays: inRange(env, 'DOWNLOAD_TTL_DAYS', 30, 1, 3650),
    /** HMAC key for download links; unset: one generated once and kept in the database */
    signingSecret: env.DOWNLOAD_SIGNING_SECRET || null,
    /** when expired files are deleted (UTC) */
    cleanupCron: env.FILES_CLEANUP_CRON || '30 * * * *',
    s3: env.S3_BUCKET
      ? {
          bucket: env.S3_BUCKET,
          endpoint: env.S3_ENDPOINT || null,
          region: env.S3_REGION || env.AWS_REGION || 'us-east-1',
          /** unset: the SDK's default credential chain (AWS_ACCESS_KEY_ID, profiles, instance roles) */
          accessKeyId: env.S3_ACCESS_KEY_ID || null,
          secretAccessKey: env.S3_SECRET_ACCESS_KEY || null,
          /** path-style URLs, as most S3-compatible servers want; on by default when S3_ENDPOINT is set */
          forcePathStyle: env.S3_FORCE_PATH_STYLE ? env.S3_FORCE_PATH_STYLE === '1' : Boolean(env.S3_ENDPOINT),
          prefix: (env.S3_PREFIX || 'exports/').replace(/^\/+/, ''),
          /** lifetime of the presigned URL a download redirects to */
          presignSeconds: inRange(env, 'S3_PRESIGN_SECONDS', 900, 60, 604_800),
        }
      : null,
  }
}

/**
 * The default retry table of webhook deliveries, in seconds: after the first attempt (at
 * once), the delay before each retry, counted from the failure before it (docs/webhooks.md).
 */
export const WEBHOOK_RETRY_SCHEDULE = [5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 86_400]

function flag(env: NodeJS.ProcessEnv, name: string) {
  const v = env[name] || '0'
  if (v !== '0' && v !== '1') throw new Error(`${name} must be 1 or 0, got ${JSON.stringify(v)}`)
  return v === '1'
}

/** Saved searches' webhooks (jobs/webhooks.ts, docs/webhooks.md). */
function webhookConfig(env: NodeJS.ProcessEnv) {
  const schedule = env.WEBHOOK_RETRY_SCHEDULE
    ? env.WEBHOOK_RETRY_SCHEDULE.split(',').map((s) => {
        const n = Number(s.trim())
        if (s.trim() === '' || !Number.isFinite(n) || n < 0 || n > 7 * 86_400) throw new Error(`WEBHOOK_RETRY_SCHEDULE must be seconds from 0 to 604800, comma-separated, got ${JSON.stringify(env.WEBHOOK_RETRY_SCHEDULE)}`)
        return n
      })
    : WEBHOOK_RETRY_SCHEDULE
  return {
    /** http:// endpoints too (https only otherwise) */
    allowHttp: flag(env, 'WEBHOOK_ALLOW_HTTP'),
    /** endpoints at loopback, private and link-local addresses too */
    allowPrivate: flag(env, 'WEBHOOK_ALLOW_PRIVATE'),
    /** the delay before each retry; an event fails once the table is used up */
    retrySchedule: schedule,
    /** a delivery not answered with a 2xx within this long failed */
    timeoutMs: 15_000,
    /** how long a claimed delivery is the claiming worker's: a worker that died leaves it to lapse, and another delivers it */
    leaseSeconds: inRange(env, 'WEBHOOK_LEASE_SECONDS', 60, 1, 3600),
    /** deliveries one process makes at once (to different searches) */
    concurrency: inRange(env, 'WEBHOOK_CONCURRENCY', 32, 1, 256),
    /** a search whose endpoint has failed this long is disabled and its owner emailed */
    disableAfterSeconds: 3 * 86_400,
    /** how often an event held for quota is looked at again */
    heldRecheckSeconds: 60,
    /** how often the matcher and the dispatcher look for work when they found none */
    pollMs: 250,
  }
}

/** Resume parsing (ingest/resume, docs/resumes.md). */
function resumeConfig(env: NodeJS.ProcessEnv) {
  const llm = env.RESUME_LLM || '0'
  if (llm !== '0' && llm !== '1') throw new Error(`RESUME_LLM must be 1 or 0, got ${JSON.stringify(env.RESUME_LLM)}`)
  const apiKey = env.OPENAI_API_KEY || null
  if (llm === '1' && !apiKey) throw new Error('RESUME_LLM=1 sends resumes to an OpenAI-compatible endpoint and needs OPENAI_API_KEY')
  return {
    /** a file that takes longer to read (a parser that hangs, OCR of a huge page) is refused with a 400 */
    readTimeoutMs: inRange(env, 'RESUME_READ_TIMEOUT_MS', 20_000, 1000, 600_000),
    /**
     * The optional extraction pass through an OpenAI-compatible chat endpoint. It sends
     * every resume's text, personal data, to that endpoint, so it has a switch of its own,
     * off unless RESUME_LLM=1: an OPENAI_API_KEY set for embeddings never turns it on.
     */
    llm: llm === '1' && apiKey ? { apiKey, baseUrl: env.OPENAI_BASE_URL || 'https://api.openai.com/v1', model: env.RESUME_LLM_MODEL || 'gpt-4o-mini' } : null,
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
    batch: inRange(env, 'EMBEDDING_BATCH', 16, 1, 512),
    /**
     * use: worker threads running the model (each 150–200 MB), started as work queues up.
     * One on the embedded database, whose server holds Postgres too: two kept the server
     * over 800 MB while it embedded an ingest (docs/embedded-database.md, Memory).
     */
    threads: inRange(env, 'EMBEDDING_THREADS', env.DATABASE_URL ? Math.min(2, os.availableParallelism()) : 1, 1, 64),
    /** a queued batch of postings to embed not finished after this long is taken for dead (its worker died) and retried (jobs/embed-vectors.ts) */
    expireSeconds: inRange(env, 'EMBED_EXPIRE_SECONDS', 300, 1, 86_400),
  }
}

export type EmbeddingConfig = ReturnType<typeof embeddingConfig>

export type RateLimitRule = { limit: number; windowSeconds: number }

export type Config = ReturnType<typeof loadConfig>
