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

-- What an API-key authentication read of an account depends on. The API caches a
-- key's account for a moment and sends this along with every admission; a key that
-- was revoked, or an account whose billing fields changed since, fails the
-- comparison and is authenticated afresh before anything is counted.
create function billing_fingerprint(a accounts) returns text language sql stable as $$
  select md5(row(a.plan, a.email, a.payments_customer_id, a.subscription_status, a.period_start, a.period_end,
    a.trial_start, a.trial_end, a.features)::text)
$$;

-- Admission of a batch of requests in one statement (the API gathers the requests that
-- arrive while the previous batch is in the database): check each cached key, count
-- each live request against its rate-limit buckets, and reserve each admitted
-- request's largest cost on its meter row. p_items is a JSON array, in arrival order:
--   k: api key id (null: a JWT, not cached), f: its billing_fingerprint,
--   b, w, l: bucket names, window seconds and limits,
--   a: account id, p: plan, m: meter (null: nothing to reserve), s, e: period bounds, c: cost.
-- One row comes back per item ('stale', 'admitted', 'reserved' or 'refused'), plus one
-- 'rl' row per bucket of a live item (its count in the window including itself).
--
-- Locks are taken in one global order, rate-limit buckets by name, then meter rows by
-- (account, meter, period_start), so batches from several processes never deadlock.
-- Each meter row is locked with SELECT … FOR UPDATE before its requests are decided,
-- one at a time in arrival order: block mode admits a request only when settled plus
-- reserved plus its cost fits the allowance, so parallel requests cannot overshoot.
-- The allowance follows resolveAllowance() in sql/meters.ts.
create function meter_admit(p_items jsonb)
returns table (o_i int, o_kind text, o_j int, o_hits int, o_reset_ms float8,
  o_used bigint, o_reserved bigint, o_included bigint, o_mode text, o_price text)
language plpgsql as $$
declare
  n int := jsonb_array_length(p_items);
  st text[] := array_fill('admitted'::text, array[n]);
  r record;
  lb text[]; lo int[]; lj int[]; lw int[]; ll int[];
  ma uuid[]; mm text[]; ms timestamptz[]; me timestamptz[]; mp text[]; mc bigint[]; mo int[];
  idx int; e int; cnt int; q int; total int;
  v_hits int; v_reset float8; v_used bigint; v_res bigint; v_changed boolean;
  v_inc bigint; v_mode text; v_price text;
  v_rows int; v_missing int; ri int;
  ra uuid[]; rm text[]; rs timestamptz[]; ru bigint[]; rr bigint[]; rinc bigint[]; rmode text[]; rprice text[]; rchg boolean[];
  hi int[]; hj int[]; hh int[]; hr float8[]; hl int[];
