-- Usage metering: the plan catalog, per-account billing fields, one meter row per
-- account, meter and period, an append-only ledger of what was charged and refunded,
-- and the rate limiter's counters.

-- The spec's plan table. Enterprise and legacy have no rows here: enterprise
-- allowances are negotiated per account (account_allowances), legacy accounts have none.
create table plans (
  key text primary key,
  lookup_key text not null constraint plans_lookup_key_key unique,
  display_name text not null,
  -- in cents; annual billing is 20 percent off twelve months of this
  monthly_price_cents integer not null,
  sort_order integer not null
);

create table plan_meters (
  plan_key text not null references plans (key),
  meter text not null constraint plan_meters_meter_check check (meter in (
    'm_jobs_api_calls', 'm_company_api_calls', 'm_insights_calls', 'm_salary_benchmarks', 'm_hiring_manager_contacts')),
  included bigint not null constraint plan_meters_included_check check (included >= 0),
  overage_mode text not null constraint plan_meters_overage_mode_check check (overage_mode in ('block', 'meter')),
  -- exact: "1.50 per 1,000" is 0.15 cents a unit; numeric keeps it 0.15, not 0.1499…
  overage_cents_per_unit numeric(14, 6),
  constraint plan_meters_pkey primary key (plan_key, meter),
  constraint plan_meters_price_check check ((overage_mode = 'meter') = (overage_cents_per_unit is not null))
);

insert into plans (key, lookup_key, display_name, monthly_price_cents, sort_order) values
  ('free', 'plan_free', 'Free', 0, 1),
  ('starter', 'plan_starter', 'Starter', 9900, 2),
  ('growth', 'plan_growth', 'Growth', 24900, 3),
  ('scale', 'plan_scale', 'Scale', 99900, 4),
  ('pro', 'plan_pro', 'Pro (web plan)', 5000, 5);

-- "10 per 1,000" = 1 cent a unit; "0.25 each" = 25 cents; "5 per 1,000" = 0.5 cents.
-- Hiring-manager contacts are an add-on: no plan includes any, an admin grants the
-- feature and sets the account's allowance.
insert into plan_meters (plan_key, meter, included, overage_mode, overage_cents_per_unit) values
  ('free', 'm_jobs_api_calls', 500, 'block', null),
  ('free', 'm_company_api_calls', 50, 'block', null),
  ('free', 'm_insights_calls', 25, 'block', null),
  ('free', 'm_salary_benchmarks', 3, 'block', null),
  ('free', 'm_hiring_manager_contacts', 0, 'block', null),
  ('starter', 'm_jobs_api_calls', 25000, 'block', null),
  ('starter', 'm_company_api_calls', 10000, 'block', null),
  ('starter', 'm_insights_calls', 25, 'meter', 1),
  ('starter', 'm_salary_benchmarks', 25, 'meter', 25),
  ('starter', 'm_hiring_manager_contacts', 0, 'block', null),
  ('growth', 'm_jobs_api_calls', 250000, 'meter', 0.15),
  ('growth', 'm_company_api_calls', 50000, 'meter', 0.5),
  ('growth', 'm_insights_calls', 25, 'meter', 1),
  ('growth', 'm_salary_benchmarks', 25, 'meter', 25),
  ('growth', 'm_hiring_manager_contacts', 0, 'block', null),
  ('scale', 'm_jobs_api_calls', 2000000, 'meter', 0.15),
  ('scale', 'm_company_api_calls', 200000, 'meter', 0.5),
  ('scale', 'm_insights_calls', 25, 'meter', 1),
  ('scale', 'm_salary_benchmarks', 25, 'meter', 25),
  ('scale', 'm_hiring_manager_contacts', 0, 'block', null),
  ('pro', 'm_jobs_api_calls', 10000, 'meter', 0.1),
  ('pro', 'm_company_api_calls', 2000, 'block', null),
  ('pro', 'm_insights_calls', 25, 'meter', 1),
  ('pro', 'm_salary_benchmarks', 500, 'meter', 5),
  ('pro', 'm_hiring_manager_contacts', 0, 'block', null);

