/**
 * Resumes (docs/resumes.md). Every route needs a key; none is metered.
 *
 *   POST   /v2/resumes/embed      a file in, its parsed resume and embedding out; stores nothing
 *   POST   /v2/resumes            stores the file; a background job parses and embeds it (201);
 *                                  then sweeps uploads a crash stopped (ingest/resume/store-resume.ts)
 *   GET    /v2/resumes            the account's resumes, newest first, paged
 *   GET    /v2/resumes/{id}       one record; another account's is a 404
 *   GET    /v2/resumes/{id}/file  the stored file (resume_url)
 *   DELETE /v2/resumes/{id}       the record, its file and its vector (204)
 *
 * Resumes are personal data: neither their text nor their fields reach the logs.
 */
import Router from '@koa/router'
import type PgBoss from 'pg-boss'
import { randomUUID } from 'node:crypto'
import type { Context } from 'koa'
import { contentTypeFor, type FileStore } from '../../jobs/files/store.ts'
import { enqueueResumeParse } from '../../jobs/resumes-parse.ts'
import { EmbedderUnavailable, type Embedder } from '../../ingest/embed/embedder.ts'
import { analyzeResume, type AnalyzeOptions } from '../../ingest/resume/analyze.ts'
import { sniffResume } from '../../ingest/resume/read.ts'
import { storeResume, sweepResumeUploads, UploadSwept } from '../../ingest/resume/store-resume.ts'
import { ResumeFileError } from '../../ingest/resume/types.ts'
import type { Sql } from '../../sql/db.ts'
import { deleteResume, findResume, listResumes, type ResumeRow } from '../../sql/resumes.ts'
import { AppError, errors } from '../errors.ts'
import { keyed } from '../middleware/keyed.ts'
import { inSlot, onCpu } from '../middleware/queues.ts'
import { resumeUpload, type Upload } from '../middleware/upload.ts'
import { resumeListQuery } from '../schemas/resumes.ts'
import { pathSegment, validate } from '../validate.ts'

export type ResumeDeps = {
  sql: Sql
  store: FileStore
  boss: PgBoss | undefined
  publicUrl: string
  analyze: Omit<AnalyzeOptions, 'urgent' | 'embedder'>
  embedder: Embedder | undefined
}

const EXTENSIONS: Record<string, string> = {
  'application/pdf': 'pdf',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'text/plain': 'txt',
  'text/html': 'html',
}

const unavailable = (why: string) => new AppError(503, `The embedding model is unavailable (${why}); retry later`)

/** The spec's "Resume record", plus artifact_id (the id vsearch and neural-search take) and what the file was. */
export function resumeRecord(r: ResumeRow) {
  return {
    _id: r.id,
    artifact_id: r.id,
    user_id: r.account_id,
    resume_url: r.resume_url,
    parsed_data: r.parsed_data,
    status: r.status,
    parse_error: r.parse_error,
    file_name: r.file_name,
    file_size: r.file_size,
    content_type: r.content_type,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  }
}

/** The upload's bytes as the file they claim to be, or the reader's 400. */
function checkedUpload(ctx: Context): Upload & { mediaType: string } {
  const upload = ctx.state.upload as Upload
  try {
    return { ...upload, mediaType: sniffResume(upload.bytes, upload.contentType) }
  } catch (e) {
    if (e instanceof ResumeFileError) throw errors.badRequest(e.message)
    throw e
  }
}

export function resumeRoutes({ sql, store, boss, publicUrl, analyze, embedder }: ResumeDeps) {
  const router = new Router({ prefix: '/v2/resumes' })
  router.param('resume_id', pathSegment('resume_id'))

  // the upload is read, the file parsed and embedded outside any database slot
  router.post('/embed', keyed({ slot: 'queries' }), resumeUpload(), async (ctx) => {
    const { bytes, mediaType } = checkedUpload(ctx)
    if (!embedder) throw unavailable('none is configured: EMBEDDING_PROVIDER is none')
    try {
      const { resume, result } = await onCpu(ctx, () => analyzeResume(bytes, mediaType, { ...analyze, embedder, urgent: true }))
      ctx.body = { resume, result }
    } catch (e) {
      if (e instanceof ResumeFileError) throw errors.badRequest(e.message)
      if (e instanceof EmbedderUnavailable) throw unavailable(e.message)
      throw e
    }
  })

  // the record of the upload first, then the file, then the resume (ingest/resume/store-resume.ts)
  router.post('/', keyed({ slot: 'queries' }), resumeUpload(), async (ctx) => {
    const { bytes, mediaType, filename } = checkedUpload(ctx)
    if (!boss) throw errors.tasksUnavailable()
    const accountId: string = ctx.state.account.id
    const id = randomUUID()
    const row = await storeResume(sql, store, {
      id,
      account_id: accountId,
      resume_url: `${publicUrl}/v2/resumes/${id}/file`,
      file_key: `resumes/${accountId}/${id}.${EXTENSIONS[mediaType]}`,
      file_name: filename?.slice(0, 255) ?? null,
      file_size: bytes.length,
      content_type: mediaType,
    }, bytes, {
      inSlot: (step) => inSlot(ctx, step),
      enqueue: (tx, resumeId) => enqueueResumeParse(tx, boss, resumeId),
    }).catch((e) => {
      throw e instanceof UploadSwept ? new AppError(503, e.message) : e
    })
    ctx.status = 201
    ctx.body = resumeRecord(row)
    // uploads a crash stopped, once their grace period is over: after the answer, outside the slot
    sweepResumeUploads(sql, store).catch((e) => ctx.app.emit('error', e, ctx))
  })

  router.get('/', keyed(), async (ctx) => {
    const { page, limit } = await validate(resumeListQuery, ctx.query, 'query')
    const { rows, total } = await listResumes(sql, ctx.state.account.id, (page - 1) * limit, limit)
    ctx.body = { resumes: rows.map(resumeRecord), total_count: total, page, limit, total_pages: Math.ceil(total / limit) }
  })

  router.get('/:resume_id', keyed(), async (ctx) => {
    const row = await findResume(sql, ctx.state.account.id, ctx.params.resume_id)
    if (!row) throw errors.notFound('Resume')
    ctx.body = resumeRecord(row)
  })

  router.get('/:resume_id/file', keyed({ slot: 'queries' }), async (ctx) => {
    const row = await inSlot(ctx, () => findResume(sql, ctx.state.account.id, ctx.params.resume_id))
    if (!row) throw errors.notFound('Resume')
    const filename = `resume-${row.id}.${EXTENSIONS[row.content_type ?? ''] ?? 'bin'}`
    const found = await store.download(row.file_key, filename)
    if (!found) throw errors.notFound('Resume file')
    ctx.set('Cache-Control', 'private, no-store')
    if ('redirect' in found) return ctx.redirect(found.redirect)
    ctx.type = row.content_type ?? contentTypeFor(filename)
    ctx.set('Content-Disposition', `attachment; filename="${filename}"`)
    ctx.body = found.stream
    ctx.length = found.size
  })

  router.delete('/:resume_id', keyed(), async (ctx) => {
    const row = await findResume(sql, ctx.state.account.id, ctx.params.resume_id)
    if (!row) throw errors.notFound('Resume')
    // the file first: if the store fails, the record stays and the client's retry deletes both
    await store.delete(row.file_key)
    if (!(await deleteResume(sql, row.account_id, row.id))) throw errors.notFound('Resume')
    ctx.status = 204
  })

  return router
}
