-- Admission reserves on the meter row itself (docs/metering.md, "Reservations"): no row
-- per request in flight. A reservation is counted in `reserved` and stamped with the
-- ten-minute slot it was taken in; the units taken before the row's current slot are
-- `reserved_lapsing`, and they lapse when the next slot starts, so what a process that
-- died left held comes back ten to twenty minutes later with no row to sweep.
alter table usage_meters
  add column reserved_lapsing bigint not null default 0,
  add column reserved_slot bigint not null default 0,
  add constraint usage_meters_reserved_lapsing_check check (reserved_lapsing >= 0 and reserved_lapsing <= reserved);

-- Reservations of the previous version's requests still in flight: held, and lapsing
-- with the next slot.
update usage_meters um
set reserved = r.units, reserved_lapsing = r.units, reserved_slot = floor(extract(epoch from now()) / 600)::bigint
from (select account_id, meter, period_start, sum(units) as units from meter_reservations group by 1, 2, 3) r
where um.account_id = r.account_id and um.meter = r.meter and um.period_start = r.period_start;
update usage_meters um set reserved = 0
where not exists (select from meter_reservations r where r.account_id = um.account_id and r.meter = um.meter and r.period_start = um.period_start);

drop table meter_reservations;

-- An account's billing period at `at`, from its fields (every statement that charges,
-- reports or rolls a period computes it here, so no process's clock or copy of the
-- rule is involved):
--   * the trial window, while it lasts;
--   * a subscription, period_start .. period_end, and once that ends the next period of
--     the same length from there: whole months when the bounds are whole months apart,
--     counted from the first start so that a short month's clamped day does not drift
--     (Jan 31, Feb 28, Mar 31), else the same length of time;
--   * otherwise the calendar month, in UTC.
-- Month arithmetic is done on UTC wall-clock times, whatever the session's time zone.
create function billing_period(trial_start timestamptz, trial_end timestamptz, sub_start timestamptz, sub_end timestamptz, at timestamptz,
  out period_start timestamptz, out period_end timestamptz, out kind text)
language plpgsql immutable parallel safe as $$
declare
  s timestamp := sub_start at time zone 'UTC';
  e timestamp := sub_end at time zone 'UTC';
  t timestamp := at at time zone 'UTC';
  months int;
  len numeric;
  k bigint;
begin
  if trial_start <= at and at < trial_end then
    period_start := trial_start; period_end := trial_end; kind := 'trial';
  elsif sub_start <= at and sub_start < sub_end then
    kind := 'subscription';
    months := (extract(year from e) - extract(year from s)) * 12 + extract(month from e) - extract(month from s);
    if months > 0 and s + make_interval(months => months) = e then
      k := ((extract(year from t) - extract(year from s)) * 12 + extract(month from t) - extract(month from s))::bigint / months;
      while k > 0 and s + make_interval(months => (k * months)::int) > t loop k := k - 1; end loop;
      while s + make_interval(months => ((k + 1) * months)::int) <= t loop k := k + 1; end loop;
      period_start := (s + make_interval(months => (k * months)::int)) at time zone 'UTC';
      period_end := (s + make_interval(months => ((k + 1) * months)::int)) at time zone 'UTC';
    else
      -- in seconds, not days, which a daylight-saving change would stretch
      len := extract(epoch from sub_end) - extract(epoch from sub_start);
      k := floor((extract(epoch from at) - extract(epoch from sub_start)) / len);
      period_start := sub_start + make_interval(secs => k * len);
      period_end := sub_start + make_interval(secs => (k + 1) * len);
    end if;
  else
    period_start := date_trunc('month', t) at time zone 'UTC';
    period_end := (date_trunc('month', t) + interval '1 month') at time zone 'UTC';
    kind := 'calendar_month';
  end if;
  return;
end $$;
