/**
 * POST /v2/jobs/export: creates an export_job_data task (jobs/export-job-data.ts).
 * The jobs meter is charged min(limit, matching jobs) when the task is created, in the
 * transaction that creates it, and refunded if the task fails. Mounted before the
 * /v2/jobs/{job_id} router.
 */
import Router from '@koa/router'
import type PgBoss from 'pg-boss'
import { TYPE, type ExportParams } from '../../jobs/export-job-data.ts'
import { createTask, type TaskConfig } from '../../jobs/tasks.ts'
import type { Sql } from '../../sql/db.ts'
import { countExport } from '../../sql/export.ts'
import { errors } from '../errors.ts'
import { jsonBody } from '../middleware/body.ts'
import { keyed } from '../middleware/keyed.ts'
import { chargeWithin } from '../middleware/metering.ts'
import { exportBody } from '../schemas/export.ts'
import { toSearch } from '../search-filters.ts'
import { validate } from '../validate.ts'

const METER = 'm_jobs_api_calls'

export function exportRoutes(sql: Sql, boss: PgBoss | undefined, config: TaskConfig) {
  const router = new Router({ prefix: '/v2/jobs' })

  router.post('/export', jsonBody(), keyed({ signIn: true }), async (ctx) => {
    const body = await validate(exportBody, ctx.request.body)
    if (!boss) throw errors.tasksUnavailable()
    const { filters, page } = toSearch(body.search)
    ctx.body = await sql.begin(async (tx) => {
      const rows = await countExport(tx, filters, page)
      const key = await chargeWithin(ctx, tx, METER, rows)
      const params: ExportParams = { filters, page, rows }
      return createTask(tx, boss, config, {
        accountId: ctx.state.account.id,
        type: TYPE,
        input: { search: body.search, format: body.format, notify: body.notify },
        notify: body.notify,
        params,
        charge: { meter: METER, units: rows, periodStart: key.period.start },
      })
    })
  })

  return router
}
