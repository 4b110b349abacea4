/**
 * An account's API keys, managed with a key of that account (/v2/keys): list, create
 * (the key shown once, in full) and revoke. Another account's key is a 404, as an
 * unknown id is; the key making the request cannot revoke itself (409), so a client
 * never locks itself out by accident. Not metered.
 */
import Router from '@koa/router'
import type { Db } from '../../sql/db.ts'
import { insertNamedKey, listKeys, MAX_LIVE_KEYS, revokeKeyById } from '../../sql/keys.ts'
import { AppError, errors } from '../errors.ts'
import { jsonBody } from '../middleware/body.ts'
import { keyed } from '../middleware/keyed.ts'
import { keyCreateBody } from '../schemas/keys.ts'
import { pathSegment, validate } from '../validate.ts'

const keyErrors = {
  inUse: () => new AppError(409, 'This is the key making the request; revoke it with another key of the account'),
  tooMany: () => new AppError(409, `This account already has ${MAX_LIVE_KEYS} live keys; revoke one first`),
}

export function keyRoutes(db: Db) {
  const router = new Router({ prefix: '/v2/keys' })
  router.param('key_id', pathSegment('key_id'))

  router.get('/', keyed(), async (ctx) => {
    ctx.body = { keys: await listKeys(db, ctx.state.account.id) }
  })

  router.post('/', jsonBody(), keyed(), async (ctx) => {
    const { name } = await validate(keyCreateBody, ctx.request.body)
    const created = await insertNamedKey(db, ctx.state.account.id, name.trim())
    if (!created) throw keyErrors.tooMany()
    ctx.status = 201
    ctx.body = created
  })

  router.delete('/:key_id', keyed(), async (ctx) => {
    if (ctx.params.key_id === ctx.state.account.key_id) throw keyErrors.inUse()
    if (!(await revokeKeyById(db, ctx.state.account.id, ctx.params.key_id))) throw errors.notFound('Key')
    ctx.status = 204
  })

  return router
}
