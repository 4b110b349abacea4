/**
 * GET /v2/downloads/{task_id}/{expires}/{signature}/{filename}: an export's file. No
 * API key: the signed link is the credential (jobs/files/signing.ts), so a link from
 * the notification email opens in a browser. A link that was never signed, or names a
 * task without a file, is a 404; a signed link past its expiry is a 410, so a client
 * can tell "start a new export" from "wrong link" (docs/downloads.md).
 */
import Router from '@koa/router'
import type { Db } from '../../sql/db.ts'
import { findDownload } from '../../sql/task-files.ts'
import { verifyDownload } from '../../jobs/files/signing.ts'
import { contentDisposition, contentTypeFor, type FileStore } from '../../jobs/files/store.ts'
import { AppError, errors } from '../errors.ts'
import { pathSegment } from '../validate.ts'

const expired = (at: Date) => new AppError(410, `Download expired at ${at.toISOString()}; export again for a new link`)

/** `signingKey` is read on the first request: the key may live in a table the migrations have yet to create. */
export function downloadRoutes(db: Db, store: FileStore, signingKey: () => Promise<string>) {
  const router = new Router({ prefix: '/v2/downloads' })
  for (const name of ['task_id', 'expires', 'signature', 'filename']) router.param(name, pathSegment(name))

  router.get('/:task_id/:expires/:signature/:filename', async (ctx) => {
    const { task_id, expires, signature, filename } = ctx.params
    if (!verifyDownload(await signingKey(), task_id, expires, signature, filename)) throw errors.notFound('Download')
    const now = Date.now()
    const linkExpiry = new Date(Number(expires) * 1000)
    if (linkExpiry.getTime() <= now) throw expired(linkExpiry)
    const file = await findDownload(db, task_id)
    if (!file || file.state !== 'finished' || !file.file_key || !file.file_expires_at) throw errors.notFound('Download')
    if (file.file_expires_at.getTime() <= now) throw expired(file.file_expires_at)
    if (file.file_deleted_at) throw errors.notFound('Download')
    const found = await store.download(file.file_key, filename)
    if (!found) throw errors.notFound('Download')

    if ('redirect' in found) {
      // the presigned URL lives minutes, the link weeks: each visit must come back for a fresh one
      ctx.set('Cache-Control', 'no-store')
      ctx.redirect(found.redirect)
      return
    }
    ctx.set('Content-Disposition', contentDisposition(filename))
    ctx.set('Cache-Control', 'private')
    ctx.type = contentTypeFor(filename)
    ctx.body = found.stream
    ctx.length = found.size
  })

  return router
}
