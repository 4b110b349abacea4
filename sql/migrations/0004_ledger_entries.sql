-- The ledger keeps a row per meter row, endpoint and flush rather than per request,
-- with each request's id, units and time in arrays on it (one element per request).
-- At thousands of metered requests a second a heap row and two index entries per
-- request cost Postgres about 5 µs each, more than all the rest of metering; this
-- way a flush writes a few dozen rows. Every request is still there, in order:
-- usage_ledger_charges lists them one per row.
alter table usage_ledger
  add column requests int,
  add column request_ids text[],
  add column request_units bigint[],
  add column request_at_ms bigint[];
alter table usage_ledger disable trigger usage_ledger_append_only;
update usage_ledger set requests = 1, request_ids = array[request_id], request_units = array[units],
  request_at_ms = array[(extract(epoch from created_at) * 1000)::bigint];
alter table usage_ledger enable trigger usage_ledger_append_only;
alter table usage_ledger
  drop column request_id,
  alter column requests set not null,
  alter column request_ids set not null,
  alter column request_units set not null,
  alter column request_at_ms set not null,
  add constraint usage_ledger_requests_check check (requests > 0 and cardinality(request_ids) = requests
    and cardinality(request_units) = requests and cardinality(request_at_ms) = requests),
  add constraint usage_ledger_request_sign_check check (case when kind = 'charge' then 0 < all (request_units) else 0 > all (request_units) end);
comment on column usage_ledger.units is 'the sum of request_units';
comment on column usage_ledger.created_at is 'when the row was written (a flush); request_at_ms says when each request was charged';
comment on column usage_ledger.request_at_ms is 'when each request was charged, in epoch milliseconds (usage_ledger_charges.at as a timestamp)';

-- One row per charged or refunded request; (ledger_id, position) orders them as they were settled.
create view usage_ledger_charges as
select l.id as ledger_id, c.position, l.account_id, l.meter, l.period_start, l.kind, l.endpoint, c.request_id, c.units,
  to_timestamp(c.at_ms / 1000.0) as at
from usage_ledger l
cross join lateral unnest(l.request_ids, l.request_units, l.request_at_ms) with ordinality as c(request_id, units, at_ms, position);

drop function meter_flush(uuid, int, uuid[], text[], timestamptz[], bigint[], bigint[], json);

-- For each of the holder's meter rows (distinct rows, any order): p_units[i] settled
-- units move from its lease to used, and p_release[i] free units are given back.
-- Charges arrive in groups, one per ledger row: group k is on row p_group_item[k] of
-- the p_ arrays, from endpoint p_group_endpoint[k], and holds the next
-- p_group_count[k] elements of p_charge_units, p_charge_at (epoch milliseconds) and
-- p_charge_request. Every lease of the holder is renewed for p_ttl_seconds (a lease
-- renewed within the last third of that is left as it is).
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

-- A flush's row for one meter row carries some dozens of requests, a few KB: kept in
-- the row rather than compressed and moved to TOAST, which cost more than the insert.
alter table usage_ledger set (toast_tuple_target = 8160);
