/**
 * Vectors in the background. Ingest writes postings at its own speed and, in the
 * transaction that writes a batch, queues the ids of the batch's jobs that lack a
 * vector of the configured model, as pg-boss jobs of JOB_SIZE ids (enqueueVectors).
 * Every API and worker process with an embedding model works the queue: a job embeds
 * those of its postings that still lack the model's vector (the cache first, then the
 * model: ingest/embed/embed-jobs.ts) and writes them.
 *
 * Nothing is lost on a crash: a batch queued is a batch written, and a worker that dies
 * leaves its job active until its expiry (EMBED_EXPIRE_SECONDS), when pg-boss's
 * maintenance retries it elsewhere; the texts the dead worker had cached are not
 * embedded again. A model that cannot run fails the job, retried with backoff.
 */
import type PgBoss from 'pg-boss'
import type { Logger } from 'pino'
import { embedJobs } from '../ingest/embed/embed-jobs.ts'
import { batches, type Embedder } from '../ingest/embed/embedder.ts'
import { bossDb } from '../sql/boss-db.ts'
import type { Db, Sql } from '../sql/db.ts'
import { listJobIdsToEmbed, listJobsToEmbed, listLiveJobIdsToEmbed, modelId } from '../sql/embeddings.ts'
import { combinePacing, type Pace } from './pace.ts'

export const queue = 'jobs.embed'
/** retried for about a day with backoff: a model or endpoint that is down for a while catches up when it is back */
export const options: PgBoss.Queue = { name: queue, retryLimit: 12, retryDelay: 30, retryBackoff: true }

/** Jobs per queued batch: about a second of the default model's time on two cores. */
export const JOB_SIZE = 64

type EmbedJob = { ids: string[] }

/** Queues the jobs of these duplicate groups that `tx` wrote and that lack a vector of `model`, inside `tx`; returns how many. */
export async function enqueueVectors(tx: Db, boss: PgBoss, model: number, md5Hashes: string[], { expireSeconds }: { expireSeconds: number }) {
  return send(boss, await listJobIdsToEmbed(tx, model, md5Hashes), { db: bossDb(tx), expireInSeconds: expireSeconds })
}

/** Queues job ids in batches of JOB_SIZE; returns how many. */
async function send(boss: PgBoss, ids: string[], options: PgBoss.SendOptions) {
  for (const b of batches(ids, JOB_SIZE)) await boss.send(queue, { ids: b } satisfies EmbedJob, options)
  return ids.length
}

/**
 * At a process's start, with an empty queue: queues every live job that lacks a vector
 * of the model, in id order. This is how the backlog is found that no ingest queued: a
 * change of model (EMBEDDING_PROVIDER, EMBEDDING_MODEL), a migration that dropped the
 * vectors of an old text recipe, postings ingested with EMBEDDING_PROVIDER=none or while
 * the queue's batches kept failing. Returns how many it queued.
 */
export async function queueBacklog(boss: PgBoss, sql: Sql, model: number, { expireSeconds }: { expireSeconds: number }) {
  if ((await pendingBatches(boss)) > 0) return 0
  return send(boss, await listLiveJobIdsToEmbed(sql, model), { expireInSeconds: expireSeconds })
}

/** Embeds a queued batch's jobs that still lack the model's vector; throws when the model failed, so pg-boss retries. */
export const handler =
  (sql: Sql, embedder: Embedder, log: Logger, batch: number, { onFailure, pace }: Background = {}) =>
  async ([job]: PgBoss.Job<EmbedJob>[]) => {
    const model = await modelId(sql, embedder.info)
    const rows = await listJobsToEmbed(sql, model, { ids: job.data.ids })
    const pacers: Pace[] = []
    const paced = pace && (() => pacers[pacers.push(pace()) - 1])
    const counts = await embedJobs(sql, embedder, model, rows, { batch, pace: paced })
    if (counts.error) {
      log.warn({ job_id: job.id, err: { message: (counts.error as Error).message ?? String(counts.error) }, written: counts.written }, 'background embedding failed; retried later')
      onFailure?.(counts.error)
      throw counts.error
    }
    // kept by pg-boss as the job's output: how the batch gave way to the API (jobs/pace.ts)
    return { queued: job.data.ids.length, written: counts.written, computed: counts.computed, pacing: combinePacing(pacers.map((p) => p.summary())) }
  }

export type Background = {
  /** hears each failed batch */
  onFailure?: (error: unknown) => void
  /** a pacer for each lane of model calls, which rests while the API is under load (jobs/pace.ts) */
  pace?: () => Pace
}

/**
 * Works the queue in this process, one queued batch at a time: its texts keep every
 * model thread busy (embedJobs runs as many model calls at once as the embedder serves),
 * and two batches side by side could both find a text they share missing from the
 * cache and embed it twice. (Two processes still can, rarely.)
 */
export async function startEmbedWorkers(boss: PgBoss, sql: Sql, embedder: Embedder, log: Logger, batch: number, background: Background = {}) {
  const id = await boss.work<EmbedJob>(queue, { batchSize: 1, pollingIntervalSeconds: 0.5 }, handler(sql, embedder, log, batch, background))
  return { stop: () => boss.offWork({ id }) }
}

/** Batches queued, retrying or being embedded (every process's). */
export const pendingBatches = (boss: PgBoss) => boss.getQueueSize(queue, { before: 'completed' })
