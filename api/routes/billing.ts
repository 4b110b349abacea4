/** The usage summary (API key or JWT) and the plan catalog clients are sent to upgrade. */
import Router from '@koa/router'
import type { Account } from '../../sql/accounts.ts'
import { listPlans } from '../../sql/billing.ts'
import type { Db } from '../../sql/db.ts'
import { addOnFeatures, meters } from '../../sql/meters.ts'
import { usageSummary } from '../../sql/usage-summary.ts'
import { keyed } from '../middleware/keyed.ts'
import { usageSummaryQuery } from '../schemas/keys.ts'
import { validate } from '../validate.ts'

export function billingRoutes(db: Db) {
  const router = new Router({ prefix: '/v2/billing' })

  router.get('/usage/summary', keyed({ token: true }), async (ctx) => {
    const { daily } = await validate(usageSummaryQuery, ctx.query, 'query')
    ctx.body = await usageSummary(db, ctx.state.account, { daily: daily === 'true' })
  })

  // quota and feature errors point here; keyed, so it can say where the caller stands
  router.get('/portal', keyed(), async (ctx) => {
    const plans = await listPlans(db)
    const account = ctx.state.account as Account
    ctx.body = {
      current: { account_id: account.id, plan: account.plan, billing_source: account.billing_source, features: account.features },
      plans: plans.map((p) => ({
        plan: p.key,
        lookup_key: p.lookup_key,
        display_name: p.display_name,
        monthly_price_cents: p.monthly_price_cents,
        // annual billing is 20 percent off twelve months
        annual_price_cents: (p.monthly_price_cents * 12 * 8) / 10,
        currency: 'usd',
        meters: p.meters.map((m) => ({
          event_name: m.meter,
          display_name: meters[m.meter].display_name,
          unit: meters[m.meter].unit,
          included: m.included,
          overage_mode: m.overage_mode,
          overage_cents_per_unit: m.overage_cents_per_unit === null ? null : Number(m.overage_cents_per_unit),
        })),
      })),
      enterprise: {
        description: 'Allowances, overage prices and billing periods negotiated per account and set by an administrator.',
      },
      add_ons: addOnFeatures.map((feature) => ({
        feature,
        description: 'Granted per account by an administrator, with its allowance; calls without it answer 403 feature_missing.',
      })),
      upgrade: {
        how:
          'This service is self-hosted: plans are changed by its administrator. Ask yours to run ' +
          '`npm run admin -- plan:set --account <account_id> --plan <plan>`; the new allowances apply to the next request.',
        usage: 'GET /v2/billing/usage/summary shows the current period\'s usage per meter.',
      },
    }
  })

  return router
}
