-- Usage metering: the plan catalog, per-account billing fields, one meter row per
-- account, meter and period, the leases API processes hold on those rows, an
-- append-only ledger of what was charged and refunded, the billing_epoch that tells
-- processes to drop what they cached, and the rate limiter's counters.
--
-- No database round trip per request: each API process (a holder) leases units on a
-- meter row (meter_grant) and admits requests from its lease in memory, then flushes
-- the settled charges in batches (meter_flush), which move them from its lease to the
-- row's `used` and write them to the ledger.

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
-- it starts from zero whether or not the monthly job has run. `used` is flushed usage
-- and always equals the sum of the ledger for the row. What processes hold on the row
-- is in meter_leases; the row's lock (SELECT … FOR UPDATE) is what a grant, a flush
-- and a refund take, in one global order, (account, meter, period_start), so they
-- never deadlock.
create table usage_meters (
  account_id uuid not null references accounts (id) on delete cascade,
  meter text not null,
  period_start timestamptz not null,
  period_end timestamptz not null,
  used bigint not null default 0 constraint usage_meters_used_check check (used >= 0),
  updated_at timestamptz not null default now(),
  constraint usage_meters_pkey primary key (account_id, meter, period_start)
);

-- Units a holder leases on a meter row. A lease is granted under the row's lock and
-- only out of units that no one has used or leased, so parallel holders cannot
-- overshoot a block-mode cap. What a process holds is visible here, not on the meter
-- row: a lease that is not renewed expires, so a process that dies gives its units
-- back on its own.
create table meter_leases (
  account_id uuid not null,
  meter text not null,
  period_start timestamptz not null,
  holder uuid not null,
  -- units held: in-flight reservations, settled charges not yet flushed, and free units
  units bigint not null constraint meter_leases_units_check check (units >= 0),
  -- renewed by the holder's flushes; others ignore the lease after this
  expires_at timestamptz not null,
  constraint meter_leases_pkey primary key (account_id, meter, period_start, holder),
  constraint meter_leases_meter_fkey foreign key (account_id, meter, period_start)
    references usage_meters (account_id, meter, period_start) on delete cascade
);
create index meter_leases_holder_idx on meter_leases (holder);

-- Append-only: every charge (units > 0) and every refund (units < 0). A row covers one
-- meter row, one endpoint and one flush (a refund is a row of its own), with each
-- request's id, units and time in arrays on it, one element per request, in the
-- order they were settled. At thousands of metered requests a second, a heap row and
-- two index entries per request would cost Postgres more than all the rest of
-- metering; this way a flush writes a few dozen rows. usage_ledger_charges lists the
-- requests one per row.
--
-- No foreign key to accounts: the ledger is the audit trail and outlives the account
-- (whose meter rows and leases go with it), and a flush's insert is spared a lookup
-- in accounts per row.
--
-- A flush's row carries some dozens of requests, a few KB: toast_tuple_target keeps
-- it in the heap row rather than compressed and moved to TOAST, which cost more than
-- the insert.
create table usage_ledger (
  id bigint generated always as identity primary key,
  account_id uuid not null,
  meter text not null,
  period_start timestamptz not null,
  units bigint not null constraint usage_ledger_units_check check (units <> 0),
  kind text not null constraint usage_ledger_kind_check check (kind in ('charge', 'refund')),
  endpoint text,
  created_at timestamptz not null default now(),
  requests int not null,
  request_ids text[] not null,
  request_units bigint[] not null,
  request_at_ms bigint[] not null,
  constraint usage_ledger_sign_check check ((kind = 'charge') = (units > 0)),
  constraint usage_ledger_requests_check check (requests > 0 and cardinality(request_ids) = requests
    and cardinality(request_units) = requests and cardinality(request_at_ms) = requests),
  constraint usage_ledger_request_sign_check check (case when kind = 'charge' then 0 < all (request_units) else 0 > all (request_units) end)
) with (toast_tuple_target = 8160);
create index usage_ledger_meter_idx on usage_ledger (account_id, meter, period_start);
comment on column usage_ledger.units is 'the sum of request_units';
comment on column usage_ledger.created_at is 'when the row was written (a flush); request_at_ms says when each request was charged';
comment on column usage_ledger.request_at_ms is 'when each request was charged, in epoch milliseconds (usage_ledger_charges.at as a timestamp)';

create function usage_ledger_append_only() returns trigger language plpgsql as $$
begin
  raise exception 'usage_ledger is append-only';
end $$;
create trigger usage_ledger_append_only before update on usage_ledger
  for each row execute function usage_ledger_append_only();

-- One row per charged or refunded request; (ledger_id, position) orders them as they were settled.
create view usage_ledger_charges as
select l.id as ledger_id, c.position, l.account_id, l.meter, l.period_start, l.kind, l.endpoint, c.request_id, c.units,
  to_timestamp(c.at_ms / 1000.0) as at