-- Billing fields. billing_source follows the plan, so the two cannot disagree.
alter table accounts
  add column billing_source text generated always as (case when plan = 'legacy' then 'legacy' else 'payments_v2' end) stored,
  add column payments_customer_id text,
  add column subscription_status text,
  -- a subscription's current period; once period_end passes, the next period of the
  -- same length starts there (computed per request; the monthly job only records it)
  add column period_start timestamptz,
  add column period_end timestamptz,
  add column trial_start timestamptz,
  add column trial_end timestamptz,
  -- add-on features granted to this account beyond its plan (e.g. hiring_manager_contacts)
  add column features text[] not null default '{}',
  add constraint accounts_period_check check ((period_start is null) = (period_end is null) and period_end > period_start),
  add constraint accounts_trial_check check ((trial_start is null) = (trial_end is null) and trial_end > trial_start);

-- Negotiated allowances (enterprise), overriding the plan's row for that meter.
create table account_allowances (
  account_id uuid not null references accounts (id) on delete cascade,
  meter text not null constraint account_allowances_meter_check check (meter in (
    'm_jobs_api_calls', 'm_company_api_calls', 'm_insights_calls', 'm_salary_benchmarks', 'm_hiring_manager_contacts')),
  included bigint not null constraint account_allowances_included_check check (included >= 0),
  overage_mode text not null constraint account_allowances_overage_mode_check check (overage_mode in ('block', 'meter')),
  overage_cents_per_unit numeric(14, 6),
  constraint account_allowances_pkey primary key (account_id, meter),
  constraint account_allowances_price_check check ((overage_mode = 'meter') = (overage_cents_per_unit is not null))
);

-- One row per account, meter and period. A new period is a new row, so a request in
-- it starts from zero whether or not the monthly job has run. `used` is settled
-- usage (it always equals the sum of the ledger for the row); `reserved` is held by
-- requests in flight and returns to 0 when they finish. The reservation locks this
-- row with SELECT … FOR UPDATE, which is what keeps parallel requests under a cap.
create table usage_meters (
  account_id uuid not null references accounts (id) on delete cascade,
  meter text not null,
  period_start timestamptz not null,
  period_end timestamptz not null,
  used bigint not null default 0 constraint usage_meters_used_check check (used >= 0),
  reserved bigint not null default 0 constraint usage_meters_reserved_check check (reserved >= 0),
  updated_at timestamptz not null default now(),
  constraint usage_meters_pkey primary key (account_id, meter, period_start)
);

-- Append-only: every settled charge (units > 0) and every refund (units < 0). Rows
-- are never updated; they go only with their account (on delete cascade).
create table usage_ledger (
  id bigint generated always as identity primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  meter text not null,
  period_start timestamptz not null,
  units bigint not null constraint usage_ledger_units_check check (units <> 0),
  kind text not null constraint usage_ledger_kind_check check (kind in ('charge', 'refund')),
  request_id text,
  endpoint text,
  created_at timestamptz not null default now(),
  constraint usage_ledger_sign_check check ((kind = 'charge') = (units > 0))
);
create index usage_ledger_meter_idx on usage_ledger (account_id, meter, period_start);

create function usage_ledger_append_only() returns trigger language plpgsql as $$
begin
  raise exception 'usage_ledger is append-only';
end $$;
create trigger usage_ledger_append_only before update on usage_ledger
  for each row execute function usage_ledger_append_only();

-- The rate limiter's fixed windows, one row per bucket (key, key+search, IP).
-- Unlogged: counters for the current minute are not worth a WAL write each, and
-- losing them in a crash only forgives one window.
create unlogged table rate_limits (
  bucket text primary key,
  -- windows are aligned to the epoch, so every process agrees where one ends
  window_end timestamptz not null,
  hits integer not null
);