begin
  -- 1. cached keys: still live, and the account as it was read
  for r in
    select t.ord::int as i
    from jsonb_array_elements(p_items) with ordinality t(x, ord)
    left join api_keys k on k.id = (t.x->>'k')::uuid
    left join accounts a on a.id = k.account_id
    where t.x->>'k' is not null
      and (k.id is null or k.revoked_at is not null or billing_fingerprint(a) is distinct from t.x->>'f')
  loop
    st[r.i] := 'stale';
    o_i := r.i; o_kind := 'stale'; return next;
  end loop;

  -- 2. rate limits: one upsert for every bucket of the batch, in bucket order; the
  -- k-th request of the batch on a bucket gets the count before the batch plus k
  with lines as (
    select t.ord::int as ord, b.j::int as j, b.bucket,
      (t.x->'w'->>(b.j::int - 1))::int as w, (t.x->'l'->>(b.j::int - 1))::int as lim
    from jsonb_array_elements(p_items) with ordinality t(x, ord),
      jsonb_array_elements_text(coalesce(t.x->'b', '[]')) with ordinality b(bucket, j)
    where st[t.ord::int] <> 'stale'
  ), per as (
    select bucket, max(w) as bw, count(*)::int as bn from lines group by bucket
  ), up as (
    insert into rate_limits as rl (bucket, window_end, hits)
    select bucket, date_bin(make_interval(secs => bw), now(), timestamptz '2000-01-01 00:00:00+00') + make_interval(secs => bw), bn
    from per order by bucket
    on conflict (bucket) do update set
      hits = case when excluded.window_end > rl.window_end then excluded.hits else rl.hits + excluded.hits end,
      window_end = greatest(rl.window_end, excluded.window_end)
    returning rl.bucket, rl.hits, (extract(epoch from rl.window_end - now()) * 1000)::float8 as reset_ms
  ), counted as (
    select l.ord, l.j, l.lim, up.reset_ms,
      (up.hits - per.bn + row_number() over (partition by l.bucket order by l.ord))::int as hits
    from lines l join per using (bucket) join up using (bucket)
  )
  select array_agg(ord order by ord, j), array_agg(j order by ord, j), array_agg(hits order by ord, j),
    array_agg(reset_ms order by ord, j), array_agg(lim order by ord, j)
  into hi, hj, hh, hr, hl
  from counted;
  for q in 1..coalesce(array_length(hi, 1), 0) loop
    o_i := hi[q]; o_kind := 'rl'; o_j := hj[q]; o_hits := hh[q]; o_reset_ms := hr[q];
    return next;
    if hh[q] > hl[q] then st[hi[q]] := 'limited'; end if;
  end loop;
  o_j := null; o_hits := null; o_reset_ms := null;

  -- 3. reservations, meter row by meter row
  select array_agg((t.x->>'a')::uuid order by (t.x->>'a')::uuid, t.x->>'m', (t.x->>'s')::timestamptz, t.ord),
    array_agg(t.x->>'m' order by (t.x->>'a')::uuid, t.x->>'m', (t.x->>'s')::timestamptz, t.ord),
    array_agg((t.x->>'s')::timestamptz order by (t.x->>'a')::uuid, t.x->>'m', (t.x->>'s')::timestamptz, t.ord),
    array_agg((t.x->>'e')::timestamptz order by (t.x->>'a')::uuid, t.x->>'m', (t.x->>'s')::timestamptz, t.ord),
    array_agg(t.x->>'p' order by (t.x->>'a')::uuid, t.x->>'m', (t.x->>'s')::timestamptz, t.ord),
    array_agg((t.x->>'c')::bigint order by (t.x->>'a')::uuid, t.x->>'m', (t.x->>'s')::timestamptz, t.ord),
    array_agg(t.ord::int order by (t.x->>'a')::uuid, t.x->>'m', (t.x->>'s')::timestamptz, t.ord)
  into ma, mm, ms, me, mp, mc, mo
  from jsonb_array_elements(p_items) with ordinality t(x, ord)
  where st[t.ord::int] = 'admitted' and t.x->>'m' is not null and (t.x->>'c')::bigint > 0;
  total := coalesce(array_length(ma, 1), 0);
  idx := 1;

  -- the usual case, every row already there: lock them all in one statement, in order
  -- (the rows are locked after sorting), decide, and write them back in one statement.
  -- A row missing (a period's first request) takes the row-by-row path below, which
  -- creates and locks rows in the same order.
  if total > 0 then
    select count(*), count(*) filter (where not exists (
        select 1 from usage_meters m where m.account_id = d.a and m.meter = d.m and m.period_start = d.s))
    into v_rows, v_missing
    from (select distinct a, m, s from unnest(ma, mm, ms) as u(a, m, s)) d;
  end if;
  if total > 0 and v_missing = 0 then
    select array_agg(account_id order by account_id, meter, period_start), array_agg(meter order by account_id, meter, period_start),
      array_agg(period_start order by account_id, meter, period_start), array_agg(used order by account_id, meter, period_start),
      array_agg(reserved order by account_id, meter, period_start), array_agg(inc order by account_id, meter, period_start),
      array_agg(mode order by account_id, meter, period_start), array_agg(price order by account_id, meter, period_start)
    into ra, rm, rs, ru, rr, rinc, rmode, rprice
    from (
      select m.account_id, m.meter, m.period_start, m.used, m.reserved,
        case when d.p = 'legacy' then null when aa.overage_mode is not null then aa.included when pm.overage_mode is not null then pm.included else 0 end as inc,
        case when d.p = 'legacy' then null when aa.overage_mode is not null then aa.overage_mode when pm.overage_mode is not null then pm.overage_mode else 'block' end as mode,
        case when d.p = 'legacy' then null when aa.overage_mode is not null then aa.overage_cents_per_unit::text when pm.overage_mode is not null then pm.overage_cents_per_unit::text end as price
      from (select a, m, s, max(p) as p from unnest(ma, mm, ms, mp) as u(a, m, s, p) group by a, m, s) d
      join usage_meters m on m.account_id = d.a and m.meter = d.m and m.period_start = d.s
      left join account_allowances aa on aa.account_id = d.a and aa.meter = d.m
      left join plan_meters pm on pm.plan_key = d.p and pm.meter = d.m
      order by m.account_id, m.meter, m.period_start
      for update of m
    ) locked;
    if coalesce(array_length(ra, 1), 0) = v_rows then
      rchg := array_fill(false, array[v_rows]);
      ri := 1;
      for q in 1..total loop
        while not (ra[ri] = ma[q] and rm[ri] = mm[q] and rs[ri] = ms[q]) loop ri := ri + 1; end loop;
        if rmode[ri] is distinct from 'block' or ru[ri] + rr[ri] + mc[q] <= rinc[ri] then
          rr[ri] := rr[ri] + mc[q];
          rchg[ri] := true;
          st[mo[q]] := 'reserved';
        else
          st[mo[q]] := 'refused';
        end if;
        o_i := mo[q]; o_kind := st[mo[q]]; o_used := ru[ri]; o_reserved := rr[ri];
        o_included := rinc[ri]; o_mode := rmode[ri]; o_price := rprice[ri];
        return next;
      end loop;
      update usage_meters m set reserved = u.r, updated_at = now()
      from unnest(ra, rm, rs, rr, rchg) as u(a, m, s, r, chg)
      where u.chg and m.account_id = u.a and m.meter = u.m and m.period_start = u.s;
      total := 0; -- decided: skip the row-by-row path
    end if;
    -- a row deleted meanwhile (its account removed): the row-by-row path below, which
    -- takes the remaining locks in order too
  end if;

  while idx <= total loop
    e := idx;
    while e < total and ma[e + 1] = ma[idx] and mm[e + 1] = mm[idx] and ms[e + 1] = ms[idx] loop e := e + 1; end loop;
    select m.used, m.reserved into v_used, v_res from usage_meters m
    where m.account_id = ma[idx] and m.meter = mm[idx] and m.period_start = ms[idx]
    for update;
    if not found then
      insert into usage_meters (account_id, meter, period_start, period_end)
      values (ma[idx], mm[idx], ms[idx], me[idx]) on conflict do nothing;
      select m.used, m.reserved into v_used, v_res from usage_meters m
      where m.account_id = ma[idx] and m.meter = mm[idx] and m.period_start = ms[idx]
      for update;
    end if;
    -- the allowance: negotiated, else the plan's; legacy uncapped; else closed
    select case when mp[idx] = 'legacy' then null when aa.overage_mode is not null then aa.included when pm.overage_mode is not null then pm.included else 0 end,
      case when mp[idx] = 'legacy' then null when aa.overage_mode is not null then aa.overage_mode when pm.overage_mode is not null then pm.overage_mode else 'block' end,
      case when mp[idx] = 'legacy' then null when aa.overage_mode is not null then aa.overage_cents_per_unit::text when pm.overage_mode is not null then pm.overage_cents_per_unit::text end
    into v_inc, v_mode, v_price
    from (select 1) one
    left join account_allowances aa on aa.account_id = ma[idx] and aa.meter = mm[idx]
    left join plan_meters pm on pm.plan_key = mp[idx] and pm.meter = mm[idx];
    v_changed := false;
    for q in idx..e loop
      if v_mode is distinct from 'block' or v_used + v_res + mc[q] <= v_inc then
        v_res := v_res + mc[q];
        v_changed := true;
        st[mo[q]] := 'reserved';
      else
        st[mo[q]] := 'refused';
      end if;
      o_i := mo[q]; o_kind := st[mo[q]]; o_used := v_used; o_reserved := v_res;
      o_included := v_inc; o_mode := v_mode; o_price := v_price;
      return next;
    end loop;
    if v_changed then
      update usage_meters set reserved = v_res, updated_at = now()
      where account_id = ma[idx] and meter = mm[idx] and period_start = ms[idx];
    end if;
    idx := e + 1;
  end loop;
  o_used := null; o_reserved := null; o_included := null; o_mode := null; o_price := null;

  -- live requests with nothing to reserve (and rate-limited ones: their rl rows tell)
  for q in 1..n loop
    if st[q] in ('admitted', 'limited') then o_i := q; o_kind := st[q]; return next; end if;
  end loop;
end $$;

-- Settlement of a batch: each item turns its reservation (r) into a charge of u units
-- (u <= r; 0 releases it all), locking meter rows in the same order as meter_admit.
-- Every charge is written to the ledger in the same statement. Items: a, m, s, r, u,
-- q (request id), ep (endpoint). Returns each item's row as it stands after the batch.
create function meter_settle(p_items jsonb)
returns table (o_i int, o_used bigint, o_reserved bigint)
language plpgsql as $$
declare
  ia int[]; iu bigint[]; ir bigint[]; k int;
begin
  -- lock the batch's rows in meter_admit's order first
  perform 1 from (
    select m.account_id from usage_meters m
    join (select distinct (t.x->>'a')::uuid as a, t.x->>'m' as mt, (t.x->>'s')::timestamptz as ps
          from jsonb_array_elements(p_items) t(x)) d
      on m.account_id = d.a and m.meter = d.mt and m.period_start = d.ps
    order by m.account_id, m.meter, m.period_start
    for update of m
  ) locked;
  with items as (
    select t.ord::int as ord, (t.x->>'a')::uuid as a, t.x->>'m' as mt, (t.x->>'s')::timestamptz as ps,
      (t.x->>'u')::bigint as units, (t.x->>'r')::bigint as res, t.x->>'q' as req, t.x->>'ep' as ep
    from jsonb_array_elements(p_items) with ordinality t(x, ord)
  ), sums as (
    select a, mt, ps, sum(units) as units, sum(res) as res from items group by a, mt, ps
  ), up as (
    update usage_meters m set used = m.used + sums.units, reserved = m.reserved - sums.res, updated_at = now()
    from sums where m.account_id = sums.a and m.meter = sums.mt and m.period_start = sums.ps
    returning m.account_id, m.meter, m.period_start, m.used, m.reserved
  ), charged as (
    insert into usage_ledger (account_id, meter, period_start, units, kind, request_id, endpoint)
    select a, mt, ps, units, 'charge', req, ep from items where units > 0 order by ord
  )
  select array_agg(i.ord), array_agg(up.used), array_agg(up.reserved) into ia, iu, ir
  from items i join up on up.account_id = i.a and up.meter = i.mt and up.period_start = i.ps;
  for k in 1..coalesce(array_length(ia, 1), 0) loop
    o_i := ia[k]; o_used := iu[k]; o_reserved := ir[k];
    return next;
  end loop;
end $$;