from usage_ledger l
cross join lateral unnest(l.request_ids, l.request_units, l.request_at_ms) with ordinality as c(request_id, units, at_ms, position);

-- The rate limiter's fixed windows, one row per bucket (key, key+search, IP).
-- Unlogged: counters for the current minute are not worth a WAL write each, and
-- losing them in a crash only forgives one window.
create unlogged table rate_limits (
  bucket text primary key,
  -- windows are aligned to the epoch, so every process agrees where one ends
  window_end timestamptz not null,
  hits integer not null
);

-- Changes that affect what a cached key or a lease may do. Each API process polls the
-- sequence (a read that never blocks) and, when it moved, reads keys again and
-- re-grants its leases against the new allowances. The triggers fire once per
-- statement: one move tells a process everything it needs, however many rows changed.
-- A new key or account moves nothing: processes do not cache a key they did not find.
create sequence billing_epoch;
create function bump_billing_epoch() returns trigger language plpgsql as $$
begin
  perform nextval('billing_epoch');
  return null;
end $$;
create trigger accounts_billing_epoch after update or delete on accounts
  for each statement execute function bump_billing_epoch();
create trigger api_keys_billing_epoch after update or delete on api_keys
  for each statement execute function bump_billing_epoch();
create trigger account_allowances_billing_epoch after insert or update or delete on account_allowances
  for each statement execute function bump_billing_epoch();
create trigger plan_meters_billing_epoch after insert or update or delete on plan_meters
  for each statement execute function bump_billing_epoch();

-- Grants leases on a batch of meter rows (distinct rows, any order). For each row:
-- p_release[i] free units go back first, then, in block mode, p_need[i] units are
-- granted only if that many are free (neither used nor leased by anyone), or up to
-- p_want[i] out of half of what is free; meter mode and legacy accounts always get
-- the larger of p_need[i] and p_want[i]. Rows are created when missing and locked in
-- one global order, (account, meter, period), as meter_flush and refundUsage lock
-- them, so holders never deadlock. Every lease granted lives p_ttl_seconds.
-- The allowance follows resolveAllowance() in sql/meters.ts.
-- Returns, for each row (o_i, its position in the p_ arrays), the units granted, the
-- row's used, the units other live leases hold, and its allowance.
create function meter_grant(p_holder uuid, p_ttl_seconds int,
  p_account uuid[], p_meter text[], p_start timestamptz[], p_end timestamptz[], p_plan text[],
  p_release bigint[], p_need bigint[], p_want bigint[])
returns table (o_i int, o_granted bigint, o_used bigint, o_others bigint,
  o_included bigint, o_mode text, o_price text)
language plpgsql as $$
declare
  r record;
  v_used bigint; v_others bigint; v_mine bigint; v_free bigint;
begin
  for r in
    select t.i::int as i, t.a, t.m, t.s, t.e, t.p, t.rel, t.need, t.want
    from unnest(p_account, p_meter, p_start, p_end, p_plan, p_release, p_need, p_want)
      with ordinality as t(a, m, s, e, p, rel, need, want, i)
    order by t.a, t.m, t.s
  loop
    insert into usage_meters (account_id, meter, period_start, period_end)
    values (r.a, r.m, r.s, r.e) on conflict do nothing;
    select um.used into v_used from usage_meters um
    where um.account_id = r.a and um.meter = r.m and um.period_start = r.s
    for update;

    select case when r.p = 'legacy' then null when aa.overage_mode is not null then aa.included when pm.overage_mode is not null then pm.included else 0 end,
      case when r.p = 'legacy' then null when aa.overage_mode is not null then aa.overage_mode when pm.overage_mode is not null then pm.overage_mode else 'block' end,
      case when r.p = 'legacy' then null when aa.overage_mode is not null then aa.overage_cents_per_unit::text when pm.overage_mode is not null then pm.overage_cents_per_unit::text end
    into o_included, o_mode, o_price
    from (select 1) one
    left join account_allowances aa on aa.account_id = r.a and aa.meter = r.m
    left join plan_meters pm on pm.plan_key = r.p and pm.meter = r.m;

    if r.rel > 0 then
      update meter_leases set units = greatest(0, units - r.rel)
      where account_id = r.a and meter = r.m and period_start = r.s and holder = p_holder;
    end if;
    select coalesce(sum(l.units) filter (where l.holder <> p_holder and l.expires_at > now()), 0),
      coalesce(sum(l.units) filter (where l.holder = p_holder), 0)
    into v_others, v_mine
    from meter_leases l
    where l.account_id = r.a and l.meter = r.m and l.period_start = r.s;

    if o_mode = 'block' then
      v_free := o_included - v_used - v_others - v_mine;
      -- at most half of what is free, so other holders are left some
      o_granted := case when v_free >= r.need then greatest(r.need, least(r.want, v_free / 2)) else 0 end;
    else
      o_granted := greatest(r.need, r.want);
    end if;
    if o_granted > 0 then
      insert into meter_leases as l (account_id, meter, period_start, holder, units, expires_at)
      values (r.a, r.m, r.s, p_holder, o_granted, now() + make_interval(secs => p_ttl_seconds))
      on conflict (account_id, meter, period_start, holder) do update
        set units = l.units + excluded.units, expires_at = excluded.expires_at;
    end if;
    o_i := r.i; o_used := v_used; o_others := v_others;
    return next;
  end loop;
