/** Public reference lists (no key): job categories, industries, subindustries. */
import Router from '@koa/router'
import type { Context, Next } from 'koa'
import categories from '../../seeds/categories.json' with { type: 'json' }
import industries from '../../seeds/industries.json' with { type: 'json' }
import { errors } from '../errors.ts'
import { admissionOf } from '../middleware/admission.ts'
import { subindustriesQuery } from '../schemas/reference.ts'
import { validate } from '../validate.ts'

const byIndustry = industries as Record<string, string[]>

/** Each subindustry with every industry it belongs to: a few belong to several. */
const subindustries = (() => {
  const map = new Map<string, string[]>()
  for (const [industry, subs] of Object.entries(byIndustry)) {
    for (const s of subs) map.set(s, [...(map.get(s) ?? []), industry])
  }
  return [...map.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, inds]) => ({ name, industries: inds }))
})()

export function referenceRoutes() {
  const router = new Router({ prefix: '/v2/jobs/data' })
  // the anonymous limit, per client IP
  const limited = async (ctx: Context, next: Next) => {
    const { limiter } = admissionOf(ctx)
    await limiter.check(ctx, [{ bucket: `ip:${ctx.ip}`, ...limiter.rules.anonymous }])
    return next()
  }

  router.get('/categories', limited, (ctx) => {
    ctx.body = { categories: [...categories, 'Other'] }
  })

  router.get('/industries', limited, (ctx) => {
    ctx.body = {
      industries: Object.entries(byIndustry).map(([name, subs]) => ({ name, subindustries: subs })),
    }
  })

  router.get('/subindustries', limited, async (ctx) => {
    const { industry } = await validate(subindustriesQuery, ctx.query, 'query')
    if (industry !== undefined && !Object.hasOwn(byIndustry, industry)) {
      throw errors.validation([
        { type: 'value_error', loc: ['query', 'industry'], msg: `Unknown industry: ${industry}`, input: industry, ctx: { allowed: Object.keys(byIndustry) } },
      ])
    }
    ctx.body = { subindustries: industry ? subindustries.filter((s) => s.industries.includes(industry)) : subindustries }
  })

  return router
}
