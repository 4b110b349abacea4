/** GET /v2/tasks/{task_id}: owner only; another account's task is a 404. */
import Router from '@koa/router'
import type { Db } from '../../sql/db.ts'
import { findTask } from '../../sql/tasks.ts'
import { errors } from '../errors.ts'
import { keyed } from '../middleware/keyed.ts'
import { pathSegment } from '../validate.ts'

export function taskRoutes(db: Db) {
  const router = new Router({ prefix: '/v2/tasks' })
  router.param('task_id', pathSegment('task_id'))

  router.get('/:task_id', keyed(), async (ctx) => {
    const task = await findTask(db, ctx.state.account.id, ctx.params.task_id)
    if (!task) throw errors.notFound('Task')
    ctx.body = task
  })

  return router
}