end $$;

-- Flushes a holder's settled usage (sql/meters.ts flushUsage). For each of its meter
-- rows (distinct rows, any order): p_units[i] settled units move from its lease to
-- used, and p_release[i] free units are given back. Charges arrive in groups, one
-- per ledger row: group k is on row p_group_item[k] of the p_ arrays, from endpoint
-- p_group_endpoint[k], and holds the next p_group_count[k] elements of
-- p_charge_units, p_charge_at (epoch milliseconds) and p_charge_request: plain
-- arrays, sliced straight into the ledger's array columns with nothing parsed per
-- charge, as there are thousands a second.
-- Every lease of the holder is renewed for p_ttl_seconds (a lease renewed within the
-- last third of that is left as it is), and leases left with no units are deleted.
-- Group and charge arrays whose lengths do not add up raise an error before anything
-- is written.
-- Returns each row's used and the units other holders lease on it, after the flush.
create function meter_flush(p_holder uuid, p_ttl_seconds int,
  p_account uuid[], p_meter text[], p_start timestamptz[], p_units bigint[], p_release bigint[],
  p_group_item int[], p_group_endpoint text[], p_group_count int[],
  p_charge_units bigint[], p_charge_at bigint[], p_charge_request text[])
returns table (o_i int, o_used bigint, o_others bigint)
language plpgsql as $$
declare
  v_charges int := coalesce((select sum(n) from unnest(p_group_count) n), 0);
begin
  if cardinality(p_group_endpoint) <> cardinality(p_group_item) or cardinality(p_group_count) <> cardinality(p_group_item)
    or cardinality(p_charge_units) <> v_charges or cardinality(p_charge_at) <> v_charges or cardinality(p_charge_request) <> v_charges then
    raise exception 'meter_flush: % charges in groups, but % units, % times and % request ids',
      v_charges, cardinality(p_charge_units), cardinality(p_charge_at), cardinality(p_charge_request);
  end if;

  -- meter_grant's lock order
  perform 1 from usage_meters um
  join unnest(p_account, p_meter, p_start) as d(a, m, s) on um.account_id = d.a and um.meter = d.m and um.period_start = d.s
  order by um.account_id, um.meter, um.period_start
  for update of um;

  update usage_meters um set used = um.used + d.u, updated_at = now()
  from unnest(p_account, p_meter, p_start, p_units) as d(a, m, s, u)
  where d.u <> 0 and um.account_id = d.a and um.meter = d.m and um.period_start = d.s;

  update meter_leases l set units = greatest(0, l.units - d.u - d.r)
  from unnest(p_account, p_meter, p_start, p_units, p_release) as d(a, m, s, u, r)
  where l.holder = p_holder and l.account_id = d.a and l.meter = d.m and l.period_start = d.s;

  -- renewing a lease is a row update: only those past a third of their life
  update meter_leases set expires_at = now() + make_interval(secs => p_ttl_seconds)
  where holder = p_holder and expires_at < now() + make_interval(secs => p_ttl_seconds * 2 / 3);
  delete from meter_leases where holder = p_holder and units = 0;

  insert into usage_ledger (account_id, meter, period_start, units, kind, endpoint, requests, request_ids, request_units, request_at_ms)
  select p_account[g.item], p_meter[g.item], p_start[g.item],
    (select sum(u) from unnest(p_charge_units[g.last - g.n + 1 : g.last]) u), 'charge', g.endpoint, g.n,
    p_charge_request[g.last - g.n + 1 : g.last], p_charge_units[g.last - g.n + 1 : g.last], p_charge_at[g.last - g.n + 1 : g.last]
  from (
    select c.item, c.endpoint, c.n, c.k, sum(c.n) over (order by c.k) as last
    from unnest(p_group_item, p_group_endpoint, p_group_count) with ordinality as c(item, endpoint, n, k)
  ) g
  order by g.k;

  return query
  select d.i::int, um.used,
    coalesce((select sum(l.units) from meter_leases l
      where l.account_id = d.a and l.meter = d.m and l.period_start = d.s
        and l.holder <> p_holder and l.expires_at > now()), 0)::bigint
  from unnest(p_account, p_meter, p_start) with ordinality as d(a, m, s, i)
  join usage_meters um on um.account_id = d.a and um.meter = d.m and um.period_start = d.s;
end $$;
