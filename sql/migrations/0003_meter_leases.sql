-- Metering without a database round trip per request. Each API process (a holder)
-- leases units on a meter row and admits requests from its lease in memory; the row
-- lock (SELECT … FOR UPDATE) is taken when a lease is granted, so parallel holders
-- still cannot overshoot a block-mode cap: a lease is only granted out of units that
-- no one has used or leased. Settled charges are flushed in batches (meter_flush):
-- they move from the holder's lease to `used`, with one ledger row per request.
--
-- What a process holds is visible here, not on the meter row: a lease that is not
-- renewed expires, so a process that dies gives its units back on its own.

drop function meter_admit(jsonb);
drop function meter_settle(jsonb);
alter table usage_meters drop column reserved;

-- The ledger takes a row per metered request, thousands a second: checking each
-- against accounts was most of that cost (about 11 of 19 µs a row). Its rows come
-- from meter_flush, whose rows reference usage_meters, and an audit trail should
-- outlive the account anyway.
alter table usage_ledger drop constraint usage_ledger_account_id_fkey;

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

-- Keys are no longer checked against a fingerprint on every request (see billing_epoch).
drop function billing_fingerprint(accounts);

-- Changes that affect what a cached key or a lease may do. Each API process polls the
-- sequence (a read that never blocks) and, when it moved, reads keys again and
-- re-grants its leases against the new allowances.
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
-- the larger of p_need[i] and p_want[i]. Rows
-- are created when missing and locked in one global order, (account, meter, period),
-- as meter_flush and refundUsage lock them, so holders never deadlock.
-- The allowance follows resolveAllowance() in sql/meters.ts.
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

-- Flushes a holder's settled usage: p_units[i] charged units move from its lease on
-- row i to the row's `used`, and p_release[i] free units go back; each charge is also
-- written to the ledger. p_charges is a JSON array with one object per request: r (its
-- row's index in the p_ arrays), u (units), q (request id), e (endpoint), t (when,
-- epoch milliseconds); JSON because it is thousands of values a second, and parsing it
-- is cheap on both sides. Every lease of the holder is renewed for p_ttl_seconds (a
-- lease renewed within the last third of that is left as it is).
-- Returns each row's used and the units other holders lease on it, after the flush.
create function meter_flush(p_holder uuid, p_ttl_seconds int,
  p_account uuid[], p_meter text[], p_start timestamptz[], p_units bigint[], p_release bigint[],
  p_charges json)
returns table (o_i int, o_used bigint, o_others bigint)
language plpgsql as $$
begin
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

  insert into usage_ledger (account_id, meter, period_start, units, kind, request_id, endpoint, created_at)
  select p_account[c.r], p_meter[c.r], p_start[c.r], c.u, 'charge', c.q, c.e, to_timestamp(c.t / 1000)
  from json_to_recordset(p_charges) as c(r int, u bigint, q text, e text, t float8);

  return query
  select d.i::int, um.used,
    coalesce((select sum(l.units) from meter_leases l
      where l.account_id = d.a and l.meter = d.m and l.period_start = d.s
        and l.holder <> p_holder and l.expires_at > now()), 0)::bigint
  from unnest(p_account, p_meter, p_start) with ordinality as d(a, m, s, i)
  join usage_meters um on um.account_id = d.a and um.meter = d.m and um.period_start = d.s;
end $$;
