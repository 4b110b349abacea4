/** GET /v2/tasks (the account's tasks, newest first) and GET /v2/tasks/{task_id}: owner only; another account's task is a 404. */
import Router from '@koa/router'
import type { Db } from '../../sql/db.ts'
import { findTask, listTasks } from '../../sql/tasks.ts'
import { errors } from '../errors.ts'
import { keyed } from '../middleware/keyed.ts'
import { pageEnvelope } from '../schemas/common.ts'
import { taskListQuery } from '../schemas/tasks.ts'
import { pathSegment, validate } from '../validate.ts'

export function taskRoutes(db: Db) {
  const router = new Router({ prefix: '/v2/tasks' })
  router.param('task_id', pathSegment('task_id'))

  router.get('/', keyed(), async (ctx) => {
    const q = await validate(taskListQuery, ctx.query, 'query')
    const { rows, total } = await listTasks(db, ctx.state.account.id, { type: q.type, offset: (q.page - 1) * q.limit, limit: q.limit })
    ctx.body = { tasks: rows, ...pageEnvelope(total, q.page, q.limit) }
  })

  router.get('/:task_id', keyed(), async (ctx) => {
    const task = await findTask(db, ctx.state.account.id, ctx.params.task_id)
    if (!task) throw errors.notFound('Task')
    ctx.body = task
  })

  return router
}
