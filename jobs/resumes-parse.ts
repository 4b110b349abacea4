/**
 * Stored resumes are parsed and embedded in the background: POST /v2/resumes stores the
 * file and, in the same transaction as the record, queues its id here. A worker reads
 * the file back from the store, analyzes it (ingest/resume/analyze.ts) and writes the
 * parsed data and the vector; the record's status becomes `parsed`.
 *
 * A file that cannot be read as a resume is not retried: the record keeps status
 * `uploaded` with parse_error saying why (vsearch then answers with that reason). A
 * model or store that fails is retried with backoff. A resume deleted meanwhile is
 * skipped.
 */
import type PgBoss from 'pg-boss'
import type { Logger } from 'pino'
import { analyzeResume, type AnalyzeOptions } from '../ingest/resume/analyze.ts'
import { ResumeFileError } from '../ingest/resume/types.ts'
import { bossDb } from '../sql/boss-db.ts'
import type { Db, Sql } from '../sql/db.ts'
import { modelId } from '../sql/embeddings.ts'
import { findResumeFile, markResumeParsed, markResumeUnreadable } from '../sql/resumes.ts'
import type { FileStore } from './files/store.ts'

export const queue = 'resumes.parse'
export const options: PgBoss.Queue = { name: queue, retryLimit: 8, retryDelay: 10, retryBackoff: true, expireInSeconds: 600 }

type ParseJob = { resume_id: string }

/** Queues the resume's parse inside `tx`, the transaction that inserts the record. */
export async function enqueueResumeParse(tx: Db, boss: PgBoss, resumeId: string) {
  await boss.send(queue, { resume_id: resumeId } satisfies ParseJob, { db: bossDb(tx) })
}

export type ParseDeps = { sql: Sql; store: FileStore; log: Logger; analyze: Omit<AnalyzeOptions, 'urgent'> }

export async function parseStoredResume({ sql, store, log, analyze }: ParseDeps, resumeId: string) {
  const row = await findResumeFile(sql, resumeId)
  if (!row) return { skipped: 'deleted' }
  const bytes = await store.read(row.file_key)
  if (!bytes) {
    // deleted between the two reads, or the file was removed by hand: nothing to parse
    if (await findResumeFile(sql, resumeId)) await markResumeUnreadable(sql, resumeId, 'The stored file is missing; upload the resume again')
    return { skipped: 'no file' }
  }
  try {
    const { resume, result } = await analyzeResume(bytes, row.content_type, analyze)
    const vector = result ? { embedding: result.embedding, model: await modelId(sql, analyze.embedder!.info) } : null
    await markResumeParsed(sql, resumeId, resume, vector)
    // the record, never its content: resumes are personal data
    log.info({ resume_id: resumeId, embedded: vector !== null }, 'resume parsed')
    return { parsed: true }
  } catch (e) {
    if (!(e instanceof ResumeFileError)) throw e
    await markResumeUnreadable(sql, resumeId, e.message)
    log.info({ resume_id: resumeId }, 'resume file unreadable')
    return { parsed: false }
  }
}

export const handler = (deps: ParseDeps) => async ([job]: PgBoss.Job<ParseJob>[]) => parseStoredResume(deps, job.data.resume_id)
