/** Billing in the OpenAPI document. */
import { usageSummaryQuery } from '../schemas/keys.ts'
import { type RouteDoc } from './route-doc.ts'

export const billingRouteDocs: RouteDoc[] = [
  {
    method: 'get',
    path: '/v2/billing/usage/summary',
    summary: 'Usage this period',
    description:
      'The account\'s billing fields and, for every meter (sorted by name), the current period\'s usage: `used` is all settled units, ' +
      '`remaining` is max(0, included − used), `overage_used` the units past the allowance. `overage_cents_per_unit` is exact (0.15 is fifteen hundredths of a cent) ' +
      'and set only in `meter` mode; `estimated_overage_cents` is overage_used × that price, rounded up. `period` is `calendar_month` (free tier: ' +
      'period_start and period_end are null, allowances reset on the 1st, UTC), `subscription` or `trial`. Legacy accounts (`billing_source: legacy`) have null ' +
      'allowances and modes. Not metered. Accepts an API key, or `Authorization: Bearer <JWT>` (HS256, `sub` = account id, `exp` required), ' +
      'minted with `npm run admin -- tokens:create --account ID`. With `daily=true`, each meter also has `daily`: its units per UTC day of the period, ' +
      'from the usage ledger, net of refunds, every day from the period\'s first to today listed (0 where nothing was charged).',
    tags: ['Billing'],
    auth: 'token',
    query: usageSummaryQuery,
    params: { daily: '`true` adds each meter\'s `daily` list' },
    response: 'UsageSummary',
  },
  {
    method: 'get',
    path: '/v2/billing/portal',
    summary: 'Plans and how to upgrade',
    description:
      'Where quota (429 limit_exceeded) and feature (403 feature_missing) errors send clients. `current` is the calling account\'s plan and granted add-ons. Lists every plan of the catalog with its ' +
      'monthly and annual price (annual is 20 percent off) and each meter\'s allowance, overage mode and exact overage price; enterprise allowances are negotiated ' +
      'per account; add-on features are granted per account. `upgrade.how` says how a plan changes: this service is self-hosted, so its administrator runs ' +
      '`npm run admin -- plan:set --account ID --plan PLAN`, effective from the next request.',
    tags: ['Billing'],
    auth: 'key',
    response: 'BillingPortal',
  },
]
